/*
 * profiler/prof_event.c - the hot path of libnccl-profiler-lagom.so: one
 * collective's class, its GPU time from the kernel-channel timestamps and
 * the gap before it (prof_int.h has the memory and thread rules).
 *
 * Method, part "measure": a collective's GPU time is the span from the
 * earliest kernel-channel start to the latest kernel-channel stop of its
 * channels (NCCL's globaltimer, ns); the gap before it is the time the
 * communicator's stream had no collective of its own (the computation it
 * may overlap).  Both are summed per class: no per-collective storage
 * outlives the PF_SLOTS ring.
 */
#include "config.h"

#include <string.h>
#include <time.h>

#include "profiler/prof_int.h"

#define LOAD(p) __atomic_load_n((p), __ATOMIC_ACQUIRE)
#define STORE(p, v) __atomic_store_n((p), (v), __ATOMIC_RELEASE)
#define ADD(p, v) __atomic_fetch_add((p), (v), __ATOMIC_RELAXED)

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void atomic_min64(uint64_t *p, uint64_t v)
{
	uint64_t cur = __atomic_load_n(p, __ATOMIC_RELAXED);

	while (v < cur &&
	       !__atomic_compare_exchange_n(p, &cur, v, 1, __ATOMIC_RELAXED,
					    __ATOMIC_RELAXED))
		;
}

static void atomic_max64(uint64_t *p, uint64_t v)
{
	uint64_t cur = __atomic_load_n(p, __ATOMIC_RELAXED);

	while (v > cur &&
	       !__atomic_compare_exchange_n(p, &cur, v, 1, __ATOMIC_RELAXED,
					    __ATOMIC_RELAXED))
		;
}

/* Length-bounded equality with a NUL-terminated literal. */
static int is(const char *s, size_t n, const char *lit)
{
	return n == strlen(lit) && memcmp(s, lit, n) == 0;
}

#define NAME_MAX_SCAN 24

unsigned pf_op_of(const char *f)
{
	size_t n;

	if (!f)
		return LAGOM_REC_OP_OTHER;
	n = strnlen(f, NAME_MAX_SCAN);
	if (is(f, n, "AllReduce"))
		return LAGOM_NCCL_FUNC_ALLREDUCE;
	if (is(f, n, "AllGather"))
		return LAGOM_NCCL_FUNC_ALLGATHER;
	if (is(f, n, "ReduceScatter"))
		return LAGOM_NCCL_FUNC_REDUCESCATTER;
	if (is(f, n, "Broadcast"))
		return LAGOM_NCCL_FUNC_BROADCAST;
	if (is(f, n, "Reduce"))
		return LAGOM_NCCL_FUNC_REDUCE;
	if (is(f, n, "Send"))
		return LAGOM_NCCL_FUNC_SEND;
	if (is(f, n, "Recv"))
		return LAGOM_NCCL_FUNC_RECV;
	if (is(f, n, "SendRecv"))
		return LAGOM_NCCL_FUNC_SENDRECV;
	if (is(f, n, "AlltoAll"))
		return LAGOM_NCCL_FUNC_ALLTOALL;
	if (is(f, n, "Gather"))
		return LAGOM_NCCL_FUNC_GATHER;
	if (is(f, n, "Scatter"))
		return LAGOM_NCCL_FUNC_SCATTER;
	return LAGOM_REC_OP_OTHER;
}

unsigned pf_algo_of(const char *a)
{
	size_t n;

	if (!a)
		return LAGOM_REC_ALGO_OTHER;
	n = strnlen(a, NAME_MAX_SCAN);
	if (is(a, n, "RING"))
		return LAGOM_REC_ALGO_RING;
	if (is(a, n, "TREE"))
		return LAGOM_REC_ALGO_TREE;
	if (is(a, n, "NVLS"))
		return LAGOM_REC_ALGO_NVLS;
	if (is(a, n, "NVLS_TREE"))
		return LAGOM_REC_ALGO_NVLS_TREE;
	if (is(a, n, "PAT"))
		return LAGOM_REC_ALGO_PAT;
	if (is(a, n, "COLLNET_DIRECT"))
		return LAGOM_REC_ALGO_COLLNET_DIRECT;
	if (is(a, n, "COLLNET_CHAIN"))
		return LAGOM_REC_ALGO_COLLNET_CHAIN;
	return LAGOM_REC_ALGO_OTHER;
}

unsigned pf_proto_of(const char *p)
{
	size_t n;

	if (!p)
		return LAGOM_REC_PROTO_OTHER;
	n = strnlen(p, NAME_MAX_SCAN);
	if (is(p, n, "SIMPLE"))
		return LAGOM_REC_PROTO_SIMPLE;
	if (is(p, n, "LL128"))
		return LAGOM_REC_PROTO_LL128;
	if (is(p, n, "LL"))
		return LAGOM_REC_PROTO_LL;
	return LAGOM_REC_PROTO_OTHER;
}

