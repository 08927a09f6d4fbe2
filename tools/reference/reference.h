/* reference.h - the reference implementations of decode/references.def
 * behind one interface, for the differential test and its fuzzer, the
 * benches and anything else that checks our decoders against them.  The
 * glue is one file per library, tools/reference/<name>.c; the table
 * itself is tools/reference/reference.c.
 *
 * Every function returns NULL on success or a short reason (static
 * storage, valid until the next call). */
#ifndef REFERENCE_H
#define REFERENCE_H

#include <stddef.h>
#include <stdint.h>

/* Compresses in[0..n) with the compressor's setting `variant` (an index
 * into the line's variants) into *out (malloc'ed) of *out_len bytes. */
typedef const char *(*ref_compress_fn)(unsigned variant, const uint8_t *in, size_t n, uint8_t **out,
				       size_t *out_len);
/* Decodes all of src[0..src_len) into exactly dst_len bytes at dst: fails
 * if the stream is damaged, longer or shorter. */
typedef const char *(*ref_decode_fn)(const uint8_t *src, size_t src_len, uint8_t *dst, size_t dst_len);

struct reference {
	const char *codec;      /* the ident of decode/codecs.def */
	const char *name;       /* "liblz4" */
	const char *libs;
	int i386;
	const char *tool;       /* "-": none */
	const char *variants;   /* space-separated names */
	ref_compress_fn compress;
	ref_decode_fn decode;
};

/* Every line of decode/references.def this program was built with: all
 * of them, or in a -m32 build (REFERENCE_I386 defined) those with i386. */
extern const struct reference references[];
extern const size_t n_references;

/* How many variants r has, and the name of variant k (copied to buf). */
unsigned ref_variant_count(const struct reference *r);
const char *ref_variant_name(const struct reference *r, unsigned k, char *buf, size_t cap);

/* The glue's functions, from the table. */
#define REFERENCE(ident, name, libs, i386, tool, variants, compress, decode)            \
	const char *compress(unsigned variant, const uint8_t *in, size_t n, uint8_t **out, \
			     size_t *out_len);                                             \
	const char *decode(const uint8_t *src, size_t src_len, uint8_t *dst, size_t dst_len);
#include "references.def"
#undef REFERENCE

/* For the glue: a reason formatted into a static buffer; and malloc or
 * exit(2). */
const char *ref_why(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void *ref_alloc(size_t n);

#endif
