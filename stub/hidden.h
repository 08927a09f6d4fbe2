/* hidden.h - included first in every stub C file (stub/stub.mk, -include):
 * every symbol, declared or defined, has hidden visibility, so that the
 * position-independent stub reaches its own code and data relative to
 * where it runs, never through a GOT that nobody would fill in.  The idea
 * is Linux's arch/x86/boot/compressed (its hidden.h and -fPIE). */
#pragma GCC visibility push(hidden)
