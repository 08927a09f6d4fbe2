# test-malformed.sh - the packer on bad input: every case of the corpus
# ci/fixtures/mkcorpus.sh writes, through the plain build ($B/bzpack) and the ASan +
# UBSan build ($B/asan/bzpack).  Sourced by ci/test.sh (uses B, T, pass,
# fail from ci/lib.sh).
#
# For each case and each build, one run with no output file present and
# one with an old output file in place.  Either run must
#   - exit with the case's status (1 bad input, 2 bad usage);
#   - print exactly one line on stderr, "bzpack: FILE: reason" naming the
#     case's file, with the case's fragment in it (a usage error: "bzpack:
#     reason" and then "Try 'bzpack --help' for more information."), and
#     nothing on stdout (--info: what it could read, and a "failed
#     check:" line with the fragment);
#   - leave no OUT.tmp.* behind, and no OUT (first run) or the old OUT
#     byte for byte (second run);
#   - not trip a sanitizer (their reports go to stderr and exit 99).
# Cases that name their own output (-o) get the first run only.
# One line per case covers both builds.  Needs no QEMU.

MAL_DIR=$T/malformed
MAL_OUT=$MAL_DIR/out.img
MAL_OLD=$MAL_DIR/old-output
MAL_BINS="$B/bzpack $B/asan/bzpack"
MAL_TIMEOUT=5          # a case that blocks (a FIFO) must not hang CI

# mal_run BIN ARGS...: run into $MAL_DIR/{stdout,stderr}, status in mal_status
mal_run() {
	local bin=$1; shift
	ASAN_OPTIONS=exitcode=99:detect_leaks=1:abort_on_error=0 \
	UBSAN_OPTIONS=exitcode=99:print_stacktrace=1:halt_on_error=1 \
		timeout $MAL_TIMEOUT "$bin" "$@" > "$MAL_DIR/stdout" 2> "$MAL_DIR/stderr" < /dev/null
	mal_status=$?
}

# mal_check STATUS CULPRIT FRAGMENT OUT: what one run must have done; the
# reason it did not in mal_why
mal_check() {
	local want=$1 culprit=$2 frag=$3 out=$4 lines line
	mal_why=""
	lines=$(wc -l < "$MAL_DIR/stderr")
	line=$(head -n 1 "$MAL_DIR/stderr")
	if grep -Eq 'Sanitizer|runtime error:' "$MAL_DIR/stderr"; then
		mal_why="sanitizer report: $(grep -Em2 'ERROR|SUMMARY|runtime error' "$MAL_DIR/stderr" | tr '\n' ' ')"
	elif [ "$mal_status" -eq 124 ]; then
		mal_why="still running after $MAL_TIMEOUT s"
	elif [ "$mal_status" -ne "$want" ]; then
		mal_why="exit status $mal_status, expected $want; stderr: $(head -c 300 "$MAL_DIR/stderr" | tr '\n' '|')"
	elif [ -n "$mal_info" ] && ! grep '^failed check: ' "$MAL_DIR/stdout" | grep -qF -- "$frag"; then
		mal_why="--info printed no 'failed check:' line with '$frag': $(tail -c 300 "$MAL_DIR/stdout" | tr '\n' '|')"
	elif [ -z "$mal_info" ] && [ -s "$MAL_DIR/stdout" ]; then
		mal_why="printed on stdout: $(head -c 200 "$MAL_DIR/stdout" | tr '\n' '|')"
	elif [ "$culprit" = usage ]; then
		if [ "$lines" -ne 2 ] || [[ $line != "bzpack: "*"$frag"* ]] ||
			[ "$(sed -n 2p "$MAL_DIR/stderr")" != "Try 'bzpack --help' for more information." ]; then
			mal_why="not 'bzpack: ...$frag...' then the Try line: $(head -c 300 "$MAL_DIR/stderr" | tr '\n' '|')"
		fi
	elif [ "$lines" -ne 1 ]; then
		mal_why="$lines lines on stderr, expected one: $(head -c 300 "$MAL_DIR/stderr" | tr '\n' '|')"
	elif [[ $line != "bzpack: $culprit: "* ]]; then
		mal_why="not 'bzpack: $culprit: reason': $line"
	elif [[ $line != *"$frag"* ]]; then
		mal_why="no '$frag' in: $line"
	fi
	[ -z "$mal_why" ] || return 1
	if compgen -G "$out.tmp.*" > /dev/null; then
		mal_why="left a temporary file: $(compgen -G "$out.tmp.*" | head -n 1)"
	fi
	[ -z "$mal_why" ]
}

