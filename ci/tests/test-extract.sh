# test-extract.sh - --extract of a bzpack image gives back an ELF vmlinux
# (include/bzpack_elf.h), and packing it again with the flags --info
# shows ("packed with -c CODEC -l LEVEL") gives the same image, byte for
# byte.  Sourced by ci/test.sh (ci/lib.sh: B, T, BZPACK, pass, fail, skip).
#
#   round trip   every codec x both test kernels: pack, extract, `file`
#                says ELF, readelf's program headers are the input's
#                (but for the file offsets), repack, cmp
#   relocations  testkern{32,64}-relocs (ld --emit-relocs): the table
#                comes back as the .vmlinux.relocs section, takes the
#                same image with or without --relocs of its dump
#   level        a non-default level is recorded and shown
#   Debian       both of Debian's kernels (ci/fixtures/fetch-debian.sh): the
#                program headers are those of the vmlinux in Debian's
#                bzImage, the table is the one Linux appends to it; and
#                the control: with the note removed, the repack differs
#   damage       a flipped bit in the image's ELF record, an image cut
#                inside it, and a damaged note in the ELF: one line,
#                exit 1, no output file
# Needs no QEMU; about a minute of CPU, most of it packing Debian's kernels.
EX_DIR=$T/extract
EX_TK=$B/images
mkdir -p "$EX_DIR"

for tool in readelf objcopy file cmp; do
	if ! command -v "$tool" > /dev/null; then
		skip "extract" "no $tool (binutils, file)"
		return 0 2>/dev/null || exit 0
	fi
done
ex_codecs=$(codecs) || { fail "extract: codec list" "bzpack --list-codecs failed"; return 0 2>/dev/null || exit 0; }

# The program headers readelf prints, without the file offsets (ours are
# laid out afresh).
ex_phdrs() {
	readelf -lW "$1" | awk '/^Program Headers:/ { on = 1; next } on && /^ *$/ { exit }
		on && $1 != "Type" { $2 = ""; print }'
}

# ex_round NAME INPUT REFERENCE-ELF PACK-ARGS...: pack, extract, check the
# ELF (its program headers against REFERENCE-ELF's), repack with the same
# arguments, compare.  Leaves $EX_DIR/NAME.{img,elf}.
ex_round() {
	local name=$1 input=$2 ref=$3 a=$EX_DIR/$1.img e=$EX_DIR/$1.elf b=$EX_DIR/$1.again.img out
	shift 3
	rm -f "$a" "$e" "$b"
	if ! out=$($BZPACK -q "$@" -o "$a" "$input" 2>&1); then
		fail "extract: $name: pack" "$out"
	elif ! out=$($BZPACK --extract -o "$e" "$a" 2>&1); then
		fail "extract: $name: --extract" "$out"
	elif [[ $(file -b "$e") != ELF* ]]; then
		fail "extract: $name: file says ELF" "$(file -b "$e")"
	elif [ -z "$(ex_phdrs "$e")" ] || [ "$(ex_phdrs "$e")" != "$(ex_phdrs "$ref")" ]; then
		fail "extract: $name: program headers as the input's" "$(ex_phdrs "$e" | tr '\n' '|')"
	elif ! out=$($BZPACK -q "$@" -o "$b" "$e" 2>&1); then
		fail "extract: $name: repack" "$out"
	elif ! cmp -s "$a" "$b"; then
		fail "extract: $name: repack is byte-identical" "$(cmp "$a" "$b" 2>&1 | head -n 1)"
	else
		return 0
	fi
	return 1
}

n_round=0 n_cells=0
for codec in $ex_codecs; do
	for bits in 64 32; do
		n_cells=$((n_cells + 1))
		ex_round "$codec-$bits" "$EX_TK/testkern$bits.elf" "$EX_TK/testkern$bits.elf" -c "$codec" &&
			n_round=$((n_round + 1))
	done
