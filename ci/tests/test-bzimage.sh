# test-bzimage.sh - bzpack reads existing bzImages: synthetic Linux-style
# ones made here from the test kernels with every codec Linux uses, our own
# images, broken ones, and a real kernel when this machine has one.
#
# A synthetic bzImage is what the boot protocol needs and no more: a
# real-mode part of (setup_sects + 1) sectors holding the setup header,
# then the protected-mode part with the payload at payload_offset.  The
# payload is the compressed ELF followed by its size as a le32, as Linux's
# build appends it.  Written with printf and dd: no python on CI.

# Every setup_header offset and protocol constant comes from the C header
# (include/bzpack_format.h) through build/gen/bzpack_format.sh, generated
# by tools/gen/gen_consts.c: a layout change there cannot leave a stale
# number here.
if [ ! -f "$B/gen/bzpack_format.sh" ]; then
	fail "bzImage tests" "$B/gen/bzpack_format.sh is missing: run 'make' first"
	return 0 2>/dev/null || exit 1
fi
. "$B/gen/bzpack_format.sh"
# Not generated yet (tools/gen/gen_consts.c does not print them): the
# header's values, taken from the generated file as soon as it has them.
bzi_protocol=${SETUP_PROTOCOL_VERSION:-$((0x020f))}    # 2.15
bzi_loaded_high=${LOADFLAG_LOADED_HIGH:-1}

# bzi_u8/bzi_le16/bzi_le32 VALUE: the little-endian bytes on stdout
bzi_u8() { printf "$(printf '\\x%02x' $(($1 & 255)))"; }
bzi_le16() { printf "$(printf '\\x%02x\\x%02x' $(($1 & 255)) $(($1 >> 8 & 255)))"; }
bzi_le32() {
	printf "$(printf '\\x%02x\\x%02x\\x%02x\\x%02x' $(($1 & 255)) $(($1 >> 8 & 255)) \
		$(($1 >> 16 & 255)) $(($1 >> 24 & 255)))"
}
bzi_size() { wc -c < "$1"; }
# bzi_poke FILE OFFSET < BYTES: overwrite in place
bzi_poke() { dd of="$1" bs=64K oflag=seek_bytes seek="$2" conv=notrunc status=none; }

# bzi_payload CODEC IN OUT: IN compressed as Linux's build does it, size appended
bzi_payload() {
	local codec=$1 in=$2 out=$3
	case $codec in
	gzip)   gzip -n -9 -c ;;
	bzip2)  bzip2 -9 -c ;;
	lzma)   xz --format=lzma -9 -c ;;
	xz)     xz --check=crc32 -9 -c ;;
	xz-x86) xz --check=crc32 --x86 --lzma2=preset=9,dict=32MiB -c ;;
	lzo)    lzop -9 -c ;;
	lz4)    lz4 -l -9 -c ;;
	zstd)   zstd -19 -q -c ;;
	esac < "$in" > "$out" || return 1
	bzi_le32 "$(bzi_size "$in")" >> "$out"
}

# bzi_mkbzimage OUT PAYLOAD SETUP_SECTS PAYLOAD_OFFSET VERSION-STRING
# Two of our images carry the same stub, header and payload: their
# protected-mode parts match (the real-mode part holds kernel_version,
# which a repacked bzImage takes from its input).
bzi_same_kernel_part() {
	local sa sb
	sa=$(( ($(od -An -tu1 -j $SETUP_HDR_setup_sects -N1 "$1") + 1) * SECTOR_SIZE ))
	sb=$(( ($(od -An -tu1 -j $SETUP_HDR_setup_sects -N1 "$2") + 1) * SECTOR_SIZE ))
	cmp -s <(tail -c +$((sa + 1)) "$1") <(tail -c +$((sb + 1)) "$2")
}

# Where the synthetic images keep their kernel_version string: our choice,
# past the header's end and inside the smallest real-mode part.
BZI_VERSION_AT=$((0x300))

