/*
 * cli/cmd_calibrate.c - `lagom calibrate`: fit the cluster's network
 * constants to the measurement records of its steps (doc/model.md 2.7)
 * and write the calibration file (doc/calibration-format.md).
 *
 * Records are untrusted input (any user writes their spool): the spool is
 * walked by measurement/spool.h (its layout, its order by name, no
 * symbolic link followed, every limit per user and said when reached),
 * each record read relative to its step's descriptor with common/io.h's
 * reader (no link, O_NONBLOCK, a regular file of at most 1 MiB, owned by
 * the user whose directory holds it) and parsed by the strict parser
 * (measurement/record.h); at most DIR_SCAN steps per user and records per
 * step, at most MAX_RECORDS records per user.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cli/calib_int.h"
#include "cli/hw_int.h"
#include "common/io.h"
#include "model/netdense.h"
#include "model/size_band.h"
#include "planner/calib.h"
#include "common/escape.h"
#include "measurement/record.h"
#include "measurement/spool.h"

#define MAX_RECORDS 65536 /* per user */
#define DIR_SCAN 4096	  /* steps per user, records per step */

static const char calibrate_usage[] =
	"Usage: lagom calibrate (--profile FILE | --gpu MODEL ...)\n"
	"                       [--out FILE] [--check] [--trusted-user NAME]\n"
	"                       [--last FILE] [--accept] [--plugstack FILE]\n"
	"                       RECORD_OR_DIR...\n"
	"\n"
	"Fit the network constants of the model to measured steps: the\n"
	"profiler's records (files, step directories, a user's spool or\n"
	"the whole spool), on the hardware of the profile.\n"
	"\n"
	"  --profile FILE   a node profile of the measured nodes\n"
	"  --gpu MODEL      the built-in table instead (with --nic,\n"
	"                   --intra, --gpus-per-node as in predict)\n"
	"  --out FILE       write the calibration there (atomically);\n"
	"                   without, print it\n"
	"  --check          print the leave-one-class-out error per size\n"
	"                   band beside the uncalibrated model's, and each\n"
	"                   constant fitted without each user\n"
	"  --trusted-user NAME  the calibration account: its runs count\n"
	"                   alone (default: calibration_user= of lagom's\n"
	"                   line in --plugstack FILE, default\n"
	"                   /etc/slurm/plugstack.conf, when there is one)\n"
	"  --last FILE      the last calibration (default: --out's file)\n"
	"  --accept         write even when a constant moves more than a\n"
	"                   factor 1.5 from the last calibration\n"
	"  -h, --help       this help\n";

enum {
	OPT_OUT = 0x200,
	OPT_CHECK,
	OPT_TRUSTED,
	OPT_LAST,
	OPT_ACCEPT,
	OPT_PLUGSTACK
};

struct cal_opts {
	struct cli_hw_opts hw;
	const char *out;
	bool check;
	const char *trusted, *last, *plugstack;
	bool accept;
};

struct scan {
	struct lagom_consensus *cs;
	char *text;
	struct lagom_rec *rec, *scratch;
	const char *arg; /* the argument being walked */
	size_t records, refused;
};

static int cal_opt(void *ctx, int c, const char *arg)
{
	struct cal_opts *o = ctx;

	if (c >= CLI_OPT_PROFILE && c <= CLI_OPT_NIC)
		return cli_hw_opt(&o->hw, c, arg);
	if (c == OPT_OUT)
		o->out = arg;
	else if (c == OPT_CHECK)
		o->check = true;
	else if (c == OPT_TRUSTED)
		o->trusted = arg;
	else if (c == OPT_LAST)
		o->last = arg;
	else if (c == OPT_ACCEPT)
		o->accept = true;
	else if (c == OPT_PLUGSTACK)
		o->plugstack = arg;
	return 0;
}

static void refuse(struct scan *s, const char *path, const char *why)
{
	char esc[4096 * 4];

	lagom_escape(path, esc, sizeof(esc));
	fprintf(stderr, "lagom: calibrate: record %s refused: %s\n", esc, why);
	s->refused++;
}

/* The record in s->rec as one run of uid's (the owner of the user's
 * directory it lies in, or of the file the invoker named). */
static void add_run(struct scan *s, const char *path, uid_t uid)
{
	struct lagom_error err = { 0 };
	int rc = lagom_consensus_add(s->cs, uid, s->rec, &err);

	if (rc == 0)
		s->records++;
	else
		refuse(s, path, rc == -ENOMEM ? "out of memory" : err.text);
}

