/*
 * bench/bench_spool.c - the spool's walk at site scale (issue 33, "Site
 * scale": 1,000,000 records in bounded memory and time): builds a spool of
 * USERS x STEPS x RECORDS records (one real record per user, hard-linked,
 * so the disk holds a file per user and the directories), walks it with
 * measurement/spool.h reading and parsing every record, as `lagom
 * calibrate` does, and prints the time and the peak memory.
 *
 *   bench_spool [USERS STEPS RECORDS [DIR]]   default 250 40 100 (1,000,000)
 *
 * DIR (default: a fresh directory under /tmp) is removed at the end.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "measurement/record.h"
#include "measurement/spool.h"

struct bench {
	char *text;
	struct lagom_rec *rec, *scratch;
	unsigned long read, refused, lines;
};

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static long peak_kib(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return ru.ru_maxrss;
}

static int on_record(void *ctx, const struct lagom_spool_at *at)
{
	struct bench *b = ctx;

	if (lagom_spool_read_record(at, b->text, b->rec, b->scratch, NULL))
		b->refused++;
	else
		b->read++;
	return LAGOM_SPOOL_NEXT;
}

static void on_say(void *ctx, const char *line)
{
	((struct bench *)ctx)->lines++;
	printf("  said: %s\n", line);
}

/* The one record every name links to: a step of two nodes. */
static int write_record(const char *path)
{
	static const char text[] =
		"lagom-measure 1\nabi 5\njob 1 step 0 task 0 pid 100\n"
		"plan -\ntime 1764200000 1764200060\ncomms 1 dropped 0\n"
		"comm 0000000000001000 ranks 16 nodes 2 rank 0 name - "
		"overflow 0 incomplete 0 classes 1\n"
		"class allreduce 1048576 ring simple 32 count 20 gpu 20 "
		"2000000 100000 120000 gap 0 0\n"
		"period 0 n 0 ns 0\nseq\nend\n";
	FILE *f = fopen(path, "w");

	if (!f)
		return -1;
	fputs(text, f);
	return fclose(f);
}

static int build(const char *dir, unsigned users, unsigned steps,
		 unsigned records)
{
	char path[2048], link_path[4096], one[4096];

	for (unsigned u = 0; u < users; u++) {
		snprintf(path, sizeof(path), "%s/user%u", dir, u);
		if (mkdir(path, 0700))
			return -1;
		/* one file per user: a file has at most 65000 links */
		snprintf(one, sizeof(one), "%s/.one.rec", path);
		if (write_record(one))
			return -1;
		for (unsigned s = 0; s < steps; s++) {
			snprintf(path, sizeof(path), "%s/user%u/%u.0", dir, u,
				 1000 + s);
			if (mkdir(path, 0700))
				return -1;
			for (unsigned r = 0; r < records; r++) {
				snprintf(link_path, sizeof(link_path),
					 "%s/task-%u.%u.rec", path, r, 100 + r);
				if (link(one, link_path))
					return -1;
			}
		}
	}
	return 0;
}

int main(int argc, char **argv)
{
	unsigned users = argc > 3 ? (unsigned)atoi(argv[1]) : 250;
	unsigned steps = argc > 3 ? (unsigned)atoi(argv[2]) : 40;
	unsigned records = argc > 3 ? (unsigned)atoi(argv[3]) : 100;
	char dir[1024] = "/tmp/lagom-bench-spool-XXXXXX", cmd[1100];
	struct bench b = { 0 };
	struct lagom_spool_walk w = {
		.on_record = on_record,
		.say = on_say,
		.ctx = &b,
	};
	double t0, t1;
	long before;
	int fd, rc;

	if (argc > 4)
		snprintf(dir, sizeof(dir), "%s", argv[4]);
	if ((argc > 4 ? mkdir(dir, 0700) : !mkdtemp(dir)) != 0) {
		perror(dir);
		return 1;
	}
	b.text = malloc(LAGOM_REC_MAX_BYTES + 1);
	b.rec = malloc(sizeof(*b.rec));
	b.scratch = malloc(sizeof(*b.scratch));
	if (!b.text || !b.rec || !b.scratch)
		return 1;
	t0 = now_s();
	rc = build(dir, users, steps, records);
	t1 = now_s();
	printf("spool: %u users x %u steps x %u records = %llu records, "
	       "built in %.1f s%s\n",
	       users, steps, records,
	       (unsigned long long)users * steps * records, t1 - t0,
	       rc ? " (FAILED)" : "");
	before = peak_kib();
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	t0 = now_s();
	if (!rc && fd >= 0)
		rc = lagom_spool_walk_root(fd, &w);
	t1 = now_s();
	printf("walk: %lu records read and parsed, %lu refused, %lu limit "
	       "lines in %.2f s (%.0f records/s)\n",
	       b.read, b.refused, b.lines, t1 - t0,
	       (double)b.read / (t1 - t0 > 0 ? t1 - t0 : 1));
	printf("memory: peak %ld KiB (before the walk %ld KiB; the record "
	       "buffers %zu KiB)\n",
	       peak_kib(), before,
	       (LAGOM_REC_MAX_BYTES + 2 * sizeof(struct lagom_rec)) / 1024);
	if (fd >= 0)
		close(fd);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	if (system(cmd) != 0)
		fprintf(stderr, "bench_spool: could not remove %s\n", dir);
	free(b.text);
	free(b.rec);
	free(b.scratch);
	return rc ? 1 : 0;
}
