# test-host.sh - host-side unit tests (tests/tests.mk): our decoders
# against the reference libraries and the packer's codec table, natively,
# -m32 (the stub's 32-bit decoders are this same C) and under ASan/UBSan.
#
# The binaries are named here, not found by a glob: one that was not built
# is a failure, not a test that quietly did not run.  The list is compared
# with what tests/tests.mk builds (make host-tests-list), so a new test
# cannot be built and then forgotten here either.
#
# Each binary prints "ok CASE" / "FAIL CASE: why" / "skip: CASE: why".  Its
# exit status: 0 passed, 77 nothing it could test on this machine (a skip),
# anything else failed.  Its "skip:" lines become skips here, counted on
# test.sh's closing line.
HOST_TEST_BINS="
	test_lz4 test_lz4_asan test_lz4_m32 test_lz4_m32_asan
	test_crc32c test_crc32c_asan test_crc32c_m32 test_crc32c_m32_asan
	test_codecs test_codecs_asan
	test_lzo test_lzo_asan test_lzo_m32 test_lzo_m32_asan
	test_gzip test_gzip_asan test_gzip32_asan
	test_bzip2 test_bzip2_asan
	test_xz test_xz_asan
	test_zstd test_zstd_asan
	test_tool_files test_tool_files_asan test_tool_files_m32 test_tool_files_m32_asan
"
HOST_TEST_KERNELS="$B/images/testkern32.elf $B/images/testkern64.elf"

# A make of its own: not the jobserver or flags of a `make test` around us.
host_built=$(env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make --no-print-directory -s B="$B" \
	host-tests-list 2> "$T/host-tests-list.err") ||
	host_built="(make host-tests-list failed: $(head -c 200 "$T/host-tests-list.err"))"
host_diff=$(diff <(printf '%s\n' $HOST_TEST_BINS | sort) <(printf '%s\n' $host_built | sort) |
	sed -n 's/^< \(.*\)/\1 (listed here, not built by tests\/tests.mk)/p; s/^> \(.*\)/\1 (built by tests\/tests.mk, not listed here)/p' |
	tr '\n' ' ')
if [ -z "$host_diff" ]; then
	pass "host tests: ci/test-host.sh lists what tests/tests.mk builds"
else
	fail "host tests: ci/test-host.sh lists what tests/tests.mk builds" "$host_diff"
fi

for host_name in $HOST_TEST_BINS; do
	host_exe=$B/tests/$host_name
	host_log=$T/$host_name.log
	if [ ! -x "$host_exe" ]; then
		fail "$host_name" "$host_exe was not built ('make all' builds it)"
		continue
	fi
	# The round-trip tests take the test kernels as extra inputs, and
	# fail on a missing one; the CRC test takes no arguments.
	case $host_name in
	test_crc32c*) host_args=() ;;
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
