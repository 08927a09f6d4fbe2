#!/usr/bin/env python3
"""benchjson.py - the JSON side of ci/benchmarks/bench.sh: records, the gate, the tables.

bench.sh boots the cells; everything that reads or writes JSON is here, so
that no JSON is ever parsed with a regex and no report line positionally.

  record payload|cell KEY=VALUE...   one record as a JSON line (bench.sh
                                     appends these while it measures)
  bench-records BENCH.json PAYLOAD BITS ID FAILURE LOADERS CODEC...
                                     cell records from `bzpack bench --json`
                                     (FAILURE: why, if a cell is missing;
                                     LOADERS: "bios" or "bios,ovmf")
  collect RECORDS OUT [KEY=VALUE...] the records -> a measured file (OUT)
  verify MEASURED BASELINE [TOL]     the regression gate (exit 1 on failure)
  complete MEASURED                  exit 0 if MEASURED is a complete run
                                     (every payload, every codec of the
                                     packer, OVMF there, no failed cell),
                                     else say why:
                                     exit 3 if a cell failed, 1 otherwise
  table MEASURED                     the terminal table
  dat MEASURED                       gnuplot's data: codec-bits ratio speed
  readme MEASURED README             rewrite README's generated timing table
  baseline MEASURED OUT              write a baseline from a complete run
  readme-check README BASELINE       the README table agrees with BASELINE
  from-baseline BASELINE             a measured file that matches BASELINE
                                     exactly (for the gate's own tests)

A cell is one codec, word size and payload, booted by one loader: QEMU's
SeaBIOS (-kernel, the real-mode entry), keyed CODEC/BITS/PAYLOAD, or, for
64-bit payloads, OVMF (UEFI, the EFI entry), keyed CODEC/BITS/PAYLOAD/ovmf.

A measured file (build/bench/results.json, build/bench/check.json):
  {"codecs": [...], "codecs_from": "packer" | "CODECS",
   "uefi": {"code": PATH} | {"absent": WHY},
   "payloads": {NAME: {"bits", "external", and "id" | "absent" | "filtered"}},
   "cells": {KEY: {"codec", "bits", "payload", "payload_id", "loader",
             "icount_shift", "report" (the stub's line, verbatim) | "error",
             derived numbers}}}
The gate reads only "report" from a cell, parsed key=value, with its
rdtsc fields divided by 2^icount_shift (bzpack bench boots OVMF under
-icount shift=4, bench_boot.h says why: rdtsc then counts 16 a guest
instruction); the derived numbers next to it are for people and plots.

The baseline (ci/benchmarks/baseline.json):
  {"_what": "...", "cells": {KEY: {"payload": ID, "cycles": N, "total": N}}}
Both numbers are instructions.  OVMF cells gate cycles only: their total
also counts the firmware's boot services calls (allocations, the memory
map, ExitBootServices), which are OVMF's code, not ours.

Standard library only (Debian's python3).
"""

import json
import os
import re
import sys

# Every field the report line must carry, and the numeric ones among them.
# Extra fields are ignored: the stub may grow new ones.
REPORT_PREFIX = "bzpack:"
NUMERIC_FIELDS = ("in", "out", "cycles", "move", "verify", "decompress", "total", "bits")
# The ones read from rdtsc, scaled by the cell's icount shift.
RDTSC_FIELDS = ("cycles", "move", "verify", "decompress", "total")
# A zero here is not a measurement (a broken rdtsc would read as "better").
POSITIVE_FIELDS = ("in", "out", "cycles", "total")
CELL_KEY = re.compile(r"^([a-z0-9][a-z0-9_-]*)/(32|64)/([A-Za-z0-9][A-Za-z0-9._-]*)(?:/(ovmf))?$")
BIOS, OVMF = "bios", "ovmf"
BEGIN = "<!-- bench-table:begin -->"
END = "<!-- bench-table:end -->"


class Bad(Exception):
    """A file or line that cannot be trusted; the message says which and why."""


