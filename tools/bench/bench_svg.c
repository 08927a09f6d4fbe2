/* bench_svg.c - `bzpack bench --svg FILE`: the estimated time to kernel of
 * every cell as a horizontal bar, the storage part and the decode part in
 * two colours, so that what a codec saves in reading and costs in
 * decoding shows at a glance.  Plain SVG 1.1, written by hand. */
#include "bench.h"

#include <string.h>

#define ROW_HEIGHT 22
#define LABEL_WIDTH 230
#define BAR_WIDTH 460
#define VALUE_WIDTH 110
#define TOP 46
#define COLOUR_STORAGE "#8da0cb"
#define COLOUR_DECODE "#fc8d62"

/* Text content, with the characters XML reserves escaped. */
static void xml_text(FILE *f, const char *s)
{
	for (; *s; s++) {
		switch (*s) {
		case '<': fputs("&lt;", f); break;
		case '>': fputs("&gt;", f); break;
		case '&': fputs("&amp;", f); break;
		default: fputc(*s, f);
		}
	}
}

int bench_write_svg(const char *path, const struct bench_result *r, struct error *err)
{
	char *buf = NULL, key[BENCH_KEY_MAX];
	size_t len = 0;
	double most = 0;
	int width = LABEL_WIDTH + BAR_WIDTH + VALUE_WIDTH;
	int height = TOP + ROW_HEIGHT * (int)r->ncells + 16;

	for (size_t i = 0; i < r->ncells; i++)
		if (r->cells[i].ttk_ms > most)
			most = r->cells[i].ttk_ms;
	FILE *f = bench_output_open(&buf, &len, err);
	if (!f)
		return -1;
	fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
		   "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
		   "font-family=\"sans-serif\" font-size=\"12\">\n",
		width, height);
	fprintf(f, "<rect width=\"%d\" height=\"%d\" fill=\"white\"/>\n", width, height);
	fprintf(f, "<text x=\"8\" y=\"18\" font-size=\"14\">Estimated time to kernel at %.0f MB/s "
		   "storage, decode at this host's speed (ms)</text>\n", r->storage_mbps);
	fprintf(f, "<rect x=\"8\" y=\"28\" width=\"10\" height=\"10\" fill=\"%s\"/>"
		   "<text x=\"22\" y=\"37\">reading the image</text>\n", COLOUR_STORAGE);
	fprintf(f, "<rect x=\"140\" y=\"28\" width=\"10\" height=\"10\" fill=\"%s\"/>"
		   "<text x=\"154\" y=\"37\">decoding</text>\n", COLOUR_DECODE);
	for (size_t i = 0; i < r->ncells; i++) {
		const struct bench_cell *c = &r->cells[i];
		double read_ms = 1e3 * (double)c->image_bytes / (r->storage_mbps * 1e6);
		double scale = most > 0 ? BAR_WIDTH / most : 0;
		int y = TOP + ROW_HEIGHT * (int)i;
		bench_cell_key(c, key, sizeof(key));
		fprintf(f, "<text x=\"%d\" y=\"%d\" text-anchor=\"end\">", LABEL_WIDTH - 6, y + 14);
		xml_text(f, key);
		fputs("</text>\n", f);
		fprintf(f, "<rect x=\"%d\" y=\"%d\" width=\"%.1f\" height=\"%d\" fill=\"%s\"/>\n", LABEL_WIDTH, y + 3,
			read_ms * scale, ROW_HEIGHT - 6, COLOUR_STORAGE);
		fprintf(f, "<rect x=\"%.1f\" y=\"%d\" width=\"%.1f\" height=\"%d\" fill=\"%s\"/>\n",
			LABEL_WIDTH + read_ms * scale, y + 3, (c->ttk_ms - read_ms) * scale, ROW_HEIGHT - 6,
			COLOUR_DECODE);
		fprintf(f, "<text x=\"%.1f\" y=\"%d\">%.1f</text>\n", LABEL_WIDTH + c->ttk_ms * scale + 6,
			y + 14, c->ttk_ms);
	}
	fputs("</svg>\n", f);
	return bench_output_close(f, &buf, &len, path, err);
}
