#!/bin/bash
# readme-table.sh NAME FILE - put FILE's lines into README.md between the
# lines "<!-- NAME:begin -->" and "<!-- NAME:end -->", replacing what was
# there: tables in the README are written by the commands that measure
# them, never by hand.  Fails, changing nothing, when FILE or a marker is
# missing.
set -uo pipefail
cd "$(dirname "$0")/.."
name=$1 file=$2 begin="<!-- $1:begin -->" end="<!-- $1:end -->"
[ -s "$file" ] || { echo "readme-table: $file missing or empty (run make test first)" >&2; exit 1; }
grep -qxF -- "$begin" README.md && grep -qxF -- "$end" README.md ||
	{ echo "readme-table: README.md has no $begin ... $end lines" >&2; exit 1; }
awk -v b="$begin" -v e="$end" -v f="$file" '
	$0 == b { print; while ((getline line < f) > 0) print line; skip = 1; next }
	$0 == e { skip = 0 }
	!skip { print }' README.md > README.md.tmp && mv README.md.tmp README.md
echo "readme-table: README.md $name rewritten from $file"