def no_duplicates(pairs):
    # json.load keeps the last of two equal keys without a word; a baseline
    # with a cell written twice is ambiguous, so refuse it.
    d = {}
    for k, v in pairs:
        if k in d:
            raise Bad("key %r appears twice" % k)
        d[k] = v
    return d


def load(path, what):
    try:
        with open(path, encoding="utf-8") as f:
            return json.load(f, object_pairs_hook=no_duplicates)
    except OSError as e:
        raise Bad("%s %s: cannot read: %s" % (what, path, e.strerror))
    except json.JSONDecodeError as e:
        raise Bad("%s %s is not valid JSON (line %d column %d: %s)" % (what, path, e.lineno, e.colno, e.msg))
    except Bad as e:
        raise Bad("%s %s: %s" % (what, path, e))


def write_atomic(path, text):
    # Write beside the target and rename: an interrupted run never leaves
    # half a README or baseline behind.
    tmp = path + ".tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        f.write(text)
    os.replace(tmp, path)


def is_count(v):
    # bool is an int in Python; true is not a cycle count.
    return isinstance(v, int) and not isinstance(v, bool) and v > 0


def load_baseline(path):
    """The baseline's cells as {key: (payload, cycles, total)}; Bad if any doubt."""
    b = load(path, "baseline")
    if not isinstance(b, dict) or not isinstance(b.get("cells"), dict):
        raise Bad('baseline %s: no "cells" object' % path)
    if not b["cells"]:
        raise Bad("baseline %s: no cells" % path)
    cells = {}
    for key, c in b["cells"].items():
        if not CELL_KEY.match(key):
            raise Bad("baseline %s: cell %r is not CODEC/BITS/PAYLOAD[/ovmf]" % (path, key))
        if not isinstance(c, dict) or not isinstance(c.get("payload"), str) or not c["payload"]:
            raise Bad('baseline %s: cell %s has no "payload" string' % (path, key))
        for f in ("cycles", "total"):
            if not is_count(c.get(f)):
                raise Bad('baseline %s: cell %s: "%s" is %s, not a positive integer' % (path, key, f, json.dumps(c.get(f))))
        cells[key] = (c["payload"], c["cycles"], c["total"])
    return cells


def parse_report(line, codec, bits, loader=BIOS, shift=0):
    """The report line as {field: value}, by key=value, its rdtsc fields in
    instructions (divided by 2^shift); Bad names the field."""
    if not isinstance(line, str):
        raise Bad("no report line")
    words = line.split()
    if not words or words[0] != REPORT_PREFIX:
        raise Bad("report line does not start with %r: %r" % (REPORT_PREFIX, line[:120]))
    fields = {}
    for w in words[1:]:
        k, eq, v = w.partition("=")
        if not eq or not k:
            raise Bad("report line: %r is not KEY=VALUE" % w)
        if k in fields:
            raise Bad("report line: field %s= appears twice" % k)
        fields[k] = v
    for k in ("codec",) + NUMERIC_FIELDS:
        if k not in fields:
            raise Bad("report line has no %s= field" % k)
    for k in NUMERIC_FIELDS:
        if not re.fullmatch(r"[0-9]+", fields[k]):
            raise Bad("report line: %s=%s is not a number" % (k, fields[k]))
        fields[k] = int(fields[k])
        if k in POSITIVE_FIELDS and fields[k] == 0:
            raise Bad("report line: %s=0 is not a measurement" % k)
    # The line must be about the cell it is filed under.
    if fields["codec"] != codec:
        raise Bad("report line: codec=%s, but this is the %s cell" % (fields["codec"], codec))
    if fields["bits"] != bits:
        raise Bad("report line: bits=%d, but this is the %d-bit cell" % (fields["bits"], bits))
    if loader == OVMF and fields.get("entry") != "efi":
        raise Bad("report line: entry=%s, but this is an OVMF cell (the EFI entry)" % fields.get("entry"))
    if not isinstance(shift, int) or isinstance(shift, bool) or not 0 <= shift <= 10:
        raise Bad("icount shift %r is not 0 to 10" % (shift,))
    for k in RDTSC_FIELDS:
        fields[k] >>= shift
    return fields