/*
 * NCCL's names ("ncclFloat32"...).  NCCL 2.27-2.29 name every type but
 * ncclUint8, which comes as "Unknown": one byte.
 */
unsigned pf_type_size(const char *t)
{
	size_t n;

	if (!t)
		return 0;
	n = strnlen(t, NAME_MAX_SCAN);
	if (is(t, n, "Unknown"))
		return 1;
	if (n < 5 || memcmp(t, "nccl", 4) != 0)
		return 0;
	if (is(t + 4, n - 4, "Float8e4m3") || is(t + 4, n - 4, "Float8e5m2"))
		return 1;
	if (is(t + 4, n - 4, "Int8") || is(t + 4, n - 4, "Uint8"))
		return 1;
	if (is(t + 4, n - 4, "Float16") || is(t + 4, n - 4, "Bfloat16"))
		return 2;
	if (is(t + 4, n - 4, "Int32") || is(t + 4, n - 4, "Uint32") ||
	    is(t + 4, n - 4, "Float32"))
		return 4;
	if (is(t + 4, n - 4, "Int64") || is(t + 4, n - 4, "Uint64") ||
	    is(t + 4, n - 4, "Float64"))
		return 8;
	return 0;
}

static struct pf_ctx *ctx_of(void *context)
{
	uintptr_t p = (uintptr_t)context, base = (uintptr_t)&pf.ctx[0];

	if (p < base || p >= base + sizeof(pf.ctx) ||
	    (p - base) % sizeof(struct pf_ctx) != 0)
		return NULL;
	return (struct pf_ctx *)context;
}

static void *handle_make(unsigned ctx, unsigned slot, uint32_t gen,
			 unsigned kind)
{
	return (void *)(((uintptr_t)gen << 32) | ((uintptr_t)ctx << 20) |
			((uintptr_t)slot << 4) | kind);
}

/* The slot a handle names, if it is still that handle's collective. */
static struct pf_slot *handle_slot(void *h, unsigned kind,
				   struct pf_ctx **ctx_out)
{
	uintptr_t v = (uintptr_t)h;
	unsigned c = (unsigned)(v >> 20) & 0xfffu;
	unsigned s = (unsigned)(v >> 4) & 0xffffu;
	struct pf_slot *slot;

	if ((v & 0xfu) != kind || c >= PF_MAX_CTX || s >= PF_SLOTS)
		return NULL;
	slot = &pf.ctx[c].slot[s];
	if (LOAD(&slot->gen) != (uint32_t)(v >> 32))
		return NULL;
	*ctx_out = &pf.ctx[c];
	return slot;
}

static uint32_t hash_key(uint64_t bytes, uint32_t k)
{
	uint64_t h = (bytes ^ ((uint64_t)k << 40)) * 0x9e3779b97f4a7c15ull;

	return (uint32_t)(h >> 56);
}

static int same(const struct pf_class *c, uint64_t bytes, uint32_t k)
{
	return c->bytes == bytes &&
	       (uint32_t)(c->op | c->algo << 8 | c->proto << 16 |
			  (uint32_t)c->channels << 24) == k;
}

static uint16_t class_add(struct pf_ctx *x, uint64_t bytes, uint32_t k,
			  uint32_t h)
{
	uint16_t found = PF_NO_CLASS, e;
	uint32_t n, i;

	while (__atomic_exchange_n(&x->cls_lock, 1, __ATOMIC_ACQUIRE))
		;
	for (i = 0; i < PF_HASH; i++) {
		uint32_t at = (h + i) & (PF_HASH - 1);

		e = LOAD(&x->hash[at]);
		if (e && same(&x->cls[e - 1], bytes, k)) {
			found = (uint16_t)(e - 1);
			break;
		}
		if (e)
			continue;
		n = LOAD(&x->n_cls);
		if (n < LAGOM_REC_MAX_CLASSES) {
			struct pf_class *c = &x->cls[n];

			memset(c, 0, sizeof(*c));
			c->bytes = bytes;
			c->gpu_min = UINT64_MAX;
			c->op = (uint8_t)(k & 0xff);
			c->algo = (uint8_t)(k >> 8 & 0xff);
			c->proto = (uint8_t)(k >> 16 & 0xff);
			c->channels = (uint8_t)(k >> 24);
			STORE(&x->n_cls, n + 1);
			STORE(&x->hash[at], (uint16_t)(n + 1));
			found = (uint16_t)n;
		}
		break;
	}
	__atomic_store_n(&x->cls_lock, 0, __ATOMIC_RELEASE);
	return found;
}

/* The class index of a key, added when new; PF_NO_CLASS when full. */
static uint16_t class_of(struct pf_ctx *x, uint64_t bytes, uint32_t k)
{
	uint32_t h = hash_key(bytes, k), i;

	for (i = 0; i < PF_HASH; i++) {
		uint16_t e = LOAD(&x->hash[(h + i) & (PF_HASH - 1)]);

		if (!e)
			break;
		if (same(&x->cls[e - 1], bytes, k))
			return (uint16_t)(e - 1);
	}
	return class_add(x, bytes, k, h);
}

