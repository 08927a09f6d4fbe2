/* stubs.h - the boot-side binaries the packer carries (build/gen/stubs.S). */
#ifndef STUBS_H
#define STUBS_H

#include "util.h"

struct buffer stub_setup_blob(void);
struct buffer stub_blob(int codec, int bits);   /* size 0 if none */

#endif