def parse_cell(c):
    """A measured cell's report line (parse_report), by the cell's own codec,
    bits, loader and icount shift."""
    return parse_report(c.get("report"), c["codec"], c["bits"], c.get("loader", BIOS), c.get("icount_shift", 0))


def load_measured(path):
    m = load(path, "measured results")
    if not isinstance(m, dict):
        raise Bad("measured results %s: not an object" % path)
    for k in ("payloads", "cells"):
        if not isinstance(m.get(k), dict):
            raise Bad('measured results %s: no "%s" object' % (path, k))
    if not isinstance(m.get("codecs"), list):
        raise Bad('measured results %s: no "codecs" list' % path)
    for name, p in m["payloads"].items():
        if not isinstance(p, dict) or not any(isinstance(p.get(k), str) for k in ("id", "absent", "filtered")):
            raise Bad('measured results %s: payload %s has no "id", "absent" or "filtered"' % (path, name))
    for key, c in m["cells"].items():
        mk = CELL_KEY.match(key)
        if not mk or not isinstance(c, dict):
            raise Bad("measured results %s: cell %r is not CODEC/BITS/PAYLOAD[/ovmf]" % (path, key))
        if c.get("loader", BIOS) != (mk.group(4) or BIOS):
            raise Bad("measured results %s: cell %s says loader %r" % (path, key, c.get("loader")))
    return m


def cell_parts(key):
    codec, bits, payload, loader = CELL_KEY.match(key).groups()
    return codec, int(bits), payload, loader or BIOS


def cell_key(codec, bits, payload, loader):
    return "%s/%s/%s%s" % (codec, bits, payload, "/" + OVMF if loader == OVMF else "")


# --------------------------------------------------------------- records

def kv_args(args):
    d = {}
    for a in args:
        k, eq, v = a.partition("=")
        if not eq:
            raise Bad("expected KEY=VALUE, got %r" % a)
        d[k] = v
    return d


def cmd_record(args):
    kind, d = args[0], kv_args(args[1:])
    d["kind"] = kind
    print(json.dumps(d))


def cmd_bench_records(args):
    """One payload's cell records from `bzpack bench --json` (its cells are
    keyed KERNEL-FILE/CODEC/BITS); a codec it has no measured cell for gets
    a record with the reason, so the gate names it."""
    path, payload, bits, pid, failure = args[0], args[1], int(args[2]), args[3], args[4]
    loaders, codecs = args[5].split(","), args[6:]
    found = {}
    try:
        b = load(path, "bzpack bench results")
        if not isinstance(b, dict) or b.get("bzpack_bench") != 1 or not isinstance(b.get("cells"), dict):
            raise Bad("bzpack bench results %s: not format 1 with cells" % path)
        for c in b["cells"].values():
            if isinstance(c, dict) and c.get("bits") == bits:
                found[(c.get("codec"), c.get("loader"))] = c
    except Bad as e:
        failure = "%s: %s" % (failure, e)
    for codec, loader in ((c, l) for l in loaders for c in codecs):
        c = found.get((codec, loader))
        r = {"kind": "cell", "codec": codec, "bits": str(bits), "payload": payload, "payload_id": pid,
             "loader": loader}
        if c is None:
            r["error"] = "%s: no %s cell under %s" % (failure, codec, loader)
        elif isinstance(c.get("report"), str):
            r["report"] = c["report"]
            if is_count(c.get("icount_shift")):
                r["icount_shift"] = str(c["icount_shift"])
        else:
            r["error"] = str(c.get("why") or "not measured")
        if c is not None:
            if is_count(c.get("image_bytes")):
                r["image_bytes"] = str(c["image_bytes"])
            wall = c.get("wall")
            if isinstance(wall, dict) and wall.get("method") and isinstance(wall.get("median_ms"), (int, float)):
                r["wall_ms"] = str(round(wall["median_ms"]))
        print(json.dumps(r))


def derive(cell):
    """Numbers for people and plots, from the report line when it parses."""
    try:
        r = parse_cell(cell)
    except Bad:
        return
    cell.update({
        "compressed_bytes": r["in"], "bytes": r["out"],
        "ratio": round(r["in"] / r["out"], 4),
        "icount_cycles": r["cycles"],
        "cycles_per_byte": round(r["cycles"] / r["out"], 3),
        "move_cycles": r["move"], "verify_cycles": r["verify"],
        "total_cycles": r["total"],
    })


