#!/bin/bash
# readme-table.sh NAME FILE... - put the FILEs' lines, one after another,
# into README.md between the lines "<!-- NAME:begin -->" and
# "<!-- NAME:end -->", replacing what was there: tables in the README are
# written by the commands that measure them, never by hand (a table whose
# rows come from several tests takes one FILE from each).  Fails, changing
# nothing, when a FILE or a marker is missing.
set -uo pipefail
cd "$(dirname "$0")/.."
name=$1 begin="<!-- $1:begin -->" end="<!-- $1:end -->"
shift
[ $# -gt 0 ] || { echo "usage: readme-table.sh NAME FILE..." >&2; exit 2; }
for file in "$@"; do
	[ -s "$file" ] || { echo "readme-table: $file missing or empty (run make test first)" >&2; exit 1; }
done
grep -qxF -- "$begin" README.md && grep -qxF -- "$end" README.md ||
	{ echo "readme-table: README.md has no $begin ... $end lines" >&2; exit 1; }
cat "$@" > README.md.rows
awk -v b="$begin" -v e="$end" -v f=README.md.rows '
	$0 == b { print; while ((getline line < f) > 0) print line; skip = 1; next }
	$0 == e { skip = 0 }
	!skip { print }' README.md > README.md.tmp && mv README.md.tmp README.md
rm -f README.md.rows
echo "readme-table: README.md $name rewritten from $*"
