/*
 * spank/comment.c - lagom's line in the job comment (sacct -o Comment).
 *
 * Slurm replaces the whole field on update and limits it to 1024 bytes
 * (slurm.md section 3), so lagom reads the comment, drops its own earlier
 * segment "{lagom: ...}", keeps everything else byte for byte, appends the
 * new segment and writes it back.  The user's text is never cut: lagom's
 * segment is shortened instead, or left out when there is no room.
 */
#include <errno.h>
#include <string.h>
#include <unistd.h>

#include <slurm/slurm.h>
#include <slurm/slurm_errno.h>

#include "spank/lagom.h"

#define SEG_OPEN "{lagom: "
#define SEG_MIN 16 /* shortest useful segment: "{lagom: ...}" + a little */

/* Copy existing without its lagom segment(s), trimming the joint space. */
static size_t strip_segment(const char *existing, char *out, size_t len)
{
	size_t used = 0;
	const char *p = existing ? existing : "";

	while (*p && used + 1 < len) {
		const char *seg = strstr(p, SEG_OPEN);
		const char *end = seg ? strchr(seg, '}') : NULL;
		size_t keep = (seg && end) ? (size_t)(seg - p) : strlen(p);

		if (keep > len - 1 - used)
			keep = len - 1 - used;
		memcpy(out + used, p, keep);
		used += keep;
		if (!(seg && end))
			break;
		p = end + 1;
		if (*p == ' ' && (used == 0 || out[used - 1] == ' '))
			p++;
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
	return c;
}

int lagom_comment_merge(const char *existing, const char *text, char *out,
			size_t out_len, struct lagom_error *err)
{
	char user[LAGOM_COMMENT_MAX + 1];
	size_t used = strip_segment(existing, user, sizeof(user));
	size_t room, tlen = strlen(text);
	size_t sep = used ? 1 : 0;

	if (out_len < LAGOM_COMMENT_MAX + 1)
		return lagom_errprintf(err, EINVAL, "comment buffer too small");
	if (used + sep + SEG_MIN > LAGOM_COMMENT_MAX)
		return lagom_errprintf(
			err, ENOSPC,
			"job comment is full (%zu bytes of %d); lagom's line left out",
			used, LAGOM_COMMENT_MAX);
	/* room for TEXT: the limit minus user part, separator, "{lagom: " and "}" */
	room = LAGOM_COMMENT_MAX - used - sep - strlen(SEG_OPEN) - 1;
	memcpy(out, user, used);
	if (sep)
		out[used++] = ' ';
	memcpy(out + used, SEG_OPEN, strlen(SEG_OPEN));
	used += strlen(SEG_OPEN);
	if (tlen > room) {
		for (size_t i = 0; i < room - 3; i++)
			out[used++] = sanitize(text[i]);
		memcpy(out + used, "...", 3);
		used += 3;
	} else {
		for (size_t i = 0; i < tlen; i++)
			out[used++] = sanitize(text[i]);
	}
	out[used++] = '}';
	out[used] = '\0';
	return 0;
}

static int load_comment(uint32_t job_id, bool admin, char *out, size_t len,
			struct lagom_error *err)
{
	job_info_msg_t *msg = NULL;
	const char *cur;

	if (slurm_load_job(&msg, job_id, SHOW_DETAIL) != SLURM_SUCCESS || !msg)
		return lagom_errprintf(err, EIO, "cannot read job %u: %s",
				       job_id,
				       slurm_strerror(slurm_get_errno()));
	if (msg->record_count < 1) {
		slurm_free_job_info_msg(msg);
		return lagom_errprintf(err, ENOENT, "job %u not found", job_id);
	}
	cur = admin ? msg->job_array[0].admin_comment
		    : msg->job_array[0].comment;
	snprintf(out, len, "%s", cur ? cur : "");
	slurm_free_job_info_msg(msg);
	return 0;
}

static int update_comment(uint32_t job_id, const char *merged, bool admin)
{
	job_desc_msg_t desc;
	int rc = SLURM_ERROR;

	for (int attempt = 0; attempt < 2; attempt++) {
		slurm_init_job_desc_msg(&desc);
		desc.job_id = job_id;
		if (admin)
			desc.admin_comment = (char *)merged;
		else
			desc.comment = (char *)merged;
		rc = slurm_update_job(&desc);
		if (rc == SLURM_SUCCESS ||
		    slurm_get_errno() != ESLURM_JOB_SETTING_DB_INX)
			break;
		usleep(200 * 1000); /* slurmctld asks to retry */
	}
	return rc;
}

int lagom_comment_update(uint32_t job_id, const char *text, bool admin,
			 struct lagom_error *err)
{
	char cur[LAGOM_COMMENT_MAX + 1], merged[LAGOM_COMMENT_MAX + 1];
	int rc = load_comment(job_id, admin, cur, sizeof(cur), err);

	if (rc < 0)
		return rc;
	rc = lagom_comment_merge(cur, text, merged, sizeof(merged), err);
	if (rc < 0)
		return rc;
	if (strcmp(cur, merged) == 0)
		return 0;
	if (update_comment(job_id, merged, admin) != SLURM_SUCCESS)
		return lagom_errprintf(err, EIO, "cannot update job %u %s: %s",
				       job_id,
				       admin ? "AdminComment" : "Comment",
				       slurm_strerror(slurm_get_errno()));
	return 0;
}