def cmd_collect(args):
    records, out, extra = args[0], args[1], kv_args(args[2:])
    m = {"_what": "bzpack bench: one cell per codec/bits/payload; 'report' is the stub's line under "
                  "QEMU -icount shift=0,sleep=off (cycles = guest instructions)",
         "codecs": extra.get("codecs", "").split(),
         "codecs_from": extra.get("codecs_from", ""),
         "wall_clock": extra.get("wall_clock") or None,
         "wall_runs": int(extra["wall_runs"]) if extra.get("wall_runs", "").isdigit() else None,
         "uefi": {"absent": extra["uefi_absent"]} if extra.get("uefi_absent") else {"code": extra.get("uefi_code", "")},
         "payloads": {}, "cells": {}}
    with open(records, encoding="utf-8") as f:
        for line in f:
            r = json.loads(line)
            kind = r.pop("kind")
            if kind == "payload":
                name = r.pop("name")
                r["bits"] = int(r["bits"])
                r["external"] = r.get("external") == "1"
                m["payloads"][name] = r
            else:
                loader = r.get("loader", BIOS)
                key = cell_key(r["codec"], r["bits"], r["payload"], loader)
                if key in m["cells"]:
                    raise Bad("cell %s measured twice" % key)
                cell = {"codec": r["codec"], "bits": int(r["bits"]), "payload": r["payload"],
                        "payload_id": r["payload_id"], "loader": loader,
                        "icount_shift": int(r.get("icount_shift", "0"))}
                if r.get("report"):
                    cell["report"] = r["report"]
                else:
                    cell["error"] = r.get("error") or "no report line"
                derive(cell)
                for k in ("image_bytes", "wall_ms"):
                    if r.get(k, "").isdigit():
                        cell[k] = int(r[k])
                m["cells"][key] = cell
    write_atomic(out, json.dumps(m, indent=1) + "\n")


# --------------------------------------------------------------- the gate

