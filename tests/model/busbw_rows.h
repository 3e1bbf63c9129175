/*
 * tests/model/busbw_rows.h - published nccl-tests rows (tests/fixtures/
 * measurements/nccl-busbw*.csv) turned into what the model takes: the
 * hardware from the spec-sheet table and what each row names (GPU,
 * fabric, NICs, transport), the communicator, and the configuration NCCL
 * ran (its default per lagom_nccl_default(), or what the poster forced).
 * Where a source does not state the NICs, one documented assumption per
 * system fills them (row_conventions[] in busbw_rows.c, printed by the
 * report).
 */
#ifndef LAGOM_TESTS_BUSBW_ROWS_H
#define LAGOM_TESTS_BUSBW_ROWS_H

#include <stdbool.h>
#include <stdio.h>

#include "model/model_int.h"

#define ROWS_MAX 1024
#define ROW_SYSTEM_MAX 96

struct busbw_row {
	char system[ROW_SYSTEM_MAX];
	char file[32];	/* which CSV */
	unsigned group; /* system index */
	struct lagom_net_obs obs;
	double busbw_GBps; /* published; 0 when only a time */
	double time_us;	   /* published; 0 when only a busbw */
	double bus_factor; /* nccl-tests busbw / algbw */
	double convention; /* the source's busbw convention (1 = standard) */
	bool problem;	   /* problem_reported = yes */
	bool multinode;	   /* from nccl-busbw-multinode.csv */
};

/*
 * Read one CSV into rows[*n...] (appending; at most ROWS_MAX in all).
 * Rows the model cannot describe are counted in *skipped with a line on
 * log.  Returns 0, or -1 when the file cannot be read.
 */
int busbw_rows_read(const char *path, bool multinode, struct busbw_row *rows,
		    size_t *n, size_t *skipped, FILE *log);

/* Assign group numbers (one per system name, in order of appearance);
 * returns the number of systems. */
unsigned busbw_rows_group(struct busbw_row *rows, size_t n);

/* Print the conventions applied to rows whose source leaves something
 * out. */
void busbw_rows_conventions(FILE *out);

/* Median of v[0..n) (sorts v); NAN for n == 0.  The reports' summaries. */
double rows_median(double *v, size_t n);

#endif
