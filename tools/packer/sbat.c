/* sbat.c - the .sbat section; see sbat.h.
 *
 * SBAT (rhboot/shim SBAT.md) is CSV, one component per line:
 *   component_name,component_generation,vendor_name,vendor_package_name,
 *   vendor_version,vendor_url
 * The first line names the format itself ("sbat,1,..."); shim refuses a
 * binary whose lines have fewer than six fields or an empty one, and
 * revokes by comparing generations with its SbatLevel variable.  bzpack's
 * stub is a component of every image it writes, so it has a line, and a
 * repacked kernel keeps the lines of the components it carries (Linux's
 * CONFIG_EFI_SBAT_FILE, a distribution's own).
 */
#include "sbat.h"

#include <stdlib.h>
#include <string.h>

#include "pe.h"

#define SBAT_HEADER_LINE "sbat,1,SBAT Version,sbat,1,https://github.com/rhboot/shim/blob/main/SBAT.md"
/* Generation 1: raise it when a stub flaw must be revoked. */
#define SBAT_BZPACK_LINE "bzpack,1,bzpack,bzpack,0.1,https://github.com/OWNER/bzpack"
#define SBAT_FIELDS      6
#define SBAT_MAX_LINE    512

/* The next line of text[0, size) from *at: its start and length (no
 * newline, no carriage return); 0 at the end. */
static int next_line(const char *text, size_t size, size_t *at, const char **line, size_t *len)
{
	if (*at >= size)
		return 0;
	const char *start = text + *at, *nl = memchr(start, '\n', size - *at);
	size_t n = nl ? (size_t)(nl - start) : size - *at;
	*at += n + (nl ? 1 : 0);
	if (n && start[n - 1] == '\r')
		n--;
	*line = start;
	*len = n;
	return 1;
}

/* NULL if the line is a valid SBAT record, else why not. */
static const char *line_problem(const char *line, size_t len)
{
	size_t fields = 1, field_len = 0;

	if (len > SBAT_MAX_LINE)
		return "longer than 512 bytes";
	for (size_t i = 0; i < len; i++) {
		if ((unsigned char)line[i] < 0x20 || (unsigned char)line[i] > 0x7e)
			return "a byte that is not printable ASCII";
		if (line[i] == ',') {
			if (!field_len)
				return "an empty field";
			fields++;
			field_len = 0;
		} else {
			field_len++;
		}
	}
	if (!field_len)
		return "an empty field";
	if (fields < SBAT_FIELDS)
		return "fewer than six fields (component,generation,vendor,package,version,url)";
	return NULL;
}

static int component_is(const char *line, size_t len, const char *name)
{
	size_t n = strlen(name);
	return len > n && memcmp(line, name, n) == 0 && line[n] == ',';
}

/* Append line and a newline to out unless out already has it. */
static int add_line(struct buffer *out, size_t *cap, const char *line, size_t len, struct error *err)
{
	for (size_t at = 0; at < out->size;) {
		const char *l;
		size_t n;
		next_line((const char *)out->data, out->size, &at, &l, &n);
		if (n == len && memcmp(l, line, len) == 0)
			return 0;
	}
	if (out->size + len + 1 > *cap) {
		size_t want = (out->size + len + 1) * 2;
		uint8_t *p = realloc(out->data, want);
		if (!p)
			return fail_with(err, "out of memory");
		out->data = p;
		*cap = want;
	}
	memcpy(out->data + out->size, line, len);
	out->data[out->size + len] = '\n';
	out->size += len + 1;
	return 0;
}

/* The component lines of text (what sbat_find gives, or a --sbat file):
 * every line valid, the "sbat" version line dropped (ours comes first),
 * and "bzpack" too when from_image (the packer writes its own). */
static int add_lines(struct buffer *out, size_t *cap, const char *text, size_t size, int from_image,
		     struct error *err)
{
	const char *line;
	size_t len, at = 0;

	for (unsigned number = 1; next_line(text, size, &at, &line, &len); number++) {
		if (!len)
			continue;
		const char *why = line_problem(line, len);
		if (why)
			return fail_with(err, "%sSBAT line %u has %s", from_image ? "the input's " : "", number, why);
		if (component_is(line, len, "sbat") || (from_image && component_is(line, len, "bzpack")))
			continue;
		if (add_line(out, cap, line, len, err) < 0)
			return -1;
	}
	return 0;
}

int sbat_build(const struct buffer *input, const char *extra_path, struct buffer *out,
	       const char **culprit, struct error *err)
{
	size_t cap = 0, size;
	const char *text;

	*out = (struct buffer){ 0, 0 };
	if (add_line(out, &cap, SBAT_HEADER_LINE, strlen(SBAT_HEADER_LINE), err) < 0 ||
	    add_line(out, &cap, SBAT_BZPACK_LINE, strlen(SBAT_BZPACK_LINE), err) < 0)
		goto failed;
	if (sbat_find(input, &text, &size) && add_lines(out, &cap, text, size, 1, err) < 0)
		goto failed;
	if (extra_path) {
		struct buffer extra;
		*culprit = extra_path;
		if (read_file(extra_path, &extra, err) < 0)
			goto failed;
		if (memchr(extra.data, 0, extra.size)) {
			free(extra.data);
			fail_with(err, "an SBAT file is text: this one has a NUL byte");
			goto failed;
		}
		int r = add_lines(out, &cap, (const char *)extra.data, extra.size, 0, err);
		free(extra.data);
		if (r < 0)
			goto failed;
	}
	return 0;
failed:
	free(out->data);
	*out = (struct buffer){ 0, 0 };
	return -1;
}

int sbat_find(const struct buffer *file, const char **text, size_t *size)
{
	struct pe_info pe;
	struct pe_section s;

	if (pe_parse(file, &pe) < 0 || !pe_find_section(file, &pe, ".sbat", &s))
		return 0;
	if (s.raw_offset > file->size || file->size - s.raw_offset < s.raw_size)
		return 0;
	*text = (const char *)file->data + s.raw_offset;
	const char *nul = memchr(*text, 0, s.raw_size);
	*size = nul ? (size_t)(nul - *text) : s.raw_size;
	return 1;
}

const char *sbat_problem(const char *text, size_t size, char *why, size_t why_size)
{
	const char *line;
	size_t len, at = 0;
	unsigned number = 0, records = 0;

	while (next_line(text, size, &at, &line, &len)) {
		number++;
		if (!len)
			continue;
		const char *bad = line_problem(line, len);
		if (bad) {
			snprintf(why, why_size, "line %u has %s", number, bad);
			return why;
		}
		if (!records++ && !component_is(line, len, "sbat")) {
			snprintf(why, why_size, "the first line is not the \"sbat,1,...\" version line");
			return why;
		}
	}
	if (!records) {
		snprintf(why, why_size, "the section is empty");
		return why;
	}
	return NULL;
}

#define ROW "%-15s "

void sbat_print(FILE *o, const struct buffer *file)
{
	const char *text, *line;
	size_t size, len, at = 0;
	int first = 1;

	if (!sbat_find(file, &text, &size)) {
		fprintf(o, ROW "none (no .sbat section)\n", "SBAT:");
		return;
	}
	while (next_line(text, size, &at, &line, &len)) {
		if (!len)
			continue;
		fprintf(o, ROW "%.*s\n", first ? "SBAT:" : "", (int)len, line);
		first = 0;
	}
	if (first)
		fprintf(o, ROW "(empty .sbat section)\n", "SBAT:");
}
