# lib.sh - what the test scripts share (sourced, bash).
# A check prints "ok NAME", "FAIL NAME: why" or "skip: NAME: why" and
# counts itself.  A check that cannot run here says so with skip, never
# by passing or by leaving itself out.

B=${B:-build}
BZPACK=$B/bzpack
T=$B/test                     # scratch for test images and logs
mkdir -p "$T"
: "${PASSED:=0}" "${FAILED:=0}" "${SKIPPED:=0}"

# shellcheck source=ci/pack-cache.sh
. ci/pack-cache.sh

pass() { PASSED=$((PASSED + 1)); echo "ok $1"; }
fail() { FAILED=$((FAILED + 1)); echo "FAIL $1: $2"; }
# skip NAME WHY: the check could not run on this machine (WHY says what
# is missing); counted on the closing line, not as a pass.
skip() { SKIPPED=$((SKIPPED + 1)); echo "skip: $1: $2"; }

# check NAME CONDITION-COMMAND... : pass if the command succeeds
check() {
	local name=$1; shift
	if "$@"; then pass "$name"; else fail "$name" "$*"; fi
}

# The codecs the packer carries (decode/codecs.def), one per line; every
# loop over codecs takes them from here.  An empty list is an error: a
# loop over nothing would pass having checked nothing.
codecs() {
	local list
	list=$($BZPACK --list-codecs) && [ -n "$list" ] || {
		echo "FAIL $BZPACK --list-codecs printed no codecs" >&2
		return 1
	}
	echo "$list"
}

# The report line's value for KEY, from a serial log.
report_field() {
	grep -m1 '^bzpack: codec=' "$1" | tr ' ' '\n' | sed -n "s/^$2=//p"
}

# boot NAME EXPECTED-STATUS IMAGE LOG [qemu-boot.sh options...]
# Runs the image and checks QEMU's exit status.
boot() {
	local name=$1 want=$2 image=$3 log=$4; shift 4
	bash ci/qemu-boot.sh "$@" "$image" "$log"
	local got=$?
	if [ "$got" -eq "$want" ]; then
		return 0
	fi
	fail "$name" "QEMU exit status $got, expected $want; serial: $(tr '\n' '|' < "$log" | cut -c1-300)"
	return 1
}

# payload_middle IMAGE: the file offset of the middle of a bzpack image's
# payload, from --info (what follows the payload, the ELF record and any
# embedded section, is no part of it); nothing and status 1 if --info
# gives no real-mode size or payload.
payload_middle() {
	local info rm off len
	info=$($BZPACK --info "$1") || return 1
	rm=$(sed -n 's/^real-mode: *\([0-9]*\) bytes.*/\1/p' <<< "$info")
	read -r off len < <(sed -n 's/^payload: *offset \(0x[0-9a-f]*\) in the protected-mode part, \([0-9]*\) bytes.*/\1 \2/p' <<< "$info")
	[ -n "$rm" ] && [ -n "$len" ] || return 1
	echo $((rm + off + len / 2))
}
