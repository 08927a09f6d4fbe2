/* gzip_decode32.c - decode/gzip_decode.c with a 32-bit bit buffer, as the
 * -m32 stub builds it, on a 64-bit host: zlib has no installable i386
 * build here (ci/deps.sh), so this is how tests/test_gzip.c reaches the
 * 32-bit refill paths. */
#define GZIP_BITBUF_T uint32_t
#include "gzip_decode.c"