bzi_mkbzimage() {
	local out=$1 payload=$2 sects=$3 off=$4 version=$5
	local plen setup prot
	plen=$(bzi_size "$payload")
	# setup_sects 0 means 4, as in the oldest kernels
	setup=$(( ((sects == 0 ? 4 : sects) + 1) * SECTOR_SIZE ))
	prot=$(( (off + plen + 15) / 16 * 16 ))
	head -c $((setup + prot)) /dev/zero > "$out"
	bzi_u8 "$sects"            | bzi_poke "$out" $SETUP_HDR_setup_sects
	bzi_le32 $((prot / 16))    | bzi_poke "$out" $SETUP_HDR_syssize
	bzi_le16 $SETUP_BOOT_FLAG  | bzi_poke "$out" $SETUP_HDR_boot_flag
	# a short jump (0xeb rel8) over the header, as a real kernel has
	{ bzi_u8 $((0xeb)); bzi_u8 $((SETUP_HEADER_END - SETUP_HDR_jump - 2)); } |
		bzi_poke "$out" $SETUP_HDR_jump
	bzi_le32 $SETUP_HDRS_MAGIC | bzi_poke "$out" $SETUP_HDR_header
	bzi_le16 $bzi_protocol     | bzi_poke "$out" $SETUP_HDR_version
	# kernel_version counts from the end of the boot sector
	bzi_le16 $((BZI_VERSION_AT - SECTOR_SIZE)) | bzi_poke "$out" $SETUP_HDR_kernel_version
	bzi_u8 $bzi_loaded_high    | bzi_poke "$out" $SETUP_HDR_loadflags
	# the protocol's 1 MiB for a LOADED_HIGH kernel, where ours run too
	bzi_le32 $BZPACK_LOAD_ADDR | bzi_poke "$out" $SETUP_HDR_code32_start
	# a relocatable kernel that prefers 16 MiB and needs 32 MiB from there
	bzi_le32 $((0x1000000))    | bzi_poke "$out" $SETUP_HDR_kernel_alignment
	bzi_u8 1                   | bzi_poke "$out" $SETUP_HDR_relocatable_kernel
	bzi_le32 "$off"            | bzi_poke "$out" $SETUP_HDR_payload_offset
	bzi_le32 "$plen"           | bzi_poke "$out" $SETUP_HDR_payload_length
	bzi_le32 $((0x1000000))    | bzi_poke "$out" $SETUP_HDR_pref_address
	bzi_le32 $((0x2000000))    | bzi_poke "$out" $SETUP_HDR_init_size
	# the fields a repack carries over, as Linux's header.S sets them (and
	# as packing a vmlinux does): the image then equals the ELF's
	bzi_le16 1                 | bzi_poke "$out" $SETUP_HDR_root_flags
	bzi_le16 $((0xffff))       | bzi_poke "$out" $SETUP_HDR_vid_mode
	bzi_le16 $((0x1000))       | bzi_poke "$out" $SETUP_HDR_start_sys_seg
	bzi_le16 $((0x8000))       | bzi_poke "$out" $SETUP_HDR_setup_move_size
	bzi_le32 $((0x7fffffff))   | bzi_poke "$out" $SETUP_HDR_initrd_addr_max
	bzi_le32 2047              | bzi_poke "$out" $SETUP_HDR_cmdline_size
	printf '%s\0' "$version"   | bzi_poke "$out" $BZI_VERSION_AT
	[ "$off" -gt 0 ] && head -c "$off" /dev/zero | tr '\0' '\314' | bzi_poke "$out" "$setup"
	bzi_poke "$out" $((setup + off)) < "$payload"
}

# bzi_field FILE KEY: the value of "KEY:" in bzpack --info output
bzi_field() { sed -n "s/^$2: *//p" "$1" | head -n 1; }

# bzi_info_says FILE CODEC SIZE: --info output names the codec and size
bzi_info_says() {
	grep -qx "codec: *$2" "$1" && grep -q "^decompressed: *$3 bytes" "$1"
}

# bzi_rejects NAME FILE PATTERN [OPTIONS...]: bzpack must refuse FILE with
# one line "bzpack: FILE: <PATTERN...>", exit 1, and write nothing.
bzi_rejects() {
	local name=$1 file=$2 pattern=$3 out=$T/rejected.img status
	shift 3
	rm -f "$out" "$out".tmp.*
	$BZPACK "$@" -o "$out" "$file" > "$T/rejected.out" 2> "$T/rejected.err"
	status=$?
	if [ $status -ne 1 ]; then
		fail "$name" "exit status $status, expected 1"
	elif [ "$(wc -l < "$T/rejected.err")" -ne 1 ] || ! grep -Eq "^bzpack: $file: $pattern" "$T/rejected.err"; then
		fail "$name" "stderr: $(tr '\n' '|' < "$T/rejected.err")"
	elif [ -e "$out" ] || ls "$out".tmp.* > /dev/null 2>&1; then
		fail "$name" "an output file was written"
	else
		pass "$name ($(cut -d: -f3- < "$T/rejected.err" | sed 's/^ //'))"
	fi
}

