# pack-cache.sh - pack_cached: bzpack with its payload cache (sourced, bash).
#
# Packing Debian's 60 MB kernel at xz 9e or zstd 22 takes a minute or
# more, and make test, make bench-check and make bench all pack the same
# kernels with the same codecs.  bzpack --pack-cache keeps each compressed
# payload under $B/pack-cache/, named by the packer's own CRC, the codec,
# level and kernel, and checks a hit by decoding it
# (tools/packer/payload_cache.h); `bzpack bench` in ci/benchmarks/bench.sh uses the
# same directory, so the two share their work.
#
#   pack_cached OUT INPUT BZPACK-ARGS...   exit status and stderr are
#                                          bzpack's
PACK_CACHE_DIR=${B:-build}/pack-cache

pack_cached() {
	local out=$1 input=$2
	shift 2
	"${B:-build}/bzpack" --pack-cache "$PACK_CACHE_DIR" "$@" -o "$out" "$input"
}
