/*
 * spank/comment.c - lagom's line in the job comment (sacct -o Comment).
 *
 * Slurm replaces the whole field on update and limits it to 1024 bytes
 * (slurm.md section 3), so lagom reads the comment, drops the segment it
 * wrote earlier, keeps everything else byte for byte, appends the new
 * segment and writes it back.  lagom's segment is "{lagom: TEXT #XXXXXXXX}",
 * with no brace in TEXT and XXXXXXXX a hash of TEXT: only a segment that
 * lagom wrote matches, never the user's own text (a "{lagom: " of theirs,
 * terminated or not).  The user's text is never cut: lagom's segment is
 * shortened instead, or left out when there is no room.
 *
 * The two round trips to slurmctld (load, update) run in a thread of node
 * 0's slurmstepd started in task_post_fork and joined in the first
 * task_exit:
 *  - identity: slurmstepd changes its effective uid to the user's around
 *    user_init and while it forks the tasks, and glibc applies that to
 *    every thread; a round trip across such a change sends a munge
 *    credential of the wrong uid ("Unauthorized credential").  From
 *    task_post_fork on, slurmstepd stays root until the step ends.
 *  - sockets: every task is forked by then, so none inherits the sockets
 *    Slurm and libmunge open (they are not close-on-exec).
 *  - waiting: nothing in the launch waits for slurmctld; the first
 *    task_exit waits for the thread (bounded), so the job is still alive
 *    when the update lands (slurmstepd tells srun that a task exited only
 *    after task_exit returns).
 *
 * At the step's end node 0 adds the measured figure (spool.c) the same
 * way, from the last local task's task_exit: lagom_comment_add_measured()
 * keeps the launch text of lagom's segment, drops an earlier measured part
 * and appends the new one.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "compat/slurm_compat.h"

#include "common/hash.h"
#include "spank/remote_int.h"

#define SEG_OPEN "{lagom: "
/* " #" and 8 hex digits, the 32-bit FNV-1a of TEXT (common/hash.h): the
 * check that makes a segment lagom's own */
#define SEG_CHECK_LEN 10
#define SEG_MIN (16 + SEG_CHECK_LEN) /* "{lagom: ...}" + a little + check */

/*
 * Length of lagom's segment at p ("{lagom: TEXT #XXXXXXXX}": no brace in
 * TEXT, XXXXXXXX the hash of TEXT), or 0 when p does not start one.  Only
 * what lagom wrote matches: a user's "{lagom: unterminated" or "{lagom: x}"
 * is the user's text.
 */
static size_t segment_at(const char *p)
{
	const char *text = p + strlen(SEG_OPEN);
	size_t n;
	char want[SEG_CHECK_LEN + 1];

	if (strncmp(p, SEG_OPEN, strlen(SEG_OPEN)) != 0)
		return 0; /* before strcspn: p may end inside SEG_OPEN */
	n = strcspn(text, "{}");
	if (text[n] != '}' || n < SEG_CHECK_LEN)
		return 0;
	snprintf(want, sizeof(want), " #%08x",
		 (unsigned)lagom_fnv1a32(text, n - SEG_CHECK_LEN));
	if (memcmp(text + n - SEG_CHECK_LEN, want, SEG_CHECK_LEN) != 0)
		return 0;
	return strlen(SEG_OPEN) + n + 1;
}

/* Copy existing without lagom's segment(s), trimming the joint space. */
static size_t strip_segment(const char *existing, char *out, size_t len)
{
	size_t used = 0;
	const char *p = existing ? existing : "";

	while (*p && used + 1 < len) {
		size_t seg = segment_at(p);

		if (seg) {
			p += seg;
			if (*p == ' ' && (used == 0 || out[used - 1] == ' '))
				p++;
			continue;
		}
		out[used++] = *p++;
	}
	while (used > 0 && out[used - 1] == ' ')
		used--;
	out[used] = '\0';
	return used;
}

static char sanitize(char c)
{
	if (c == '{')
		return '(';
	if (c == '}')
		return ')';
	if (c == '|')
		return '/';
	if ((unsigned char)c < 0x20 || c == 0x7f)
		return ' ';
	/* ASCII only: a cut could split a UTF-8 sequence, and a byte that is
	 * not UTF-8 could make slurmdbd's write of the job record fail */
	if ((unsigned char)c >= 0x80)
		return '?';
	return c;
}