BZI_CODECS="gzip bzip2 lzma xz xz-x86 lzo lz4 zstd"

for bits in 64 32; do
	elf=$B/images/testkern$bits.elf
	if [ ! -f "$elf" ]; then
		fail "bzImage input ($bits-bit)" "$elf is missing"
		continue
	fi
	elf_size=$(bzi_size "$elf")
	direct=$T/bzi-direct$bits.img
	$BZPACK -o "$direct" "$elf" || { fail "bzImage input ($bits-bit)" "cannot pack $elf"; continue; }

	n=0
	for codec in $BZI_CODECS; do
		n=$((n + 1))
		name="bzImage ($codec, $bits-bit)"
		want=${codec%-x86}
		payload=$T/bzi-$bits-$codec.payload
		synth=$T/bzi-$bits-$codec.bzImage
		img=$T/bzi-$bits-$codec.img
		log=$T/bzi-$bits-$codec.log
		rm -f "$img"
		# vary the layout: setup_sects 0 (means 4) and payloads not at offset 0
		sects=$(( n % 3 == 0 ? 0 : n % 3 ))
		off=$(( n % 2 == 0 ? 0 : 0x1200 ))
		if ! bzi_payload "$codec" "$elf" "$payload"; then
			fail "$name" "cannot compress with $codec"; continue
		fi
		bzi_mkbzimage "$synth" "$payload" "$sects" "$off" "9.9.9-synthetic-$codec"

		if ! $BZPACK --info "$synth" > "$T/bzi-info.out" 2>&1; then
			fail "$name: --info" "$(tr '\n' '|' < "$T/bzi-info.out")"; continue
		fi
		check "$name: --info says $want, $elf_size bytes" bzi_info_says "$T/bzi-info.out" "$want" "$elf_size"
		check "$name: --info finds the ELF$bits entry" \
			grep -q "^entry: *0x[0-9a-f]* (vmlinux ELF$bits e_entry)" "$T/bzi-info.out"
		check "$name: --info reads kernel_version" \
			grep -q "^kernel_version: *9.9.9-synthetic-$codec$" "$T/bzi-info.out"

		if ! out=$($BZPACK -v -o "$img" "$synth" 2>&1 > /dev/null); then
			fail "$name: repack" "$out"; continue
		fi
		check "$name: -v names the payload" \
			grep -qxF "bzpack: $synth: bzImage with $want payload, $elf_size bytes decompressed" <<< "$out"
		check "$name: same protected-mode part as packing the ELF" bzi_same_kernel_part "$img" "$direct"
		check "$name: keeps Linux's kernel_version" \
			grep -q "^kernel_version: *9.9.9-synthetic-$codec \[bzpack" <($BZPACK --info "$img")
		if boot "$name: boots" 33 "$img" "$log" -d; then
			check "$name: boots" grep -q "^testkern: OK" "$log"
		fi

		# Cut the compressed data in half (the size trailer stays right):
		# every codec must notice.
		half=$T/bzi-half.payload
		head -c $(( ($(bzi_size "$payload") - 4) / 2 )) "$payload" > "$half"
		bzi_le32 "$elf_size" >> "$half"
		bzi_mkbzimage "$T/bzi-half.bzImage" "$half" "$sects" "$off" half
		bzi_rejects "$name: truncated payload refused" "$T/bzi-half.bzImage" "bzImage payload: $want data"

		# Bytes between the end of the stream and the size trailer are
		# not part of the kernel.
		pad=$T/bzi-pad.payload
		head -c $(( $(bzi_size "$payload") - 4 )) "$payload" > "$pad"
		head -c 16 /dev/zero >> "$pad"
		bzi_le32 "$elf_size" >> "$pad"
		bzi_mkbzimage "$T/bzi-pad.bzImage" "$pad" "$sects" "$off" padded
		if $BZPACK --info "$T/bzi-pad.bzImage" > "$T/bzi-info.out" 2>&1; then
			check "$name: padding after the stream ignored" \
				bzi_info_says "$T/bzi-info.out" "$want" "$elf_size"
		else
			fail "$name: padding after the stream ignored" "$(tr '\n' '|' < "$T/bzi-info.out")"
		fi
	done
done