done
check "extract: round trip of every codec x word size byte-identical ($n_round of $n_cells)" \
	test "$n_round" -eq "$n_cells" -a "$n_cells" -ge 2

# Relocations: the table is a section of the ELF, in vmlinux.relocs form.
for bits in 64 32; do
	kr=$EX_TK/testkern$bits-relocs.elf name=relocs-$bits
	if [ ! -f "$kr" ]; then
		fail "extract: $name" "$kr not built: run make"
		continue
	fi
	ex_round "$name" "$kr" "$kr" -c xz || continue
	e=$EX_DIR/$name.elf table=$EX_DIR/$name.relocs
	rm -f "$table"
	size=$($BZPACK --info --json "$EX_DIR/$name.img" | python3 -c 'import json,sys; print(json.load(sys.stdin)["fields"]["relocs_size"])' 2>/dev/null)
	if ! objcopy --dump-section .vmlinux.relocs="$table" "$e" 2> /dev/null || [ ! -s "$table" ]; then
		fail "extract: $name: .vmlinux.relocs section" "objcopy found none in $e"
	elif [ "$(stat -c %s "$table")" != "$size" ] || [ "${size:-0}" -eq 0 ]; then
		fail "extract: $name: the table is the image's" "$(stat -c %s "$table") bytes, --info says ${size:-nothing}"
	elif ! out=$($BZPACK -q -c xz --relocs "$table" -o "$EX_DIR/$name.given.img" "$e" 2>&1) ||
		! cmp -s "$EX_DIR/$name.img" "$EX_DIR/$name.given.img"; then
		fail "extract: $name: --relocs of the dumped table gives the same image" "$out"
	else
		pass "extract: $name: table in .vmlinux.relocs ($size bytes), byte-identical with and without --relocs"
	fi
done

# The level is recorded: --info says what to pass again.
if ex_round level "$EX_TK/testkern64.elf" "$EX_TK/testkern64.elf" -c zstd -l 3; then
	line=$($BZPACK --info "$EX_DIR/level.img" | grep '^elf record:')
	note=$(readelf -n "$EX_DIR/level.elf" | grep -c bzpack)
	if [[ $line == *"packed with -c zstd -l 3"* ]] && [ "$note" -ge 1 ]; then
		pass "extract: -c zstd -l 3 recorded, shown and kept in the note"
	else
		fail "extract: level recorded" "--info: '$line', bzpack notes: $note"
	fi
fi

# Debian's kernels: a Linux vmlinux with its relocation table.
[ -s "$B/debian/amd64/vmlinuz" ] && [ -s "$B/debian/i386/vmlinuz" ] ||
	bash ci/fixtures/fetch-debian.sh > "$T/fetch-debian-extract.log" 2>&1
for arch in amd64 i386; do
	deb=$B/debian/$arch/vmlinuz linux=$EX_DIR/debian-$arch.vmlinux name=debian-$arch
	if [ ! -s "$deb" ]; then
		skip "extract: Debian's $arch kernel" "could not be fetched: $(tail -n 1 "$T/fetch-debian-extract.log" 2>/dev/null)"
		continue
	fi
	# Linux's own payload: the ELF, then its table (scripts/extract-vmlinux's output)
	if ! out=$($BZPACK --extract -o "$linux" "$deb" 2>&1); then
		fail "extract: $name: Debian's vmlinux" "$out"
		continue
	fi
	ex_round "$name" "$deb" "$linux" -c lz4 || continue
	table=$EX_DIR/$name.relocs
	rm -f "$table"
	if ! objcopy --dump-section .vmlinux.relocs="$table" "$EX_DIR/$name.elf" 2> /dev/null || [ ! -s "$table" ]; then
		fail "extract: $name: .vmlinux.relocs section" "none"
	elif ! tail -c "$(stat -c %s "$table")" "$linux" | cmp -s - "$table"; then
		fail "extract: $name: the table is the one Linux appends to its vmlinux" "differs"
	else
		pass "extract: $name: ELF, program headers, the table Linux appends ($(stat -c %s "$table") bytes), byte-identical repack"
	fi
	# Control: without its note the ELF packs as a plain vmlinux would
	# (Linux's defaults, the banner as the version): not the same image.
	objcopy --remove-section .note.bzpack "$EX_DIR/$name.elf" "$EX_DIR/$name.nonote.elf" &&
		$BZPACK -q -c lz4 -o "$EX_DIR/$name.nonote.img" "$EX_DIR/$name.nonote.elf" 2> /dev/null
	check "extract: $name control: without the note the repack differs" \
		test -s "$EX_DIR/$name.nonote.img" -a "$(cmp -s "$EX_DIR/$name.img" "$EX_DIR/$name.nonote.img"; echo $?)" = 1
