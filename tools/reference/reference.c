/* reference.c - the table of decode/references.def (see reference.h). */
#include "reference.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A -m32 build links only the libraries that have an i386 build: the
 * lines with i386 0 expand to nothing there (REF_IF_0). */
#define REF_UNWRAP(...) __VA_ARGS__
#define REF_IF_1(x) REF_UNWRAP x
#ifdef REFERENCE_I386
#define REF_IF_0(x)
#else
#define REF_IF_0(x) REF_UNWRAP x
#endif

const struct reference references[] = {
#define REFERENCE(ident, name, libs, i386, tool, variants, compress, decode) \
	REF_IF_##i386(({ #ident, name, libs, i386, tool, variants, compress, decode },))
#include "references.def"
#undef REFERENCE
};
const size_t n_references = sizeof references / sizeof references[0];

unsigned ref_variant_count(const struct reference *r)
{
	unsigned k = 0;

	for (const char *p = r->variants; *p;) {
		p += strspn(p, " ");
		if (!*p)
			break;
		k++;
		p += strcspn(p, " ");
	}
	return k;
}

const char *ref_variant_name(const struct reference *r, unsigned k, char *buf, size_t cap)
{
	const char *p = r->variants;

	for (;;) {
		p += strspn(p, " ");
		size_t len = strcspn(p, " ");

		if (!len || !k--) {
			snprintf(buf, cap, "%.*s", (int)len, p);
			return buf;
		}
		p += len;
	}
}

static char why_buf[200];

const char *ref_why(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why_buf, sizeof why_buf, fmt, ap);
	va_end(ap);
	return why_buf;
}

void *ref_alloc(size_t n)
{
	void *p = malloc(n ? n : 1);

	if (!p) {
		fprintf(stderr, "reference: out of memory (%zu bytes)\n", n);
		exit(2);
	}
	return p;
}
