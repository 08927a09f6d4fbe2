# test-output.sh - where the packer writes, and what it reads: each kind
# of output path is written as binutils and the compressors write it, and
# never replaced when it is not a plain file (ci/lib.sh: B, T, pass, fail,
# skip).  The image written is compared byte for byte with a reference
# packed to a fresh file; -q and -v on standard error.  Needs no QEMU;
# about 10 s (most of it Debian's kernel for the progress lines).
OUT_DIR=$T/output
OUT_K=$B/images/testkern64.elf
rm -rf "$OUT_DIR"
mkdir -p "$OUT_DIR"
OUT_REF=$OUT_DIR/reference.img

# out_pack NAME ARGS...: run bzpack, stdout and stderr to $OUT_DIR/{stdout,stderr},
# status in out_status
out_pack() {
	"$BZPACK" "$@" > "$OUT_DIR/stdout" 2> "$OUT_DIR/stderr" < /dev/null
	out_status=$?
}
out_err() { head -c 300 "$OUT_DIR/stderr" | tr '\n' '|'; }
out_no_tmp() { ! compgen -G "$1.tmp.*" > /dev/null; }

if ! "$BZPACK" -o "$OUT_REF" "$OUT_K" 2> "$OUT_DIR/stderr" || [ ! -s "$OUT_REF" ]; then
	fail "output: reference image" "$(out_err)"
	return 0 2>/dev/null || exit 1
fi

# -- a new file: mode from the umask, content, no temporary file left
name="output: a new file gets 0666 less the umask (022: 0644) and the image"
f=$OUT_DIR/new.img
(umask 022; "$BZPACK" -o "$f" "$OUT_K" 2> "$OUT_DIR/stderr")
if ! cmp -s "$f" "$OUT_REF"; then fail "$name" "image differs: $(out_err)"
elif [ "$(stat -c %a "$f")" != 644 ]; then fail "$name" "mode $(stat -c %a "$f")"
elif ! out_no_tmp "$f"; then fail "$name" "a temporary file was left"
else pass "$name"; fi

# -- an existing file keeps its mode and, for root, its owner
name="output: an existing 0600 file stays 0600$([ "$(id -u)" -eq 0 ] && echo ", owned by nobody")"
f=$OUT_DIR/existing.img
echo old > "$f"; chmod 600 "$f"
[ "$(id -u)" -eq 0 ] && chown nobody:nogroup "$f"
owner_was=$(stat -c %U:%G "$f")
ino_was=$(stat -c %i "$f")
out_pack -o "$f" "$OUT_K"
if [ $out_status -ne 0 ]; then fail "$name" "exit $out_status: $(out_err)"
elif ! cmp -s "$f" "$OUT_REF"; then fail "$name" "image differs"
elif [ "$(stat -c %a "$f")" != 600 ]; then fail "$name" "mode now $(stat -c %a "$f")"
elif [ "$(stat -c %U:%G "$f")" != "$owner_was" ]; then fail "$name" "owner now $(stat -c %U:%G "$f"), was $owner_was"
elif [ "$(stat -c %i "$f")" = "$ino_was" ]; then fail "$name" "written in place, not renamed over"
else pass "$name (renamed over: a new inode)"; fi

# -- a symlink is followed; a dangling one creates its target
name="output: a symlink is followed, its target written, the link kept"
f=$OUT_DIR/link.img; t=$OUT_DIR/target.img
echo old > "$t"; ln -sf target.img "$f"
out_pack -o "$f" "$OUT_K"
if [ $out_status -ne 0 ]; then fail "$name" "exit $out_status: $(out_err)"
elif [ ! -L "$f" ] || [ "$(readlink "$f")" != target.img ]; then fail "$name" "the link was replaced"
elif ! cmp -s "$t" "$OUT_REF"; then fail "$name" "the target is not the image"
elif ! out_no_tmp "$t" || ! out_no_tmp "$f"; then fail "$name" "a temporary file was left"
else pass "$name"; fi
name="output: a dangling symlink (through a second link) creates its target"
mkdir -p "$OUT_DIR/sub"
ln -sf sub/link2 "$OUT_DIR/link1"; ln -sf ../created.img "$OUT_DIR/sub/link2"
out_pack -o "$OUT_DIR/link1" "$OUT_K"
if [ $out_status -ne 0 ]; then fail "$name" "exit $out_status: $(out_err)"
elif [ ! -L "$OUT_DIR/link1" ] || [ ! -L "$OUT_DIR/sub/link2" ]; then fail "$name" "a link was replaced"
elif ! cmp -s "$OUT_DIR/created.img" "$OUT_REF"; then fail "$name" "$OUT_DIR/created.img is not the image"
else pass "$name"; fi

