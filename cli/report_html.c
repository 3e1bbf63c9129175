/*
 * cli/report_html.c - `lagom report --format html` (report_int.h): one
 * self-contained page, no script, no outside resource: a table of the
 * classes (each figure in a cell whose data-k names its JSON key, printed
 * as the text report prints it) and two inline SVG charts, the measured
 * speedup of each class with its 95 % interval, and predicted against
 * measured.  Every user string is HTML-escaped.
 */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "cli/report_int.h"

#define W 720
#define ROW 26
#define LEFT 260
#define RIGHT 40
#define LABEL_CHARS 40 /* of 11 px text in LEFT's 260 px */

static void esc(FILE *out, const char *s)
{
	for (; *s; s++) {
		switch (*s) {
		case '<':
			fputs("&lt;", out);
			break;
		case '>':
			fputs("&gt;", out);
			break;
		case '&':
			fputs("&amp;", out);
			break;
		case '"':
			fputs("&quot;", out);
			break;
		case '\'':
			fputs("&#39;", out);
			break;
		default:
			fputc(*s, out);
		}
	}
}

static bool has_interval(const struct report_class *c)
{
	return c->est.verdict != LAGOM_VERDICT_TOO_FEW;
}

/* The x range of the speedup chart: every interval, and 1. */
static void speedup_range(const struct report_class *c, size_t n, double *lo,
			  double *hi)
{
	size_t i;

	*lo = 1;
	*hi = 1;
	for (i = 0; i < n; i++) {
		if (!has_interval(&c[i]))
			continue;
		*lo = fmin(*lo, c[i].est.lo);
		*hi = fmax(*hi, c[i].est.hi);
		if (c[i].runs->predicted_speedup > 0) {
			*lo = fmin(*lo, c[i].runs->predicted_speedup);
			*hi = fmax(*hi, c[i].runs->predicted_speedup);
		}
	}
	*lo -= 0.02;
	*hi += 0.02;
}

static double x_of(double v, double lo, double hi)
{
	return LEFT + (v - lo) / (hi - lo) * (W - LEFT - RIGHT);
}

/* The step between ticks of [lo, hi]: 0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1,
 * ... the smallest that gives at most 8 ticks. */
static double tick_step(double lo, double hi)
{
	static const double m[] = { 1, 2, 5 };
	double decade;
	size_t i;

	for (decade = 0.01; decade < 1e6; decade *= 10)
		for (i = 0; i < 3; i++)
			if ((hi - lo) / (m[i] * decade) <= 7)
				return m[i] * decade;
	return decade;
}

/*
 * The ticks of an axis from lo to hi (the chart's range), each a mark and
 * its value: axis "x" along y = at (pixels from + (v - lo) / (hi - lo) *
 * len), "y" along x = at (pixels from - ..., upwards).  data-axis and
 * data-v say which axis and value a tick is, so that a test checks the
 * marks against the points (tests/cli/report_html_check.py).
 */
static void ticks(FILE *out, char axis, double lo, double hi, double from,
		  double len, double at)
{
	double step = tick_step(lo, hi);
	long k;

	if (axis == 'x')
		fprintf(out,
			"<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" "
			"y2=\"%.1f\" class=\"axis\"/>\n",
			from, at, from + len, at);
	else
		fprintf(out,
			"<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" "
			"y2=\"%.1f\" class=\"axis\"/>\n",
			at, from, at, from - len);
	for (k = (long)ceil(lo / step - 1e-9); k * step <= hi + 1e-9; k++) {
		double v = k * step, p = (v - lo) / (hi - lo) * len;

		if (axis == 'x')
			fprintf(out,
				"<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" "
				"y2=\"%.1f\" class=\"axis\"/>"
				"<text x=\"%.1f\" y=\"%.1f\" "
				"class=\"tick\" text-anchor=\"middle\" "
				"data-axis=\"x\" data-v=\"%.2f\">%.2f</text>\n",
				from + p, at, from + p, at + 4, from + p,
				at + 15, v, v);
		else
			fprintf(out,
				"<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" "
				"y2=\"%.1f\" class=\"axis\"/>"
				"<text x=\"%.1f\" y=\"%.1f\" "
				"class=\"tick\" text-anchor=\"end\" "
				"data-axis=\"y\" data-v=\"%.2f\">%.2f</text>\n",
				at - 4, from - p, at, from - p, at - 6,
				from - p + 4, v, v);
	}
}

/* A class's label left of its bar: "USER KEY", cut to what fits before
 * the chart (LABEL_CHARS, ending in "..."), the whole of it its title. */
