#!/usr/bin/env python3
"""nativejson.py - build/bench/native.json, `make bench-native`'s results.

  merge NATIVE SECTION PART    set NATIVE's SECTION ("rows" or "seed") to
                               the JSON in PART, keeping the other section
  seed-dat NATIVE              gnuplot's data for ci/benchmarks/seed.gnuplot
  seed-table NATIVE            README's seed table and verdict, on stdout
  rows-table NATIVE            README's table of our decoders against their
                               reference libraries, on stdout
                               (ci/readme-table.sh puts both in README.md)

NATIVE is an object:
  {"rows": [ROW...],           bench_native's rows (tools/bench/bench_native.c)
   "seed": {..., "rows": [ROW...]}}
                               the seed's experiment (tools/bench/bench_seed.c):
                               rows in the same format, plus "zero_percent",
                               "pages" and "page_bytes"; one "lzo" row
                               (ours and liblzo2) and one "lzo-rle" row
                               (ours) per zero fraction.
Each program writes its own part, so that `make bench-seed` alone keeps the
rows and a bench_native run keeps the seed.  A NATIVE that is a bare list
(bench_native's own -o format) is read as the rows.

Standard library only (Debian's python3).
"""

import json
import os
import sys

from jsonfile import Bad, load

SECTIONS = ("rows", "seed")
# "Few zeros make no difference": within this much of 1.0x at 0 % zeros.
SAME_WITHIN = 0.05
# "A good improvement": at least this much faster at every fraction from
# 75 % zeros on.
CLEARLY_FASTER = 1.10
HIGH_FROM = 75


def write_atomic(path, text):
    # Beside the target, then renamed: an interrupted run never leaves half
    # a file behind.
    tmp = path + ".tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        f.write(text)
    os.replace(tmp, path)


def dump(v, ind=""):
    """JSON a person can read: an object or list holding objects or lists
    one member a line, anything flatter (a row) on a single line."""
    inner = ind + " "
    if isinstance(v, dict) and any(isinstance(x, (dict, list)) for x in v.values()):
        return "{\n" + ",\n".join(inner + json.dumps(k) + ": " + dump(x, inner) for k, x in v.items()) \
            + "\n" + ind + "}"
    if isinstance(v, list) and any(isinstance(x, (dict, list)) for x in v):
        return "[\n" + ",\n".join(inner + dump(x, inner) for x in v) + "\n" + ind + "]"
    return json.dumps(v)


def merge(native, section, part):
    if section not in SECTIONS:
        raise Bad("section %r is none of %s" % (section, ", ".join(SECTIONS)))
    new = load(part, section)
    doc = {}
    if os.path.exists(native):
        try:
            old = load(native, "results")
        except Bad as e:
            # A build product: a damaged one is replaced, with a word.
            print("nativejson: %s; starting it afresh" % e, file=sys.stderr)
            old = {}
        if isinstance(old, list):
            old = {"rows": old}
        if isinstance(old, dict):
            doc = {k: old[k] for k in SECTIONS if k in old}
    doc[section] = new
    write_atomic(native, dump({k: doc[k] for k in SECTIONS if k in doc}) + "\n")


def num(row, key, path):
    v = row.get(key)
    if isinstance(v, bool) or not isinstance(v, (int, float)) or v <= 0:
        raise Bad('%s: seed row %s/%s: "%s" is %s, not a positive number'
                  % (path, row.get("codec"), row.get("input"), key, json.dumps(v)))
    return v


