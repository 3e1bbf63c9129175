/*
 * cli/cmd_calibrate.c - `lagom calibrate`: fit the cluster's network
 * constants to the measurement records of its steps (doc/model.md 2.7)
 * and write the calibration file (doc/calibration-format.md).
 *
 * Records are untrusted input (any user writes their spool): each file is
 * opened relative to its directory's descriptor with the profiler
 * reader's rules (no symbolic link, O_NONBLOCK, fstat: a regular file of
 * at most 1 MiB) and parsed by its strict parser (measurement/record.h);
 * directories are opened the same way (no link), at most MAX_DEPTH deep,
 * at most DIR_SCAN entries each, at most MAX_RECORDS records in all.
 */
#include "config.h"

#include <dirent.h>
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
#include "planner/calib.h"
#include "measurement/record.h"

#define MAX_RECORDS 65536
#define DIR_SCAN 4096
#define MAX_DEPTH 3 /* spool / user / job.step / records */

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
	size_t records, refused, skipped;
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
	fprintf(stderr, "lagom: calibrate: record %s refused: %s\n", path, why);
	s->refused++;
}

/*
 * The record name of the directory dfd (path names it in messages): the
 * profiler reader's rules (doc/profiler.md), relative to the directory
 * already opened, so a user who swaps a directory for a link between two
 * steps of the walk gains nothing: never through a symbolic link, never
 * blocking on a FIFO, a regular file of at most LAGOM_REC_MAX_BYTES, then
 * the strict parser.
 */
static void read_record_at(struct scan *s, int dfd, const char *name,
			   const char *path)
{
	struct lagom_error err = { 0 };
	struct stat st, dst;
	size_t len = 0;
	int fd, rc;

	if (s->records >= MAX_RECORDS) {
		s->skipped++;
		return;
	}
	fd = openat(dfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0) {
		refuse(s, path,
		       errno == ELOOP ? "a symbolic link" : strerror(errno));
		return;
	}
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode))
		rc = -EINVAL, refuse(s, path, "not a regular file");
	else if (st.st_size > LAGOM_REC_MAX_BYTES)
		rc = -EFBIG, refuse(s, path, "larger than 1 MiB");
	else if ((rc = lagom_read_all(fd, s->text, LAGOM_REC_MAX_BYTES + 1,
				      &len)) != 0)
		refuse(s, path, strerror(-rc));
	else if (len > LAGOM_REC_MAX_BYTES)
		rc = -EFBIG, refuse(s, path, "grew beyond 1 MiB");
	else if ((rc = lagom_rec_parse(s->text, len, s->rec, s->scratch,
				       &err)) != 0)
		refuse(s, path, err.text);
	close(fd);
	if (rc)
		return;
	/* the run's user: the owner of the directory it lies in */
	if (dfd != AT_FDCWD && fstat(dfd, &dst) == 0)
		st.st_uid = dst.st_uid;
	rc = lagom_consensus_add(s->cs, st.st_uid, s->rec, &err);
	if (rc == 0)
		s->records++;
	else
		refuse(s, path, rc == -ENOMEM ? "out of memory" : err.text);
}

static int cmp_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void scan_at(struct scan *s, int dfd, const char *name, const char *path,
		    int depth);

/* A directory's entries (the first DIR_SCAN), sorted so the fit never
 * depends on its order: records read, directories descended. */
static void scan_dir(struct scan *s, int fd, const char *path, int depth)
{
	DIR *d = fdopendir(fd);
	char **names = NULL;
	size_t n = 0;
	struct dirent *e;

	if (!d) {
		close(fd);
		refuse(s, path, strerror(errno));
		return;
	}
	names = calloc(DIR_SCAN, sizeof(*names));
	for (unsigned seen = 0; names && seen < DIR_SCAN && (e = readdir(d));
	     seen++)
		if (e->d_name[0] != '.' && strlen(e->d_name) < 256)
			names[n++] = strdup(e->d_name);
	if (names)
		qsort(names, n, sizeof(*names), cmp_name);
	for (size_t i = 0; i < n; i++) {
		char sub[4096];
		if (names[i] && (size_t)snprintf(sub, sizeof(sub), "%s/%s",
						 path, names[i]) < sizeof(sub))
			scan_at(s, dirfd(d), names[i], sub, depth + 1);
		free(names[i]);
	}
	free(names);
	closedir(d);
}

/* name in the directory dfd: a directory (not a link) is walked, a
 * record name (or anything named on the command line) is read. */
static void scan_at(struct scan *s, int dfd, const char *name, const char *path,
		    int depth)
{
	struct stat st;
	int fd;

	if (fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) != 0) {
		refuse(s, path, strerror(errno));
		return;
	}
	if (S_ISDIR(st.st_mode)) {
		if (depth >= MAX_DEPTH)
			return;
		fd = openat(dfd, name,
			    O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_NONBLOCK |
				    O_CLOEXEC);
		if (fd < 0)
			refuse(s, path, strerror(errno));
		else
			scan_dir(s, fd, path, depth);
		return;
	}
	if (depth == 0 || lagom_rec_is_name(name))
		read_record_at(s, dfd, name, path);
}

static const char *const band_names[] = { "< 1 MiB", "1-64 MiB", ">= 64 MiB" };

static int size_band(uint64_t bytes)
{
	return bytes < (1u << 20) ? 0 : bytes < (64u << 20) ? 1 : 2;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* --check: each class predicted by the fit on the others. */
static int check_loco(const struct lagom_net_meas *m, size_t n)
{
	double *e[2][3];
	size_t k[3] = { 0 };
	struct lagom_net_meas *rest = malloc(n * sizeof(*rest));
	int rc = CLI_OK;

	for (int c = 0; c < 2; c++)
		for (int b = 0; b < 3; b++)
			e[c][b] = malloc(n * sizeof(double));
	for (size_t i = 0; rest && i < n && rc == CLI_OK; i++) {
		struct lagom_net_calib cal;
		struct lagom_error err = { 0 };
		int b = size_band(m[i].bytes);
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
	for (int b = 0; b < 3; b++) {
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
		printf("  %-10s %8zu %11.1f%% %13.1f%%\n", band_names[b], k[b],
		       100 * med[0], 100 * med[1]);
	}
	for (int c = 0; c < 2; c++)
		for (int b = 0; b < 3; b++)
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

static int fit_and_write(const struct cal_opts *o, struct scan *s,
			 const struct lagom_hw *hw)
{
	static struct lagom_net_meas m[LAGOM_NET_SITE_MAX_MEAS];
	struct lagom_net_site_report rep;
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
		scan_at(&s, AT_FDCWD, argv[i], argv[i], 0);
	if (rc == 0 && s.skipped)
		fprintf(stderr,
			"lagom: calibrate: %zu records beyond the first %d "
			"not read\n",
			s.skipped, MAX_RECORDS);
	if (rc == 0)
		rc = fit_and_write(&o, &s, &hw);
	lagom_consensus_destroy(s.cs);
	free(s.text);
	free(s.rec);
	free(s.scratch);
	return rc;
}
