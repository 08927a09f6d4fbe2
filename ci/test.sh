#!/bin/bash
# test.sh - every test, one line each, then "N passed, N failed".
# Run by `make test` after the build.
set -u
cd "$(dirname "$0")/.."
. ci/lib.sh

for t in ci/test-*.sh; do
	echo "== $t"
	. "$t"
done

echo "$PASSED passed, $FAILED failed"
[ "$FAILED" -eq 0 ]
