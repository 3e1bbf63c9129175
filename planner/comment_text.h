/*
 * planner/comment_text.h - lagom's text in the job comment (sacct -o Comment),
 * written and read by one module from one table of fields
 * (planner/comment_text.c, doc/accounting.md).
 *
 *	lagom VERSION plan=ID workload=W channels=C chunk=K algo=A speedup=Sx
 *	    [corrected=LIST from=JOB.STEP reverted=S.SSx[LO,HI]/N]
 *	    [fallback=REASON]
 *	    [; calibrated from N classes of M runs, DATE]
 *	    [ container: WORDS] [mode=explain (not applied)]
 *	    [arm=control|measure|reverted (WHY)] [skipped=NAMES]
 *
 * The planner writes it as the summary (lagom_comment_text_write()); srun
 * sends the summary to every node in the step plan text (spank/carrier.h),
 * where it is the user's data: node 0 reads it back
 * (lagom_comment_text_read()), which keeps only the fields that pass their
 * row's check, in lagom's own spelling, adds its own (the last three
 * fields) and writes the comment root stores with the same
 * lagom_comment_text_write().  A field is one row of the table in
 * comment_text.c: its lead (" key=", or "; " before a tail), how it is
 * found (a word, or a phrase that may hold spaces), its longest value and
 * how it is checked.
 *
 * Pure: no I/O, no allocation.  Nothing here fails: a field that does not
 * check is left out.
 */
#ifndef LAGOM_PLANNER_COMMENT_TEXT_H
#define LAGOM_PLANNER_COMMENT_TEXT_H

#include <stddef.h>

/* The fields, in the order they are written. */
enum lagom_comment_field {
	LAGOM_COMMENT_WORKLOAD,	  /* catalog name, measured-J.S, (file), ... */
	LAGOM_COMMENT_CHANNELS,	  /* "default", "N", "N-N", "<=N" */
	LAGOM_COMMENT_CHUNK,	  /* "default", "NKiB" */
	LAGOM_COMMENT_ALGO,	  /* "default", "ring,tree" */
	LAGOM_COMMENT_SPEEDUP,	  /* "N.DDx" */
	LAGOM_COMMENT_CORRECTED,  /* "allreduce@1MiB:x1.83,...[,+N]" */
	LAGOM_COMMENT_FROM,	  /* "JOB.STEP" */
	LAGOM_COMMENT_REVERTED,	  /* "0.96x[0.94,0.98]/N" (doc/report.md) */
	LAGOM_COMMENT_FALLBACK,	  /* one of LAGOM_PLANNER_FALLBACK_* */
	LAGOM_COMMENT_CALIBRATED, /* "calibrated from N classes of M runs, D" */
	/* Node 0's own: written from what the node did, never read from the
	 * text srun sent. */
	LAGOM_COMMENT_CONTAINER, /* " container: WORDS", as container.c
				  * writes it (fixed words) */
	LAGOM_COMMENT_MODE,	 /* "explain (not applied)" */
	LAGOM_COMMENT_ARM,	 /* "control (...)", doc/report.md */
	LAGOM_COMMENT_SKIPPED,	 /* variable names lagom did not set */
	LAGOM_COMMENT_NFIELDS
};

/* Longest value a field may have once read (the table's bounds are below
 * it); the whole text is cut at the caller's buffer. */
#define LAGOM_COMMENT_VALUE_MAX 320

struct lagom_comment_text {
	/* Each field's value, NULL or "": not written.  Borrowed: the
	 * writer's own strings, or store[] after lagom_comment_text_read(). */
	const char *value[LAGOM_COMMENT_NFIELDS];
	char store[LAGOM_COMMENT_NFIELDS][LAGOM_COMMENT_VALUE_MAX];
};

/*
 * "lagom VERSION plan=ID" and every field of c that has a value, as the
 * table writes it, into out (len bytes, NUL-terminated and cut to fit;
 * out may be NULL when len is 0).  Returns the length of the whole text,
 * as snprintf() does.
 */
size_t lagom_comment_text_write(const struct lagom_comment_text *c,
				const char *plan_id, char *out, size_t len);

/*
 * The fields of text (a summary, or anything a user sent in its place)
 * into *out (zeroed first): each field whose value passes its row's check,
 * in lagom's spelling (a catalog name as the catalog spells it, options in
 * lower case; a workload that is not lagom's own word: "file").  The
 * version and plan id of text are not read: the writer names its own; nor
 * are node 0's own fields.
 */
void lagom_comment_text_read(const char *text, struct lagom_comment_text *out);

#endif /* LAGOM_PLANNER_COMMENT_TEXT_H */
