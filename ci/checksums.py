"""checksums.py - the stub's two payload checks, for the scripts that
verify or reseal an image's bzpack_header: CRC-32C (decode/crc32c.c,
reflected polynomial 0x82F63B78, the byte table CRC32C_TABLE) and XXH3-64
with seed 0 (decode/xxh3.h)."""
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


# XXH3-64 with seed 0 (decode/xxh3.h): libxxhash itself (ci/deps.sh
# installs it), the reference tests/test_xxh3.c holds our C to.
import ctypes
_xxh = ctypes.CDLL("libxxhash.so.0")
_xxh.XXH3_64bits.restype = ctypes.c_uint64
_xxh.XXH3_64bits.argtypes = (ctypes.c_char_p, ctypes.c_size_t)


def xxh3(data):
    data = bytes(data)
    return _xxh.XXH3_64bits(data, len(data))
