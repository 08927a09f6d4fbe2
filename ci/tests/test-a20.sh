# test-a20.sh - each A20 method of the real-mode setup (stub/a20.inc: the
# BIOS call, the 8042 keyboard controller, port 0x92) turns the gate on by
# itself, booted as a floppy boot sector (tests/a20_boot.asm) that first
# turns A20 off and checks that it is off.
A20_BOOT=$B/tests/a20_boot.bin
log=$T/a20.log
if [ ! -f "$A20_BOOT" ]; then
	fail "A20 methods" "$A20_BOOT not built"
elif boot "A20 methods" 33 "$A20_BOOT" "$log" -F -m 32M -t 30; then
	for method in bios kbc port92; do
		check "A20 on through $method alone" grep -qx "a20: $method ok" "$log"
	done
fi