static void account_gpu(struct pf_ctx *x, struct pf_slot *s)
{
	uint64_t start = LOAD(&s->start_min), stop = LOAD(&s->stop_max);
	uint64_t prev, gpu;
	struct pf_class *c;

	if (start == 0 || start == UINT64_MAX || stop < start ||
	    s->cls == PF_NO_CLASS) {
		ADD(&x->incomplete, 1);
		return;
	}
	c = &x->cls[s->cls];
	gpu = stop - start;
	ADD(&c->gpu_ns, gpu);
	atomic_min64(&c->gpu_min, gpu);
	atomic_max64(&c->gpu_max, gpu);
	prev = __atomic_load_n(&x->last_stop, __ATOMIC_RELAXED);
	if (prev && start > prev) {
		ADD(&c->gap_ns, start - prev);
		ADD(&c->gap_n, 1);
	}
	atomic_max64(&x->last_stop, stop);
	ADD(&c->gpu_n, 1); /* last: the flush reads gpu_n before the sums */
}

static void finish(struct pf_ctx *x, struct pf_slot *s)
{
	uint8_t zero = 0;

	if (__atomic_compare_exchange_n(&s->done, &zero, 1, 0, __ATOMIC_ACQ_REL,
					__ATOMIC_RELAXED))
		account_gpu(x, s);
}

/* A slot's previous collective, when the ring comes back to it. */
static void retire(struct pf_ctx *x, struct pf_slot *s)
{
	uint32_t started = LOAD(&s->started), stopped = LOAD(&s->stopped);

	if (LOAD(&s->gen) == 0 || LOAD(&s->done))
		return;
	if (started && started == stopped)
		finish(x, s);
	else if (__atomic_exchange_n(&s->done, 1, __ATOMIC_ACQ_REL) == 0)
		ADD(&x->incomplete, 1);
}

static void push_seq(struct pf_ctx *x, uint16_t cls)
{
	uint64_t n = ADD(&x->seq_n, 1);
	struct pf_seq *e = &x->ring[n & (PF_RING - 1)];

	STORE(&e->pos, 0);
	e->cls = cls;
	e->t_ns = now_ns();
	STORE(&e->pos, n + 1);
}

void *pf_start_coll(void *context, const struct pf_coll *d)
{
	struct pf_ctx *x = ctx_of(context);
	unsigned op, algo, proto, ch, si;
	uint16_t cls;
	struct pf_slot *s;
	uint32_t gen;

	if (!x || LOAD(&x->state) != PF_LIVE)
		return NULL;
	op = pf_op_of(d->func);
	algo = d->p2p ? LAGOM_REC_ALGO_P2P : pf_algo_of(d->algo);
	proto = d->p2p ? LAGOM_REC_PROTO_NONE : pf_proto_of(d->proto);
	ch = d->channels > LAGOM_REC_MAX_CHANNELS ? LAGOM_REC_MAX_CHANNELS
						  : d->channels;
	cls = class_of(x, d->count * pf_type_size(d->datatype),
		       op | algo << 8 | proto << 16 | ch << 24);
	if (cls == PF_NO_CLASS)
		ADD(&x->overflow, 1);
	else
		ADD(&x->cls[cls].count, 1);
	push_seq(x, cls);
	si = ADD(&x->next_slot, 1) & (PF_SLOTS - 1);
	s = &x->slot[si];
	retire(x, s);
	gen = LOAD(&s->gen) + 1;
	if (gen == 0)
		gen = 1;
	STORE(&s->gen, 0); /* late events of the old one miss from here */
	s->cls = cls;
	s->expect = (uint8_t)ch;
	STORE(&s->started, 0);
	STORE(&s->stopped, 0);
	STORE(&s->start_min, UINT64_MAX);
	STORE(&s->stop_max, 0);
	STORE(&s->done, 0);
	STORE(&s->gen, gen);
	return handle_make((unsigned)(x - pf.ctx), si, gen, PF_KIND_COLL);
}

void *pf_start_kernel_ch(void *parent, uint64_t start_ns)
{
	struct pf_ctx *x;
	struct pf_slot *s = handle_slot(parent, PF_KIND_COLL, &x);
	uintptr_t v = (uintptr_t)parent;

	if (!s || start_ns == 0)
		return NULL;
	atomic_min64(&s->start_min, start_ns);
	ADD(&s->started, 1);
	return (void *)((v & ~(uintptr_t)0xf) | PF_KIND_KCH);
}

void pf_record(void *handle, int state, const union lagom_prof_state_args *args)
{
	struct pf_ctx *x;
	struct pf_slot *s;

	if (state != LAGOM_PROF_STATE_KERNEL_CH_STOP || !args)
		return;
	s = handle_slot(handle, PF_KIND_KCH, &x);
	if (!s)
		return;
	atomic_max64(&s->stop_max, args->kernelCh.pTimer);
	if (ADD(&s->stopped, 1) + 1 >= s->expect && s->expect)
		finish(x, s);
}
