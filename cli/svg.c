/*
 * cli/svg.c - draw the curves of cli/plan_curve.c as a plain SVG 1.1 file
 * (cli/svg_int.h): one panel per collective class, lines, markers, text.
 * No plotting library: cluster nodes need nothing but lagom to write it.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/svg_int.h"

#define W 960
#define HEAD 78
#define PANEL_H 300
#define PL 78  /* plot left */
#define PR 700 /* plot right */
#define PT 44  /* plot top, inside a panel */
#define PB 250 /* plot bottom, inside a panel */

#define C_COMP "#1f77b4"
#define C_COMM "#ff7f0e"
#define C_REGION "#2ca02c"
#define C_SERIAL "#8c8c8c"
#define C_NCCL "#d62728"
#define C_LAGOM "#006d2c"
#define C_MEASURED "#000000"

/* Text a user controls (a workload name) as XML character data: markup
 * escaped, control characters dropped, at most 120 bytes. */
static void put_text(FILE *f, const char *s)
{
	for (size_t n = 0; s && *s && n < 120; s++, n++) {
		unsigned char ch = (unsigned char)*s;

		if (ch == '&')
			fputs("&amp;", f);
		else if (ch == '<')
			fputs("&lt;", f);
		else if (ch == '>')
			fputs("&gt;", f);
		else if (ch == '"')
			fputs("&quot;", f);
		else if (ch >= 0x20 && ch != 0x7f)
			fputc(ch, f);
	}
}

/* A step of 1, 2 or 5 x 10^k giving about five ticks up to top. */
static double nice_step(double top)
{
	double raw = top / 5, mag = pow(10, floor(log10(raw))), m = raw / mag;

	return (m <= 1 ? 1 : m <= 2 ? 2 : m <= 5 ? 5 : 10) * mag;
}

struct frame {
	double y0; /* panel top in the picture */
	unsigned nc_max;
	double t_max_s;
};

static double px(const struct frame *fr, double nc)
{
	return PL +
	       (nc - 1) * (PR - PL) / (fr->nc_max > 1 ? fr->nc_max - 1 : 1);
}

static double py(const struct frame *fr, double t_s)
{
	return fr->y0 + PB - t_s / fr->t_max_s * (PB - PT);
}

static void axes(FILE *f, const struct frame *fr)
{
	double step = nice_step(fr->t_max_s * 1e3) / 1e3;
	unsigned xstep = fr->nc_max <= 16 ? 1 : fr->nc_max <= 32 ? 4 : 8;

	fprintf(f,
		"<rect x=\"%d\" y=\"%.1f\" width=\"%d\" height=\"%d\" "
		"fill=\"#fbfbfb\" stroke=\"#444\"/>\n",
		PL, fr->y0 + PT, PR - PL, PB - PT);
	for (double t = 0; t <= fr->t_max_s * 1.0001; t += step)
		fprintf(f,
			"<line x1=\"%d\" x2=\"%d\" y1=\"%.1f\" y2=\"%.1f\" "
			"stroke=\"#ddd\"/><text x=\"%d\" y=\"%.1f\" "
			"text-anchor=\"end\">%.*f</text>\n",
			PL, PR, py(fr, t), py(fr, t), PL - 6, py(fr, t) + 4,
			step >= 1e-3 ? 0 : 3, t * 1e3);
	for (unsigned nc = 1; nc <= fr->nc_max; nc++)
		if (nc == 1 || nc % xstep == 0)
			fprintf(f,
				"<text x=\"%.1f\" y=\"%.1f\" "
				"text-anchor=\"middle\">%u</text>\n",
				px(fr, nc), fr->y0 + PB + 16, nc);
	fprintf(f,
		"<text x=\"%d\" y=\"%.1f\" text-anchor=\"middle\">channels "
		"(CTAs) given to this class</text>\n"
		"<text transform=\"translate(%d %.1f) rotate(-90)\" "
		"text-anchor=\"middle\">ms per iteration</text>\n",
		(PL + PR) / 2, fr->y0 + PB + 34, 22, fr->y0 + (PT + PB) / 2.0);
}

enum series {
	S_COMP,
	S_COMM,
	S_SERIAL,
	S_REGION
};

static double value(const struct cli_curve_point *p, enum series s)
{
	switch (s) {
	case S_COMP:
		return p->comp_s;
	case S_COMM:
		return p->comm_s;
	case S_SERIAL:
		return p->comp_s + p->comm_s;
	default:
		return p->region_s;
	}
}

static void line(FILE *f, const struct frame *fr, const struct cli_curve *c,
		 enum series s, const char *color, const char *extra)
{
	bool open = false;
	size_t clip = c->class_index;

