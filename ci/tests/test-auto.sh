# test-auto.sh - bzpack --version, and --codec auto on the 64-bit test
# kernel: which codec it picks at very fast and very slow storage and with
# a CPU scale, that it says why, that its table is the one it acted on
# (every candidate, best first, the chosen row's image bytes those of the
# file written), that the image is the one -c CODEC writes, and that it
# boots.
AUTO_KERNEL=$B/images/testkern64.elf

# --version: "bzpack X.Y", then "codecs: a, b, ..." with exactly the codecs
# --list-codecs gives.
name="--version prints the version and every codec built in"
out=$($BZPACK --version 2>&1)
status=$?
if [ $status -ne 0 ]; then
	fail "$name" "exit status $status: $out"
elif ! head -n 1 <<<"$out" | grep -Eqx 'bzpack [0-9]+\.[0-9]+(\.[0-9]+)?'; then
	fail "$name" "first line: $(head -n 1 <<<"$out")"
elif ! listed=$(codecs); then
	fail "$name" "no codec list to compare with"
elif ! diff <(sed -n 's/^codecs: //p' <<<"$out" | tr -d ' ' | tr ',' '\n') <(echo "$listed") >/dev/null; then
	fail "$name" "codecs line '$(sed -n 2p <<<"$out")' is not --list-codecs ($(echo $listed))"
else
	pass "$name ($(echo $listed | wc -w) codecs)"
fi

# auto_check NAME WANT-CODECS WHY ARGS...: pack AUTO_KERNEL with -c auto
# ARGS; the chosen codec must match the extended regex WANT-CODECS and the
# reason WHY.  Leaves the image in $T/auto-NAME.img, stderr in .err.
auto_check() {
	local tag=$1 want=$2 why=$3 name="--codec auto $4 $5 picks $2 ($3)"
	shift 3
	local img=$T/auto-$tag.img err=$T/auto-$tag.err
	rm -f "$img"
	$BZPACK -c auto "$@" -o "$img" "$AUTO_KERNEL" 2>"$err"
	local status=$?
	if [ $status -ne 0 ]; then
		fail "$name" "exit status $status: $(tr '\n' '|' <"$err" | cut -c1-300)"
		return 1
	fi
	local line chosen
	line=$(grep -E '^bzpack: .*: --codec auto chose ' "$err")
	chosen=$(sed -n 's/.* --codec auto chose \([a-z0-9+-]*\), .*/\1/p' <<<"$line")
	if [ -z "$line" ]; then
		fail "$name" "no 'chose' line: $(tr '\n' '|' <"$err" | cut -c1-300)"
		return 1
	fi
	if ! grep -Eqx "$want" <<<"$chosen"; then
		fail "$name" "chose '$chosen': $line"
		return 1
	fi
	if ! grep -Fq ", $why: " <<<"$line"; then
		fail "$name" "reason is not '$why': $line"
		return 1
	fi
	# The table: "  codec image-bytes MB/s read-ms decode-ms total-ms",
	# each codec as is and x86-filtered (CODEC+x86: what --bcj packs; not
	# xz, whose stream has the filter inside).
	local rows
	rows=$(grep -E '^  [a-z0-9+-]+ +[0-9]+ +[0-9]+ +[0-9.]+ +[0-9.]+ +[0-9.]+$' "$err")
	if ! diff <(awk '{print $1}' <<<"$rows" | sort) <(codecs | grep -vx none | sed -e p -e '/^xz$/d' -e 's/$/+x86/' | sort) >/dev/null; then
		fail "$name" "table rows are not every codec but none, with and without +x86: $(awk '{print $1}' <<<"$rows" | tr '\n' ' ')"
		return 1
	fi
	if [ "$(awk 'NR == 1 {print $1}' <<<"$rows")" != "$chosen" ] ||
		! awk '{print $6}' <<<"$rows" | sort -c -g 2>/dev/null; then
		fail "$name" "table not best first with $chosen on top: $(tr '\n' '|' <<<"$rows")"
		return 1
	fi
	local bytes
	bytes=$(awk 'NR == 1 {print $2}' <<<"$rows")
	if [ "$bytes" != "$(stat -c %s "$img")" ]; then
		fail "$name" "table says $bytes image bytes, the file has $(stat -c %s "$img")"
		return 1
	fi
	local ref=$T/auto-$tag-ref.img bcj=()
	[ "${chosen%+x86}" != "$chosen" ] && bcj=(--bcj)
	if ! pack_cached "$ref" "$AUTO_KERNEL" -c "${chosen%+x86}" "${bcj[@]}" 2>/dev/null; then
		fail "$name" "-c $chosen does not pack"
		return 1
	fi
	if ! cmp -s "$img" "$ref"; then
		fail "$name" "the image differs from -c $chosen's"
		return 1
	fi
	pass "$name: $(sed 's/^bzpack: [^:]*: //' <<<"$line")"
}

