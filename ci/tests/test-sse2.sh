# test-sse2.sh - the 32-bit stub needs SSE2 (stub/head_32.asm enables it,
# the Makefile builds the 32-bit C with -msse2): on a CPU without it the
# stub must say so and halt, never run SSE code that would fault.  CPUs
# with SSE2 are what every other boot test uses (QEMU's default qemu32
# and qemu64 models have it).
SSE2_IMG=$T/testkern32-lz4-sse2.img
SSE2_LOG=$T/testkern32-lz4-pentium3.log
if ! qemu-system-i386 -cpu help 2>/dev/null | grep -qw pentium3; then
	skip "32-bit stub without SSE2" "qemu-system-i386 has no pentium3 CPU model"
elif ! out=$($BZPACK -c lz4 -o "$SSE2_IMG" "$B/images/testkern32.elf" 2>&1); then
	fail "pack testkern32 lz4 for the SSE2 check" "$out"
elif boot "32-bit stub on a Pentium III (SSE, no SSE2)" 100 "$SSE2_IMG" "$SSE2_LOG" \
		-q qemu-system-i386 -c pentium3 -t 60 -a "console=ttyS0"; then
	if grep -aq "^bzpack: error: this CPU has no SSE2" "$SSE2_LOG" &&
	   ! grep -aq "^testkern:" "$SSE2_LOG"; then
		pass "32-bit stub on a Pentium III (SSE, no SSE2): refuses, says why"
	else
		fail "32-bit stub on a Pentium III (SSE, no SSE2)" \
			"no 'no SSE2' error line, or the kernel ran: $(tr '\n' '|' < "$SSE2_LOG" | cut -c1-300)"
	fi
fi
