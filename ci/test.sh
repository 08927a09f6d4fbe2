#!/bin/bash
# test.sh - every test script in ci/tests/, then "N passed, N failed, N
# skipped".  Run by `make test` after the build.
#
# Each script runs in a bash of its own (ci/lib.sh sourced, then the
# script), so no script sees another's variables or functions or working
# directory; its output goes to $T/runner/NAME.log and is printed whole,
# under "== ci/tests/NAME.sh", when it ends, and its counts are added to
# the closing line.  A script that dies before its end (an exit, a
# crash) is a failure, with its exit status.
#
# Two scripts run at a time (TEST_JOBS, default 2: QEMU is
# single-threaded, and CI has 2 cores), except those in TEST_ALONE below,
# which run with nothing else.  Scripts do not share scratch files:
# each names its own under $T, and what several build on demand
# (Debian's packages, the initramfs images, packed images in the pack
# cache, Linux's kernels) is written atomically or under a lock.
#
#   TEST_SCRIPTS="info output"   run only these (names without test- and
#                                .sh), in this order; for trying the
#                                runner or a few scripts, not for CI
#   TEST_JOBS=1                  one script at a time
set -u
cd "$(dirname "$0")/.."
. ci/lib.sh

# Run alone: test-selfcheck and test-corrupt keep two QEMUs busy
# themselves (SELFCHECK_JOBS, COR_JOBS), and their boots have 20-30 s
# timeouts; test-linux times QEMU against gdb's breakpoints with a fixed
# wait, and its kernels are what the background build below is making.
TEST_ALONE="test-selfcheck test-corrupt test-linux"

# The order: the long ones first (test-host runs every host test binary,
# test-uefi nine OVMF boots of Debian's kernel, test-loaders and test-efi
# every loader route; each takes minutes), so that the short ones fill in
# beside them; then the rest in name order; then the ones that run alone.
# test-linux goes last: it needs the kernels linux-src.sh builds in the
# background, which by then have had the whole run to finish.
TEST_FIRST="test-host test-uefi test-loaders test-efi test-debian test-kexec test-placement"
TEST_LAST="test-selfcheck test-corrupt test-linux"

if [ -n "${TEST_SCRIPTS:-}" ]; then
	order=""
	for s in $TEST_SCRIPTS; do
		[ -f "ci/tests/test-$s.sh" ] || { echo "test.sh: no ci/tests/test-$s.sh (TEST_SCRIPTS)" >&2; exit 2; }
		order="$order test-$s"
	done
else
	all=$(cd ci/tests && ls test-*.sh | sed 's/\.sh$//' | tr '\n' ' ')
	order=""
	for s in $TEST_FIRST; do
		case " $all " in *" $s "*) order="$order $s" ;; esac
	done
	for s in $all; do
		case " $TEST_FIRST $TEST_LAST " in *" $s "*) ;; *) order="$order $s" ;; esac
	done
	for s in $TEST_LAST; do
		case " $all " in *" $s "*) order="$order $s" ;; esac
	done
fi
[ -n "$order" ] || { echo "FAIL test.sh: no scripts in ci/tests/"; exit 1; }

# The Linux kernels ci/tests/test-linux.sh measures take the longest to
# build and need no QEMU: build them in the background, at the lowest
# priority, in what the tests leave of the CPU.  linux-src.sh holds a
# lock, so test-linux's own call waits for this one and then finds
# everything built; a failure here shows there.  (Only when test-linux
# is among the scripts.)
case " $order " in
*" test-linux "*) nice -n 19 bash ci/fixtures/linux-src.sh > "$T/linux-src-background.log" 2>&1 & ;;
esac

R=$T/runner
rm -rf "$R"
mkdir -p "$R"

# One script, in its own bash: its counts to NAME.counts when that bash
# ends, however it ends, and NAME.end only if the script ran to its end.
# Where they go is passed in readonly variables, not $1/$2: scripts use
# `set --` for their own ends.
run_script() {
	local name=$1 t0=$SECONDS
	TEST_SH_NAME=$name TEST_SH_OUT=$R/$name bash -c 'readonly TEST_SH_NAME TEST_SH_OUT
		trap '\''echo "$PASSED $FAILED $SKIPPED" > "$TEST_SH_OUT.counts"'\'' EXIT
		set -u; . ci/lib.sh; . "ci/tests/$TEST_SH_NAME.sh"; : > "$TEST_SH_OUT.end"' \
		> "$R/$name.log" 2>&1 < /dev/null
	echo "$? $((SECONDS - t0))" > "$R/$name.status"
}

# A finished script: its lines, then its counts into the totals.
report() {
	local name=$1 rc secs p f s
	read -r rc secs < "$R/$name.status"
	echo "== ci/tests/$name.sh (${secs} s)"
	cat "$R/$name.log"
	if read -r p f s 2> /dev/null < "$R/$name.counts" && [[ "$p $f $s" =~ ^[0-9]+\ [0-9]+\ [0-9]+$ ]]; then
		PASSED=$((PASSED + p)) FAILED=$((FAILED + f)) SKIPPED=$((SKIPPED + s))
	else
		fail "ci/tests/$name.sh" "left no counts (exit status $rc)"
	fi
	[ -e "$R/$name.end" ] || fail "ci/tests/$name.sh" "ended before its last line (exit status $rc)"
	echo "$secs $name" >> "$R/times"
}

jobs=${TEST_JOBS:-2}
[[ $jobs =~ ^[1-9][0-9]*$ ]] || { echo "test.sh: TEST_JOBS=$jobs is not a number" >&2; exit 2; }
declare -A running=()   # pid -> script
alone_running=""

# Wait for one running script to end and report it.  (Polled: bash's
# wait -n misses a job that ended while this shell was busy reporting.)
reap() {
	local pid
	while :; do
		for pid in "${!running[@]}"; do
			[ -e "$R/${running[$pid]}.status" ] || continue
			wait "$pid"
			report "${running[$pid]}"
			[ "${running[$pid]}" = "$alone_running" ] && alone_running=""
			unset "running[$pid]"
			return
		done
		sleep 1
	done
}

# Debian's packages (ci/fixtures/fetch-debian.sh): most boot scripts need
# them and several only look for them, so they are fetched before any
# script but test-host (which needs none, and runs meanwhile) starts.  A
# failed fetch is reported by the scripts that fetch for themselves.
fetched=""
for name in $order; do
	if [ -z "$fetched" ] && [ "$name" != test-host ]; then
		bash ci/fixtures/fetch-debian.sh > "$T/fetch-debian-runner.log" 2>&1 ||
			echo "test.sh: ci/fixtures/fetch-debian.sh failed: $(tail -n 1 "$T/fetch-debian-runner.log")"
		fetched=1
	fi
	case " $TEST_ALONE " in
	*" $name "*)
		while [ ${#running[@]} -gt 0 ]; do reap; done
		alone_running=$name ;;
	*)
		while [ -n "$alone_running" ] || [ ${#running[@]} -ge "$jobs" ]; do reap; done ;;
	esac
	run_script "$name" &
	running[$!]=$name
done
while [ ${#running[@]} -gt 0 ]; do reap; done

echo "$PASSED passed, $FAILED failed, $SKIPPED skipped"
[ "$FAILED" -eq 0 ]
