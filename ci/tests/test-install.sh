# test-install.sh - make install and make uninstall into a scratch
# DESTDIR; the installed bzpack packs from another directory with an empty
# environment, opening nothing of this tree but its input and output, and
# its image boots; the man page renders without warnings and documents
# every option --help lists; docs/kernel-ci.yml is a workflow that ends in
# the gate.
INST=$PWD/$T/install            # DESTDIR (make runs from the top: absolute)
INST_WORK=$PWD/$T/install-work  # inputs and outputs, outside DESTDIR
INST_BIN=$INST/usr/local/bin/bzpack
INST_MAN=$INST/usr/local/share/man/man1/bzpack.1
rm -rf "$INST" "$INST_WORK"
mkdir -p "$INST" "$INST_WORK"

name="make install DESTDIR=... PREFIX=/usr/local"
if ! out=$(make --no-print-directory -s B="$B" install DESTDIR="$INST" PREFIX=/usr/local 2>&1); then
	fail "$name" "$(tr '\n' '|' <<<"$out" | cut -c1-300)"
elif [ ! -x "$INST_BIN" ] || [ ! -f "$INST_MAN" ]; then
	fail "$name" "installed: $(cd "$INST" && find . -type f | tr '\n' ' ')"
elif [ "$(cd "$INST" && find . -type f | sort | tr '\n' ' ')" != "./usr/local/bin/bzpack ./usr/local/share/man/man1/bzpack.1 " ]; then
	fail "$name" "installed more than bzpack and bzpack.1: $(cd "$INST" && find . -type f | tr '\n' ' ')"
else
	pass "$name (bin/bzpack, share/man/man1/bzpack.1)"
fi

# From elsewhere, with nothing in the environment: the stubs are inside the
# binary.  Under strace, every file it opens must be a system one or the
# input or the output; nothing of build/ or the sources.
name="installed bzpack packs from another directory"
cp "$B/images/testkern64.elf" "$INST_WORK/vmlinux"
if [ ! -x "$INST_BIN" ]; then
	fail "$name" "not installed"
else
	(cd / && env -i PATH=/usr/bin:/bin "$INST_BIN" -o "$INST_WORK/image" "$INST_WORK/vmlinux") \
		>"$INST_WORK/pack.out" 2>&1
	status=$?
	if [ $status -ne 0 ]; then
		fail "$name" "exit status $status: $(tr '\n' '|' <"$INST_WORK/pack.out")"
	elif ! pack_cached "$INST_WORK/reference" "$B/images/testkern64.elf" -c lz4 2>/dev/null; then
		fail "$name" "$BZPACK -c lz4 does not pack the same kernel"
	elif ! cmp -s "$INST_WORK/image" "$INST_WORK/reference"; then
		fail "$name" "its image differs from $BZPACK's"
	else
		pass "$name: the same image as $BZPACK"
	fi
fi
name="installed bzpack opens no file of the source tree"
if ! command -v strace >/dev/null; then
	skip "$name" "no strace"
elif [ -x "$INST_BIN" ]; then
	(cd / && env -i PATH=/usr/bin:/bin strace -f -qq -s 4096 -e trace=open,openat,execve -o "$INST_WORK/strace" \
		"$INST_BIN" -o "$INST_WORK/image2" "$INST_WORK/vmlinux") >/dev/null 2>&1
	opened=$(grep -o '"[^"]*"' "$INST_WORK/strace" | tr -d '"' | sort -u)
	tree=$PWD                       # ci/test.sh runs from the top of the tree
	# (the output's directory itself is opened to sync the rename)
	stray=$(grep -F "$tree/" <<<"$opened" | grep -Fv "$INST_WORK/" | grep -Fvx -e "$INST_BIN" -e "$INST_WORK")
	if [ -z "$opened" ]; then
		fail "$name" "strace recorded nothing"
	elif [ -n "$stray" ]; then
		fail "$name" "opened $(echo $stray)"
	else
		pass "$name ($(wc -l <<<"$opened") paths, none in $tree but the input and output)"
	fi
fi

name="the installed bzpack's image boots"
if ! command -v qemu-system-x86_64 >/dev/null; then
	skip "$name" "no qemu-system-x86_64"
elif [ ! -s "$INST_WORK/image" ]; then
	fail "$name" "no image"