def cmd_verify(args):
    """Every baseline cell is checked, explained away by name, or fails."""
    measured_path, baseline_path = args[0], args[1]
    tol = float(args[2]) if len(args) > 2 else 2.0
    try:
        base = load_baseline(baseline_path)
        m = load_measured(measured_path)
    except Bad as e:
        print("bench-check: FAIL: %s" % e)
        return 1
    payloads, cells = m["payloads"], m["cells"]
    uefi = m.get("uefi") if isinstance(m.get("uefi"), dict) else {}
    checked = worse = 0
    failed, not_comparable, no_ovmf = [], [], []

    def fail(key, why):
        failed.append(key)
        print("FAIL    %s: %s" % (key, why))

    if m.get("codecs_from") != "packer":
        print("note    codec list %s from the CODECS override, not from the packer's --list-codecs" % " ".join(m["codecs"]))

    for key, (want_id, want_cycles, want_total) in base.items():
        codec, bits, name, loader = cell_parts(key)
        p = payloads.get(name)
        if p is None:
            fail(key, "payload %s is not one bench.sh measures (in the baseline, not measured)" % name)
            continue
        # Only an external payload (a Debian kernel) may be absent or change
        # under us; the test kernels are built here and always measured.
        if "filtered" in p:
            fail(key, "not run: %s left it out (a partial run is not a gate pass)" % p["filtered"])
            continue
        if "absent" in p:
            if p.get("external"):
                not_comparable.append(key)
                print("skip    %s: not comparable: %s" % (key, p["absent"]))
            else:
                fail(key, "not measured: %s" % p["absent"])
            continue
        if p["id"] != want_id:
            if p.get("external"):
                not_comparable.append(key)
                print("skip    %s: not comparable: baseline is for %s, this payload is %s" % (key, want_id, p["id"]))
            else:
                fail(key, "baseline is for payload %s, this one is %s" % (want_id, p["id"]))
            continue
        if codec not in m["codecs"]:
            fail(key, "not run: codec %s is not in the codec list (%s)" % (codec, " ".join(m["codecs"])))
            continue
        # No OVMF on this machine: counted and named, never a pass.
        if loader == OVMF and isinstance(uefi.get("absent"), str):
            no_ovmf.append(key)
            print("skip    %s: not measured: %s" % (key, uefi["absent"]))
            continue
        c = cells.get(key)
        if c is None:
            fail(key, "in the baseline but not measured")
            continue
        if "error" in c:
            fail(key, "boot failed: %s" % c["error"])
            continue
        try:
            r = parse_report(c.get("report"), codec, bits, loader, c.get("icount_shift", 0))
        except Bad as e:
            fail(key, str(e))
            continue
        checked += 1
        cell_worse = False
        gated = (("cycles", want_cycles), ("total", want_total))
        if loader == OVMF:
            gated = gated[:1]
            print("info    %s total: %d vs baseline %d (not gated: it counts OVMF's boot services calls)" % (
                key, r["total"], want_total))
        for metric, want in gated:
            got = r[metric]
            d = 100.0 * (got - want) / want
            if d > tol:
                cell_worse = True
                print("WORSE   %s %s: %d vs baseline %d (%+.2f%%)" % (key, metric, got, want, d))
            elif d < -tol:
                print("better  %s %s: %d vs baseline %d (%+.2f%%): run 'make bench-baseline' to lock it in" % (key, metric, got, want, d))
            else:
                print("ok      %s %s: %d (%+.2f%%)" % (key, metric, got, d))
        if cell_worse:
            worse += 1
            failed.append(key)

    for key in cells:
        if key not in base:
            fail(key, "measured but not in %s (a change that adds cells adds them to the baseline "
                      "in the same commit: make bench-baseline)" % baseline_path)

    comparable = len(base) - len(not_comparable) - len(no_ovmf)
    summary = "%d cells checked, %d not comparable, %d failed (%d worse by more than %g%%)" % (
        checked, len(not_comparable), len(failed), worse, tol)
    if no_ovmf:
        summary += ", %d OVMF cells skipped" % len(no_ovmf)
        print("skip: bench-check: %d OVMF cells: %s" % (len(no_ovmf), uefi["absent"]))
    if failed or checked < comparable:
        if checked < comparable and not failed:
            summary += "; the baseline has %d comparable cells" % comparable
        print("bench-check: FAIL: %s" % summary)
        return 1
    print("bench-check: ok: %s, against %s" % (summary, baseline_path))
    return 0


def cmd_complete(args):
    """A run the README and the baseline may be written from: nothing left out."""
    m = load_measured(args[0])
    why, failed = [], False
    if m.get("codecs_from") != "packer":
        why.append("the codec list came from CODECS, not the packer")
    if not isinstance(m.get("uefi"), dict) or "absent" in m["uefi"]:
        why.append("no OVMF cells: %s" % (m.get("uefi") or {}).get("absent", "not asked for"))
    for name, p in m["payloads"].items():
        if "filtered" in p:
            why.append("%s: left out by %s" % (name, p["filtered"]))
        if "absent" in p:
            why.append("%s: %s" % (name, p["absent"]))
    for key, c in m["cells"].items():
        try:
            parse_cell(c)
        except Bad as e:
            failed = True
            why.append("%s failed: %s" % (key, c.get("error") or e))
    if not m["cells"]:
        why.append("no cells")
    for w in why:
        print("  " + w)
    return 3 if failed else 1 if why else 0


# --------------------------------------------------------------- tables

def good_cells(m):
    for key, c in m["cells"].items():
        if "icount_cycles" in c:
            yield key, c