done

# Damage: one line, exit 1, nothing written.
ex_refuse() {
	local name=$1 want=$2 input=$3 out st
	shift 3
	rm -f "$EX_DIR/refused.out"
	out=$($BZPACK "$@" -o "$EX_DIR/refused.out" "$input" 2>&1); st=$?
	if [ "$st" -eq 1 ] && [ "$(printf '%s\n' "$out" | wc -l)" -eq 1 ] && [[ $out == "bzpack: $input: "*"$want"* ]] &&
		[ ! -e "$EX_DIR/refused.out" ]; then
		pass "extract: $name refused: $out"
	else
		fail "extract: $name refused with one line, exit 1, no output" "status $st, output: $(printf '%s' "$out" | tr '\n' '|' | head -c 300)"
	fi
}
img=$EX_DIR/lz4-64.img
if [ -s "$img" ] && . "$B/gen/bzpack_format.sh" 2> /dev/null; then
	peek() { od -An -tu$3 -j "$2" -N "$3" "$1" | tr -d ' '; }
	so=$((($(peek "$img" "$SETUP_HDR_setup_sects" 1) + 1) * SECTOR_SIZE))
	po=$(peek "$img" "$SETUP_HDR_payload_offset" 4)
	pl=$(peek "$img" "$SETUP_HDR_payload_length" 4)
	rec=$((so + po + pl))                           # the ELF record follows the payload
	cp "$img" "$EX_DIR/record-flip.img"
	byte=$(peek "$img" $((rec + 20)) 1)
	printf "\\$(printf %03o $((byte ^ 0x10)))" | dd of="$EX_DIR/record-flip.img" bs=1 seek=$((rec + 20)) conv=notrunc status=none
	ex_refuse "a flipped bit in the ELF record" "ELF record: checksum mismatch" "$EX_DIR/record-flip.img" --extract
	ex_refuse "a flipped bit in the ELF record (repack)" "ELF record: checksum mismatch" "$EX_DIR/record-flip.img" -c lz4
	head -c $((rec + 8)) "$img" > "$EX_DIR/record-cut.img"
	ex_refuse "an image cut inside its ELF record" "ELF record: " "$EX_DIR/record-cut.img" --extract
	# the note: its version string is CRC-covered
	e=$EX_DIR/lz4-64.elf
	off=$(readelf -SW "$e" | sed -n 's/.* \.note\.bzpack  *NOTE  *[0-9a-f]*  *\([0-9a-f]*\) .*/\1/p')
	if [ -n "$off" ]; then
		off=$((0x$off))
		cp "$e" "$EX_DIR/note-flip.elf"
		printf 'X' | dd of="$EX_DIR/note-flip.elf" bs=1 seek=$((off + 12 + 8 + 32)) conv=notrunc status=none
		ex_refuse "a damaged bzpack note" ".note.bzpack note: checksum mismatch" "$EX_DIR/note-flip.elf" -c lz4
	else
		fail "extract: damaged note" "no .note.bzpack in $e"
	fi
else
	fail "extract: damage" "$img or $B/gen/bzpack_format.sh missing"
fi
