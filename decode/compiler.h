/* compiler.h - the compiler attributes the decoders use, named once.  The
 * decoders are built by GCC for the stub and by GCC or clang for the host
 * tests, benchmarks and fuzzers; every name here means the same to both.
 *
 * ALWAYS_INLINE  small helpers of a hot loop: GCC would otherwise keep one
 *                out of line once a cold caller needs a copy of it.
 * NOINLINE       keeps a function (and its optimisation level) to itself.
 * HOT            a loop that does the work: out of line and optimised for
 *                speed even when only cold code calls it (GCC otherwise
 *                treats what only cold code calls as cold).
 * COLD           runs once per stream, block or table: optimised for size,
 *                its callers' branches to it predicted not taken.
 * LIKELY(x), UNLIKELY(x)  the branch hints.
 * MAYBE_UNUSED   a static helper of a shared header that some includers
 *                never call (no -Wunused-function for them).
 */
#ifndef COMPILER_H
#define COMPILER_H

#define ALWAYS_INLINE inline __attribute__((always_inline))
#define NOINLINE      __attribute__((noinline))
#define HOT           __attribute__((noinline, hot))
#define COLD          __attribute__((cold))
#define MAYBE_UNUSED  __attribute__((unused))

#define LIKELY(x)     __builtin_expect(!!(x), 1)
#define UNLIKELY(x)   __builtin_expect(!!(x), 0)

#endif
