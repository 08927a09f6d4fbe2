#!/usr/bin/env python3
"""selfcheck-map.py - the host half of the stub's self-check sweep.

  selfcheck-map.py map IMAGE STUB_ELF      the regions of IMAGE's stub
                                           bytes, one "START END REGION"
                                           line each (file offsets, END
                                           exclusive), on stdout
  selfcheck-map.py prologues SETUP_BIN STUB_ELF...
                                           each entry's prologue size in
                                           bytes ("ENTRY MIN MAX" over the
                                           stubs given), for the README
  selfcheck-map.py prove IMAGE STUB_ELF    exit 0 only if every stub byte
                                           lies in a region, both stored
                                           CRCs are right, and every
                                           single-byte change (all 255
                                           values at every covered byte)
                                           changes the CRC

"Stub bytes" are the real-mode setup's code and messages (from the
setup_header's end to setup.bin's last word) and the whole protected-mode
stub (up to the bzpack_header).  The rule they follow is
include/bzpack_format.h's "the stub's self-check"; the constants come from
build/gen/bzpack_format.sh.  Prologues are where `nm` puts them: from an
entry to its ..@prologue_*_end label (stub/selfcheck.inc), and for the
setup from SETUP_HEADER_END to the end of its damage message, which is
the prologue's last byte (stub/setup.asm).

The proof is by recomputing, not by quoting the CRC's theory: a change e
to byte i of an n-byte message changes the CRC by Z^(n-1-i)(T[e]), where
T is the byte table and Z the step over a zero byte (both linear), so
"every e in 1..255 is detected at byte i" is "the 8 vectors
Z^(n-1-i)(T[1 << j]) are independent"; the script computes those vectors
for every i and checks their rank, and also flips sampled bytes for real
and recomputes the whole CRC.
"""
import os
import random
import struct
import subprocess
import sys

from checksums import CRC32C_TABLE as TABLE, crc32c


def gen_consts():
    path = os.path.join(os.environ.get("B", "build"), "gen", "bzpack_format.sh")
    consts = {}
    with open(path) as f:
        for line in f:
            if "=" in line and not line.startswith("#"):
                k, v = line.strip().split("=", 1)
                consts[k] = int(v)
    return consts


def symbols(elf):
    out = subprocess.run(["nm", elf], check=True, capture_output=True, text=True).stdout
    syms = {}
    for line in out.splitlines():
        parts = line.split()
        if len(parts) == 3:
            syms[parts[2]] = int(parts[0], 16)
    return syms


ENTRIES = (("startup_32", "..@prologue_32_end"), ("startup_64", "..@prologue_64_end"),
           ("efi_pe_entry", "..@prologue_efi_end"), ("efi_handover_entry", "..@prologue_handover_end"))
SETUP_MESSAGE = b"real-mode setup damaged: its code's CRC32C does not match\n\0"


def setup_prologue_end(data, start, end):
    """The setup's prologue ends with its damage message (stub/setup.asm)."""
    at = data.find(SETUP_MESSAGE, start, end)
    if at < 0:
        raise SystemExit("selfcheck-map: no setup damage message: not this tree's setup")
    return at + len(SETUP_MESSAGE)


def prologues(elf):
    syms = symbols(elf)
    out = []
    for entry, end in ENTRIES:
        if entry in syms:
            if end not in syms:
                raise SystemExit("selfcheck-map: %s: %s has no %s" % (elf, entry, end))
            out.append((entry, syms[entry] - syms["startup_32"], syms[end] - syms["startup_32"]))
    return out


class Layout:
    """Where the stub bytes of one image are, and their regions."""

    def __init__(self, image, elf):
        c = gen_consts()
        self.c = c
        with open(image, "rb") as f:
            self.data = f.read()
        d = self.data
        self.so = (d[c["SETUP_HDR_setup_sects"]] + 1) * c["SECTOR_SIZE"]
        payload_offset = struct.unpack_from("<I", d, c["SETUP_HDR_payload_offset"])[0]
        self.stub_size = payload_offset - c["BZPACK_HEADER_SIZE"]
        # setup.bin ends where the kernel_version string starts
        self.setup_end = struct.unpack_from("<H", d, c["SETUP_HDR_kernel_version"])[0] + 0x200
        self.setup_prologue_end = setup_prologue_end(d, c["SETUP_HEADER_END"], self.setup_end)
        syms = symbols(elf)
        if syms["_stub_end"] - syms["startup_32"] != self.stub_size:
            raise SystemExit("selfcheck-map: %s is not the stub of %s (size %d, image says %d)"
                             % (elf, image, syms["_stub_end"] - syms["startup_32"], self.stub_size))
        self.prologues = prologues(elf)

    def regions(self):
        """(start, end, region) in file offsets, covering every stub byte once."""
        c, so, n = self.c, self.so, self.stub_size
        crc = c["BZPACK_SELF_CRC_SIZE"]
        r = [(c["SETUP_HEADER_END"], self.setup_prologue_end, "setup prologue"),
             (self.setup_prologue_end, self.setup_end - crc, "setup code"),
             (self.setup_end - crc, self.setup_end, "setup crc")]
        at = 0
        for entry, start, end in sorted(self.prologues, key=lambda p: p[1]):
            if start > at:
                r.append((so + at, so + start, "stub code"))
            r.append((so + start, so + end, "prologue " + entry))
            at = end
        r.append((so + at, so + n - crc, "stub code"))
        r.append((so + n - crc, so + n, "stub crc"))
        return r


