"""checksums.py - the stub's two payload checks, for the scripts that
verify or reseal an image's bzpack_header: CRC-32C (decode/crc32c.c,
reflected polynomial 0x82F63B78, the byte table CRC32C_TABLE) and XXH64 with
seed 0 (decode/xxh64.h, after the xxHash specification)."""
import struct

POLY = 0x82F63B78
CRC32C_TABLE = []
for _b in range(256):
    _c = _b
    for _ in range(8):
        _c = (_c >> 1) ^ POLY if _c & 1 else _c >> 1
    CRC32C_TABLE.append(_c)


def crc32c(data):
    crc = 0xFFFFFFFF
    for b in data:
        crc = CRC32C_TABLE[(crc ^ b) & 0xFF] ^ (crc >> 8)
    return crc ^ 0xFFFFFFFF


M = (1 << 64) - 1
P1, P2, P3, P4, P5 = (0x9E3779B185EBCA87, 0xC2B2AE3D27D4EB4F, 0x165667B19E3779F9,
                      0x85EBCA77C2B2AE63, 0x27D4EB2F165667C5)


def _rotl(x, r):
    return (x << r | x >> (64 - r)) & M


def _round(acc, lane):
    return _rotl((acc + lane * P2) & M, 31) * P1 & M


def xxh64(b):
    b = bytes(b)
    n, p = len(b), 0
    if n >= 32:
        v = [(P1 + P2) & M, P2, 0, -P1 & M]
        while n - p >= 32:
            v = [_round(v[i], struct.unpack_from("<Q", b, p + 8 * i)[0]) for i in range(4)]
            p += 32
        h = (_rotl(v[0], 1) + _rotl(v[1], 7) + _rotl(v[2], 12) + _rotl(v[3], 18)) & M
        for x in v:
            h = ((h ^ _round(0, x)) * P1 + P4) & M
    else:
        h = P5
    h = (h + n) & M
    while n - p >= 8:
        h = (_rotl(h ^ _round(0, struct.unpack_from("<Q", b, p)[0]), 27) * P1 + P4) & M
        p += 8
    if n - p >= 4:
        h = (_rotl(h ^ (struct.unpack_from("<I", b, p)[0] * P1 & M), 23) * P2 + P3) & M
        p += 4
    for x in b[p:]:
        h = _rotl(h ^ (x * P5 & M), 11) * P1 & M
    h = (h ^ h >> 33) * P2 & M
    h = (h ^ h >> 29) * P3 & M
    return h ^ h >> 32