def seed_points(path):
    """The seed section as (section, [point...]), one point per zero
    fraction in increasing order; Bad if anything is missing."""
    doc = load(path, "results")
    seed = doc.get("seed") if isinstance(doc, dict) else None
    if not isinstance(seed, dict) or not isinstance(seed.get("rows"), list):
        raise Bad('%s: no "seed" section (make bench-seed)' % path)
    by = {}
    for row in seed["rows"]:
        if not isinstance(row, dict) or row.get("codec") not in ("lzo", "lzo-rle"):
            raise Bad("%s: seed row %s is not an lzo or lzo-rle row" % (path, json.dumps(row)[:80]))
        pct = row.get("zero_percent")
        if isinstance(pct, bool) or not isinstance(pct, int) or not 0 <= pct <= 100:
            raise Bad('%s: seed row without a "zero_percent" of 0..100' % path)
        if (pct, row["codec"]) in by:
            raise Bad("%s: two %s rows at %d %% zeros" % (path, row["codec"], pct))
        by[(pct, row["codec"])] = row
    points = []
    for pct in sorted({p for p, _ in by}):
        lzo, rle = by.get((pct, "lzo")), by.get((pct, "lzo-rle"))
        if not lzo or not rle:
            raise Bad("%s: %d %% zeros lacks its %s row" % (path, pct, "lzo" if not lzo else "lzo-rle"))
        p = {"pct": pct, "pages": num(lzo, "pages", path), "page_bytes": num(lzo, "page_bytes", path),
             "lzo_size": num(lzo, "compressed_bytes", path) / num(lzo, "bytes", path),
             "rle_size": num(rle, "compressed_bytes", path) / num(rle, "bytes", path),
             "lzo_ours": num(lzo, "ours_mbps", path), "lzo_ref": num(lzo, "ref_mbps", path),
             "rle_ours": num(rle, "ours_mbps", path),
             "reps": min(num(lzo, "ours_reps", path), num(lzo, "ref_reps", path), num(rle, "ours_reps", path)),
             "cflags": lzo.get("ours_cflags"), "ref_version": lzo.get("ref_version")}
        p["gain"] = p["rle_ours"] / p["lzo_ours"]
        points.append(p)
    if not points:
        raise Bad("%s: the seed section has no rows" % path)
    return seed, points


def seed_dat(path):
    _, points = seed_points(path)
    print("# zero%  lzo-ours  lzo-liblzo2  lzo-rle-ours  lzo-size  lzo-rle-size  (MB/s; compressed/original)")
    for p in points:
        print("%d %.1f %.1f %.1f %.4f %.4f" % (p["pct"], p["lzo_ours"], p["lzo_ref"], p["rle_ours"],
                                              p["lzo_size"], p["rle_size"]))


def mbps(v):
    return "{:,.0f}".format(v)


def verdict(points):
    """Sentences that hold the seed's two claims against the numbers: the
    judgement follows SAME_WITHIN and CLEARLY_FASTER, never a hand."""
    at = {p["pct"]: p for p in points}
    out = []
    if 0 in at:
        g = at[0]["gain"]
        if abs(g - 1) <= SAME_WITHIN:
            out.append("With no zeros lzo-rle decodes at %.2fx our lzo, within %d %%: no difference, "
                       "as the seed says." % (g, SAME_WITHIN * 100))
        else:
            out.append("With no zeros lzo-rle decodes at %.2fx our lzo: more than %d %% apart, "
                       "unlike the seed's \"no difference\"." % (g, SAME_WITHIN * 100))
    mid = [p for p in points if 0 < p["pct"] < HIGH_FROM]
    if mid:
        out.append("In between: %s." % ", ".join("%.2fx at %d %%" % (p["gain"], p["pct"]) for p in mid))
    high = [p for p in points if p["pct"] >= HIGH_FROM]
    if high:
        gains = ", ".join("%.2fx" % p["gain"] for p in high)
        pcts = ", ".join("%d" % p["pct"] for p in high)
        deltas = [p["rle_ours"] - p["lzo_ours"] for p in high]
        span = "{:+,.0f} to {:+,.0f} MB/s".format(min(deltas), max(deltas))
        if min(p["gain"] for p in high) >= CLEARLY_FASTER:
            judge = "clearly faster (at least %.2fx at each), as the seed says" % CLEARLY_FASTER
        elif min(p["gain"] for p in high) >= 1:
            judge = "faster, but not by %.2fx at each: weaker than the seed's \"good improvement\"" % CLEARLY_FASTER
        else:
            judge = "not faster at each: unlike the seed"
        out.append("From %d %% zeros on it is %s: %s at %s %% zeros (%s of output)."
                   % (HIGH_FROM, judge, gains, pcts, span))
    return " ".join(out)


