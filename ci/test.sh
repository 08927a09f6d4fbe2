#!/bin/bash
# test.sh - every test, one line each, then "N passed, N failed, N skipped".
# Run by `make test` after the build.
set -u
cd "$(dirname "$0")/.."
. ci/lib.sh

# The Linux kernels ci/tests/test-linux.sh measures take the longest to build
# and need no QEMU: build them in the background, at the lowest priority,
# while the boot tests (one single-threaded QEMU at a time) leave a core
# idle.  linux-src.sh holds a lock, so test-linux's own call waits for
# this one and then finds everything built; a failure here shows there.
nice -n 19 bash ci/fixtures/linux-src.sh > "$T/linux-src-background.log" 2>&1 &

for t in ci/tests/test-*.sh; do
	echo "== $t"
	. "$t"
done

echo "$PASSED passed, $FAILED failed, $SKIPPED skipped"
[ "$FAILED" -eq 0 ]