elif boot "$name" 33 "$INST_WORK/image" "$INST_WORK/boot.log" -d -a "console=ttyS0" &&
	testkern_booted "$name" "$INST_WORK/boot.log" '^bzpack: codec=lz4 in=[0-9]+ out=[0-9]+ cycles=[0-9]+ ' 64; then
	pass "$name"
fi

# The man page: no warning from man or groff, the version --version
# prints, every long option of --help (and of bench -h, once built).
name="man -l renders bzpack.1 without warnings"
if ! command -v man >/dev/null || ! command -v groff >/dev/null; then
	skip "$name" "no man or groff (man-db, groff-base)"
elif [ ! -f "$INST_MAN" ]; then
	fail "$name" "not installed"
else
	warnings=$( { MANWIDTH=80 man --warnings -l "$INST_MAN" >/dev/null; } 2>&1;
		groff -man -ww -z "$INST_MAN" 2>&1)
	lines=$(MANWIDTH=80 man -l "$INST_MAN" 2>/dev/null | wc -l)
	if [ -n "$warnings" ]; then
		fail "$name" "$(tr '\n' '|' <<<"$warnings" | cut -c1-300)"
	elif [ "$lines" -lt 100 ]; then
		fail "$name" "only $lines lines rendered"
	else
		pass "$name ($lines lines)"
	fi
fi

name="bzpack.1 carries the version --version prints"
page_version=$(sed -n 's/^\.TH .*"bzpack \([^"]*\)".*/\1/p' docs/bzpack.1)
tool_version=$($BZPACK --version | sed -n '1s/^bzpack //p')
check "$name ($tool_version)" test -n "$tool_version" -a "$page_version" = "$tool_version"

# man_covers NAME HELP-TEXT: every --option in HELP-TEXT is in the page
# (roff writes each hyphen as \-).
man_covers() {
	local name=$1 options missing="" o
	options=$(grep -oE -- '--[a-z][a-z0-9-]*' <<<"$2" | sort -u)
	if [ -z "$options" ]; then
		fail "$name" "no options found in the help text"
		return
	fi
	for o in $options; do
		grep -qF -- "$(sed 's/-/\\-/g' <<<"$o")" docs/bzpack.1 || missing="$missing $o"
	done
	if [ -n "$missing" ]; then
		fail "$name" "not in docs/bzpack.1:$missing"
	else
		pass "$name ($(echo $options | wc -w) options)"
	fi
}
man_covers "bzpack.1 documents every option of bzpack --help" "$($BZPACK --help)"
# Without the subcommand, getopt's permutation makes "bench -h" the
# packer's own --help: bench's help is the one with --tolerance.
if bench_help=$($BZPACK bench -h 2>&1) && grep -q -- --tolerance <<<"$bench_help"; then
	man_covers "bzpack.1 documents every option of bzpack bench -h" "$bench_help"
else
	skip "bzpack.1 documents every option of bzpack bench -h" "this bzpack has no bench subcommand"
fi

# The CI job for a kernel tree: valid YAML, a job whose steps install
# bzpack, build the kernel and run the gate.
name="docs/kernel-ci.yml is a workflow that runs bzpack bench --check"
if ! python3 -c 'import yaml' 2>/dev/null; then
	skip "$name" "no python3 yaml module (python3-yaml)"
elif ! out=$(python3 - docs/kernel-ci.yml 2>&1 <<'EOF'
import re, sys, yaml
doc = yaml.safe_load(open(sys.argv[1]))
jobs = doc["jobs"]
runs = [s.get("run", "") for j in jobs.values() for s in j["steps"]]
text = "\n".join(runs)
for need in (r"make .*\binstall\b", r"make .*bzImage", r"bzpack bench --check"):
    if not re.search(need, text):
        sys.exit("no step runs '%s'" % need)
if True not in doc and "on" not in doc:     # PyYAML reads a bare on: as True
    sys.exit("no 'on:' trigger")
print("%d jobs, %d steps" % (len(jobs), len(runs)))
EOF
); then
	fail "$name" "$out"
else
	pass "$name ($out)"
fi

name="make uninstall DESTDIR=... leaves no file behind"
if ! out=$(make --no-print-directory -s B="$B" uninstall DESTDIR="$INST" PREFIX=/usr/local 2>&1); then
	fail "$name" "$(tr '\n' '|' <<<"$out" | cut -c1-300)"
else
	left=$(cd "$INST" && find . ! -type d)
	check "$name" test -z "$left"
fi