# Reading is free at a terabyte a second, so the fastest decoder wins;
# at 10 KB/s reading is everything, so the smallest image wins, and that
# is xz or zstd (xz on the test kernel); with decoding a million times
# faster than this host, so it does even at a SATA SSD's 500 MB/s.  The
# figures are extreme so that a loaded host's timing noise cannot move the
# choice: each margin is many times what a slowed decoder could take back.
auto_check fast lz4 "the fastest decoder" --storage-mbps 1000000
auto_check slow '(xz|zstd)(\+x86)?' "the smallest image" --storage-mbps 0.01
auto_check cpu '(xz|zstd)(\+x86)?' "the smallest image" --cpu-scale 0.000001

# --cpus 4: every candidate in 4 frames, the decode as long as the busiest
# of 4 CPUs; the image is the one -c CODEC --frames 4 writes, and it
# decodes on 4 CPUs.
name="--codec auto --cpus 4"
img=$T/auto-cpus.img err=$T/auto-cpus.err
if ! $BZPACK -c auto --cpus 4 --storage-mbps 1000000 -o "$img" "$AUTO_KERNEL" 2>"$err"; then
	fail "$name" "exit status $?: $(tail -n 1 "$err")"
else
	line=$(grep -E '^bzpack: .*: --codec auto chose ' "$err")
	chosen=$(sed -n 's/.* --codec auto chose \([a-z0-9+-]*\), .*/\1/p' <<<"$line")
	bcj=()
	[ "${chosen%+x86}" != "$chosen" ] && bcj=(--bcj)
	if [ -z "$chosen" ] || ! grep -q ', 4 frames on 4 CPUs)' <<<"$line" ||
		! grep -q ', 4 CPUs$' "$err"; then
		fail "$name" "no 'chose CODEC ... 4 frames on 4 CPUs' line: $(tr '\n' '|' < "$err" | cut -c1-300)"
	elif ! $BZPACK -q -c "${chosen%+x86}" "${bcj[@]}" --frames 4 -o "$T/auto-cpus-ref.img" "$AUTO_KERNEL" ||
		! cmp -s "$img" "$T/auto-cpus-ref.img"; then
		fail "$name" "the image is not -c $chosen --frames 4's"
	elif ! command -v qemu-system-x86_64 >/dev/null; then
		skip "$name: boots on 4 CPUs" "no qemu-system-x86_64"
	elif boot "$name" 33 "$img" "$T/auto-cpus.log" -P 4 -a "console=ttyS0" &&
		grep -aq ' frames=4 cpus=4 ' "$T/auto-cpus.log"; then
		pass "$name: $chosen in 4 frames, decoded on 4 CPUs"
	else
		fail "$name" "report: $(grep -a '^bzpack: codec=' "$T/auto-cpus.log" | cut -c1-300)"
	fi
fi

# The same under ASan + UBSan (leaks included): every candidate's buffers
# freed, none read out of bounds; the image is the one the plain build
# writes with -c and the codec chosen.  Which codec that is, the
# sanitizers decide: they slow lz4's wide copies more than lzo's short
# ones, so on a loaded host lzo-rle can come out fastest.
name="--codec auto under ASan and UBSan"
if [ ! -x "$B/asan/bzpack" ]; then
	fail "$name" "$B/asan/bzpack not built (make all builds it)"
