/* gzip_decode32_safe.c - the 32-bit bit buffer build (gzip_decode32.c)
 * without its fast loop, as gzip_decode_safe (see gzip_decode_safe.c). */
#define GZIP_BITBUF_T uint32_t
#define GZIP_SAFE_LOOP_ONLY
#define gzip_decode gzip_decode_safe
#define gzip_decode_stream gzip_decode_stream_safe
#include "gzip_decode.c"
