# test-bench-cmd.sh - `bzpack bench`: the table, its JSON and SVG, the
# --save/--check gate, Linux's own decompressor timed.  Sourced by
# ci/test.sh (bash, ci/lib.sh: B, T, BZPACK, pass, fail, skip).
#
# Boots only the test kernels (fast under TCG; lz4 under OVMF too) and,
# when cached, Debian's amd64 vmlinuz with lz4 alone; the gate's checks use
# --runs 0 (icount only), since the gate reads cycles and sizes, not the
# wall clock.

tc_dir=$T/bench-cmd
rm -rf "$tc_dir"
mkdir -p "$tc_dir"
tc_k32=$B/images/testkern32.elf
tc_k64=$B/images/testkern64.elf

# tc_run NAME OUT BZPACK-ARGS...: run $BZPACK, stdout+stderr to OUT; sets
# tc_status.  A missing QEMU is the no-QEMU check's business: here it skips.
tc_run() {
	local out=$2
	shift 2
	"$BZPACK" "$@" > "$out" 2>&1
	tc_status=$?
}

# tc_lines NAME FILE REGEX...: FILE has a line matching each REGEX.
tc_lines() {
	local name=$1 file=$2 re
	shift 2
	for re in "$@"; do
		if ! grep -Eq -- "$re" "$file"; then
			fail "$name" "no line matching '$re' in: $(tr '\n' '|' < "$file" | cut -c1-500)"
			return 1
		fi
	done
}

# tc_json FILE "CODEC..." KERNEL... : the JSON reader's verdict on a --json file
# that measured every codec of the packer on each KERNEL under QEMU.
tc_json() {
	python3 - "$@" <<'PY'
import re, sys
sys.path.insert(0, "ci/tests")
import strictjson
path, codecs, kernels = sys.argv[1], sys.argv[2].split(), sys.argv[3:]
d = strictjson.load(path)
assert d["bzpack_bench"] == 1 and d["qemu"] is True, "header"
cells = d["cells"]
n = 0
for key, c in cells.items():
    kernel, codec, bits = key.split("/")
    assert kernel in kernels and codec in codecs, "unexpected cell %s" % key
    assert c["kernel"] == kernel and c["codec"] == codec and c["bits"] == int(bits), key
    for f in ("image_bytes", "out_bytes", "cycles"):
        assert isinstance(c[f], int) and c[f] > 0, "%s: %s" % (key, f)
    fields = dict(w.split("=", 1) for w in c["report"].split()[1:])
    assert fields["codec"] == codec and int(fields["bits"]) == int(bits), key + ": report line"
    assert int(fields["cycles"]) == c["cycles"] and int(fields["out"]) == c["out_bytes"], key + ": report numbers"
    assert abs(c["ratio"] - c["out_bytes"] / c["image_bytes"]) < 1e-3, key + ": ratio"
    assert c["host_mbps"] > 0 and c["ttk_ms"] > 0 and c["ttk_icount_ms"] > 0, key + ": times"
    assert c["wall"]["method"] == "gdbstub" and 0 < c["wall"]["min_ms"] <= c["wall"]["median_ms"] <= c["wall"]["max_ms"], key + ": wall"
    n += 1
print(n)
PY
}

# --- usage errors: exit 2, one line, then where help is
tc_run "bench usage" "$tc_dir/usage.out" bench --runs x "$tc_k64"
if [ "$tc_status" -eq 2 ] && [ "$(wc -l < "$tc_dir/usage.out")" -eq 2 ] &&
	[ "$(sed -n 2p "$tc_dir/usage.out")" = "Try 'bzpack bench --help' for more information." ]; then
	tc_run "bench usage" "$tc_dir/usage2.out" bench -c lz4,nosuch "$tc_k64"
	if [ "$tc_status" -eq 2 ] && tc_lines "bench usage" "$tc_dir/usage2.out" "unknown codec 'nosuch'"; then
		pass "bench: bad --runs and an unknown codec are usage errors (exit 2)"
	elif [ "$tc_status" -ne 2 ]; then
		fail "bench usage" "unknown codec: exit $tc_status, expected 2"
	fi