def cmd_table(args):
    m = load_measured(args[0])
    fmt = "%-7s %4s %-13s %-6s %10s %10s %7s %14s %8s %12s %8s"
    print(fmt % ("codec", "bits", "payload", "loader", "compressed", "original", "ratio", "icount-cycles", "cyc/byte", "icount-total", "wall-ms"))
    for key, c in m["cells"].items():
        loader = c.get("loader", BIOS)
        if "icount_cycles" not in c:
            print("%-7s %4s %-13s %-6s %s" % (c["codec"], c["bits"], c["payload"], loader, c.get("error", "bad report line")))
            continue
        print(fmt % (c["codec"], c["bits"], c["payload"], loader, c["compressed_bytes"], c["bytes"], "%.4f" % c["ratio"],
                     c["icount_cycles"], "%.3f" % c["cycles_per_byte"], c["total_cycles"], c.get("wall_ms", "-")))


def cmd_dat(args):
    # The chart is about the codecs, so only the small test kernels, whose
    # points do not depend on what Debian ships this month, under SeaBIOS
    # (under OVMF the same decoder makes nearly the same point).
    m = load_measured(args[0])
    for key, c in good_cells(m):
        if not m["payloads"][c["payload"]].get("external") and c.get("loader", BIOS) == BIOS:
            print("%s-%d %.4f %.1f" % (c["codec"], c["bits"], c["ratio"], 1000.0 * c["bytes"] / c["icount_cycles"]))


def readme_table(m):
    n = lambda v: "{:,}".format(v)
    rows = ["| codec | bits | payload | loader | compressed | original | ratio | icount cycles | cycles/byte | icount total | wall ms |",
            "|---|---|---|---|---|---|---|---|---|---|---|"]
    for key, c in good_cells(m):
        rows.append("| %s | %d | %s | %s | %s | %s | %.4f | %s | %.3f | %s | %s |" % (
            c["codec"], c["bits"], c["payload"], c.get("loader", BIOS), n(c["compressed_bytes"]), n(c["bytes"]), c["ratio"],
            n(c["icount_cycles"]), c["cycles_per_byte"], n(c["total_cycles"]), c.get("wall_ms", "-")))
    ids = ["`%s` is %s" % (name, p["id"]) for name, p in m["payloads"].items() if p.get("external") and "id" in p]
    if m.get("wall_clock"):
        wall = "%s, median of %s boots from the stub's entry to the kernel's (QEMU's gdbstub)" % (
            m["wall_clock"].upper(), m.get("wall_runs") or "the")
    else:
        wall = "not measured"
    note = ("Generated by `make bench` from `build/bench/results.json`; do not edit. "
            "Loader: `bios` is QEMU's `-kernel` under SeaBIOS (the real-mode entry), `ovmf` the same "
            "image under OVMF (the EFI entry; its icount total includes OVMF's boot services calls). "
            "Wall clock: %s." % wall)
    if ids:
        note += " Debian payloads: %s." % ", ".join(ids)
    return "\n".join(rows) + "\n\n" + note + "\n"


def split_readme(text, path):
    if text.count(BEGIN) != 1 or text.count(END) != 1 or text.index(BEGIN) > text.index(END):
        raise Bad("%s: needs exactly one %s ... %s" % (path, BEGIN, END))
    head, rest = text.split(BEGIN)
    body, tail = rest.split(END)
    return head, body, tail


def cmd_readme(args):
    m, path = load_measured(args[0]), args[1]
    with open(path, encoding="utf-8") as f:
        head, _, tail = split_readme(f.read(), path)
    write_atomic(path, head + BEGIN + "\n" + readme_table(m) + END + tail)


def cmd_baseline(args):
    m, out = load_measured(args[0]), args[1]
    lines = []
    for key, c in m["cells"].items():
        r = parse_cell(c)
        lines.append("    %s: %s" % (json.dumps(key), json.dumps(
            {"payload": m["payloads"][c["payload"]]["id"], "cycles": r["cycles"], "total": r["total"]})))
    what = ("icount cycles (guest instructions: -icount shift=0,sleep=off, and under OVMF shift=4 "
            "with rdtsc divided by 16) per codec/bits/payload[/ovmf]: cycles = decompression, "
            "total = setup (or EFI) entry to hand-off; written by make bench-baseline "
            "together with README's timing table")
    write_atomic(out, '{\n  "_what": %s,\n  "cells": {\n%s\n  }\n}\n' % (json.dumps(what), ",\n".join(lines)))