	for (unsigned nc = 1; nc <= c->nc_max; nc++) {
		const struct cli_curve_point *p = &c->points[nc - 1];

		if (!p->ok) {
			if (open)
				fputs("\"/>\n", f);
			open = false;
			continue;
		}
		if (!open)
			fprintf(f,
				"<polyline clip-path=\"url(#clip%zu)\" "
				"fill=\"none\" stroke=\"%s\" %s points=\"",
				clip, color, extra);
		fprintf(f, "%.1f,%.1f ", px(fr, nc), py(fr, value(p, s)));
		open = true;
	}
	if (open)
		fputs("\"/>\n", f);
}

static void marker(FILE *f, const struct frame *fr, unsigned nc, double t_s,
		   const char *color, const char *shape, const char *label,
		   int dy)
{
	double x = px(fr, nc), y = py(fr, t_s);

	fprintf(f,
		"<line x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\" "
		"stroke=\"%s\" stroke-dasharray=\"4 3\"/>\n",
		x, x, fr->y0 + PT, fr->y0 + PB, color);
	if (t_s < 0)
		return;
	if (strcmp(shape, "square") == 0)
		fprintf(f,
			"<rect x=\"%.1f\" y=\"%.1f\" width=\"10\" height=\"10\" "
			"fill=\"%s\"/>\n",
			x - 5, y - 5, color);
	else
		fprintf(f,
			"<path d=\"M %.1f %.1f l 7 7 l -7 7 l -7 -7 z\" "
			"fill=\"%s\"/>\n",
			x, y - 7, color);
	fprintf(f,
		"<text x=\"%.1f\" y=\"%.1f\" fill=\"%s\" "
		"text-anchor=\"%s\">%s %u ch, %.3g ms</text>\n",
		x + (x > (PL + PR) / 2 ? -9 : 9), y + dy, color,
		x > (PL + PR) / 2 ? "end" : "start", label, nc, t_s * 1e3);
}

static void legend(FILE *f, double y0)
{
	static const struct {
		const char *color, *dash, *text;
	} rows[] = {
		{ C_REGION, "", "region, overlapped (z)" },
		{ C_SERIAL, "6 4", "computation + communication" },
		{ C_COMP, "", "computation stream (y)" },
		{ C_COMM, "", "communication stream (x)" },
		{ C_NCCL, "4 3", "NCCL's channels; \u25a0 all NCCL's" },
		{ C_LAGOM, "4 3", "lagom's choice \u25c6" },
	};

	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		double y = y0 + PT + 12 + 22.0 * (double)i;

		fprintf(f,
			"<line x1=\"%d\" x2=\"%d\" y1=\"%.1f\" y2=\"%.1f\" "
			"stroke=\"%s\" stroke-width=\"2.5\" "
			"stroke-dasharray=\"%s\"/><text x=\"%d\" "
			"y=\"%.1f\">%s</text>\n",
			PR + 18, PR + 46, y, y, rows[i].color, rows[i].dash,
			PR + 52, y + 4, rows[i].text);
	}
}

/* The time axis: the markers, the computation and the measured points in
 * view with room above; the steep few-channel end of a curve is cut off
 * (clipped) rather than squeezing the part where the choice is made. */
static double curve_max(const struct cli_curve *c,
			const struct cli_svg_doc *doc, unsigned *nc_max)
{
	double m = c->nccl_region_s > c->lagom_region_s ? c->nccl_region_s
							: c->lagom_region_s;

	*nc_max = c->nc_max;
	for (unsigned i = 0; i < c->nc_max; i++)
		if (c->points[i].ok && c->points[i].comp_s > m)
			m = c->points[i].comp_s;
	for (size_t i = 0; i < doc->nmeasured; i++) {
		const struct cli_svg_measured *p = &doc->measured[i];

		if (p->class_index != c->class_index)
			continue;
		if (p->region_s > m)
			m = p->region_s;
		if (p->nchannels > *nc_max && p->nchannels <= CLI_CURVE_NC_MAX)
			*nc_max = p->nchannels;
	}
	return m > 0 ? m * 1.6 : 1e-3;
}

