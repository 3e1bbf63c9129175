/*
 * measurement/record.c - names and the writer of the measurement record
 * (record.h, doc/profiler.md).  Pure: no I/O, no allocation; linked into
 * libnccl-profiler-lagom.so, which needs nothing but libc.
 */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "common/nccl_names.h"
#include "measurement/record.h"

/* The record's own values beyond NCCL's (record.h). */
static const char *const algo_extra[] = { "p2p", "ce", "other" };
static const char *const proto_extra[] = { "none", "other" };

_Static_assert(LAGOM_REC_ALGO_COUNT ==
		       LAGOM_NCCL_NUM_ALGOS +
			       sizeof(algo_extra) / sizeof(algo_extra[0]),
	       "record algorithms");
_Static_assert(LAGOM_REC_PROTO_COUNT ==
		       LAGOM_NCCL_NUM_PROTOS +
			       sizeof(proto_extra) / sizeof(proto_extra[0]),
	       "record protocols");

/* NCCL's name (n of them), else the record's own (below count). */
static const char *name_of(unsigned v, const char *const *nccl, unsigned n,
			   const char *const *own, unsigned count)
{
	if (v < n)
		return nccl[v];
	return v < count ? own[v - n] : NULL;
}

const char *lagom_rec_op_name(unsigned op)
{
	static const char *const other[] = { "other" };

	return name_of(op, lagom_nccl_func_names, LAGOM_NCCL_NUM_FUNCS, other,
		       LAGOM_REC_OP_COUNT);
}

const char *lagom_rec_algo_name(unsigned algo)
{
	return name_of(algo, lagom_nccl_algo_record_names, LAGOM_NCCL_NUM_ALGOS,
		       algo_extra, LAGOM_REC_ALGO_COUNT);
}

const char *lagom_rec_proto_name(unsigned proto)
{
	return name_of(proto, lagom_nccl_proto_names, LAGOM_NCCL_NUM_PROTOS,
		       proto_extra, LAGOM_REC_PROTO_COUNT);
}

int lagom_rec_token_char(int c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       (c >= '0' && c <= '9') || c == '.' || c == '_' || c == ':' ||
	       c == '-';
}

static int token_ok(const char *s, size_t max, int allow_empty)
{
	size_t n = strnlen(s, max + 1);
	size_t i;

	if (n > max || (n == 0 && !allow_empty))
		return 0;
	if (n == 1 && s[0] == '-' && allow_empty)
		return 0; /* "-" stands for empty: never a value */
	for (i = 0; i < n; i++)
		if (!lagom_rec_token_char((unsigned char)s[i]))
			return 0;
	return 1;
}

struct out {
	char *buf;
	size_t len, at;
	int full;
};