else
	ASAN_OPTIONS=exitcode=99:detect_leaks=1 UBSAN_OPTIONS=exitcode=99:halt_on_error=1 \
		"$B/asan/bzpack" -c auto --storage-mbps 1000000 -o "$T/auto-asan.img" "$AUTO_KERNEL" \
		2>"$T/auto-asan.err"
	status=$?
	if [ $status -ne 0 ] || grep -Eq 'Sanitizer|runtime error:' "$T/auto-asan.err"; then
		fail "$name" "exit status $status: $(grep -Em2 'ERROR|SUMMARY|runtime error|bzpack:' "$T/auto-asan.err" | tr '\n' ' ')"
	else
		auto_asan_codec=$(sed -n 's/.*--codec auto chose \([a-z0-9+-]*\),.*/\1/p' "$T/auto-asan.err")
		auto_asan_bcj=()
		[ "${auto_asan_codec%+x86}" != "$auto_asan_codec" ] && auto_asan_bcj=(--bcj)
		if [ -z "$auto_asan_codec" ]; then
			fail "$name" "no 'chose CODEC' line: $(tail -n 1 "$T/auto-asan.err")"
		elif ! $BZPACK -q -c "${auto_asan_codec%+x86}" "${auto_asan_bcj[@]}" -o "$T/auto-asan-ref.img" "$AUTO_KERNEL"; then
			fail "$name" "$BZPACK -c $auto_asan_codec failed"
		else
			check "$name: the image of -c $auto_asan_codec" cmp -s "$T/auto-asan.img" "$T/auto-asan-ref.img"
		fi
	fi
fi

# The image auto wrote boots (its stub reports the codec it chose).
name="--codec auto image boots"
if ! command -v qemu-system-x86_64 >/dev/null; then
	skip "$name" "no qemu-system-x86_64"
elif [ ! -s "$T/auto-fast.img" ]; then
	fail "$name" "no image from the fast-storage run"
else
	log=$T/auto-fast.log
	boot "$name" 33 "$T/auto-fast.img" "$log" -d -a "console=ttyS0" &&
		testkern_booted "$name" "$log" '^bzpack: codec=lz4 in=[0-9]+ out=[0-9]+ cycles=[0-9]+ ' 64 &&
		pass "$name"
fi

# Usage errors: exit 2, one line, then the Try line; no output file.
auto_usage() {
	local name="usage error: $1" want=$2 img=$T/auto-usage.img
	shift 2
	rm -f "$img"
	local out status
	out=$($BZPACK "$@" -o "$img" "$AUTO_KERNEL" 2>&1)
	status=$?
	if [ $status -ne 2 ]; then
		fail "$name" "exit status $status, expected 2: $out"
	elif [ -e "$img" ]; then
		fail "$name" "an output file was written"
	elif [ "$(wc -l <<<"$out")" -ne 2 ] || ! head -n 1 <<<"$out" | grep -q "^bzpack: .*$want" ||
		[ "$(sed -n 2p <<<"$out")" != "Try 'bzpack --help' for more information." ]; then
		fail "$name" "message: $out"
	else
		pass "$name ($out)"
	fi
}
auto_usage "-l with -c auto" "takes no --level" -c auto -l 3
auto_usage "--storage-mbps without -c auto" "go with --codec auto" --storage-mbps 100
auto_usage "--storage-mbps 0" "positive number" -c auto --storage-mbps 0
auto_usage "--cpus without -c auto" "go with --codec auto" --cpus 2
auto_usage "--cpus 9" "takes 1\.\.8" -c auto --cpus 9
auto_usage "--frames with -c auto" "give a codec with --frames" -c auto --frames 2
auto_usage "--cpu-scale not a number" "positive number" -c auto --cpu-scale fast