static void cal_say(void *ctx, const char *line)
{
	(void)ctx;
	fprintf(stderr, "lagom: calibrate: %s\n", line);
}

/* A record of the walk: read with measurement/spool.h's rules (relative
 * to its step's descriptor, owned by the user whose directory holds it),
 * then the strict parser. */
static int cal_record(void *ctx, const struct lagom_spool_at *at)
{
	struct scan *s = ctx;
	struct lagom_error err = { 0 };
	char where[LAGOM_SPOOL_NAME_MAX * 12], path[sizeof(where) + 4096];

	int rc = lagom_spool_read_record(at, s->text, s->rec, s->scratch, &err);

	lagom_spool_where(at, where, sizeof(where));
	snprintf(path, sizeof(path), "%s%s%s", s->arg, s->arg[0] ? "/" : "",
		 where);
	if (rc)
		refuse(s, path, err.text);
	else
		add_run(s, path, at->uid);
	return LAGOM_SPOOL_NEXT;
}

/*
 * One argument: a record file (read whoever owns it: the invoker named
 * it), or a directory of the spool's layout (measurement/spool.h): a step
 * (it holds records), a user's (its steps do) or the whole spool.
 */
static void scan_arg(struct scan *s, const char *arg)
{
	struct lagom_spool_walk w = {
		.lim = { .steps_max = DIR_SCAN,
			 .records_max = DIR_SCAN,
			 .user_records_max = MAX_RECORDS },
		.on_record = cal_record,
		.say = cal_say,
		.ctx = s,
	};
	const char *base = strrchr(arg, '/') ? strrchr(arg, '/') + 1 : arg;
	struct lagom_error err = { 0 };
	char parent[4096];
	struct stat st;
	int fd, level;

	s->arg = arg;
	if (fstatat(AT_FDCWD, arg, &st, AT_SYMLINK_NOFOLLOW) != 0) {
		refuse(s, arg, strerror(errno));
		return;
	}
	if (!S_ISDIR(st.st_mode)) {
		if (lagom_rec_read_at(AT_FDCWD, arg, -1, s->text, s->rec,
				      s->scratch, &err) != 0) {
			refuse(s, arg, err.text);
			return;
		}
		add_run(s, arg, st.st_uid);
		return;
	}
	fd = lagom_open_at(AT_FDCWD, arg, O_RDONLY | O_DIRECTORY, 0, &st);
	if (fd < 0) {
		refuse(s, arg, strerror(-fd));
		return;
	}
	level = lagom_spool_level(fd);
	if (level == LAGOM_SPOOL_LEVEL_STEP) {
		s->arg = ""; /* the step is named by arg itself */
		lagom_spool_walk_step(AT_FDCWD, arg, st.st_uid, &w);
	} else if (level == LAGOM_SPOOL_LEVEL_USER) {
		/* where's USER/STEP/NAME under arg's parent */
		snprintf(parent, sizeof(parent), "%.*s",
			 base > arg ? (int)(base - arg - 1) : 1,
			 base > arg ? arg : ".");
		s->arg = parent;
		lagom_spool_walk_user(fd, base, &w);
	} else {
		lagom_spool_walk_root(fd, &w);
	}
	close(fd);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* --check: each class predicted by the fit on the others. */
static int check_loco(const struct lagom_net_meas *m, size_t n)
{
	double *e[2][LAGOM_SIZE_BANDS];
	size_t k[LAGOM_SIZE_BANDS] = { 0 };
	struct lagom_net_meas *rest = malloc(n * sizeof(*rest));
	int rc = CLI_OK;

	for (int c = 0; c < 2; c++)
		for (int b = 0; b < LAGOM_SIZE_BANDS; b++)
			e[c][b] = malloc(n * sizeof(double));
	for (size_t i = 0; rest && i < n && rc == CLI_OK; i++) {
		struct lagom_net_calib cal;
		struct lagom_error err = { 0 };
		int b = lagom_size_band(m[i].bytes);
		size_t r = 0;

		for (size_t j = 0; j < n; j++)
			if (j != i)
				rest[r++] = m[j];
		if (r == 0 || lagom_net_site_fit(rest, r, &cal, NULL, &err)) {
			memset(&cal, 0, sizeof(cal));
		}
		e[0][b][k[b]] = fabs(
			m[i].time_s / lagom_net_meas_predict_s(&m[i], &cal) -
			1);
		e[1][b][k[b]] = fabs(
			m[i].time_s / lagom_net_meas_predict_s(&m[i], NULL) -
			1);
		k[b]++;
	}
	printf("leave-one-class-out, median |measured / predicted - 1|:\n");
	printf("  %-10s %8s %12s %14s\n", "size", "classes", "calibrated",
	       "uncalibrated");
	for (int b = 0; b < LAGOM_SIZE_BANDS; b++) {
		double med[2];
		if (!k[b])
			continue;
		for (int c = 0; c < 2; c++) {
			qsort(e[c][b], k[b], sizeof(double), cmp_double);
			med[c] = k[b] % 2 ? e[c][b][k[b] / 2]
					  : (e[c][b][k[b] / 2 - 1] +
					     e[c][b][k[b] / 2]) /
						    2;
		}
		printf("  %-10s %8zu %11.1f%% %13.1f%%\n",
		       lagom_size_band_name(b), k[b], 100 * med[0],
		       100 * med[1]);
	}
	for (int c = 0; c < 2; c++)
		for (int b = 0; b < LAGOM_SIZE_BANDS; b++)
			free(e[c][b]);
	free(rest);
	return rc;
}

static const char *verdict_text(enum lagom_net_verdict v)
{
	switch (v) {
	case LAGOM_NV_FITTED:
		return "fitted";
	case LAGOM_NV_AT_BOUND:
		return "fitted, at its bound";
	case LAGOM_NV_NO_GAIN:
		return "kept: predicts the classes left out no better";
	case LAGOM_NV_UNDETERMINED:
		return "kept: the data do not determine it";
	default:
		return "no data";
	}
}

static void print_report(const struct lagom_net_site_report *rep,
			 const struct lagom_net_calib *cal)
{
	for (int t = LAGOM_NET_IB; t < LAGOM_NET_COUNT; t++)
		for (int b = 0; b < LAGOM_NET_BANDS; b++) {
			if (!rep->rows[t][b])
				continue;
			fprintf(stderr,
				"lagom: calibrate: %s, %s nodes: %zu classes, "
				"median error %.1f%% built-in, %.1f%% "
				"fitted\n",
				lagom_transport_name(t), lagom_net_band_name(b),
				rep->rows[t][b], 100 * rep->err_builtin[t][b],
				100 * rep->err_fitted[t][b]);
			for (int p = 0; p < LAGOM_NP_COUNT; p++)
				fprintf(stderr,
					"lagom: calibrate:   %-10s %12.6g "
					"(built-in %.6g): %s\n",
					lagom_net_param_name(p),
					cal->t[t].set[b][p]
						? cal->t[t].value[b][p]
						: lagom_net_param_builtin(p, t),
					lagom_net_param_builtin(p, t),
					verdict_text(rep->verdict[t][b][p]));
		}
}

/* What the calibration carries of the dense form, and why not where
 * not (doc/calibration-format.md "dense"). */
static void print_dense(const struct lagom_dense_site_report *rep,
			const struct lagom_net_calib *cal)
{
	static const char *const proto[LAGOM_NET_DENSE_PROTOS] = { "Simple",
								   "LL128",
								   "LL" };

	for (int t = LAGOM_NET_IB; t < LAGOM_NET_COUNT; t++)
		for (int b = 0; b < LAGOM_NET_BANDS; b++)
			for (int a = 0; a < LAGOM_NET_DENSE_ALGOS; a++) {
				const struct lagom_net_dense *d =
					&cal->t[t].dense[b][a];
				if (!rep->classes[t][b][a])
					continue;
				fprintf(stderr,
					"lagom: calibrate: dense %s, %s nodes, "
					"%s: %zu classes, %s",
					lagom_transport_name(t),
					lagom_net_band_name(b),
					lagom_dense_algo_name(a),
					rep->classes[t][b][a],
					lagom_dense_site_why_text(
						rep->why[t][b][a]));
				if (!isnan(rep->loo[t][b][a]))
					fprintf(stderr,
						" (leave-one-class-out %.1f%%)",
						100 * rep->loo[t][b][a]);
				fprintf(stderr, "\n");
				for (int p = 0; p < LAGOM_NET_DENSE_PROTOS; p++)
					if (d->max_bytes[p])
						fprintf(stderr,
							"lagom: calibrate:   "
							"%s covers %llu-%llu "
							"bytes, %u-%u "
							"channels, %u "
							"ranks per node\n",
							proto[p],
							(unsigned long long)
								d->min_bytes[p],
							(unsigned long long)
								d->max_bytes[p],
							d->min_channels,
							d->max_channels,
							d->ranks_per_node);
			}
}

static int fit_and_write(const struct cal_opts *o, struct scan *s,
			 const struct lagom_hw *hw)
{
	static struct lagom_net_meas m[LAGOM_NET_SITE_MAX_MEAS];
	struct lagom_net_site_report rep;
	struct lagom_dense_site_report drep;
	struct lagom_consensus_stats st;
	struct lagom_calibration c = { 0 };
	struct lagom_error err = { 0 };
	size_t n;
	char *text = NULL;
	int rc;

	fprintf(stderr, "lagom: calibrate: %zu records (%zu refused)\n",
		s->records, s->refused);
	n = cli_calib_meas(s->cs, hw, m, LAGOM_NET_SITE_MAX_MEAS, &st,
			   o->check);
	if (n == 0)
		return cli_fail(CLI_FAIL, "calibrate: no multi-node class to "
					  "fit");
	if (lagom_net_site_fit(m, n, &c.calib, &rep, &err))
		return cli_fail(CLI_FAIL, "calibrate: %s", err.text);
	print_report(&rep, &c.calib);
	if (lagom_dense_site_fit(m, n, &c.calib, &drep, &err))
		return cli_fail(CLI_FAIL, "calibrate: %s", err.text);
	print_dense(&drep, &c.calib);
	for (int t = 0; t < LAGOM_NET_COUNT; t++)
		for (int b = 0; b < LAGOM_NET_BANDS; b++)
			c.classes[t][b] = rep.rows[t][b];
	c.n_classes = n;
	c.n_runs = st.runs;
	c.date_unix = (int64_t)time(NULL);
	cli_calib_dense(m, n);
	if (o->check) {
		check_loco(m, n);
		cli_calib_influence(s->cs, hw, &c.calib);
	}
	rc = cli_calib_bound(o->last, o->out, &c.calib, o->accept);
	if (rc)
		return rc;
	if (lagom_calibration_format(&c, &text, &err))
		return cli_fail(CLI_FAIL, "calibrate: %s", err.text);
	if (o->out)
		rc = cli_write_atomic("calibration", o->out, text, strlen(text),
				      0644, NULL, NULL);
	else
		rc = fputs(text, stdout) < 0 ? CLI_FAIL : CLI_OK;
	free(text);
	return rc;
}

int cli_cmd_calibrate(int argc, char **argv)
{
	static const struct option longopts[] = {
		CLI_HW_LONGOPTS,
		{ "out", required_argument, NULL, OPT_OUT },
		{ "check", no_argument, NULL, OPT_CHECK },
		{ "trusted-user", required_argument, NULL, OPT_TRUSTED },
		{ "last", required_argument, NULL, OPT_LAST },
		{ "accept", no_argument, NULL, OPT_ACCEPT },
		{ "plugstack", required_argument, NULL, OPT_PLUGSTACK },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct cal_opts o = { 0 };
	struct scan s = { 0 };
	struct lagom_hw hw;
	long trusted;
	int rc = cli_getopt(argc, argv, "calibrate", "+h", longopts,
			    calibrate_usage, cal_opt, &o);

	if (rc)
		return rc < 0 ? CLI_OK : rc;
	if (optind >= argc)
		return cli_fail(CLI_USAGE, "calibrate: name record files or "
					   "spool directories (try 'lagom "
					   "calibrate --help')");
	if (!o.hw.profile && !o.hw.gpu)
		return cli_fail(CLI_USAGE, "calibrate: --profile or --gpu is "
					   "required: records do not say the "
					   "hardware");
	if (cli_calib_trusted_uid(o.trusted, o.plugstack, &trusted))
		return CLI_USAGE;
	rc = cli_hw_load(&o.hw, &hw);
	if (rc)
		return rc;
	s.cs = lagom_consensus_create(trusted);
	s.text = malloc(LAGOM_REC_MAX_BYTES + 1);
	s.rec = malloc(sizeof(*s.rec));
	s.scratch = malloc(sizeof(*s.scratch));
	if (!s.cs || !s.text || !s.rec || !s.scratch)
		rc = cli_fail(CLI_FAIL, "calibrate: out of memory");
	for (int i = optind; rc == 0 && i < argc; i++)
		scan_arg(&s, argv[i]);
	if (rc == 0)
		rc = fit_and_write(&o, &s, &hw);
	lagom_consensus_destroy(s.cs);
	free(s.text);
	free(s.rec);
	free(s.scratch);
	return rc;
}
