/* info_out.c - the --info emitter; see info_out.h. */
#include "info_out.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#define LABEL_WIDTH 15  /* "kernel_version:" and the text after a space */

struct item {
	char *key;      /* a label, or a field's key */
	char *value;    /* a line's text, or a field's JSON value */
};

struct list {
	struct item *items;
	size_t n, cap;
};

struct info_out {
	FILE *out;
	int json, oom;
	char *file;
	struct list lines, fields, failed;
	char *label;            /* the row being built */
	char *row;              /* its text so far (a memstream) */
	size_t row_size;
	FILE *row_f;
};

static char *dup_or_null(struct info_out *o, const char *s)
{
	char *d = strdup(s);
	if (!d)
		o->oom = 1;
	return d;
}

static void add(struct info_out *o, struct list *l, const char *key, char *value)
{
	if (l->n == l->cap) {
		size_t cap = l->cap ? l->cap * 2 : 32;
		struct item *bigger = realloc(l->items, cap * sizeof(*bigger));
		if (!bigger) {
			o->oom = 1;
			free(value);
			return;
		}
		l->items = bigger;
		l->cap = cap;
	}
	l->items[l->n].key = key ? dup_or_null(o, key) : NULL;
	l->items[l->n].value = value;
	l->n++;
}

/* s as a JSON string, quotes included: a new string. */
static char *json_string(struct info_out *o, const char *s)
{
	char *buf = NULL;
	size_t size = 0;
	FILE *f = open_memstream(&buf, &size);

	if (!f) {
		o->oom = 1;
		return NULL;
	}
	fputc('"', f);
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		if (*p == '"' || *p == '\\')
			fprintf(f, "\\%c", *p);
		else if (*p == '\n')
			fputs("\\n", f);
		else if (*p < 0x20 || *p == 0x7f)
			fprintf(f, "\\u%04x", *p);
		else
			fputc(*p, f);
	}
	fputc('"', f);
	fclose(f);
	return buf;
}

struct info_out *info_open(FILE *out, int json, const char *file)
{
	struct info_out *o = calloc(1, sizeof(*o));

	if (!o)
		return NULL;
	o->out = out;
	o->json = json;
	o->file = dup_or_null(o, file);
	return o;
}

void info_begin(struct info_out *o, const char *label)
{
	free(o->label);
	o->label = dup_or_null(o, label);
	o->row = NULL;
	o->row_size = 0;
	o->row_f = open_memstream(&o->row, &o->row_size);
	if (!o->row_f)
		o->oom = 1;
}

static void row_vprintf(struct info_out *o, const char *fmt, va_list ap)
{
	if (o->row_f)
		vfprintf(o->row_f, fmt, ap);
}

void info_text(struct info_out *o, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	row_vprintf(o, fmt, ap);
	va_end(ap);
}

static void field(struct info_out *o, const char *key, char *json_value)
{
	if (json_value)
		add(o, &o->fields, key, json_value);
}

