/* stubs.h - the boot-side binaries the packer carries (build/gen/stubs.S). */
#ifndef STUBS_H
#define STUBS_H

#include "util.h"

struct buffer stub_setup_blob(void);
/* The stub for codec, bits and bzpack_header.flags; size 0 if none. */
struct buffer stub_blob(int codec, int bits, uint32_t flags);

#endif
