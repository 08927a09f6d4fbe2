/* gzip_decode_safe.c - decode/gzip_decode.c again, built without its fast
 * loop and named gzip_decode_safe: tests/test_gzip.c and tests/fuzz_gzip.c
 * insist that both loops give the same status and bytes on every input. */
#define GZIP_SAFE_LOOP_ONLY
#define gzip_decode gzip_decode_safe
#define gzip_decode_stream gzip_decode_stream_safe
#include "gzip_decode.c"