static char *printed(struct info_out *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static char *printed(struct info_out *o, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	int n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	char *s = n < 0 ? NULL : malloc((size_t)n + 1);
	if (!s) {
		o->oom = 1;
		return NULL;
	}
	va_start(ap, fmt);
	vsnprintf(s, (size_t)n + 1, fmt, ap);
	va_end(ap);
	return s;
}

/* The text through fmt, and the one argument as a field. */
#define VALUE_PIECE(o, fmt, type, to_json)             \
	do {                                           \
		va_list ap, again;                     \
		va_start(ap, fmt);                     \
		va_copy(again, ap);                    \
		row_vprintf(o, fmt, ap);               \
		type v = va_arg(again, type);          \
		field(o, key, to_json);                \
		va_end(again);                         \
		va_end(ap);                            \
	} while (0)

void info_num(struct info_out *o, const char *key, const char *fmt, ...)
{
	VALUE_PIECE(o, fmt, unsigned long long, printed(o, "%llu", v));
}

void info_snum(struct info_out *o, const char *key, const char *fmt, ...)
{
	VALUE_PIECE(o, fmt, long long, printed(o, "%lld", v));
}

void info_real(struct info_out *o, const char *key, const char *fmt, ...)
{
	VALUE_PIECE(o, fmt, double, printed(o, "%.6g", v));
}

void info_str(struct info_out *o, const char *key, const char *fmt, ...)
{
	VALUE_PIECE(o, fmt, const char *, json_string(o, v));
}

void info_bool(struct info_out *o, const char *key, int value)
{
	field(o, key, dup_or_null(o, value ? "true" : "false"));
}

void info_field_num(struct info_out *o, const char *key, unsigned long long value)
{
	field(o, key, printed(o, "%llu", value));
}

void info_field_str(struct info_out *o, const char *key, const char *value)
{
	field(o, key, json_string(o, value));
}

static void line(struct info_out *o, const char *label, const char *text)
{
	if (!o->json) {
		char padded[64];
		snprintf(padded, sizeof(padded), "%s:", label);
		fprintf(o->out, "%-*s %s\n", LABEL_WIDTH, padded, text);
		return;
	}
	add(o, &o->lines, label, dup_or_null(o, text));
}

void info_end(struct info_out *o)
{
	if (o->row_f)
		fclose(o->row_f);
	o->row_f = NULL;
	line(o, o->label ? o->label : "?", o->row ? o->row : "");
	free(o->row);
	o->row = NULL;
	free(o->label);
	o->label = NULL;
}

FILE *info_capture(struct info_out *o)
{
	if (!o->json)
		return o->out;
	o->row = NULL;
	o->row_size = 0;
	FILE *f = open_memstream(&o->row, &o->row_size);
	if (!f)
		o->oom = 1;
	return f;
}

/* "label:   text" lines; a line that starts with a space continues the
 * row before it. */
void info_capture_end(struct info_out *o, FILE *f)
{
	if (!o->json || !f)
		return;
	fclose(f);
	char *text = o->row;
	o->row = NULL;
	for (char *p = text, *next; p && *p; p = next) {
		char *nl = strchr(p, '\n');
		next = nl ? nl + 1 : p + strlen(p);
		if (nl)
			*nl = 0;
		char *colon = strchr(p, ':');
		if (*p == ' ' && o->lines.n) {
			struct item *last = &o->lines.items[o->lines.n - 1];
			while (*p == ' ')
				p++;
			char *joined = printed(o, "%s\n%s", last->value ? last->value : "", p);
			if (joined) {
				free(last->value);
				last->value = joined;
			}
		} else if (colon) {
			*colon = 0;
			char *t = colon + 1;
			while (*t == ' ')
				t++;
			line(o, p, t);
		} else {
			line(o, "", p);
		}
	}
	free(text);
}

void info_failed(struct info_out *o, const char *reason)
{
	line(o, "failed check", reason);
	add(o, &o->failed, NULL, json_string(o, reason));
}

static void free_list(struct list *l)
{
	for (size_t i = 0; i < l->n; i++) {
		free(l->items[i].key);
		free(l->items[i].value);
	}
	free(l->items);
}

int info_close(struct info_out *o)
{
	int r = 0;

	if (o->json && !o->oom) {
		FILE *f = o->out;
		char *file = json_string(o, o->file ? o->file : "");
		fprintf(f, "{\n  \"bzpack_info\": 1,\n  \"file\": %s,\n  \"ok\": %s,\n  \"lines\": [",
			file ? file : "\"\"", o->failed.n ? "false" : "true");
		free(file);
		for (size_t i = 0; i < o->lines.n; i++) {
			char *l = json_string(o, o->lines.items[i].key ? o->lines.items[i].key : "");
			char *t = json_string(o, o->lines.items[i].value ? o->lines.items[i].value : "");
			fprintf(f, "%s\n    {\"label\": %s, \"text\": %s}", i ? "," : "", l ? l : "\"\"", t ? t : "\"\"");
			free(l);
			free(t);
		}
		fprintf(f, "\n  ],\n  \"fields\": {");
		for (size_t i = 0; i < o->fields.n; i++) {
			char *k = json_string(o, o->fields.items[i].key);
			fprintf(f, "%s\n    %s: %s", i ? "," : "", k ? k : "\"\"", o->fields.items[i].value);
			free(k);
		}
		fprintf(f, "\n  },\n  \"failed_checks\": [");
		for (size_t i = 0; i < o->failed.n; i++)
			fprintf(f, "%s\n    %s", i ? "," : "", o->failed.items[i].value);
		fprintf(f, "%s]\n}\n", o->failed.n ? "\n  " : "");
	}
	if (o->oom) {
		fprintf(stderr, "bzpack: out of memory describing the file\n");
		r = -1;
	}
	if (fflush(o->out) != 0 || ferror(o->out))
		r = -1;
	free_list(&o->lines);
	free_list(&o->fields);
	free_list(&o->failed);
	free(o->label);
	free(o->row);
	free(o->file);
	free(o);
	return r;
}
