# seed.gnuplot - the seed's experiment (tools/bench/bench_seed.c): decode
# speed of lzo and lzo-rle against the share of zero bytes in a page, and
# what the pages compress to.  @DAT@ is `ci/benchmarks/nativejson.py seed-dat`'s output.
set terminal svg size 760,480 dynamic font "sans,12" noenhanced
set title "4 KiB pages with zero runs, each compressed alone, decoded page by page"
set xlabel "zero bytes per page (%)"
set ylabel "decode speed (MB/s of output, best)"
set y2label "compressed / original (dashed)"
set xrange [-2:101]
set xtics ("0" 0, "25" 25, "50" 50, "75" 75, "90" 90, "99" 99)
set yrange [0:*]
set y2range [0:1]
set ytics nomirror
set y2tics 0.1
set grid xtics ytics
set key top left
# Titles of our own: gnuplot's default is the data file's path, which
# would put build/... into the committed docs/seed.svg.  (noenhanced:
# the underscores in the decoders' names are not subscripts.)  The lzo
# size line is the wider one: the two sizes nearly coincide.
plot "@DAT@" using 1:2 title "lzo, ours (lzo_decode)" with linespoints lw 2 pt 7 lc rgb "#1f77b4", \
     "@DAT@" using 1:3 title "lzo, liblzo2 (lzo1x_decompress_safe)" with linespoints lw 2 pt 5 lc rgb "#7f7f7f", \
     "@DAT@" using 1:4 title "lzo-rle, ours (lzo_rle_decode)" with linespoints lw 2 pt 9 lc rgb "#d62728", \
     "@DAT@" using 1:5 axes x1y2 title "lzo size" with lines dt 2 lw 4 lc rgb "#1f77b4", \
     "@DAT@" using 1:6 axes x1y2 title "lzo-rle size" with lines dt 2 lw 1.5 lc rgb "#d62728"
