# test-bench.sh - the regression gate must catch the seed's regression:
# stubs built -fno-builtin (constant-size memcpy no longer inlined) make
# bench-check fail and name the LZ4 cells.
log=$T/bench-regress.log
if make --no-print-directory B=$B/regress EXTRA_STUB_CFLAGS=-fno-builtin bench-check > "$log" 2>&1; then
	fail "bench-check catches -fno-builtin" "it passed: $(tail -n 1 "$log")"
else
	missing=""
	for cell in lz4/32/testkern32 lz4/64/testkern64; do
		grep -q "^WORSE   $cell cycles" "$log" || missing="$missing $cell"
	done
	if [ -n "$missing" ]; then
		fail "bench-check catches -fno-builtin" "did not name$missing: $(grep -E '^(WORSE|bench-check)' "$log" | tr '\n' '|')"
	else
		pass "bench-check catches -fno-builtin ($(grep -c '^WORSE' "$log") worse: $(grep '^WORSE' "$log" | awk '{print $2}' | sort -u | tr '\n' ' '))"
	fi
fi