def rows_table(path):
    """Our decoder against each reference, per input: the rows that have both."""
    native = load(path, "native results")
    rows = native["rows"] if isinstance(native, dict) else native
    out = ["| codec | input | ours MB/s | reference | its MB/s | ours / reference |",
           "|---|---|---|---|---|---|"]
    n = 0
    for r in rows:
        if not r.get("ours"):
            continue            # a reference library's own row: no decoder of ours yet
        name = os.path.basename(r["input"])
        if "debian" in r["input"]:
            name = os.path.basename(os.path.dirname(r["input"])) + "/" + name
        if not r.get("ref") or r.get("ref_mbps") is None:
            out.append("| %s | %s | %s | (no library writes or reads it) | | |"
                       % (r["label"], name, mbps(num(r, "ours_mbps", path))))
        else:
            out.append("| %s | %s | %s | %s `%s` | %s | %.2fx |" % (
                r["label"], name, mbps(num(r, "ours_mbps", path)), r["ref"], r.get("ref_func", ""),
                mbps(num(r, "ref_mbps", path)), num(r, "ours_over_ref", path)))
        n += 1
    if not n:
        raise Bad("%s: no row has both our decoder and a reference" % path)
    out.append("")
    out.append("MB/s of output, best of the alternating repetitions (`make bench-native`, "
               "build/bench/native.json); our decoders built with the stub's flags (%s)."
               % rows[0].get("ours_cflags", "?"))
    return "\n".join(out)


def seed_table(path):
    seed, points = seed_points(path)
    lines = ["| zeros | lzo size | lzo-rle size | lzo, ours | lzo, liblzo2 | lzo-rle, ours | lzo-rle / lzo (ours) |",
             "|---|---|---|---|---|---|---|"]
    for p in points:
        lines.append("| %d %% | %.4f | %.4f | %s MB/s | %s MB/s | %s MB/s | %.2fx |"
                     % (p["pct"], p["lzo_size"], p["rle_size"], mbps(p["lzo_ours"]), mbps(p["lzo_ref"]),
                        mbps(p["rle_ours"]), p["gain"]))
    first = points[0]
    lines.append("")
    lines.append("Generated by `make bench-seed` (which `make bench-native` runs) from the \"seed\" "
                 "section of `build/bench/native.json`; do not edit. Per row %d pages of %d bytes; size is "
                 "compressed / original; MB/s of output, best of >= %d whole-corpus decodes (>= %.2f s per "
                 "decoder), the three decoders in alternation; ours built `%s`, liblzo2 %s."
                 % (first["pages"], first["page_bytes"], min(p["reps"] for p in points),
                    seed.get("min_seconds", 0), first["cflags"], first["ref_version"]))
    lines.append("")
    lines.append(verdict(points))
    return "\n".join(lines) + "\n"


def main(argv):
    try:
        if len(argv) == 4 and argv[0] == "merge":
            merge(argv[1], argv[2], argv[3])
        elif len(argv) == 2 and argv[0] == "seed-dat":
            seed_dat(argv[1])
        elif len(argv) == 2 and argv[0] == "seed-table":
            sys.stdout.write(seed_table(argv[1]))
        elif len(argv) == 2 and argv[0] == "rows-table":
            print(rows_table(argv[1]))
        else:
            print("usage: nativejson.py merge NATIVE rows|seed PART | seed-dat NATIVE | "
                  "seed-table NATIVE | rows-table NATIVE", file=sys.stderr)
            return 2
    except Bad as e:
        print("nativejson: %s" % e, file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
