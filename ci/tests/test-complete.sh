# test-complete.sh - every codec is complete, read from the tables alone:
# decode/codecs.def (the codecs) and decode/references.def (their
# references).  A codec is four places: its codecs.def line, its decoder
# (decode/<ident>_decode.c), its compressor (tools/compress/compress_<ident>.c)
# and its references.def line (whose glue is tools/reference/<name>.c).
# Everything else must follow from those with no edit, and this checks
# that it does, per codec:
#   tested       test_reference and test_codecs link its decoder and its
#                reference's glue (tests/tests.mk, from the tables);
#   fuzzed       fuzz_reference links them (tests/fuzz.mk);
#   benchmarked  bench_native links its decoder (tools/bench/bench.mk) and
#                ci/benchmarks/baseline.json has its 32- and 64-bit cells;
#   documented   the README's codec table has its row and docs/bzpack.1
#                names it.
# Runs in a second (make -p, no build).
cpl_db=$(env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make --no-print-directory -s -p -n B="$B" \
	host-tests-list 2> /dev/null)
# cpl_var NAME: the value make gives the variable NAME.
cpl_var() { sed -n "s/^$1 := //p" <<< "$cpl_db" | head -n 1; }
cpl_has() { case " $1 " in *" $2 "*) return 0 ;; esac; return 1; }

cpl_codecs=$(sed -n 's/^CODEC(\([a-z0-9_]*\), "\([^"]*\)".*/\1:\2/p' decode/codecs.def)
if [ -z "$cpl_codecs" ] || [ -z "$cpl_db" ]; then
	fail "complete: the tables" "no codecs in decode/codecs.def, or make -p printed nothing"
	cpl_codecs=""
fi
cpl_test_srcs=$(cpl_var TEST_SRCS_reference)
cpl_codecs_srcs=$(cpl_var TEST_SRCS_codecs)
cpl_fuzz_srcs=$(cpl_var FUZZ_SRCS_reference)
cpl_bench_objs=$(cpl_var BENCH_DECODE_OBJS)

for cpl_entry in $cpl_codecs; do
	cpl_id=${cpl_entry%%:*} cpl_name=${cpl_entry#*:} cpl_why=""
	[ -f "decode/${cpl_id}_decode.c" ] || cpl_why="$cpl_why no decode/${cpl_id}_decode.c;"
	[ -f "tools/compress/compress_${cpl_id}.c" ] || cpl_why="$cpl_why no tools/compress/compress_${cpl_id}.c;"
	cpl_refs=$(sed -n "s/^REFERENCE($cpl_id, \"\([^\"]*\)\", .*, \([a-z0-9_]*\), \([a-z0-9_]*\))\$/\1:\2:\3/p" \
		decode/references.def)
	[ -n "$cpl_refs" ] || cpl_why="$cpl_why no line in decode/references.def;"
	for cpl_ref in $cpl_refs; do
		cpl_glue=tools/reference/${cpl_ref%%:*}.c cpl_fns=${cpl_ref#*:}
		for cpl_fn in ${cpl_fns%%:*} ${cpl_fns#*:}; do
			grep -q "^const char \*$cpl_fn(" "$cpl_glue" 2> /dev/null ||
				cpl_why="$cpl_why $cpl_glue does not define $cpl_fn;"
		done
		cpl_has "$cpl_test_srcs" "$cpl_glue" || cpl_why="$cpl_why test_reference does not link $cpl_glue;"
		cpl_has "$cpl_fuzz_srcs" "$cpl_glue" || cpl_why="$cpl_why fuzz_reference does not link $cpl_glue;"
	done
	cpl_has "$cpl_test_srcs" "decode/${cpl_id}_decode.c" || cpl_why="$cpl_why not in test_reference;"
	cpl_has "$cpl_codecs_srcs" "decode/${cpl_id}_decode.c" || cpl_why="$cpl_why not in test_codecs;"
	cpl_has "$cpl_fuzz_srcs" "decode/${cpl_id}_decode.c" || cpl_why="$cpl_why not in fuzz_reference;"
	cpl_has "$cpl_bench_objs" "$B/tools/bench/decode/${cpl_id}_decode.o" || cpl_why="$cpl_why not in bench_native;"
	for cpl_bits in 32 64; do
		grep -q "/$cpl_name/$cpl_bits\"" ci/benchmarks/baseline.json ||
			cpl_why="$cpl_why no $cpl_name/$cpl_bits cell in ci/benchmarks/baseline.json;"
	done
	grep -q "^| \`$cpl_name\` |" README.md || cpl_why="$cpl_why no row in the README's codec table;"
	# roff writes a hyphen as \-
	grep -qF -e "$cpl_name" -e "${cpl_name//-/\\-}" docs/bzpack.1 || cpl_why="$cpl_why not named in docs/bzpack.1;"
	if [ -z "$cpl_why" ]; then
		pass "complete: $cpl_name: decoder, compressor, reference; tested, fuzzed, benchmarked, documented"
	else
		fail "complete: $cpl_name" "$cpl_why"
	fi
done
