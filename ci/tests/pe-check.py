#!/usr/bin/env python3
"""pe-check.py - read a PE32+ file's header independently of bzpack and
print what the PE tests assert, one "key=value" per line:

  major_image_version, dll_characteristics, reloc_dir (rva,size),
  cert_dir (offset,size), sections (name:rva:vsize:raw_off:raw_size ...),
  layout=ok or layout=<the first problem> (alignments, raw size within
  virtual size, sections back to back, SizeOfImage the end of the last).

  pe-check.py add-sbat IN SBAT-FILE OUT
writes a copy of IN (a PE bzImage) without its certificate table and
with one more section, .sbat, holding SBAT-FILE: a Linux bzImage built
with CONFIG_EFI_SBAT_FILE, for the repacking test.
"""
import struct
import sys


def parse(data):
    if data[:2] != b"MZ":
        raise ValueError("no MZ")
    pe = struct.unpack_from("<I", data, 0x3C)[0]
    if data[pe:pe + 4] != b"PE\0\0":
        raise ValueError("no PE signature")
    machine, nsec = struct.unpack_from("<HH", data, pe + 4)
    opt_size = struct.unpack_from("<H", data, pe + 20)[0]
    opt = pe + 24
    hdr = {
        "opt": opt,
        "nsec": nsec,
        "magic": struct.unpack_from("<H", data, opt)[0],
        "section_alignment": struct.unpack_from("<I", data, opt + 32)[0],
        "file_alignment": struct.unpack_from("<I", data, opt + 36)[0],
        "major_image_version": struct.unpack_from("<H", data, opt + 44)[0],
        "size_of_image": struct.unpack_from("<I", data, opt + 56)[0],
        "size_of_headers": struct.unpack_from("<I", data, opt + 60)[0],
        "dll_characteristics": struct.unpack_from("<H", data, opt + 70)[0],
        "cert_dir": struct.unpack_from("<II", data, opt + 112 + 8 * 4),
        "reloc_dir": struct.unpack_from("<II", data, opt + 112 + 8 * 5),
        "table": opt + opt_size,
    }
    secs = []
    for i in range(nsec):
        s = hdr["table"] + 40 * i
        name = data[s:s + 8].rstrip(b"\0").decode("ascii", "replace")
        vsize, rva, raw_size, raw_off = struct.unpack_from("<IIII", data, s + 8)
        secs.append((name, rva, vsize, raw_off, raw_size))
    return hdr, secs


def layout_problem(data, hdr, secs):
    sa, fa = hdr["section_alignment"], hdr["file_alignment"]
    if hdr["magic"] != 0x20B:
        return "not PE32+"
    if fa < 512 or fa & (fa - 1) or sa < fa or sa & (sa - 1):
        return "alignments %#x/%#x" % (sa, fa)
    if hdr["size_of_headers"] % fa or hdr["size_of_image"] % sa:
        return "SizeOfHeaders or SizeOfImage not aligned"
    rva = (hdr["size_of_headers"] + sa - 1) // sa * sa
    for name, srva, vsize, raw_off, raw_size in secs:
        if srva != rva:
            return "%s at RVA %#x, expected %#x" % (name, srva, rva)
        if raw_size > vsize:
            return "%s raw size %#x > virtual size %#x" % (name, raw_size, vsize)
        if raw_off % fa or raw_size % fa or raw_off + raw_size > len(data):
            return "%s file data %#x+%#x" % (name, raw_off, raw_size)
        rva = (srva + vsize + sa - 1) // sa * sa
    if rva != hdr["size_of_image"]:
        return "SizeOfImage %#x, sections end at %#x" % (hdr["size_of_image"], rva)
    return "ok"


def describe(path):
    data = open(path, "rb").read()
    hdr, secs = parse(data)
    print("major_image_version=%d" % hdr["major_image_version"])
    print("dll_characteristics=%#x" % hdr["dll_characteristics"])
    print("reloc_dir=%d,%d" % hdr["reloc_dir"])
    print("cert_dir=%d,%d" % hdr["cert_dir"])
    print("sections=" + " ".join("%s:%#x:%#x:%#x:%#x" % s for s in secs))
    print("layout=" + layout_problem(data, hdr, secs))


def add_sbat(src, sbat_path, dst):
    data = bytearray(open(src, "rb").read())
    hdr, secs = parse(bytes(data))
    off, size = hdr["cert_dir"]
    if off:
        del data[off:off + size]
        struct.pack_into("<II", data, hdr["opt"] + 112 + 8 * 4, 0, 0)
    entry = hdr["table"] + 40 * hdr["nsec"]
    if entry + 40 > 0x1F1:
        raise ValueError("no room for another section header before the setup_header")
    sbat = open(sbat_path, "rb").read()
    raw = (len(sbat) + 511) // 512 * 512
    while len(data) % 512:
        data.append(0)
    raw_off, rva = len(data), hdr["size_of_image"]
    data += sbat + bytes(raw - len(sbat))
    struct.pack_into("<8sIIIIIIHHI", data, entry, b".sbat", raw, rva, raw, raw_off, 0, 0, 0, 0, 0x40000040)
    struct.pack_into("<H", data, hdr["opt"] - 18, hdr["nsec"] + 1)  # NumberOfSections
    struct.pack_into("<I", data, hdr["opt"] + 56, rva + (raw + 0xFFF) // 0x1000 * 0x1000)
    open(dst, "wb").write(data)


if __name__ == "__main__":
    if len(sys.argv) == 5 and sys.argv[1] == "add-sbat":
        add_sbat(sys.argv[2], sys.argv[3], sys.argv[4])
    elif len(sys.argv) == 2:
        describe(sys.argv[1])
    else:
        sys.exit(__doc__)