# -- a file with two links is written in place: both names see the image
name="output: a file with two hard links is written in place, the links kept"
f=$OUT_DIR/hard-a.img
head -c 3000000 /dev/zero | tr '\0' x > "$f"    # longer than the image: truncated after
ln -f "$f" "$OUT_DIR/hard-b.img"
ino_was=$(stat -c %i "$f")
out_pack -o "$f" "$OUT_K"
if [ $out_status -ne 0 ]; then fail "$name" "exit $out_status: $(out_err)"
elif [ "$(stat -c %i:%h "$f")" != "$ino_was:2" ] || [ "$(stat -c %i "$OUT_DIR/hard-b.img")" != "$ino_was" ]; then
	fail "$name" "inode or link count changed: $(stat -c %i:%h "$f" "$OUT_DIR/hard-b.img" | tr '\n' ' ')"
elif ! cmp -s "$OUT_DIR/hard-b.img" "$OUT_REF"; then fail "$name" "the other link does not read the image"
else pass "$name"; fi

# -- a FIFO is written through, never replaced
name="output: a FIFO is written through and stays a FIFO"
f=$OUT_DIR/fifo
mkfifo "$f"
timeout 20 cat "$f" > "$OUT_DIR/from-fifo" &
reader=$!
timeout 20 "$BZPACK" -o "$f" "$OUT_K" 2> "$OUT_DIR/stderr"
out_status=$?
wait $reader
if [ $out_status -ne 0 ]; then fail "$name" "exit $out_status: $(out_err)"
elif [ ! -p "$f" ]; then fail "$name" "the FIFO was replaced"
elif ! cmp -s "$OUT_DIR/from-fifo" "$OUT_REF"; then fail "$name" "what the reader got is not the image"
else pass "$name"; fi

# -- "-" both ways, and standard input by its other names
name="output: -o - writes the image to standard output, and -v goes to stderr then"
"$BZPACK" -v -o - "$OUT_K" > "$OUT_DIR/stdout.img" 2> "$OUT_DIR/stderr"
out_status=$?
if [ $out_status -ne 0 ]; then fail "$name" "exit $out_status: $(out_err)"
elif [ -e ./- ] || [ -e "$OUT_DIR/-" ]; then fail "$name" "a file named - was written"
elif ! cmp -s "$OUT_DIR/stdout.img" "$OUT_REF"; then fail "$name" "standard output is not the image"
elif ! grep -q '^init_size:' "$OUT_DIR/stderr"; then fail "$name" "no -v layout on stderr: $(out_err)"
else pass "$name"; fi
name="output: -o - on a terminal is refused in one line, nothing written"
if ! command -v script > /dev/null; then
	skip "$name" "no script(1) to give bzpack a terminal"
else
	tty_out=$(script -qec "$BZPACK -o - $OUT_K" /dev/null < /dev/null 2>&1)
	tty_status=$?
	if [ $tty_status -ne 1 ] || [ "$(tr -d '\r' <<<"$tty_out")" != "bzpack: -: standard output is a terminal: not writing a binary image there" ]; then
		fail "$name" "exit $tty_status: $(head -c 300 <<<"$tty_out" | tr '\n' '|')"
	else
		pass "$name"
	fi
