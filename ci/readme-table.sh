#!/bin/bash
# readme-table.sh [--readme FILE] [--check] NAME FILE... - put the FILEs'
# lines ("-": standard input), one after another, into README.md (or
# --readme FILE) between the lines "<!-- NAME:begin -->" and
# "<!-- NAME:end -->", replacing what was there: tables in the README are
# written by the commands that measure them, never by hand (a table whose
# rows come from several tests takes one FILE from each).  The one tool
# that rewrites a README section: every readme target and script uses it.
# Fails, changing nothing, when a FILE or a marker is missing.  --check
# changes nothing either: exit 1, showing the difference, if the section
# is not already those lines.
set -uo pipefail
cd "$(dirname "$0")/.."
readme=README.md check=0
while [ $# -gt 0 ]; do
	case $1 in
	--readme) readme=$2; shift 2 ;;
	--check) check=1; shift ;;
	*) break ;;
	esac
done
[ $# -gt 1 ] || { echo "usage: readme-table.sh [--readme FILE] [--check] NAME FILE..." >&2; exit 2; }
name=$1 begin="<!-- $1:begin -->" end="<!-- $1:end -->"
shift
[ "$(grep -cxF -- "$begin" "$readme")" = 1 ] && [ "$(grep -cxF -- "$end" "$readme")" = 1 ] ||
	{ echo "readme-table: $readme needs one $begin ... $end pair" >&2; exit 1; }
rows=$(mktemp "$readme.rows.XXXXXX") new=$(mktemp "$readme.new.XXXXXX")
trap 'rm -f "$rows" "$new"' EXIT
for file in "$@"; do
	if [ "$file" = - ]; then
		cat >> "$rows"
	elif [ -s "$file" ]; then
		cat "$file" >> "$rows"
	else
		echo "readme-table: $file missing or empty (run make test first)" >&2
		exit 1
	fi
done
[ -s "$rows" ] || { echo "readme-table: no lines for $name" >&2; exit 1; }
awk -v b="$begin" -v e="$end" -v f="$rows" '
	$0 == b { print; while ((getline line < f) > 0) print line; skip = 1; next }
	$0 == e { skip = 0 }
	!skip { print }' "$readme" > "$new" || exit 1
if [ "$check" = 1 ]; then
	cmp -s "$readme" "$new" && exit 0
	echo "readme-table: $readme's $name section is not what it would be now:"
	diff "$readme" "$new" | grep '^[<>]' | head -n 6
	exit 1
fi
cmp -s "$readme" "$new" || { cat "$new" > "$readme.tmp" && mv "$readme.tmp" "$readme"; } || exit 1
echo "readme-table: $readme $name rewritten from $*"