def cmd_readme_check(args):
    """Each README row is a baseline cell with the baseline's numbers, and back."""
    readme, baseline = args[0], args[1]
    try:
        base = load_baseline(baseline)
        with open(readme, encoding="utf-8") as f:
            _, body, _ = split_readme(f.read(), readme)
    except (Bad, OSError) as e:
        print("readme-check: FAIL: %s" % e)
        return 1
    rows = [l for l in body.splitlines() if l.startswith("|")]
    cols = [h.strip() for h in rows[0].strip("|").split("|")] if rows else []
    need = ("codec", "bits", "payload", "icount cycles", "icount total")
    if any(h not in cols for h in need):
        print("readme-check: FAIL: %s: the generated table has no header with %s" % (readme, ", ".join(need)))
        return 1
    bad, seen = [], set()
    for row in rows[2:]:
        v = dict(zip(cols, (x.strip() for x in row.strip("|").split("|"))))
        # A table from before the loader column: every row is SeaBIOS's.
        key = cell_key(v.get("codec"), v.get("bits"), v.get("payload"), v.get("loader", BIOS))
        seen.add(key)
        if key not in base:
            bad.append("%s: a README row, not in %s" % (key, baseline))
            continue
        for col, want in (("icount cycles", base[key][1]), ("icount total", base[key][2])):
            got = v.get(col, "").replace(",", "")
            if got != str(want):
                bad.append("%s: README %s %s, baseline %d" % (key, col, v.get(col), want))
    for key in base:
        if key not in seen:
            bad.append("%s: in %s, no README row" % (key, baseline))
    for b in bad:
        print("readme-check: " + b)
    if bad:
        print("readme-check: FAIL: %s disagrees with %s (make bench-baseline writes both)" % (readme, baseline))
        return 1
    print("readme-check: ok: %d README rows match %s" % (len(seen), baseline))
    return 0


def cmd_from_baseline(args):
    base = load_baseline(args[0])
    m = {"codecs": [], "codecs_from": "packer", "uefi": {"code": "OVMF_CODE.fd"}, "payloads": {}, "cells": {}}
    for key, (pid, cycles, total) in base.items():
        codec, bits, name, loader = cell_parts(key)
        if codec not in m["codecs"]:
            m["codecs"].append(codec)
        m["payloads"][name] = {"bits": bits, "external": name.startswith("debian-"), "id": pid}
        m["cells"][key] = {"codec": codec, "bits": bits, "payload": name, "payload_id": pid, "loader": loader,
                           "report": "bzpack: codec=%s in=1000 out=2000 cycles=%d move=0 verify=1 decompress=%d total=%d bits=%d entry=%s"
                                     % (codec, cycles, cycles, total, bits, "efi" if loader == OVMF else "16")}
        derive(m["cells"][key])   # the numbers README's table shows
    # One cell per line, so a test can edit a cell with sed.
    print('{"codecs": %s, "codecs_from": "packer", "uefi": %s,\n "payloads": %s,\n "cells": {\n%s\n}}' % (
        json.dumps(m["codecs"]), json.dumps(m["uefi"]), json.dumps(m["payloads"]),
        ",\n".join("  %s: %s" % (json.dumps(k), json.dumps(c)) for k, c in m["cells"].items())))


COMMANDS = {
    "record": (cmd_record, 2), "bench-records": (cmd_bench_records, 5), "collect": (cmd_collect, 2), "verify": (cmd_verify, 2),
    "complete": (cmd_complete, 1), "table": (cmd_table, 1), "dat": (cmd_dat, 1),
    "readme": (cmd_readme, 2), "baseline": (cmd_baseline, 2),
    "readme-check": (cmd_readme_check, 2), "from-baseline": (cmd_from_baseline, 1),
}


def main(argv):
    if len(argv) < 2 or argv[1] not in COMMANDS or len(argv) - 2 < COMMANDS[argv[1]][1]:
        print("usage: benchjson.py %s ..." % "|".join(COMMANDS), file=sys.stderr)
        return 2
    try:
        return COMMANDS[argv[1]][0](argv[2:]) or 0
    except Bad as e:
        print("benchjson: %s" % e, file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