# Beyond the first 8 MiB block (lz4 legacy) and 256 KiB block (lzop): the
# payload need not be an ELF for --info, which still checks the size.
big=$T/bzi-big.bin
yes "bzpack: a line to fill more than one block of every codec" | head -c $((20 << 20)) > "$big"
for codec in lz4 lzo zstd; do
	name="bzImage ($codec, 20 MiB of text)"
	bzi_payload $codec "$big" "$T/bzi-big.payload" && \
		bzi_mkbzimage "$T/bzi-big.bzImage" "$T/bzi-big.payload" 1 0 big
	if ! $BZPACK --info "$T/bzi-big.bzImage" > "$T/bzi-info.out" 2>&1; then
		fail "$name: --info" "$(tr '\n' '|' < "$T/bzi-info.out")"; continue
	fi
	check "$name: --info decompresses all $((20 << 20)) bytes" \
		grep -q "^decompressed: *$((20 << 20)) bytes" "$T/bzi-info.out"
	check "$name: --info says it is no ELF" grep -q "^entry: *unknown" "$T/bzi-info.out"
done
bzi_rejects "bzImage whose payload is no ELF refused" "$T/bzi-big.bzImage" \
	"bzImage payload: the decompressed zstd data is not an ELF"

elf=$B/images/testkern64.elf
if [ -f "$elf" ]; then
	# A vmlinux followed by relocation data (Linux's vmlinux.bin.all): only
	# the segments count.
	cat "$elf" <(head -c 12345 /dev/zero | tr '\0' '\041') > "$T/bzi-relocs.elf"
	bzi_payload gzip "$T/bzi-relocs.elf" "$T/bzi-relocs.payload"
	bzi_mkbzimage "$T/bzi-relocs.bzImage" "$T/bzi-relocs.payload" 1 0 relocs
	$BZPACK -o "$T/bzi-relocs.img" "$T/bzi-relocs.bzImage" &&
		check "bzImage with data after the ELF repacks as the ELF" \
			bzi_same_kernel_part "$T/bzi-relocs.img" "$T/bzi-direct64.img"

	# Our own images, every codec: the stored image repacked with the codec
	# gives what packing the ELF with it gives, and back with none gives
	# the stored image.
	if $BZPACK -c none -o "$T/bzi-ours-none.img" "$elf"; then
		for codec in $(codecs); do
			name="our image repacked ($codec)"
			if ! $BZPACK -c $codec -o "$T/bzi-elf-$codec.img" "$elf" ||
			   ! $BZPACK -c $codec -o "$T/bzi-from-none-$codec.img" "$T/bzi-ours-none.img" ||
			   ! $BZPACK -c none -o "$T/bzi-back-$codec.img" "$T/bzi-elf-$codec.img"; then
				fail "$name" "bzpack failed"; continue
			fi
			check "$name: none -> $codec = packing the ELF with $codec" \
				cmp -s "$T/bzi-from-none-$codec.img" "$T/bzi-elf-$codec.img"
			check "$name: $codec -> none = packing the ELF with none" \
				cmp -s "$T/bzi-back-$codec.img" "$T/bzi-ours-none.img"
		done
	else
		fail "our image repacked" "cannot pack $elf with none"
	fi

	# The default codec's repacked image boots, reads back, and its CRC
	# catches damage.
	if $BZPACK -c lz4 -o "$T/bzi-ours-lz4.img" "$T/bzi-ours-none.img"; then
		check "our image (none) repacked with lz4 = packing the ELF by default" \
			cmp -s "$T/bzi-ours-lz4.img" "$T/bzi-direct64.img"
		if boot "our image repacked: boots" 33 "$T/bzi-ours-lz4.img" "$T/bzi-ours.log" -d; then
			check "our image repacked: boots" grep -q "^testkern: OK" "$T/bzi-ours.log"
		fi
		if $BZPACK --info "$T/bzi-ours-lz4.img" > "$T/bzi-info.out" 2>&1; then
			check "--info on our image: codec lz4" grep -q "^codec: *lz4$" "$T/bzi-info.out"
			check "--info on our image: bzpack format" grep -q "^format: *bzpack image" "$T/bzi-info.out"
			check "--info on our image: overhead" \
				grep -Eq "^overhead: *[0-9]+ bytes \(setup [0-9]+ \+ stub [0-9]+ \+ header $BZPACK_HEADER_SIZE\)" "$T/bzi-info.out"
			check "--info on our image: entry from the header" \
				grep -q "^entry: *0x[0-9a-f]* (64-bit, from the bzpack header)" "$T/bzi-info.out"
		else
			fail "--info on our image" "$(tr '\n' '|' < "$T/bzi-info.out")"
		fi
		bzi_rejects "our image asked for the wrong word size refused" "$T/bzi-ours-lz4.img" \
			"bzpack image of a 64-bit kernel" -b 32
		# damage one payload byte: our CRC32C must catch it
		cp "$T/bzi-ours-lz4.img" "$T/bzi-ours-bad.img"
		size=$(bzi_size "$T/bzi-ours-bad.img")
		printf '\x5a' | bzi_poke "$T/bzi-ours-bad.img" $((size - 1000))
		bzi_rejects "our image with a damaged payload refused" "$T/bzi-ours-bad.img" \
			"bzpack payload: checksum mismatch"
	else
		fail "our image repacked" "bzpack failed"
	fi
	if $BZPACK --info "$elf" > "$T/bzi-info.out" 2>&1; then
		check "--info on an ELF describes it" grep -q "^format: *ELF64 x86 kernel" "$T/bzi-info.out"
	else
		fail "--info on an ELF" "$(tr '\n' '|' < "$T/bzi-info.out")"
	fi
