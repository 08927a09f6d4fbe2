/* info_out.h - the one emitter behind `bzpack --info` and `--info --json`.
 *
 * Every line --info prints goes through here, as a row: a label
 * ("init_size") and its text, built from pieces.  A piece that is a value
 * (info_num, info_str, ...) also becomes a typed JSON field under its own
 * key; plain text pieces only add to the text.  Text printers that write
 * to a FILE (pe.c, kernel_print) are captured line by line
 * (info_capture), so every line of the text form is in the JSON form, and
 * a new line shows up in both without more code.
 *
 * JSON form (one object):
 *   "bzpack_info": 1, "file": INPUT, "ok": true when no check failed,
 *   "lines":  [{"label": L, "text": T}, ...] every line, in order (a
 *             continuation line goes in its row's text after "\n"),
 *   "fields": {KEY: number | string | boolean, ...} the typed values,
 *   "failed_checks": [REASON, ...]
 */
#ifndef INFO_OUT_H
#define INFO_OUT_H

#include <stdint.h>
#include <stdio.h>

struct info_out;

/* json: 0 for the text form (written as it goes), 1 for the JSON form
 * (written by info_close).  NULL when out of memory. */
struct info_out *info_open(FILE *out, int json, const char *file);

void info_begin(struct info_out *o, const char *label);
void info_text(struct info_out *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* fmt converts exactly one unsigned long long (info_num), long long
 * (info_snum), const char * (info_str) or double (info_real): the text,
 * and KEY's value in "fields". */
void info_num(struct info_out *o, const char *key, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
void info_snum(struct info_out *o, const char *key, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
void info_str(struct info_out *o, const char *key, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
void info_real(struct info_out *o, const char *key, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* Fields that add nothing to the text: a boolean, a number, a string. */
void info_bool(struct info_out *o, const char *key, int value);
void info_field_num(struct info_out *o, const char *key, unsigned long long value);
void info_field_str(struct info_out *o, const char *key, const char *value);
void info_end(struct info_out *o);

/* A stream that text printers write "label: text" lines to (continuation
 * lines start with spaces), and the end of it. */
FILE *info_capture(struct info_out *o);
void info_capture_end(struct info_out *o, FILE *f);

/* A check that failed: a "failed check:" line, and in "failed_checks". */
void info_failed(struct info_out *o, const char *reason);

/* Write the JSON form (if that was asked for) and free o.  -1 when
 * writing failed. */
int info_close(struct info_out *o);

#endif
