#!/bin/bash
# test.sh - every test, one line each, then "N passed, N failed, N skipped".
# Run by `make test` after the build.
set -u
cd "$(dirname "$0")/.."
. ci/lib.sh

for t in ci/test-*.sh; do
	echo "== $t"
	. "$t"
done

echo "$PASSED passed, $FAILED failed, $SKIPPED skipped"
[ "$FAILED" -eq 0 ]