fi

# Broken bzImages: one line each, exit 1, no output file.
printf 'this is not compressed data, just text. %.0s' {1..100} > "$T/bzi-garbage.payload"
bzi_le32 300000 >> "$T/bzi-garbage.payload"
bzi_mkbzimage "$T/bzi-garbage.bzImage" "$T/bzi-garbage.payload" 1 0 garbage
bzi_rejects "bzImage with a garbage payload refused" "$T/bzi-garbage.bzImage" \
	"bzImage payload: unknown compression \(magic 0x74686973\)"
if $BZPACK --info "$T/bzi-garbage.bzImage" > /dev/null 2> "$T/bzi-info.err"; then
	fail "--info on a garbage payload" "exit status 0"
else
	check "--info on a garbage payload: one line" test "$(wc -l < "$T/bzi-info.err")" -eq 1
fi

if [ -f "$T/bzi-64-gzip.payload" ]; then
	cp "$T/bzi-64-gzip.payload" "$T/bzi-flip.payload"
	printf '\xff\x00\xff\x00' | bzi_poke "$T/bzi-flip.payload" 2000
	bzi_mkbzimage "$T/bzi-flip.bzImage" "$T/bzi-flip.payload" 1 0 flipped
	bzi_rejects "bzImage with a damaged gzip payload refused" "$T/bzi-flip.bzImage" "bzImage payload: gzip data"

	head -c 1024 "$T/bzi-64-gzip.bzImage" > "$T/bzi-short.bzImage"
	bzi_rejects "bzImage cut after its setup refused" "$T/bzi-short.bzImage" "truncated bzImage"
	head -c 4000 "$T/bzi-64-gzip.bzImage" > "$T/bzi-short.bzImage"
	bzi_rejects "bzImage cut inside its payload refused" "$T/bzi-short.bzImage" \
		"bzImage payload: .* run past the end of the file"
	cp "$T/bzi-64-gzip.bzImage" "$T/bzi-old.bzImage"
	bzi_le16 $((0x0206)) | bzi_poke "$T/bzi-old.bzImage" $SETUP_HDR_version
	bzi_rejects "bzImage of boot protocol 2.06 refused" "$T/bzi-old.bzImage" "bzImage boot protocol 2.06"
fi

# A real kernel, if this machine has one (never fetched here).
# Real distro kernels: this machine's, and Debian's (fetched here if
# test-debian.sh has not yet; a failed fetch is its failure, reported there).
[ -s $B/debian/amd64/vmlinuz ] || bash ci/fixtures/fetch-debian.sh > "$T/fetch-debian-bzimage.log" 2>&1
real=0
for f in /boot/vmlinuz-* $B/debian/*/vmlinuz; do
	[ -f "$f" ] && [ -r "$f" ] || continue
	real=$((real + 1))
	name="real kernel ${f#$B/}"
	if $BZPACK --info "$f" > "$T/bzi-real.out" 2>&1; then
		pass "$name: --info ($(bzi_field "$T/bzi-real.out" codec), $(bzi_field "$T/bzi-real.out" decompressed))"
		check "$name: --info finds the vmlinux" grep -q "^vmlinux: *ELF" "$T/bzi-real.out"
	else
		fail "$name: --info" "$(tr '\n' '|' < "$T/bzi-real.out" | cut -c1-300)"
	fi
done
[ $real -gt 0 ] || skip "real kernel --info" "no /boot/vmlinuz-* and Debian's kernels could not be fetched"