fi
for how in "-" /dev/stdin /proc/self/fd/0; do
	name="input: $how from a pipe reads standard input"
	rm -f "$OUT_DIR/stdin.img"
	cat "$OUT_K" | "$BZPACK" -o "$OUT_DIR/stdin.img" "$how" 2> "$OUT_DIR/stderr"
	out_status=$?
	if [ $out_status -ne 0 ]; then fail "$name" "exit $out_status: $(out_err)"
	elif ! cmp -s "$OUT_DIR/stdin.img" "$OUT_REF"; then fail "$name" "not the reference image"
	else pass "$name"; fi
done
name="input: - from a file, no -o: the image to standard output"
"$BZPACK" - < "$OUT_K" > "$OUT_DIR/stdout2.img" 2> "$OUT_DIR/stderr"
out_status=$?
if [ $out_status -ne 0 ]; then fail "$name" "exit $out_status: $(out_err)"
elif ! cmp -s "$OUT_DIR/stdout2.img" "$OUT_REF"; then fail "$name" "not the reference image"
else pass "$name"; fi
name="input: - that is empty is refused in one line"
out_pack -o "$OUT_DIR/empty.img" -
if [ $out_status -ne 1 ] || [ "$(cat "$OUT_DIR/stderr")" != "bzpack: -: empty input" ] || [ -e "$OUT_DIR/empty.img" ]; then
	fail "$name" "exit $out_status: $(out_err)"
else pass "$name"; fi

# -- -o equal to the input: read completely first
name="output: -o equal to the input replaces it with its image"
cp "$OUT_K" "$OUT_DIR/self.elf"
out_pack -o "$OUT_DIR/self.elf" "$OUT_DIR/self.elf"
if [ $out_status -ne 0 ]; then fail "$name" "exit $out_status: $(out_err)"
elif ! cmp -s "$OUT_DIR/self.elf" "$OUT_REF"; then fail "$name" "not the image"
else pass "$name"; fi

# -- a failed write leaves the old file and no temporary file.  The file
# size limit makes write() fail (EFBIG) part way, as a full disk would; the
# signal it also sends is ignored, as it is in a shell that traps it.
for kind in plain linked; do
	name="output: a write that fails part way leaves the old $kind file and no temporary file"
	f=$OUT_DIR/limited-$kind.img
	printf 'the old output\n' > "$f"
	[ $kind = linked ] && ln -f "$f" "$OUT_DIR/limited-$kind-2.img"
	cp "$f" "$OUT_DIR/limited.was"
	(trap '' XFSZ; ulimit -f 512; "$BZPACK" -o "$f" "$OUT_K") > "$OUT_DIR/stdout" 2> "$OUT_DIR/stderr" < /dev/null
	out_status=$?
	if [ $out_status -ne 1 ] || [ "$(wc -l < "$OUT_DIR/stderr")" -ne 1 ] ||
		! grep -q "^bzpack: $f: .*File too large" "$OUT_DIR/stderr"; then
		fail "$name" "exit $out_status: $(out_err)"
	elif ! cmp -s "$f" "$OUT_DIR/limited.was"; then fail "$name" "the old file changed"
	elif ! out_no_tmp "$f"; then fail "$name" "left $(compgen -G "$f.tmp.*" | head -n 1)"
	else pass "$name ($(cut -c1-100 "$OUT_DIR/stderr"))"; fi
done

# -- devices: a scratch char device of our own, never the system's
if [ "$(id -u)" -ne 0 ]; then
	skip "output: a device is written through" "not root: cannot mknod a scratch device"
elif ! mknod "$OUT_DIR/null" c 1 3 2> "$OUT_DIR/stderr" || ! mknod "$OUT_DIR/full" c 1 7 2>> "$OUT_DIR/stderr"; then
	skip "output: a device is written through" "mknod failed here: $(out_err)"
