# test-host.sh - host-side unit tests: our decoders against the reference
# libraries, natively and under ASan/UBSan.
for exe in $B/tests/*; do
	[ -x "$exe" ] && [ -f "$exe" ] || continue
	name=$(basename "$exe")
	if "$exe" $B/images/testkern32.elf $B/images/testkern64.elf > "$T/$name.log" 2>&1; then
		pass "$name ($(tail -n 1 "$T/$name.log"))"
	else
		fail "$name" "$(grep -m3 FAIL "$T/$name.log" | tr '\n' '|')$(tail -n 2 "$T/$name.log" | tr '\n' ' ')"
	fi
done