static void panel(FILE *f, const struct cli_svg_doc *doc,
		  const struct cli_curve *c, double y0)
{
	struct frame fr = { .y0 = y0 };
	char size[32];

	fr.t_max_s = curve_max(c, doc, &fr.nc_max);
	fprintf(f,
		"<g class=\"panel\" data-op=\"%s\" data-bytes=\"%llu\" "
		"data-lagom-nc=\"%u\" data-nccl-nc=\"%u\">\n"
		"<text x=\"%d\" y=\"%.1f\" font-weight=\"bold\">%s %s, %u "
		"ranks on %u node%s, %u call%s per iteration: %s/%s%s</text>\n",
		lagom_coll_name(c->coll), (unsigned long long)c->bytes,
		c->lagom_nc, c->nccl_nc, PL, y0 + 28, lagom_coll_name(c->coll),
		lagom_fmt_bytes(size, sizeof(size), c->bytes), c->ranks,
		c->nodes, c->nodes == 1 ? "" : "s", c->calls,
		c->calls == 1 ? "" : "s", lagom_algo_name(c->algo),
		lagom_proto_name(c->proto), c->keep ? " (left to NCCL)" : "");
	fprintf(f,
		"<clipPath id=\"clip%zu\"><rect x=\"%d\" y=\"%.1f\" "
		"width=\"%d\" height=\"%d\"/></clipPath>\n",
		c->class_index, PL, y0 + PT, PR - PL, PB - PT);
	axes(f, &fr);
	line(f, &fr, c, S_SERIAL, C_SERIAL,
	     "stroke-width=\"1.5\" "
	     "stroke-dasharray=\"6 4\"");
	line(f, &fr, c, S_COMP, C_COMP, "stroke-width=\"2\"");
	line(f, &fr, c, S_COMM, C_COMM, "stroke-width=\"2\"");
	line(f, &fr, c, S_REGION, C_REGION, "stroke-width=\"3\"");
	marker(f, &fr, c->nccl_nc, c->nccl_region_s, C_NCCL, "square", "NCCL",
	       -10);
	marker(f, &fr, c->lagom_nc, c->lagom_region_s, C_LAGOM, "diamond",
	       "lagom",
	       fabs(px(&fr, c->lagom_nc) - px(&fr, c->nccl_nc)) < 150 &&
			       fabs(py(&fr, c->lagom_region_s) -
				    py(&fr, c->nccl_region_s)) < 20
		       ? 22
		       : -10);
	for (size_t i = 0; i < doc->nmeasured; i++) {
		const struct cli_svg_measured *p = &doc->measured[i];

		if (p->class_index == c->class_index && p->nchannels >= 1 &&
		    p->nchannels <= fr.nc_max)
			fprintf(f,
				"<circle class=\"measured\" cx=\"%.1f\" "
				"cy=\"%.1f\" r=\"5\" fill=\"none\" "
				"stroke=\"%s\" stroke-width=\"2\"/>\n",
				px(&fr, p->nchannels), py(&fr, p->region_s),
				C_MEASURED);
	}
	legend(f, y0);
	fputs("</g>\n", f);
}

static void render(FILE *f, const struct cli_svg_doc *doc)
{
	size_t n = doc->ncurves ? doc->ncurves : 1;
	double h = HEAD + PANEL_H * (double)n + (doc->more ? 24 : 0);

	fprintf(f,
		"<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
		"<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" "
		"width=\"%d\" height=\"%.0f\" viewBox=\"0 0 %d %.0f\" "
		"font-family=\"DejaVu Sans, Helvetica, Arial, sans-serif\" "
		"font-size=\"12\">\n"
		"<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n"
		"<text x=\"16\" y=\"26\" font-size=\"17\" "
		"font-weight=\"bold\">",
		W, h, W, h);
	put_text(f, doc->title);
	fputs("</text>\n<text x=\"16\" y=\"48\">", f);
	put_text(f, doc->subtitle);
	fputs("</text>\n<text x=\"16\" y=\"66\" fill=\"#555\">predicted by "
	      "lagom's cost model; each panel varies one class's channels, "
	      "every other collective as planned</text>\n",
	      f);
	if (!doc->ncurves) {
		fprintf(f, "<text x=\"16\" y=\"%d\">", HEAD + 40);
		put_text(f, doc->note ? doc->note : "nothing to draw");
		fputs("</text>\n", f);
	}
	for (size_t i = 0; i < doc->ncurves; i++)
		panel(f, doc, &doc->curves[i], HEAD + PANEL_H * (double)i);
	if (doc->more)
		fprintf(f,
			"<text x=\"16\" y=\"%.0f\">%zu more class%s not "
			"drawn</text>\n",
			h - 8, doc->more, doc->more == 1 ? "" : "es");
	fputs("</svg>\n", f);
}

int cli_svg_write(const char *path, const struct cli_svg_doc *doc)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	int rc;

	if (!f)
		return cli_fail(CLI_FAIL, "out of memory");
	render(f, doc);
	if (fclose(f) != 0 || !buf) {
		free(buf);
		return cli_fail(CLI_FAIL, "out of memory");
	}
	if (strcmp(path, "-") == 0)
		rc = fwrite(buf, 1, len, stdout) == len
			     ? CLI_OK
			     : cli_fail(CLI_FAIL,
					"cannot write to standard output");
	else
		rc = cli_write_atomic("--svg", path, buf, len, 0, NULL, NULL);
	free(buf);
	return rc;
}
