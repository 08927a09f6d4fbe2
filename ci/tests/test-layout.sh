# test-layout.sh - the README's Layout table is the tree's (ci/layout.sh,
# ci/layout.txt): every folder described, no description of a folder that
# is gone, and the README holding what layout.sh writes now.  The first
# two checks are also run against a descriptions file with a line taken
# out and one with a line added, which must fail.  Sourced by ci/test.sh
# (uses T, pass, fail, check from ci/lib.sh).

lay_out=$T/layout-table.md
if bash ci/layout.sh table > "$lay_out" 2> "$T/layout-table.err"; then
	pass "layout: every folder of the tree has a description, every description a folder"
	lay_readme=$T/layout-readme.md
	sed -n '/^<!-- layout-table:begin -->$/,/^<!-- layout-table:end -->$/p' README.md |
		sed '1d;$d' > "$lay_readme"
	if [ ! -s "$lay_readme" ]; then
		fail "layout: README's Layout table" "no rows between the layout-table markers"
	elif cmp -s "$lay_out" "$lay_readme"; then
		pass "layout: README's Layout table is ci/layout.sh's ($(($(wc -l < "$lay_out") - 2)) folders)"
	else
		fail "layout: README's Layout table" "differs from ci/layout.sh table (make readme-layout): $(diff "$lay_readme" "$lay_out" | head -4 | tr '\n' '|')"
	fi
else
	fail "layout: descriptions" "$(tr '\n' '|' < "$T/layout-table.err")"
	skip "layout: README's Layout table" "no table to compare (the descriptions failed)"
fi

# The check must see a folder without its line, and a line without its folder.
lay_txt=$T/layout-missing.txt
grep -v '^tools/compress: ' ci/layout.txt > "$lay_txt"
if LAYOUT_TXT=$lay_txt bash ci/layout.sh table > /dev/null 2> "$T/layout-missing.err" ||
		! grep -q 'tools/compress/: no description' "$T/layout-missing.err"; then
	fail "layout: a folder without a description fails" "$(tr '\n' '|' < "$T/layout-missing.err")"
else
	pass "layout: a folder without a description fails"
fi
lay_txt=$T/layout-gone.txt
{ cat ci/layout.txt; echo 'tools/gone: a folder that is not there'; } > "$lay_txt"
if LAYOUT_TXT=$lay_txt bash ci/layout.sh table > /dev/null 2> "$T/layout-gone.err" ||
		! grep -q 'tools/gone/ is not a folder' "$T/layout-gone.err"; then
	fail "layout: a description of a folder that is gone fails" "$(tr '\n' '|' < "$T/layout-gone.err")"
else
	pass "layout: a description of a folder that is gone fails"
fi