mkdir -p "$MAL_DIR"
mal_bins=""
for mal_bin in $MAL_BINS; do
	if [ -x "$mal_bin" ]; then
		mal_bins="$mal_bins $mal_bin"
	else
		fail "malformed: $mal_bin" "not built (make all builds it; tests/fuzz.mk)"
	fi
done
MAL_BINS=$mal_bins
if ! mal_log=$(bash ci/fixtures/mkcorpus.sh 2>&1); then
	fail "malformed: ci/fixtures/mkcorpus.sh" "$(echo "$mal_log" | tail -n 3 | tr '\n' '|')"
else
	# The bases every ELF case patches must pack, or the cases prove nothing.
	for mal_base in $B/test/corpus/base-mini32.elf $B/test/corpus/base-mini64.elf; do
		for mal_bin in $MAL_BINS; do
			rm -f "$MAL_OUT" "$MAL_OUT".tmp.*
			mal_run "$mal_bin" -o "$MAL_OUT" "$mal_base"
			if [ "$mal_status" -ne 0 ] || [ ! -s "$MAL_OUT" ] || [ -s "$MAL_DIR/stderr" ] ||
				compgen -G "$MAL_OUT.tmp.*" > /dev/null; then
				fail "malformed: base $(basename "$mal_base") packs with $mal_bin" \
					"exit $mal_status: $(head -c 300 "$MAL_DIR/stderr" | tr '\n' '|')"
			else
				pass "malformed: base $(basename "$mal_base") packs with $mal_bin"
			fi
		done
	done
	[ "$(id -u)" -ne 0 ] ||
		skip "malformed: unreadable file" "running as root, who reads any file (ci/fixtures/mkcorpus.sh leaves the case out)"

	mal_n=0 mal_bad=0
	printf 'previous output, must survive a failed run\n' > "$MAL_OLD"
	while IFS='|' read -r mal_name mal_want mal_args mal_culprit mal_frag; do
		read -ra mal_argv <<< "$mal_args"
		mal_own_out="" mal_info=""
		for mal_a in "${mal_argv[@]}"; do
			[ "$mal_a" = -o ] && mal_own_out=1
			[ "$mal_a" = --info ] && [ "$mal_want" = 1 ] && mal_info=1
		done
		mal_fail=""
		for mal_bin in $MAL_BINS; do
			if [ -n "$mal_own_out" ]; then
				# -o OUT given by the case: one run, OUT must be as it was
				mal_o=${mal_args#*-o }; mal_o=${mal_o%% *}
				mal_was=$(ls -ld "$mal_o" 2>&1 | cut -c1-10)
				mal_run "$mal_bin" "${mal_argv[@]}"
				if ! mal_check "$mal_want" "$mal_culprit" "$mal_frag" "$mal_o"; then
					mal_fail="$mal_bin: $mal_why"
				elif [ "$(ls -ld "$mal_o" 2>&1 | cut -c1-10)" != "$mal_was" ]; then
					mal_fail="$mal_bin: $mal_o changed"
				fi
			else
				rm -f "$MAL_OUT" "$MAL_OUT".tmp.*
				mal_run "$mal_bin" -o "$MAL_OUT" "${mal_argv[@]}"
				if ! mal_check "$mal_want" "$mal_culprit" "$mal_frag" "$MAL_OUT"; then
					mal_fail="$mal_bin: $mal_why"
				elif [ -e "$MAL_OUT" ]; then
					mal_fail="$mal_bin: left an output file"
				else
					cp "$MAL_OLD" "$MAL_OUT"
					mal_run "$mal_bin" -o "$MAL_OUT" "${mal_argv[@]}"
					if ! mal_check "$mal_want" "$mal_culprit" "$mal_frag" "$MAL_OUT"; then
						mal_fail="$mal_bin, old output present: $mal_why"
					elif ! cmp -s "$MAL_OLD" "$MAL_OUT"; then
						mal_fail="$mal_bin: the old output file was changed"
					fi
				fi
			fi
			[ -z "$mal_fail" ] || break
		done
		mal_n=$((mal_n + 1))
		if [ -n "$mal_fail" ]; then
			mal_bad=$((mal_bad + 1))
			fail "malformed: $mal_name" "$mal_fail"
		else
			pass "malformed: $mal_name ($(head -n 1 "$MAL_DIR/stderr" | cut -c1-120))"
		fi
	done < "$B/test/corpus/cases.txt"
	rm -f "$MAL_OUT" "$MAL_OLD"
	echo "malformed: $mal_n cases, $((mal_n - mal_bad)) as expected with each of:$MAL_BINS"
fi