int lagom_comment_merge(const char *existing, const char *text, char *out,
			size_t out_len, struct lagom_error *err)
{
	char user[LAGOM_COMMENT_MAX + 1];
	size_t used = strip_segment(existing, user, sizeof(user));
	size_t room, text_at, tlen = strlen(text);
	size_t sep = used ? 1 : 0;

	if (out_len < LAGOM_COMMENT_MAX + 1)
		return lagom_errprintf(err, EINVAL, "comment buffer too small");
	if (used + sep + SEG_MIN > LAGOM_COMMENT_MAX)
		return lagom_errprintf(
			err, ENOSPC,
			"job comment is full (%zu bytes of %d); lagom's line left out",
			used, LAGOM_COMMENT_MAX);
	/* room for TEXT: the limit minus user part, separator, "{lagom: ",
	 * the check and "}" */
	room = LAGOM_COMMENT_MAX - used - sep - strlen(SEG_OPEN) -
	       SEG_CHECK_LEN - 1;
	memcpy(out, user, used);
	if (sep)
		out[used++] = ' ';
	memcpy(out + used, SEG_OPEN, strlen(SEG_OPEN));
	used += strlen(SEG_OPEN);
	text_at = used;
	if (tlen > room) {
		for (size_t i = 0; i < room - 3; i++)
			out[used++] = sanitize(text[i]);
		memcpy(out + used, "...", 3);
		used += 3;
	} else {
		for (size_t i = 0; i < tlen; i++)
			out[used++] = sanitize(text[i]);
	}
	used += (size_t)snprintf(
		out + used, SEG_CHECK_LEN + 1, " #%08x",
		(unsigned)lagom_fnv1a32(out + text_at, used - text_at));
	out[used++] = '}';
	out[used] = '\0';
	return 0;
}

static int load_comment(uint32_t job_id, bool admin, char *out, size_t len,
			struct lagom_error *err)
{
	job_info_msg_t *msg = NULL;
	const char *cur;

	/* SHOW_LOCAL: without it libslurm first asks slurmctld for the
	 * federation, a round trip more; the job runs on this cluster */
	if (lagom_slurm_load_job(&msg, job_id, SHOW_ALL | SHOW_LOCAL) !=
		    SLURM_SUCCESS ||
	    !msg)
		return lagom_errprintf(err, EIO, "cannot read job %u: %s",
				       job_id, lagom_slurm_error_text());
	if (msg->record_count < 1) {
		slurm_free_job_info_msg(msg);
		return lagom_errprintf(err, ENOENT, "job %u not found", job_id);
	}
	cur = admin ? msg->job_array[0].admin_comment
		    : msg->job_array[0].comment;
	cur = cur ? cur : "";
	if (strlen(cur) >= len) { /* never write back a cut user comment */
		slurm_free_job_info_msg(msg);
		return lagom_errprintf(err, ENOSPC,
				       "job comment is longer than %zu bytes; "
				       "left alone",
				       len - 1);
	}
	snprintf(out, len, "%s", cur);
	slurm_free_job_info_msg(msg);
	return 0;
}

static int update_comment(uint32_t job_id, const char *merged, bool admin)
{
	job_desc_msg_t desc;
	int rc = SLURM_ERROR;

	for (int attempt = 0; attempt < 2; attempt++) {
		slurm_init_job_desc_msg(&desc);
		lagom_job_desc_set_job(&desc, job_id);
		if (admin)
			desc.admin_comment = (char *)merged;
		else
			desc.comment = (char *)merged;
		rc = slurm_update_job(&desc);
		if (rc == SLURM_SUCCESS ||
		    !lagom_slurm_update_retry(lagom_slurm_errno()))
			break;
		usleep(200 * 1000); /* slurmctld asks to retry */
	}
	return rc;
}

/* Merge text into the comment read earlier (cur) and write it back. */
static int apply_comment(uint32_t job_id, const char *cur, const char *text,
			 bool admin, struct lagom_error *err)
{
	char merged[LAGOM_COMMENT_MAX + 1];
	int rc = lagom_comment_merge(cur, text, merged, sizeof(merged), err);

	if (rc < 0)
		return rc;
	if (strcmp(cur, merged) == 0)
		return 0;
	if (update_comment(job_id, merged, admin) != SLURM_SUCCESS)
		return lagom_errprintf(err, EIO, "cannot update job %u %s: %s",
				       job_id,
				       admin ? "AdminComment" : "Comment",
				       lagom_slurm_error_text());
	return 0;
}

