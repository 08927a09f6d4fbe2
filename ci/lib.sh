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

# testkern_booted NAME LOG REPORT-ERE BITS: what every boot of a test
# kernel must leave in its serial LOG, a report line matching REPORT-ERE
# and testkern's "OK bits=BITS".  Fails NAME saying which is missing and
# returns 1; returns 0 with NAME neither passed nor failed, for the
# caller's own checks and pass.
testkern_booted() {
	local name=$1 log=$2 report=$3 bits=$4
	if ! grep -Eq "$report" "$log"; then
		fail "$name" "no report line like '$report'"
	elif ! grep -q "^testkern: OK bits=$bits$" "$log"; then
		fail "$name" "no 'testkern: OK bits=$bits'"
	else
		return 0
	fi
	return 1
}

# pack_debian NAME OUT ARCH BITS: Debian's ARCH kernel ($B/debian) packed
# into OUT with lz4 at BITS through the pack cache, the image several
# scripts boot; if bzpack fails, so does NAME (with its message), status 1.
pack_debian() {
	local out
	out=$(pack_cached "$2" "$B/debian/$3/vmlinuz" -c lz4 -b "$4" 2>&1) && return 0
	fail "$1" "$out"
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