else
	fail "bench usage" "bad --runs: exit $tc_status, expected 2 with one line and the Try line: $(head -c 300 "$tc_dir/usage.out")"
fi

# --- --ovmf needs --ovmf-vars (usage, exit 2); firmware that is not there
# is bad input (exit 1), said before anything boots
tc_run "bench --ovmf usage" "$tc_dir/ovmf-usage.out" bench --ovmf "$tc_dir/nosuch.fd" "$tc_k64"
if [ "$tc_status" -ne 2 ] || ! tc_lines "bench --ovmf usage" "$tc_dir/ovmf-usage.out" "--ovmf and --ovmf-vars go together"; then
	[ "$tc_status" -ne 2 ] && fail "bench --ovmf usage" "--ovmf alone: exit $tc_status, expected 2"
else
	tc_run "bench --ovmf usage" "$tc_dir/ovmf-usage.out" bench --ovmf "$tc_dir/nosuch.fd" --ovmf-vars "$tc_dir/nosuch.fd" "$tc_k64"
	if [ "$tc_status" -eq 1 ] && [ "$(wc -l < "$tc_dir/ovmf-usage.out")" -eq 1 ] &&
		tc_lines "bench --ovmf usage" "$tc_dir/ovmf-usage.out" "^bzpack: $tc_dir/nosuch.fd: No such file"; then
		pass "bench: --ovmf without --ovmf-vars is a usage error, missing firmware one line and exit 1"
	elif [ "$tc_status" -ne 1 ]; then
		fail "bench --ovmf usage" "missing firmware: exit $tc_status, expected 1"
	else
		fail "bench --ovmf usage" "missing firmware: $(tr '\n' '|' < "$tc_dir/ovmf-usage.out" | cut -c1-300)"
	fi
fi

# --- no QEMU on PATH: the host-side columns, exit 0; --check fails closed
tc_noqemu=$tc_dir/noqemu-path
mkdir -p "$tc_noqemu"
PATH=$tc_noqemu "$BZPACK" bench -c lz4 "$tc_k64" > "$tc_dir/noqemu.out" 2>&1
tc_status=$?
if [ "$tc_status" -ne 0 ]; then
	fail "bench without QEMU" "exit $tc_status, expected 0: $(tail -n 3 "$tc_dir/noqemu.out" | tr '\n' '|')"
elif tc_lines "bench without QEMU" "$tc_dir/noqemu.out" "not on PATH: the QEMU columns are not measured" \
	'^lz4 +[0-9]+ +[0-9.]+ +- +- +- +- +[0-9]+ +[0-9.]+ +- +-'; then
	pass "bench without QEMU: says so in one line, prints the host-side columns, exit 0"
fi

# --- a report line without total= (a stand-in QEMU): the cell is not
# measured, and --check names it; a field is read by its key, never by
# its place.
tc_fakerep=$tc_dir/fake-report
mkdir -p "$tc_fakerep"
printf '#!/bin/sh\necho "bzpack: codec=none in=10 out=20 cycles=30 move=0 verify=0 decompress=30 bits=64"\nexec sleep 60\n' > "$tc_fakerep/qemu-system-x86_64"
chmod +x "$tc_fakerep/qemu-system-x86_64"
cp "$tc_fakerep/qemu-system-x86_64" "$tc_fakerep/qemu-system-i386"
printf '{"bzpack_bench_baseline": 2, "cells": {"testkern64.elf/none/64": {"kernel": "testkern64.elf", "cycles": 30, "total": 40, "image_bytes": 99999999}}}\n' > "$tc_dir/fake-report.json"
PATH=$tc_fakerep:$PATH "$BZPACK" bench -c none --runs 0 --qemu-timeout 20 --check "$tc_dir/fake-report.json" "$tc_k64" > "$tc_dir/fake-report.out" 2>&1
tc_status=$?
if [ "$tc_status" -ne 1 ]; then
	fail "bench --check: a report line without total=" "exit $tc_status, expected 1"
