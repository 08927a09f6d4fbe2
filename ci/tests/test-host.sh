# test-host.sh - host-side unit tests (tests/tests.mk): our decoders
# against the reference libraries and the packer's codec table, natively,
# -m32 (the stub's 32-bit decoders are this same C) and under ASan/UBSan.
#
# The binaries are what tests/tests.mk builds (make host-tests-list: one
# name a line, from its tables and decode/codecs.def and references.def),
# each of which must exist: one that was not built is a failure, not a
# test that quietly did not run, and an empty or failed list fails too.
#
# Each binary prints "ok CASE" / "FAIL CASE: why" / "skip: CASE: why".  Its
# exit status: 0 passed, 77 nothing it could test on this machine (a skip),
# anything else failed.  Its "skip:" lines become skips here, counted on
# test.sh's closing line.
HOST_TEST_KERNELS="$B/images/testkern32.elf $B/images/testkern64.elf"

# A make of its own: not the jobserver or flags of a `make test` around us.
if HOST_TEST_BINS=$(env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make --no-print-directory -s B="$B" \
	host-tests-list 2> "$T/host-tests-list.err") && [ -n "$HOST_TEST_BINS" ]; then
	pass "host tests: tests/tests.mk lists $(echo $HOST_TEST_BINS | wc -w) binaries"
else
	fail "host tests: tests/tests.mk lists its binaries" "make host-tests-list: $(head -c 200 "$T/host-tests-list.err")"
	HOST_TEST_BINS=""
fi

for host_name in $HOST_TEST_BINS; do
	host_exe=$B/tests/$host_name
	host_log=$T/$host_name.log
	if [ ! -x "$host_exe" ]; then
		fail "$host_name" "$host_exe was not built ('make all' builds it)"
		continue
	fi
	# The round-trip tests take the test kernels as extra inputs, and
	# fail on a missing one; the CRC tests take no arguments.  The
	# sanitizer builds look for out-of-bounds access and undefined
	# behaviour, not for wrong bytes (the plain builds check those on
	# both kernels), and the two test kernels are one program built for
	# 32 and 64 bits: each sanitizer build gets the kernel of its own word
	# size (test_codecs_asan: 147 s to 71 s).
	case $host_name in
	test_crc32*) host_args=() ;;
	*_m32_asan) host_args=($B/images/testkern32.elf) ;;
	*_asan) host_args=($B/images/testkern64.elf) ;;
	*) host_args=($HOST_TEST_KERNELS) ;;
	esac
	"$host_exe" "${host_args[@]}" > "$host_log" 2>&1
	host_rc=$?
	if [ $host_rc -eq 77 ]; then
		# The whole binary is one skip; its reasons are the why.
		skip "$host_name" "$(sed -n 's/^skip: //p' "$host_log" | tr '\n' '|')$(tail -n 1 "$host_log")"
		continue
	fi
	while IFS= read -r host_line; do
		skip "$host_name: ${host_line%%: *}" "${host_line#*: }"
	done < <(sed -n 's/^skip: //p' "$host_log")
	case $host_rc in
	0) pass "$host_name ($(tail -n 1 "$host_log"))" ;;
	*) fail "$host_name" "exit $host_rc: $(grep -m3 '^FAIL' "$host_log" | tr '\n' '|')$(tail -n 2 "$host_log" | tr '\n' ' ')" ;;
	esac
done
