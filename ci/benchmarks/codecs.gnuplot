# codecs.gnuplot - compression ratio against decompression speed, one
# point per codec and word size (test kernels, icount clock).
set terminal svg size 720,480 dynamic font "sans,12"
set title "bzpack codecs: size against decompression speed (test kernels)"
set xlabel "compressed / original size"
set ylabel "output bytes per 1000 guest instructions (icount)"
set grid
set key off
set xrange [0:1.1]
set yrange [0:*]
# Titles of our own: gnuplot's default is the data file's path, which
# would put build/... into the committed docs/codecs.svg.
plot "@DAT@" using 2:3 title "codecs" with points pointtype 7 pointsize 1.5, \
     "@DAT@" using 2:3:1 title "names" with labels offset 1,1 left
