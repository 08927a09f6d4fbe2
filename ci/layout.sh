#!/bin/bash
# layout.sh - the README's Layout table, written from the tree: one row per
# folder that holds a file (build/, dot-folders and __pycache__ aside), its text from
# ci/layout.txt (LAYOUT_TXT overrides the path, for the test).
#   layout.sh table    print the table; fails, naming them, when a folder
#                      has no line or a line names a folder that is gone
#   layout.sh readme   the same table into README.md between
#                      "<!-- layout-table:begin -->" and ":end -->"
set -uo pipefail
cd "$(dirname "$0")/.."
txt=${LAYOUT_TXT:-ci/layout.txt}

# The folders of the tree and those ci/layout.txt describes, sorted.
tree_folders() {
	find . -mindepth 1 \( -path ./build -o -name '.*' -o -name __pycache__ \) -prune -o -type f -printf '%h\n' |
		sed -n 's#^\./##p' | sort -u
}
described() { sed -n 's/^\([^# ][^:]*\): .*/\1/p' "$txt"; }

table() {
	[ -r "$txt" ] || { echo "layout: $txt: cannot read" >&2; return 1; }
	local bad=0 f
	for f in $(comm -23 <(tree_folders) <(described | sort -u)); do
		echo "layout: $f/: no description in $txt" >&2; bad=1
	done
	for f in $(comm -13 <(tree_folders) <(described | sort -u)); do
		echo "layout: $txt: $f/ is not a folder of the tree" >&2; bad=1
	done
	[ -z "$(described | sort | uniq -d)" ] ||
		{ echo "layout: $txt: a folder described twice: $(described | sort | uniq -d)" >&2; bad=1; }
	[ "$bad" -eq 0 ] || return 1
	echo '| folder | what |'
	echo '|---|---|'
	sed -n 's/^\([^# ][^:]*\): \(.*\)/| `\1\/` | \2 |/p' "$txt"
}

case ${1:-} in
table) table ;;
readme)
	rows=$(mktemp) || exit 1
	table > "$rows" && bash ci/readme-table.sh layout-table "$rows"
	rc=$?; rm -f "$rows"; exit $rc ;;
*) echo "usage: layout.sh table|readme" >&2; exit 2 ;;
esac
