# test-pack-cache.sh - bzpack --pack-cache (tools/packer/payload_cache.h):
# a hit gives the very image a run without the cache writes; a damaged
# entry is noticed (decoded and compared) and compressed afresh, never
# used; a cache that cannot be written is said on stderr and the image is
# still written.  lzma on the 64-bit test kernel: slow enough that a
# cache is worth having, fast enough for a test.
PC_KERNEL=$B/images/testkern64.elf
PC_DIR=$T/pack-cache-test
rm -rf "$PC_DIR"

pc_pack() {   # pc_pack OUT [ARGS...]
	local out=$1
	shift
	$BZPACK "$@" -c lzma -o "$out" "$PC_KERNEL"
}

name="--pack-cache: a miss writes one entry and the image of a run without the cache"
if ! pc_pack "$T/pc-plain.img" || ! pc_pack "$T/pc-miss.img" --pack-cache "$PC_DIR"; then
	fail "$name" "bzpack failed"
elif ! cmp -s "$T/pc-plain.img" "$T/pc-miss.img"; then
	fail "$name" "images differ"
elif [ "$(find "$PC_DIR" -name '*.payload' | wc -l)" -ne 1 ]; then
	fail "$name" "entries: $(ls "$PC_DIR" 2>&1 | tr '\n' ' ')"
else
	pass "$name"
fi

# pc_same NAME IMAGE WHY: pack IMAGE through the cache; NAME passes if it
# equals the image packed without one and the entry its copy in
# $T/pc-entry, else fails with WHY.
pc_same() {
	if ! pc_pack "$2" --pack-cache "$PC_DIR"; then
		fail "$1" "bzpack failed"
	elif ! cmp -s "$T/pc-plain.img" "$2" || ! cmp -s "$entry" "$T/pc-entry"; then
		fail "$1" "$3"
	else
		pass "$1"
	fi
}

entry=$(find "$PC_DIR" -name '*.payload' | head -n 1)
name="--pack-cache: a hit gives the same image and leaves the entry as it was"
if [ -z "$entry" ]; then
	fail "$name" "no entry to hit"
else
	cp "$entry" "$T/pc-entry"
	pc_same "$name" "$T/pc-hit.img" "image or entry changed"
fi

# A flipped byte in the payload: it no longer decodes to the kernel, so
# the packer must compress again (and mend the entry), not ship it.
name="--pack-cache: a damaged entry is compressed afresh, not used"
if [ -z "$entry" ]; then
	fail "$name" "no entry to damage"
else
	printf '\xff' | dd of="$entry" bs=1 seek=64 conv=notrunc status=none
	if cmp -s "$entry" "$T/pc-entry"; then
		fail "$name" "the damage did not change the entry"
	else
		pc_same "$name" "$T/pc-mended.img" "image differs or the entry was not mended"
	fi
fi

name="--pack-cache: an unwritable cache is reported and the image still written"
: > "$T/pc-not-a-dir"
if ! err=$(pc_pack "$T/pc-nodir.img" --pack-cache "$T/pc-not-a-dir" 2>&1); then
	fail "$name" "bzpack failed: $err"
elif ! grep -q "^bzpack: .*payload cache not written" <<<"$err"; then
	fail "$name" "no message: $err"
elif ! cmp -s "$T/pc-plain.img" "$T/pc-nodir.img"; then
	fail "$name" "image differs"
else
	pass "$name"
fi