static void put(struct out *o, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void put(struct out *o, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (o->full)
		return;
	va_start(ap, fmt);
	n = vsnprintf(o->buf + o->at, o->len - o->at, fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= o->len - o->at) {
		o->full = 1;
		return;
	}
	o->at += (size_t)n;
}

static const char *or_dash(const char *s)
{
	return s[0] ? s : "-";
}

/* The rules lagom_rec_parse checks on one class. */
static int class_ok(const struct lagom_rec_class *c)
{
	if (c->op >= LAGOM_REC_OP_COUNT || c->algo >= LAGOM_REC_ALGO_COUNT ||
	    c->proto >= LAGOM_REC_PROTO_COUNT ||
	    c->channels > LAGOM_REC_MAX_CHANNELS || c->gpu_n > c->count ||
	    c->gap_n > c->count)
		return 0;
	if (c->gpu_n == 0)
		return c->gpu_ns == 0 && c->gpu_min_ns == 0 &&
		       c->gpu_max_ns == 0;
	return c->gpu_min_ns <= c->gpu_max_ns;
}

static int comm_ok(const struct lagom_rec_comm *c)
{
	uint32_t i;

	if (c->n_classes > LAGOM_REC_MAX_CLASSES ||
	    c->period_len > LAGOM_REC_MAX_PERIOD ||
	    (c->period_len == 0 && (c->period_n || c->period_ns)) ||
	    !token_ok(c->name, LAGOM_REC_NAME_MAX, 1))
		return 0;
	for (i = 0; i < c->n_classes; i++)
		if (!class_ok(&c->cls[i]))
			return 0;
	for (i = 0; i < c->period_len; i++)
		if (c->seq[i] >= c->n_classes)
			return 0;
	return 1;
}

static void format_class(struct out *o, const struct lagom_rec_class *c)
{
	put(o,
	    "class %s %" PRIu64 " %s %s %u count %" PRIu64 " gpu %" PRIu64
	    " %" PRIu64 " %" PRIu64 " %" PRIu64 " gap %" PRIu64 " %" PRIu64
	    "\n",
	    lagom_rec_op_name(c->op), c->bytes, lagom_rec_algo_name(c->algo),
	    lagom_rec_proto_name(c->proto), (unsigned)c->channels, c->count,
	    c->gpu_n, c->gpu_ns, c->gpu_min_ns, c->gpu_max_ns, c->gap_n,
	    c->gap_ns);
}

static void format_comm(struct out *o, const struct lagom_rec_comm *c)
{
	uint32_t i;

	put(o,
	    "comm %016" PRIx64 " ranks %u nodes %u rank %u name %s overflow "
	    "%" PRIu64 " incomplete %" PRIu64 " classes %u\n",
	    c->id, c->ranks, c->nodes, c->rank, or_dash(c->name), c->overflow,
	    c->incomplete, c->n_classes);
	for (i = 0; i < c->n_classes; i++)
		format_class(o, &c->cls[i]);
	put(o, "period %u n %u ns %" PRIu64 "\nseq", c->period_len, c->period_n,
	    c->period_ns);
	for (i = 0; i < c->period_len; i++)
		put(o, " %u", (unsigned)c->seq[i]);
	put(o, "\n");
}

int lagom_rec_format(const struct lagom_rec *r, char *buf, size_t len)
{
	struct out o = { .buf = buf, .len = len };
	uint32_t i;

	if (r->n_comms > LAGOM_REC_MAX_COMMS || r->task < -1 ||
	    !token_ok(r->job, LAGOM_REC_TOKEN_MAX, 1) ||
	    !token_ok(r->step, LAGOM_REC_TOKEN_MAX, 1) ||
	    !token_ok(r->plan, LAGOM_REC_TOKEN_MAX, 1) ||
	    r->written_unix < r->start_unix || r->abi < 4 || r->abi > 6)
		return -EINVAL;
	for (i = 0; i < r->n_comms; i++)
		if (!comm_ok(&r->comm[i]))
			return -EINVAL;
	if (len == 0)
		return -ENOSPC;
	put(&o, "%s %d\nabi %u\njob %s step %s ", LAGOM_REC_MAGIC,
	    LAGOM_REC_VERSION, r->abi, or_dash(r->job), or_dash(r->step));
	if (r->task < 0)
		put(&o, "task -");
	else
		put(&o, "task %" PRId64, r->task);
	put(&o,
	    " pid %" PRIu64 "\nplan %s\ntime %" PRIu64 " %" PRIu64
	    "\ncomms %u dropped %" PRIu64 "\n",
	    r->pid, or_dash(r->plan), r->start_unix, r->written_unix,
	    r->n_comms, r->dropped_comms);
	for (i = 0; i < r->n_comms; i++)
		format_comm(&o, &r->comm[i]);
	put(&o, "end\n");
	return o.full ? -ENOSPC : (int)o.at;
}

uint64_t lagom_rec_plan_bytes(unsigned op, uint64_t bytes, uint32_t ranks)
{
	if (op == LAGOM_NCCL_FUNC_ALLGATHER ||
	    op == LAGOM_NCCL_FUNC_REDUCESCATTER)
		return bytes * ranks;
	return bytes;
}

const char *lagom_rec_plan_op(unsigned op)
{
	switch (op) {
	case LAGOM_NCCL_FUNC_SEND:
	case LAGOM_NCCL_FUNC_RECV:
	case LAGOM_NCCL_FUNC_SENDRECV:
		return "sendrecv";
	case LAGOM_NCCL_FUNC_GATHER:
	case LAGOM_NCCL_FUNC_SCATTER:
	case LAGOM_REC_OP_OTHER:
		return NULL;
	default:
		return lagom_rec_op_name(op);
	}
}

const struct lagom_rec_comm *lagom_rec_main_comm(const struct lagom_rec *r)
{
	const struct lagom_rec_comm *best = NULL;

	for (uint32_t i = 0; i < r->n_comms && i < LAGOM_REC_MAX_COMMS; i++)
		if (r->comm[i].period_len &&
		    (!best || r->comm[i].period_len > best->period_len ||
		     (r->comm[i].period_len == best->period_len &&
		      r->comm[i].period_ns > best->period_ns)))
			best = &r->comm[i];
	return best;
}
