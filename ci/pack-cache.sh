# pack-cache.sh - pack_cached: bzpack with a cache (sourced, bash).
#
# Packing Debian's 60 MB kernel at xz 9e or zstd 22 takes a minute or
# more, and make test, make bench-check and make bench all pack the same
# kernels with the same codecs.  bzpack's output is byte-identical for the
# same packer, input and arguments (test-boot checks that), so an image is
# kept under $B/pack-cache/ by the SHA-256 of all three and copied from
# there when asked again.  A new packer (any rebuild that changes its
# bytes, stubs included: they are inside it) misses the cache.
#
#   pack_cached OUT INPUT BZPACK-ARGS...   exit status and stderr are
#                                          bzpack's on a miss
pack_cached() {
	local out=$1 input=$2 dir=${B:-build}/pack-cache key
	shift 2
	key=$({ sha256sum "${B:-build}/bzpack" "$input" | cut -d' ' -f1; printf '%s\n' "$@"; } |
		sha256sum | cut -c1-32)
	mkdir -p "$dir"
	if [ -s "$dir/$key.img" ]; then
		cp "$dir/$key.img" "$out"
		return 0
	fi
	"${B:-build}/bzpack" "$@" -o "$out" "$input" || return
	cp "$out" "$dir/$key.img.tmp" && mv "$dir/$key.img.tmp" "$dir/$key.img"
}