static void label(FILE *out, const struct report_class *c, int y)
{
	char text[LAGOM_ARM_USER_MAX + LAGOM_LEARN_KEY_MAX + 2];

	snprintf(text, sizeof(text), "%s %s", c->user, c->key);
	fprintf(out, "<text x=\"4\" y=\"%d\" class=\"label\"><title>", y);
	esc(out, text);
	fputs("</title>", out);
	if (strlen(text) > LABEL_CHARS)
		strcpy(text + LABEL_CHARS - 3, "...");
	esc(out, text);
	fputs("</text>", out);
}

static void speedup_chart(FILE *out, const struct report_class *c, size_t n)
{
	double lo, hi;
	size_t i, row = 0;
	int h;

	speedup_range(c, n, &lo, &hi);
	for (i = 0; i < n; i++)
		row += has_interval(&c[i]);
	h = (int)(row + 2) * ROW + 8;
	fprintf(out,
		"<svg id=\"speedup\" xmlns=\"http://www.w3.org/2000/svg\" "
		"width=\"%d\" height=\"%d\" role=\"img\">\n"
		"<title>Measured speedup per class, 95 %% interval</title>\n"
		"<line x1=\"%.1f\" y1=\"0\" x2=\"%.1f\" y2=\"%d\" "
		"class=\"one\"/>\n",
		W, h, x_of(1, lo, hi), x_of(1, lo, hi), h - ROW - 8);
	for (i = 0, row = 0; i < n; i++) {
		const struct lagom_speedup *e = &c[i].est;
		int y = (int)row * ROW + ROW;

		if (!has_interval(&c[i]))
			continue;
		row++;
		label(out, &c[i], y + 4);
		fprintf(out,
			"\n<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" "
			"y2=\"%d\" class=\"ci %s\"/>\n"
			"<circle cx=\"%.1f\" cy=\"%d\" r=\"4\" class=\"%s\" "
			"data-speedup=\"%.3f\"/>\n",
			x_of(e->lo, lo, hi), y, x_of(e->hi, lo, hi), y,
			lagom_verdict_name(e->verdict),
			x_of(e->speedup, lo, hi), y,
			lagom_verdict_name(e->verdict), e->speedup);
		if (c[i].runs->predicted_speedup > 0)
			fprintf(out,
				"<rect x=\"%.1f\" y=\"%d\" width=\"6\" "
				"height=\"6\" class=\"pred\"/>\n",
				x_of(c[i].runs->predicted_speedup, lo, hi) - 3,
				y - 3);
	}
	ticks(out, 'x', lo, hi, LEFT, W - LEFT - RIGHT, h - ROW - 6);
	fputs("</svg>\n", out);
}

static void scatter_chart(FILE *out, const struct report_class *c, size_t n)
{
	const int side = 360, pad = 48;
	double lo, hi;
	size_t i;

	speedup_range(c, n, &lo, &hi);
	fprintf(out,
		"<svg id=\"predicted\" xmlns=\"http://www.w3.org/2000/svg\" "
		"width=\"%d\" height=\"%d\" role=\"img\">\n"
		"<title>Predicted against measured speedup</title>\n"
		"<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" "
		"class=\"one\"/>\n"
		"<text x=\"%d\" y=\"%d\" class=\"label\">predicted</text>\n"
		"<text x=\"4\" y=\"14\" class=\"label\">measured</text>\n",
		side + 2 * pad, side + 2 * pad, pad, side + pad, side + pad,
		pad, side / 2, side + 2 * pad - 6);
	ticks(out, 'x', lo, hi, pad, side, side + pad);
	ticks(out, 'y', lo, hi, side + pad, side, pad);
	for (i = 0; i < n; i++) {
		const struct lagom_speedup *e = &c[i].est;
		double fx, fy0, fy1, fy;

		if (!has_interval(&c[i]) || !(c[i].runs->predicted_speedup > 0))
			continue;
		fx = (c[i].runs->predicted_speedup - lo) / (hi - lo);
		fy = (e->speedup - lo) / (hi - lo);
		fy0 = (e->lo - lo) / (hi - lo);
		fy1 = (e->hi - lo) / (hi - lo);
		fprintf(out,
			"<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" "
			"class=\"ci %s\"/>\n"
			"<circle cx=\"%.1f\" cy=\"%.1f\" r=\"4\" class=\"%s\" "
			"data-predicted=\"%.3f\" data-speedup=\"%.3f\"/>\n",
			pad + fx * side, pad + (1 - fy0) * side,
			pad + fx * side, pad + (1 - fy1) * side,
			lagom_verdict_name(e->verdict), pad + fx * side,
			pad + (1 - fy) * side, lagom_verdict_name(e->verdict),
			c[i].runs->predicted_speedup, e->speedup);
	}
	fputs("</svg>\n", out);
}