elif tc_lines "bench --check: a report line without total=" "$tc_dir/fake-report.out" \
	"^bzpack: .*fake-report.json: testkern64\.elf/none/64: not measured: report line has no number total=" \
	"checked 0 of 1 baseline cells .*FAILED"; then
	pass "bench --check: a report line without total= is a cell not measured, named"
fi

if ! command -v qemu-system-x86_64 >/dev/null || ! command -v qemu-system-i386 >/dev/null; then
	skip "bench with QEMU (table, JSON, SVG, gate, Linux's decompressor)" "qemu-system-x86_64 or qemu-system-i386 not installed"
else
	# --- the table, the JSON and the SVG on both test kernels, every codec
	tc_codecs=$(codecs | wc -l)
	tc_run "bench table" "$tc_dir/all.out" bench --runs 1 --json "$tc_dir/all.json" --svg "$tc_dir/all.svg" \
		--save "$tc_dir/base.json" "$tc_k32" "$tc_k64"
	if [ "$tc_status" -ne 0 ]; then
		fail "bench on the test kernels" "exit $tc_status: $(grep '^bzpack:' "$tc_dir/all.out" | head -n 3 | tr '\n' '|')"
	else
		tc_rows=0
		for tc_c in $(codecs); do
			for tc_b in 32 64; do
				# codec, image, ratio, then a number in the cycles column
				grep -Eq "^$tc_c +[0-9]+ +[0-9.]+ +[0-9]+ " <(sed -n "/^testkern$tc_b.elf:/,/^\$/p" "$tc_dir/all.out") &&
					tc_rows=$((tc_rows + 1))
			done
		done
		if [ "$tc_rows" -eq $((2 * tc_codecs)) ]; then
			pass "bench on the test kernels: a measured row for each of $tc_codecs codecs x 2 kernels"
		else
			fail "bench on the test kernels" "$tc_rows measured rows of $((2 * tc_codecs)): $(head -c 600 "$tc_dir/all.out")"
		fi
		if tc_n=$(tc_json "$tc_dir/all.json" "$(codecs)" testkern32.elf testkern64.elf 2>&1) && [ "$tc_n" -eq $((2 * tc_codecs)) ]; then
			pass "bench --json: $tc_n cells, each consistent with its report line"
		else
			fail "bench --json" "$tc_n"
		fi
		if tc_n=$(python3 -c 'import re, sys, xml.dom.minidom as m
d = m.parse(sys.argv[1])
print(len([t for t in d.getElementsByTagName("text") if re.match(r"testkern(32|64)\.elf/", t.firstChild.data)]))' "$tc_dir/all.svg" 2>&1) &&
			[ "$tc_n" -eq $((2 * tc_codecs)) ]; then
			pass "bench --svg: parses as XML, a bar for each of $tc_n cells"
		else
			fail "bench --svg" "$tc_n"
		fi
	fi

	# --- the gate, against the baseline that run saved
	if [ ! -s "$tc_dir/base.json" ]; then
		fail "bench --check" "no baseline from --save"
	else
		tc_run "bench --check" "$tc_dir/check.out" bench --runs 0 --check "$tc_dir/base.json" "$tc_k32" "$tc_k64"
		if [ "$tc_status" -eq 0 ] && tc_lines "bench --check" "$tc_dir/check.out" \
			"checked $((2 * tc_codecs)) of $((2 * tc_codecs)) baseline cells .*: ok"; then
			pass "bench --check against its own fresh baseline passes ($((2 * tc_codecs)) cells)"
		elif [ "$tc_status" -ne 0 ]; then
			fail "bench --check" "exit $tc_status against its own baseline: $(grep '^bzpack' "$tc_dir/check.out" | head -n 3 | tr '\n' '|')"
		fi

		# The failing cases need only two codecs: the baseline's lz4 and
		# none cells (base-small.json), measured with -c lz4,none or less.
		python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
d["cells"] = {k: v for k, v in d["cells"].items() if k.split("/")[1] in ("lz4", "none")}
json.dump(d, open(sys.argv[2], "w"), indent=1)' "$tc_dir/base.json" "$tc_dir/base-small.json"

		# tc_gate NAME PYTHON ARGS...: edit a copy of base-small.json (d),
		# run --check with ARGS on both kernels; expect exit 1 and the lines
		# in tc_want (regexes).
		tc_gate() {
			local name=$1 edit=$2 re
			shift 2
			python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
exec(sys.argv[3])
json.dump(d, open(sys.argv[2], "w"))' "$tc_dir/base-small.json" "$tc_dir/edited.json" "$edit"
			tc_run "$name" "$tc_dir/gate.out" bench --runs 0 "$@" --check "$tc_dir/edited.json" "$tc_k32" "$tc_k64"
			if [ "$tc_status" -ne 1 ]; then
				fail "$name" "exit $tc_status, expected 1: $(grep '^bzpack' "$tc_dir/gate.out" | head -n 3 | tr '\n' '|')"
				return
			fi
			for re in "${tc_want[@]}"; do
				tc_lines "$name" "$tc_dir/gate.out" "$re" || return
			done
			pass "$name"
		}
		tc_want=("testkern64.elf/lz4/64: cycles [0-9]+, baseline [0-9]+ \(\+11\.[0-9]+%" "FAILED")
		tc_gate "bench --check: a baseline cell 10% better fails and names it" \
			'c = d["cells"]["testkern64.elf/lz4/64"]; c["cycles"] = int(c["cycles"] * 0.9)' -c lz4,none
		tc_want=("testkern32.elf/none/32: in the baseline but not measured" "testkern64.elf/none/64: in the baseline but not measured" "FAILED")
		tc_gate "bench --check: baseline cells left out of the measurement fail closed" \
			'' -c lz4
		tc_want=("testkern64.elf/lz4/64: measured but not in the baseline" "FAILED")
		tc_gate "bench --check: a measured cell the baseline lacks fails" \
			'del d["cells"]["testkern64.elf/lz4/64"]' -c lz4,none
		tc_want=("bzpack: .*edited.json: not a bzpack bench baseline: unknown field in a cell")
		tc_gate "bench --check: an unparseable baseline fails closed" \
			'd["cells"]["testkern64.elf/lz4/64"]["cycles_"] = 1' -c lz4
		# No QEMU: nothing measured, so nothing can pass.
		PATH=$tc_noqemu "$BZPACK" bench -c lz4,none --check "$tc_dir/base-small.json" "$tc_k32" "$tc_k64" > "$tc_dir/gate-noqemu.out" 2>&1
		tc_status=$?
		if [ "$tc_status" -eq 1 ] && tc_lines "bench --check without QEMU" "$tc_dir/gate-noqemu.out" \
			"testkern64.elf/lz4/64: not measured: qemu-system-x86_64 not on PATH" "checked 0 of 4 baseline cells"; then
			pass "bench --check without QEMU fails closed: cells not measured"
		elif [ "$tc_status" -ne 1 ]; then
			fail "bench --check without QEMU" "exit $tc_status, expected 1"
		fi

		# --- the seed's regression: a stub built -fno-builtin (constant-size
		# memcpy out of line) fails the check on lz4.  Shares
		# $B/regress with test-bench.sh, so its make holds the same lock.
		tc_nb=$B/regress
		mkdir -p "$tc_nb"
		if ! flock "$tc_nb.lock" make --no-print-directory B="$tc_nb" EXTRA_STUB_CFLAGS=-fno-builtin "$tc_nb/bzpack" > "$tc_dir/nobuiltin-build.log" 2>&1; then
			fail "bench --check catches -fno-builtin" "build failed: $(tail -n 3 "$tc_dir/nobuiltin-build.log" | tr '\n' '|')"
		else
			python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
d["cells"] = {k: v for k, v in d["cells"].items() if "/lz4/" in k}
json.dump(d, open(sys.argv[2], "w"))' "$tc_dir/base-small.json" "$tc_dir/base-lz4.json"
			"$tc_nb/bzpack" bench -c lz4 --runs 0 --check "$tc_dir/base-lz4.json" "$tc_k32" "$tc_k64" > "$tc_dir/nobuiltin.out" 2>&1
			tc_status=$?
			if [ "$tc_status" -eq 1 ] && tc_lines "bench --check catches -fno-builtin" "$tc_dir/nobuiltin.out" \
				"testkern32.elf/lz4/32: cycles [0-9]+, baseline [0-9]+ \(\+" "testkern64.elf/lz4/64: cycles [0-9]+, baseline [0-9]+ \(\+"; then
				pass "bench --check catches -fno-builtin: $(grep -Eo 'testkern[0-9]+.elf/lz4/[0-9]+: cycles [^,]*, baseline [0-9]+ \([^,]*' "$tc_dir/nobuiltin.out" | tr '\n' ';')"
			elif [ "$tc_status" -ne 1 ]; then
				fail "bench --check catches -fno-builtin" "exit $tc_status, expected 1: $(grep '^bzpack' "$tc_dir/nobuiltin.out" | tr '\n' '|' | cut -c1-400)"
			fi
		fi
	fi

	# --- OVMF cells: --ovmf boots each 64-bit image under UEFI too, through
	# the EFI entry (icount shift=4, cycles divided back); none for 32-bit.
	. ci/fixtures/ovmf.sh
	if tc_why=$(ovmf_missing); then
		skip "bench --ovmf (OVMF cells, their gate)" "$tc_why"
	else
		tc_ovmf=(--ovmf "$OVMF_CODE" --ovmf-vars "$OVMF_VARS")
		tc_run "bench --ovmf" "$tc_dir/ovmf.out" bench -c lz4 --runs 0 "${tc_ovmf[@]}" --json "$tc_dir/ovmf.json" \
			--save "$tc_dir/ovmf-base.json" "$tc_k32" "$tc_k64"
		if [ "$tc_status" -ne 0 ]; then
			fail "bench --ovmf" "exit $tc_status: $(grep '^bzpack:' "$tc_dir/ovmf.out" | head -n 3 | tr '\n' '|')"
		elif tc_msg=$(python3 - "$tc_dir/ovmf.json" <<'PY' 2>&1
import json, sys
cells = json.load(open(sys.argv[1]))["cells"]
assert sorted(cells) == ["testkern32.elf/lz4/32", "testkern64.elf/lz4/64", "testkern64.elf/lz4/64/ovmf"], sorted(cells)
b, o = cells["testkern64.elf/lz4/64"], cells["testkern64.elf/lz4/64/ovmf"]
assert b["loader"] == "bios" and b["icount_shift"] == 0, "bios cell: %r" % b
assert o["loader"] == "ovmf" and o["icount_shift"] == 4 and o["wall"]["method"] is None, "ovmf cell: %r" % o
fields = dict(w.split("=", 1) for w in o["report"].split()[1:])
assert fields["entry"] == "efi", "not the EFI entry: " + o["report"]
assert int(fields["cycles"]) >> 4 == o["cycles"], "cycles %d vs report %s" % (o["cycles"], fields["cycles"])
# The same decoder on the same image: within a few percent of SeaBIOS's.
assert abs(o["cycles"] - b["cycles"]) < 0.05 * b["cycles"], "ovmf %d vs bios %d" % (o["cycles"], b["cycles"])
print("lz4 under OVMF %d instructions, under SeaBIOS %d" % (o["cycles"], b["cycles"]))
PY
		); then
			tc_lines "bench --ovmf" "$tc_dir/ovmf.out" '^testkern64\.elf under OVMF \(the EFI entry\):' \
				'^lz4 +[0-9]+ +[0-9.]+ +[0-9]+ .*OVMF: icount only' &&
				pass "bench --ovmf: a 64-bit OVMF cell through the EFI entry, none for 32-bit: $tc_msg"
		else
			fail "bench --ovmf" "$tc_msg"
		fi
		if [ -s "$tc_dir/ovmf-base.json" ]; then
			python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
c = d["cells"]["testkern64.elf/lz4/64/ovmf"]; c["cycles"] = int(c["cycles"] * 0.9)
json.dump(d, open(sys.argv[2], "w"))' "$tc_dir/ovmf-base.json" "$tc_dir/ovmf-better.json"
			tc_run "bench --ovmf --check" "$tc_dir/ovmf-check.out" bench -c lz4 --runs 0 "${tc_ovmf[@]}" \
				--check "$tc_dir/ovmf-better.json" "$tc_k64"
			if [ "$tc_status" -eq 1 ] && tc_lines "bench --ovmf --check" "$tc_dir/ovmf-check.out" \
				"testkern64.elf/lz4/64/ovmf: cycles [0-9]+, baseline [0-9]+ \(\+11\.[0-9]+%" \
				"testkern32.elf/lz4/32: in the baseline but not measured" "checked 2 of 3 baseline cells"; then
				pass "bench --ovmf --check: an OVMF cell 10% better in the baseline fails and is named"
			elif [ "$tc_status" -ne 1 ]; then
				fail "bench --ovmf --check" "exit $tc_status, expected 1: $(grep '^bzpack' "$tc_dir/ovmf-check.out" | head -n 3 | tr '\n' '|')"
			fi
			# No --ovmf (no firmware here): the OVMF cell is named and
			# counted as not booted, the others checked.
			tc_run "bench --check without --ovmf" "$tc_dir/no-ovmf.out" bench -c lz4 --runs 0 \
				--check "$tc_dir/ovmf-base.json" "$tc_k32" "$tc_k64"
			if [ "$tc_status" -eq 0 ] && tc_lines "bench --check without --ovmf" "$tc_dir/no-ovmf.out" \
				"^skip +testkern64\.elf/lz4/64/ovmf: not booted: no --ovmf" "^skip: bench-check: 1 OVMF cells: no --ovmf" \
				"checked 2 of 3 baseline cells .*: ok \(0 failed, 0 not comparable, 1 OVMF cells not booted\)"; then
				pass "bench --check without --ovmf: the OVMF cell is a named, counted skip"
			elif [ "$tc_status" -ne 0 ]; then
				fail "bench --check without --ovmf" "exit $tc_status, expected 0: $(grep '^bzpack' "$tc_dir/no-ovmf.out" | head -n 3 | tr '\n' '|')"
			fi
		else
			fail "bench --ovmf --check" "no baseline from --save"
		fi
	fi

	# --- Linux's own decompressor beside ours: Debian's amd64 kernel,
	# counted exactly (entry to kernel entry) and timed by the gdbstub.
	tc_deb=$B/debian/amd64/vmlinuz
	# This script runs before test-debian's fetch: fetch here too (cached).
	[ -s "$tc_deb" ] || bash ci/fixtures/fetch-debian.sh > "$T/fetch-debian-bench.log" 2>&1
	if [ ! -s "$tc_deb" ]; then
		skip "bench on Debian's vmlinuz (Linux's decompressor)" "$tc_deb could not be fetched: $(tail -n 1 "$T/fetch-debian-bench.log" 2>/dev/null)"
	else
		tc_run "bench on Debian's vmlinuz" "$tc_dir/debian.out" bench -c lz4 --runs 1 --json "$tc_dir/debian.json" "$tc_deb"
		if [ "$tc_status" -ne 0 ]; then
			fail "bench on Debian's vmlinuz" "exit $tc_status: $(grep '^bzpack:' "$tc_dir/debian.out" | head -n 3 | tr '\n' '|')"
		elif tc_msg=$(python3 - "$tc_dir/debian.json" <<'PY' 2>&1
import json, sys
d = json.load(open(sys.argv[1]))
c = d["cells"]["vmlinuz/lz4/64"]
assert c["cycles"] > 0 and c["wall"]["method"] == "gdbstub", "our lz4 cell"
assert c["to_kernel"]["instructions"] > c["cycles"], "our cell's count: %r" % c["to_kernel"]
[l] = d["linux"]
assert l["codec"] == "xz" and l["bits"] == 64 and l["key"] == "vmlinuz/xz/64/linux", "linux run"
assert "serial_lines" not in l, "no serial-lines figure"
g, n = l["gdbstub"], l["to_kernel"]["instructions"]
assert g["method"] == "gdbstub" and g["median_ms"] > 0, "gdbstub: %r" % g
assert n > 0 and abs(l["to_kernel"]["instructions_per_byte"] - n / l["out_bytes"]) < 1e-3, "count: %r" % l["to_kernel"]
print("Linux xz %d instructions, ours lz4 %d, entry to kernel entry" % (n, c["to_kernel"]["instructions"]))
PY
		); then
			tc_lines "bench on Debian's vmlinuz" "$tc_dir/debian.out" '^linux +[0-9]+ +[0-9.]+ +- +- +[0-9]+ +[0-9.]+ .* gdbstub, n=1' &&
				! grep -q 'serial-lines' "$tc_dir/debian.out" &&
				pass "bench on Debian's vmlinuz: $tc_msg"
		else
			fail "bench on Debian's vmlinuz" "$tc_msg"
		fi

		# Fail closed: a stand-in QEMU with no gdbstub (a report line under
		# -icount, nothing else) cannot count Linux's decompressor: the cell
		# is null with why, named on stderr, bench exits 1, and --check
		# against a baseline holding that cell fails naming it.
		tc_fake=$tc_dir/fake-qemu
		mkdir -p "$tc_fake"
		cat > "$tc_fake/qemu-system-x86_64" <<'SH'
#!/bin/bash
case " $* " in
*" -gdb "*) echo "fake qemu: no gdbstub" >&2; exit 1 ;;
*" -icount "*) echo "bzpack: codec=none in=10 out=20 cycles=30 move=0 verify=0 decompress=30 total=40 bits=64" ;;
esac
exec sleep 60
SH
		chmod +x "$tc_fake/qemu-system-x86_64"
		cp "$tc_fake/qemu-system-x86_64" "$tc_fake/qemu-system-i386"
		# The none cell's baseline is for another Linux build: not comparable.
		printf '{"bzpack_bench_baseline": 2, "cells": {"vmlinuz/none/64": {"kernel": "Linux 0.0.1 (another build)", "cycles": 30, "total": 40, "image_bytes": 99999999}, "vmlinuz/xz/64/linux": {"kernel": "Linux 0.0.1 (another build)", "cycles": 5, "total": 5, "image_bytes": 99999999}}}\n' > "$tc_dir/fake-base.json"
		PATH=$tc_fake:$PATH "$BZPACK" bench -c none --runs 0 --qemu-timeout 20 --json "$tc_dir/fake.json" \
			--check "$tc_dir/fake-base.json" "$tc_deb" > "$tc_dir/fake.out" 2>&1
		tc_status=$?
		if [ "$tc_status" -ne 1 ]; then
			fail "bench: Linux's decompressor not counted" "exit $tc_status with no gdbstub, expected 1"
		elif tc_msg=$(python3 - "$tc_dir/fake.json" <<'PY' 2>&1
import json, sys
[l] = json.load(open(sys.argv[1]))["linux"]
n = l["to_kernel"]
assert n["instructions"] is None and "gdbstub" in n["why"], "count: %r" % n
print("null, why: %s" % n["why"][:60])
PY
		); then
			tc_lines "bench: Linux's decompressor not counted" "$tc_dir/fake.out" \
				"^bzpack: vmlinuz: Linux's own xz decompressor: instruction count: " \
				"^bzpack: .*fake-base.json: vmlinuz/xz/64/linux: not measured: " \
				"^skip +vmlinuz/none/64: not comparable: the baseline is for Linux 0\.0\.1 \(another build\), this is Linux " \
				"checked 0 of 2 baseline cells .*FAILED \(1 failed, 1 not comparable" &&
				pass "bench: Linux's decompressor not counted (a stand-in QEMU without gdbstub): $tc_msg; --check names the cell, and another Linux build as not comparable"
		else
			fail "bench: Linux's decompressor not counted" "$tc_msg"
		fi
	fi
fi
