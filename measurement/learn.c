/*
 * measurement/learn.c - the step key and a record's meaning to the cost
 * model (learn.h).  Pure: no I/O, no environment.
 */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "measurement/learn.h"

static void token_into(char *out, size_t len, const char *s)
{
	size_t i;

	for (i = 0; s[i] && i + 1 < len; i++)
		out[i] = lagom_rec_token_char((unsigned char)s[i]) ? s[i] : '_';
	out[i] = '\0';
}

void lagom_learn_key(char *key, size_t len, const char *user_key,
		     const char *job_name, size_t nodes,
		     unsigned ranks_per_node, unsigned gpus_per_node,
		     const char *workload)
{
	char name[128] = "-", wl[128] = "-";

	if (user_key && user_key[0]) {
		token_into(name, sizeof(name), user_key);
		snprintf(key, len, "lagom-key 1\nuser:%s\n", name);
		return;
	}
	if (job_name && job_name[0])
		token_into(name, sizeof(name), job_name);
	if (workload)
		token_into(wl, sizeof(wl), workload);
	snprintf(key, len, "lagom-key 1\njob:%s shape:%zux%ux%u workload:%s\n",
		 name, nodes, ranks_per_node, gpus_per_node, wl);
}

bool lagom_learn_key_ok(const char *key)
{
	size_t i, n = strlen(key);

	if (n < 13 || strncmp(key, "lagom-key 1\n", 12) != 0 ||
	    key[n - 1] != '\n')
		return false;
	for (i = 12; i < n; i++)
		if (key[i] != '\n' && key[i] != ' ' && key[i] != ':' &&
		    !lagom_rec_token_char((unsigned char)key[i]))
			return false;
	return true;
}

int lagom_learn_coll(unsigned op, enum lagom_coll *out)
{
	if (op == LAGOM_NCCL_FUNC_SEND || op == LAGOM_NCCL_FUNC_RECV)
		op = LAGOM_NCCL_FUNC_SENDRECV;
	return lagom_coll_from_nccl_func((int)op, out) == 0 ? 0 : -1;
}

int lagom_learn_config(const struct lagom_rec_class *k,
		       struct lagom_coll_config *cfg)
{
	memset(cfg, 0, sizeof(*cfg));
	if (k->algo == LAGOM_REC_ALGO_P2P && k->proto == LAGOM_REC_PROTO_NONE) {
		cfg->algo = LAGOM_ALGO_RING; /* the model's send/recv */
		cfg->proto = LAGOM_PROTO_SIMPLE;
	} else if (k->algo < LAGOM_ALGO_COUNT && k->proto < LAGOM_PROTO_COUNT) {
		/* the record's first names are NCCL's indices, as the model's */
		cfg->algo = (enum lagom_algo)k->algo;
		cfg->proto = (enum lagom_proto)k->proto;
	} else {
		return -1;
	}
	if (k->channels == 0 || k->channels > LAGOM_NCHANNELS_MAX)
		return -1; /* no configuration the model prices */
	cfg->nchannels = k->channels;
	return 0;
}

int lagom_learn_class(const struct lagom_rec_comm *m,
		      const struct lagom_rec_class *k,
		      struct lagom_learn_class *out)
{
	struct lagom_learn_class c;

	if (k->bytes == 0 || lagom_learn_coll(k->op, &c.coll) != 0 ||
	    lagom_learn_config(k, &c.config) != 0)
		return -1;
	c.bytes = lagom_rec_plan_bytes(k->op, k->bytes, m->ranks);
	*out = c;
	return 0;
}

struct lagom_workload *lagom_learn_workload(const struct lagom_rec_comm *m,
					    const char *name)
{
	struct lagom_workload *w;
	size_t i, n = 0;

	if (m->period_len == 0 || m->nodes == 0 || m->ranks % m->nodes)
		return NULL;
	w = lagom_workload_create(name, m->period_len);
	if (!w)
		return NULL;
	for (i = 0; i < m->period_len; i++) {
		const struct lagom_rec_class *k = &m->cls[m->seq[i]];
		struct lagom_region *r = &w->regions[n];
		struct lagom_region_coll *c = &r->colls[0];

		if (lagom_learn_coll(k->op, &c->coll) != 0 || k->bytes == 0)
			continue;
		snprintf(r->name, sizeof(r->name), "measured-%zu", i);
		c->bytes = lagom_rec_plan_bytes(k->op, k->bytes, m->ranks);
		c->comm.ranks = m->ranks;
		c->comm.nodes = m->nodes;
		c->comm.ranks_per_node = m->ranks / m->nodes;
		c->comm.hops = m->nodes > 1 ? LAGOM_HOPS_SAME_LEAF
					    : LAGOM_HOPS_SAME_NODE;
		r->ncolls = 1;
		if (k->gap_n && k->gap_ns / k->gap_n > 0) {
			r->kernels[0].time_s = (double)(k->gap_ns / k->gap_n) *
					       1e-9;
			r->nkernels = 1;
		}
		r->repeat = 1;
		n++;
	}
	w->nregions = n;
	if (n == 0) {
		lagom_workload_destroy(w);
		return NULL;
	}
	return w;
}