int lagom_comment_update(uint32_t job_id, const char *text, bool admin,
			 struct lagom_error *err)
{
	char cur[LAGOM_COMMENT_MAX + 1];
	int rc = load_comment(job_id, admin, cur, sizeof(cur), err);

	return rc < 0 ? rc : apply_comment(job_id, cur, text, admin, err);
}

/*
 * The text of lagom's segment in comment, without an earlier measured
 * part (from LAGOM_COMMENT_MEASURED on), then " " and words: what the
 * segment becomes at the step's end.
 */
static void with_measured(const char *comment, const char *words, char *out,
			  size_t len)
{
	const char *p, *text = "";
	size_t n = 0, seg = 0;
	char *cut;

	for (p = comment; *p && !(seg = segment_at(p)); p++)
		;
	if (seg) {
		text = p + strlen(SEG_OPEN);
		n = seg - strlen(SEG_OPEN) - SEG_CHECK_LEN - 1;
	}
	snprintf(out, len, "%.*s", (int)n, text);
	if ((cut = strstr(out, " " LAGOM_COMMENT_MEASURED)) != NULL)
		*cut = '\0';
	else if (strncmp(out, LAGOM_COMMENT_MEASURED,
			 strlen(LAGOM_COMMENT_MEASURED)) == 0)
		out[0] = '\0';
	n = strlen(out);
	snprintf(out + n, len - n, "%s%s", n ? " " : "", words);
}

int lagom_comment_add_measured(uint32_t job_id, const char *words, bool admin,
			       struct lagom_error *err)
{
	char cur[LAGOM_COMMENT_MAX + 1], text[2 * LAGOM_COMMENT_MAX + 2];
	int rc = load_comment(job_id, admin, cur, sizeof(cur), err);

	if (rc < 0)
		return rc;
	with_measured(cur, words, text, sizeof(text));
	return apply_comment(job_id, cur, text, admin, err);
}

struct lagom_comment_job {
	struct lagom_bounded *thread; /* lagom_bounded_* (pin.c) */
	uint32_t job_id;
	bool admin;
	bool measured; /* lagom_comment_add_measured(), not _update() */
	int rc;
	double busy_ms;
	struct lagom_error err;
	char text[LAGOM_COMMENT_MAX + 1];
};

/* Read the comment, merge the text in, write it back. */
static void comment_run(void *arg)
{
	struct lagom_comment_job *job = arg;
	struct timespec t0;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	job->rc = job->measured
			  ? lagom_comment_add_measured(job->job_id, job->text,
						       job->admin, &job->err)
			  : lagom_comment_update(job->job_id, job->text,
						 job->admin, &job->err);
	job->busy_ms = lagom_ms_since(&t0);
}

static struct lagom_comment_job *start(uint32_t job_id, const char *text,
				       bool admin, bool measured)
{
	struct lagom_comment_job *job = calloc(1, sizeof(*job));

	if (!job)
		return NULL;
	job->job_id = job_id;
	job->admin = admin;
	job->measured = measured;
	snprintf(job->text, sizeof(job->text), "%s", text);
	job->thread = lagom_bounded_start(comment_run, free, job);
	if (!job->thread) {
		free(job);
		return NULL;
	}
	return job;
}

struct lagom_comment_job *lagom_comment_start(uint32_t job_id, const char *text,
					      bool admin)
{
	return start(job_id, text, admin, false);
}

struct lagom_comment_job *lagom_comment_start_measured(uint32_t job_id,
						       const char *words,
						       bool admin)
{
	return start(job_id, words, admin, true);
}

int lagom_comment_wait(struct lagom_comment_job *job, unsigned timeout_ms,
		       double *busy_ms, struct lagom_error *err)
{
	int rc;

	/* Not done in time: the thread writes the whole comment when
	 * slurmctld answers, then frees job. */
	if (lagom_bounded_wait(job->thread, timeout_ms) < 0)
		return lagom_errprintf(
			err, ETIMEDOUT,
			"slurmctld did not answer within %u ms; not waiting",
			timeout_ms);
	rc = job->rc;
	if (busy_ms)
		*busy_ms = job->busy_ms;
	if (rc < 0 && err)
		*err = job->err;
	free(job);
	return rc;
}