def rank8(vectors):
    basis = []
    for v in vectors:
        for b in basis:
            v = min(v, v ^ b)
        if v == 0:
            return False
        basis.append(v)
    return True


def prove_range(data, start, end, stored, what, rng):
    """Every single-byte change in data[start:end] changes its CRC32C."""
    if crc32c(data[start:end]) != stored:
        return "%s: stored CRC 0x%08x is not the CRC of its bytes" % (what, stored)
    n = end - start
    vec = [TABLE[1 << j] for j in range(8)]  # the change at the last byte
    for k in range(n):                       # k zero bytes after the changed one
        if not rank8(vec):
            return "%s: a change at byte %d goes unseen" % (what, n - 1 - k)
        vec = [TABLE[v & 0xFF] ^ (v >> 8) for v in vec]
    buf = bytearray(data[start:end])
    for _ in range(16):                      # and for real, on a sample
        i, e = rng.randrange(n), rng.randrange(1, 256)
        buf[i] ^= e
        if crc32c(buf) == stored:
            return "%s: byte %d ^= 0x%02x keeps the CRC" % (what, i, e)
        buf[i] ^= e
    return None


def main():
    if len(sys.argv) >= 4 and sys.argv[1] == "prologues":
        with open(sys.argv[2], "rb") as f:
            setup = f.read()
        c = gen_consts()
        sizes = {"setup": [setup_prologue_end(setup, c["SETUP_HEADER_END"], len(setup)) - c["SETUP_HEADER_END"]]}
        for elf in sys.argv[3:]:
            for entry, start, end in prologues(elf):
                sizes.setdefault(entry, []).append(end - start)
        for entry in ["setup"] + [e for e, _ in ENTRIES]:
            if entry in sizes:
                print(entry, min(sizes[entry]), max(sizes[entry]))
        return
    if len(sys.argv) != 4 or sys.argv[1] not in ("map", "prove"):
        sys.exit("usage: selfcheck-map.py map|prove IMAGE STUB_ELF, or prologues SETUP_BIN STUB_ELF...")
    lay = Layout(sys.argv[2], sys.argv[3])
    regions = lay.regions()
    if sys.argv[1] == "map":
        for start, end, name in regions:
            print(start, end, name)
        return
    # every stub byte in exactly one region
    seen = bytearray(len(lay.data))
    for start, end, _ in regions:
        for i in range(start, end):
            seen[i] += 1
    stub_bytes = list(range(lay.c["SETUP_HEADER_END"], lay.setup_end)) + \
        list(range(lay.so, lay.so + lay.stub_size))
    bad = [i for i in stub_bytes if seen[i] != 1]
    if bad:
        sys.exit("selfcheck-map: %d stub bytes in no region or in two, first at 0x%x" % (len(bad), bad[0]))
    crc = lay.c["BZPACK_SELF_CRC_SIZE"]
    d, rng = lay.data, random.Random(1129)
    for start, end, what in ((lay.c["BZPACK_SETUP_CRC_START"], lay.setup_end - crc, "setup"),
                             (lay.so, lay.so + lay.stub_size - crc, "stub")):
        why = prove_range(d, start, end, struct.unpack_from("<I", d, end)[0], what, rng)
        if why:
            sys.exit("selfcheck-map: " + why)
    total = {}
    for start, end, name in regions:
        total[name.split()[0] if name.startswith("prologue") else name] = \
            total.get(name.split()[0] if name.startswith("prologue") else name, 0) + end - start
    print("stub bytes %d: %s; each covered byte's 255 changes proven detected"
          % (len(stub_bytes), ", ".join("%s %d" % kv for kv in sorted(total.items()))))


if __name__ == "__main__":
    main()