static void cell(FILE *out, const char *k, int decimals, double v, bool known)
{
	fprintf(out, "<td data-k=\"%s\">", k);
	if (known)
		fprintf(out, "%.*f", decimals, v);
	else
		fputs("-", out);
	fputs("</td>", out);
}

static void table(FILE *out, const struct report_class *c, size_t n)
{
	size_t i;

	fputs("<table id=\"classes\">\n<tr><th>user</th><th>class</th>"
	      "<th>tuned runs</th><th>control runs</th><th>tuned ms</th>"
	      "<th>control ms</th><th>speedup</th><th>95 % interval</th>"
	      "<th>predicted</th><th>verdict</th><th>GPU-h saved</th></tr>\n",
	      out);
	for (i = 0; i < n; i++) {
		const struct lagom_speedup *e = &c[i].est;
		bool iv = has_interval(&c[i]);

		fputs("<tr><td data-k=\"user\">", out);
		esc(out, c[i].user);
		fputs("</td><td data-k=\"class\">", out);
		esc(out, c[i].key);
		fprintf(out,
			"</td><td data-k=\"tuned_runs\">%zu</td>"
			"<td data-k=\"control_runs\">%zu</td>",
			e->n_tuned, e->n_control);
		cell(out, "median_tuned_ms", 3, e->median_tuned_s * 1e3,
		     e->n_tuned);
		cell(out, "median_control_ms", 3, e->median_control_s * 1e3,
		     e->n_control);
		cell(out, "speedup", 3, e->speedup, e->speedup > 0);
		fputs("<td>", out);
		if (iv)
			fprintf(out,
				"[<span data-k=\"lo\">%.3f</span>, "
				"<span data-k=\"hi\">%.3f</span>]",
				e->lo, e->hi);
		else
			fputs("-", out);
		fputs("</td>", out);
		cell(out, "predicted_speedup", 3, c[i].runs->predicted_speedup,
		     c[i].runs->predicted_speedup > 0);
		fprintf(out, "<td data-k=\"verdict\" class=\"%s\">%s</td>",
			lagom_verdict_name(e->verdict),
			lagom_verdict_name(e->verdict));
		cell(out, "saved_gpu_hours", 2, report_hours(c[i].saved_gpu_h),
		     iv);
		fputs("</tr>\n", out);
	}
	fputs("</table>\n", out);
}

void report_html(FILE *out, const struct report_class *c, size_t n,
		 const struct report_site *site, const char *spool)
{
	fputs("<!DOCTYPE html>\n<html lang=\"en\"><head><meta "
	      "charset=\"utf-8\">\n<title>lagom report</title>\n<style>\n"
	      "body{font-family:sans-serif;margin:2em}"
	      "table{border-collapse:collapse}"
	      "td,th{border:1px solid #ccc;padding:2px 6px}"
	      ".gain{color:#1a7f37;stroke:#1a7f37;fill:#1a7f37}"
	      ".loss{color:#cf222e;stroke:#cf222e;fill:#cf222e}"
	      ".none{color:#57606a;stroke:#57606a;fill:#57606a}"
	      ".ci{stroke-width:3}.one{stroke:#999;stroke-dasharray:4}"
	      ".pred{fill:none;stroke:#0969da}"
	      ".tick,.label{font-size:11px;fill:#333}"
	      ".axis{stroke:#333}\n"
	      "</style></head><body>\n<h1>lagom report</h1>\n<p>Spool ",
	      out);
	esc(out, spool);
	fprintf(out,
		". Tuned steps against the control arm (NCCL's defaults, "
		"measured), per class of recurring step. Speedup: "
		"Hodges-Lehmann estimate of control over tuned time, 95 %% "
		"interval from the Mann-Whitney test on log-times.</p>\n"
		"<p id=\"site\">Site: <span data-k=\"saved_gpu_hours\">%.2f"
		"</span> GPU-hours saved [<span "
		"data-k=\"saved_lo_gpu_hours\">%.2f</span>, <span "
		"data-k=\"saved_hi_gpu_hours\">%.2f</span>] over <span "
		"data-k=\"compared\">%zu</span> of <span "
		"data-k=\"classes\">%zu</span> classes, resting on <span "
		"data-k=\"users\">%zu</span> user(s).</p>\n",
		report_hours(site->saved_gpu_h), report_hours(site->saved_lo_h),
		report_hours(site->saved_hi_h), site->compared, site->classes,
		site->users);
	table(out, c, n);
	fputs("<h2>Measured speedup per class (bar: 95 % interval; square: "
	      "predicted)</h2>\n",
	      out);
	speedup_chart(out, c, n);
	fputs("<h2>Predicted against measured</h2>\n", out);
	scatter_chart(out, c, n);
	fputs("</body></html>\n", out);
}
