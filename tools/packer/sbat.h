/* sbat.h - the .sbat section of a 64-bit image: shim's Secure Boot
 * Advanced Targeting metadata (rhboot/shim SBAT.md), CSV text. */
#ifndef SBAT_H
#define SBAT_H

#include <stdio.h>

#include "util.h"

/* The text for a new image: the SBAT version line, bzpack's own line,
 * then the component lines of the input's .sbat (a repacked Linux or
 * bzpack image; input may be an ELF, which has none), then those of
 * extra_path (--sbat, NULL for none).  Lines for "sbat" and "bzpack" are
 * written once, and a line given twice is kept once.  A malformed line
 * in extra_path is an error naming the file and the line. */
int sbat_build(const struct buffer *input, const char *extra_path, struct buffer *out,
	       const char **culprit, struct error *err);

/* The .sbat section's text of a PE file (up to its first NUL): 1 and
 * text set (pointing into file), or 0 when there is none. */
int sbat_find(const struct buffer *file, const char **text, size_t *size);

/* NULL if text passes shim's SBAT rule (parse_sbat_section: every line
 * has at least six non-empty fields) and starts with the "sbat" version
 * line, else why not (written into why). */
const char *sbat_problem(const char *text, size_t size, char *why, size_t why_size);

/* bzpack --info: the section's lines, or that there is none. */
void sbat_print(FILE *out, const struct buffer *file);

#endif