else
	name="output (root): a /dev/null-like device is written through and stays a device"
	out_pack -o "$OUT_DIR/null" "$OUT_K"
	if [ $out_status -ne 0 ]; then fail "$name" "exit $out_status: $(out_err)"
	elif [ "$(stat -c %F:%t:%T "$OUT_DIR/null")" != "character special file:1:3" ]; then
		fail "$name" "now $(stat -c %F:%t:%T "$OUT_DIR/null")"
	elif ! out_no_tmp "$OUT_DIR/null"; then fail "$name" "a temporary file was left"
	else pass "$name"; fi
	name="output (root): a /dev/full-like device fails in one line and stays a device"
	out_pack -o "$OUT_DIR/full" "$OUT_K"
	if [ $out_status -ne 1 ] || [ "$(wc -l < "$OUT_DIR/stderr")" -ne 1 ] ||
		! grep -q "^bzpack: $OUT_DIR/full: write error: No space left on device" "$OUT_DIR/stderr"; then
		fail "$name" "exit $out_status: $(out_err)"
	elif [ "$(stat -c %F:%t:%T "$OUT_DIR/full")" != "character special file:1:7" ]; then
		fail "$name" "now $(stat -c %F:%t:%T "$OUT_DIR/full")"
	else pass "$name"; fi
	name="output (root): a symlink to a scratch device writes the device"
	ln -sf null "$OUT_DIR/null-link"
	out_pack -o "$OUT_DIR/null-link" "$OUT_K"
	if [ $out_status -ne 0 ] || [ ! -L "$OUT_DIR/null-link" ] || [ ! -c "$OUT_DIR/null" ]; then
		fail "$name" "exit $out_status: $(out_err); $(ls -l "$OUT_DIR/null-link" "$OUT_DIR/null" | tr '\n' '|')"
	else pass "$name"; fi
fi

# -- -q silences progress and notes; -v stays
name="-q: a note (the payload cache cannot be written) goes, -v's layout stays"
out_pack --pack-cache /dev/null/cache -o "$OUT_DIR/note.img" "$OUT_K"
note=$(cat "$OUT_DIR/stderr")
out_pack -q -v --pack-cache /dev/null/cache -o "$OUT_DIR/note-q.img" "$OUT_K"
if [ $out_status -ne 0 ] || [ -s "$OUT_DIR/stderr" ] || [[ $note != *"payload cache not written"* ]]; then
	fail "$name" "exit $out_status; without -q: $note; with -q: $(out_err)"
elif ! grep -q '^init_size:' "$OUT_DIR/stdout"; then fail "$name" "no -v layout on stdout"
elif ! cmp -s "$OUT_DIR/note.img" "$OUT_REF" || ! cmp -s "$OUT_DIR/note-q.img" "$OUT_REF"; then
	fail "$name" "the images differ"
else pass "$name"; fi
OUT_DEB=$B/debian/i386/vmlinuz
[ -s "$OUT_DEB" ] || bash ci/fixtures/fetch-debian.sh > "$T/fetch-debian-output.log" 2>&1
if [ ! -s "$OUT_DEB" ]; then
	skip "-q on a large input" "$OUT_DEB could not be fetched: $(tail -n 1 "$T/fetch-debian-output.log" 2>/dev/null)"
else
	name="-q: a large input's progress lines go"
	out_pack -c none -o "$OUT_DIR/deb.img" "$OUT_DEB"
	progress=$(wc -l < "$OUT_DIR/stderr")
	out_pack -q -c none -o "$OUT_DIR/deb-q.img" "$OUT_DEB"
	if [ $out_status -ne 0 ] || [ -s "$OUT_DIR/stderr" ] || [ "$progress" -lt 2 ]; then
		fail "$name" "exit $out_status, $progress progress lines without -q; with -q: $(out_err)"
	elif ! cmp -s "$OUT_DIR/deb.img" "$OUT_DIR/deb-q.img"; then fail "$name" "the images differ"
	else pass "$name ($progress lines without -q)"; fi
	rm -f "$OUT_DIR/deb.img" "$OUT_DIR/deb-q.img"
fi
