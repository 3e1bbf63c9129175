/*
 * tests/profiler/test_record.c - the measurement record: what the writer
 * produces the reader gives back unchanged; the reader refuses every
 * spelling but the writer's, every count beyond its bound, every index
 * outside its table; and files that are links, FIFOs, too large or someone
 * else's are refused before a byte is parsed.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/nccl_names.h"
#include "measurement/record.h"
#include "tests/lib/lagom_test.h"

static struct lagom_rec rec, back, scratch;
static char text[LAGOM_REC_MAX_BYTES + 1];

static void sample(struct lagom_rec *r)
{
	struct lagom_rec_comm *m;

	memset(r, 0, sizeof(*r));
	r->abi = 5;
	strcpy(r->job, "4242");
	strcpy(r->step, "0");
	strcpy(r->plan, "3f2a9c0d11e4b7a5");
	r->task = 3;
	r->pid = 777;
	r->start_unix = 1700000000;
	r->written_unix = 1700000100;
	r->n_comms = 1;
	m = &r->comm[0];
	m->id = 0x00ab00cd00ef0012ull;
	strcpy(m->name, "pg:tp");
	m->ranks = 16;
	m->nodes = 2;
	m->rank = 15;
	m->n_classes = 2;
	m->cls[0] = (struct lagom_rec_class){ .op = LAGOM_NCCL_FUNC_ALLREDUCE,
					      .algo = LAGOM_REC_ALGO_RING,
					      .proto = LAGOM_REC_PROTO_LL128,
					      .channels = 8,
					      .bytes = 1048576,
					      .count = 40,
					      .gpu_n = 39,
					      .gpu_ns = 3900000,
					      .gpu_min_ns = 90000,
					      .gpu_max_ns = 110000,
					      .gap_n = 38,
					      .gap_ns = 38000000 };
	m->cls[1] = (struct lagom_rec_class){ .op = LAGOM_NCCL_FUNC_SEND,
					      .algo = LAGOM_REC_ALGO_P2P,
					      .proto = LAGOM_REC_PROTO_NONE,
					      .channels = 1,
					      .bytes = UINT64_MAX,
					      .count = 40 };
	m->period_len = 2;
	m->period_n = 20;
	m->period_ns = 1000000;
	m->seq[0] = 1;
	m->seq[1] = 0;
}

static int format(const struct lagom_rec *r)
{
	int n = lagom_rec_format(r, text, sizeof(text));

	assert_true(n > 0);
	return n;
}

static void test_round_trip(void **state)
{
	struct lagom_error err = { 0 };
	int n;

	sample(&rec);
	n = format(&rec);
	assert_int_equal(
		lagom_rec_parse(text, (size_t)n, &back, &scratch, &err), 0);
	assert_memory_equal(&rec, &back, sizeof(rec));
	/* empty tokens and no communicator */
	memset(rec.job, 0, sizeof(rec.job));
	memset(rec.step, 0, sizeof(rec.step));
	memset(rec.plan, 0, sizeof(rec.plan));
	rec.task = -1;
	rec.n_comms = 0;
	memset(&rec.comm[0], 0, sizeof(rec.comm[0]));
	n = format(&rec);
	assert_non_null(strstr(text, "job - step - task -"));
	assert_int_equal(
		lagom_rec_parse(text, (size_t)n, &back, &scratch, &err), 0);
	assert_memory_equal(&rec, &back, sizeof(rec));
}

/* The biggest record the plugin can write fits the reader's bound. */
static void test_largest(void **state)
{
	struct lagom_error err = { 0 };
	unsigned i, j;
	int n;

	sample(&rec);
	rec.n_comms = LAGOM_REC_MAX_COMMS;
	rec.dropped_comms = UINT64_MAX;
	for (i = 0; i < LAGOM_REC_MAX_COMMS; i++) {
		struct lagom_rec_comm *m = &rec.comm[i];

		*m = rec.comm[0];
		memset(m->name, 'n', LAGOM_REC_NAME_MAX);
		m->name[LAGOM_REC_NAME_MAX] = '\0';
		m->id = UINT64_MAX;
		m->overflow = m->incomplete = UINT64_MAX;
		m->ranks = 1u << 24;
		m->n_classes = LAGOM_REC_MAX_CLASSES;
		for (j = 0; j < LAGOM_REC_MAX_CLASSES; j++)
			m->cls[j] = (struct lagom_rec_class){
				.op = LAGOM_NCCL_FUNC_REDUCESCATTER,
				.algo = LAGOM_REC_ALGO_COLLNET_DIRECT,
				.channels = 64,
				.bytes = UINT64_MAX,
				.count = UINT64_MAX,
				.gpu_n = UINT64_MAX,
				.gpu_ns = UINT64_MAX,
				.gpu_min_ns = UINT64_MAX,
				.gpu_max_ns = UINT64_MAX,
				.gap_n = UINT64_MAX,
				.gap_ns = UINT64_MAX
			};
		m->period_len = LAGOM_REC_MAX_PERIOD;
		m->period_n = UINT32_MAX;
		m->period_ns = UINT64_MAX;
		for (j = 0; j < LAGOM_REC_MAX_PERIOD; j++)
			m->seq[j] = (uint16_t)(LAGOM_REC_MAX_CLASSES - 1);
	}
	n = format(&rec);
	print_message("# largest record: %d bytes (bound %d)\n", n,
		      LAGOM_REC_MAX_BYTES);
	assert_true(n <= LAGOM_REC_MAX_BYTES);
	assert_int_equal(
		lagom_rec_parse(text, (size_t)n, &back, &scratch, &err), 0);
	assert_memory_equal(&rec, &back, sizeof(rec));
}

/* The writer refuses what the reader would refuse. */
static void test_writer_rules(void **state)
{
	sample(&rec);
	rec.comm[0].seq[1] = 2; /* no class 2 */
	assert_int_equal(lagom_rec_format(&rec, text, sizeof(text)), -EINVAL);
	sample(&rec);
	strcpy(rec.comm[0].name, "a b");
	assert_int_equal(lagom_rec_format(&rec, text, sizeof(text)), -EINVAL);
	sample(&rec);
	rec.comm[0].cls[0].gpu_n = 41;
	assert_int_equal(lagom_rec_format(&rec, text, sizeof(text)), -EINVAL);
	sample(&rec);
	assert_int_equal(lagom_rec_format(&rec, text, 100), -ENOSPC);
}

/* Each mutation of a valid record must be refused. */
static const char *const hostile[][2] = {
	{ "lagom-measure 1\n", "lagom-measure 2\n" },
	{ "lagom-measure 1\n", "lagom-measure 01\n" },
	{ "abi 5\n", "abi 3\n" },
	{ "abi 5\n", "abi 7\n" },
	{ "abi 5\n", "abi  5\n" },
	{ "abi 5\n", "abi 5 \n" },
	{ "abi 5\n", "abi 5\r\n" },
	{ "abi 5\n", "abi +5\n" },
	{ "abi 5\n", "abi 05\n" },
	{ "job 4242", "job 42/42" },
	{ "job 4242", "job 424242424242424242424242" },
	{ "task 3", "task -3" },
	{ "time 1700000000 1700000100", "time 1700000100 1700000000" },
	{ "comms 1", "comms 2" },
	{ "comms 1", "comms 17" },
	{ "comms 1 dropped 0", "comms 1 dropped 18446744073709551616" },
	{ "comm 00ab00cd00ef0012", "comm 00AB00CD00EF0012" },
	{ "comm 00ab00cd00ef0012", "comm ab00cd00ef0012" },
	{ "ranks 16 nodes 2", "ranks 16 nodes 17" },
	{ "rank 15", "rank 16" },
	{ "ranks 16", "ranks 0" },
	{ "name pg:tp", "name pg;tp" },
	{ "classes 2", "classes 3" },
	{ "classes 2", "classes 129" },
	{ "class allreduce", "class allreduces" },
	{ " ring ll128 8 ", " ring ll128 65 " },
	{ " ring ll128 8 ", " ring LL128 8 " },
	{ "count 40 gpu 39", "count 40 gpu 41" },
	{ "90000 110000", "110001 110000" },
	{ "gap 38", "gap 41" },
	{ "gpu 0 0 0 0", "gpu 0 1 0 0" },
	{ "period 2", "period 3" },
	{ "period 2", "period 257" },
	{ "seq 1 0\n", "seq 2 0\n" },
	{ "seq 1 0\n", "seq 1 0 1\n" },
	{ "end\n", "end" },
	{ "end\n", "end\nend\n" },
	{ "end\n", "end\n\n" },
	{ "end\n", "" },
	{ "plan 3f2a9c0d11e4b7a5\n", "plan 3f2a\0d11e4b7a5\n" },
};

static void test_hostile(void **state)
{
	struct lagom_error err;
	char mutated[8192];
	size_t i;
	int n;

	sample(&rec);
	n = format(&rec);
	assert_true((size_t)n < sizeof(mutated) - 64);
	for (i = 0; i < sizeof(hostile) / sizeof(hostile[0]); i++) {
		const char *at = strstr(text, hostile[i][0]);
		size_t before, from_len = strlen(hostile[i][0]), len;
		const char *to = hostile[i][1];
		size_t to_len = strlen(to);

		char nul_to[64] = { 0 };

		if (strcmp(hostile[i][0], "plan 3f2a9c0d11e4b7a5\n") == 0) {
			/* carries a NUL byte: copy from a buffer that long */
			memcpy(nul_to, to,
			       to_len < sizeof(nul_to) ? to_len : 0);
			to = nul_to;
			to_len = from_len;
		}
		assert_non_null(at);
		before = (size_t)(at - text);
		memcpy(mutated, text, before);
		memcpy(mutated + before, to, to_len);
		len = before + to_len;
		memcpy(mutated + len, at + from_len,
		       (size_t)n - before - from_len);
		len += (size_t)n - before - from_len;
		memset(&err, 0, sizeof(err));
		memset(&back, 0x5a, sizeof(back));
		if (lagom_rec_parse(mutated, len, &back, &scratch, &err) == 0)
			fail_msg("accepted mutation %zu: '%s' -> '%s'", i,
				 hostile[i][0], hostile[i][1]);
		assert_int_equal(err.errnum, EINVAL);
		assert_non_null(strstr(err.text, "record line"));
		assert_int_equal(((unsigned char *)&back)[0], 0x5a);
	}
}

static char dir[] = "/tmp/lagom-rec.XXXXXX";

static void path_in(char *buf, size_t len, const char *name)
{
	snprintf(buf, len, "%s/%s", dir, name);
}

static int write_file(const char *path, const char *data, size_t len)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = write(fd, data, len);
	close(fd);
	return n == (ssize_t)len ? 0 : -1;
}

static int read_it(const char *path, long uid, struct lagom_error *err)
{
	static char buf[LAGOM_REC_MAX_BYTES + 1];

	memset(err, 0, sizeof(*err));
	return lagom_rec_read_file(path, uid, buf, &back, &scratch, err);
}

static void test_files(void **state)
{
	struct lagom_error err;
	char good[128], link[128], fifo[128], big[128];
	int n, fd;

	assert_non_null(mkdtemp(dir));
	sample(&rec);
	n = format(&rec);
	path_in(good, sizeof(good), "task-0.1.rec");
	assert_int_equal(write_file(good, text, (size_t)n), 0);
	assert_int_equal(read_it(good, (long)geteuid(), &err), 0);
	assert_int_equal(back.comm[0].cls[0].count, 40);

	path_in(link, sizeof(link), "link.rec");
	assert_int_equal(symlink(good, link), 0);
	assert_int_equal(read_it(link, -1, &err), -ELOOP);
	assert_non_null(strstr(err.text, "symbolic link"));

	path_in(fifo, sizeof(fifo), "fifo.rec");
	assert_int_equal(mkfifo(fifo, 0600), 0);
	assert_int_equal(read_it(fifo, -1, &err), -EINVAL);
	assert_non_null(strstr(err.text, "not a regular file"));

	path_in(big, sizeof(big), "big.rec");
	fd = open(big, O_WRONLY | O_CREAT, 0600);
	assert_true(fd >= 0);
	assert_int_equal(ftruncate(fd, LAGOM_REC_MAX_BYTES + 1), 0);
	close(fd);
	assert_int_equal(read_it(big, -1, &err), -EFBIG);

	/* someone else's file */
	assert_int_equal(read_it(good, (long)geteuid() + 1, &err), -EPERM);
	assert_non_null(strstr(err.text, "owned by uid"));

	/* corrupt: the error names the file and the line */
	text[n - 2] = 'x';
	assert_int_equal(write_file(good, text, (size_t)n), 0);
	assert_int_equal(read_it(good, -1, &err), -EINVAL);
	assert_non_null(strstr(err.text, "task-0.1.rec"));
	unlink(good);
	unlink(link);
	unlink(fifo);
	unlink(big);
	rmdir(dir);
}

/* The record's names are its version 1's, whatever order or table they
 * come from (doc/profiler.md; doc/vocabulary.md "Spellings"): records
 * written before keep parsing.  Three algorithms keep the record's own
 * spelling where LAGOM_PLAN writes another. */
static void test_spellings(void **state)
{
	static const char *const v1_ops[] = {
		"broadcast", "reduce", "allgather", "reducescatter",
		"allreduce", "send",   "recv",	    "sendrecv",
		"alltoall",  "gather", "scatter",   "other",
	};
	static const char *const v1_algos[] = {
		"tree",		 "ring", "collnet_direct",
		"collnet_chain", "nvls", "nvls_tree",
		"pat",		 "p2p",	 "ce",
		"other",
	};
	static const char *const v1_protos[] = { "ll", "ll128", "simple",
						 "none", "other" };
	static const struct {
		const char *const *v1;
		size_t n;
		const char *(*name)(unsigned);
	} sets[] = {
		{ v1_ops, 12, lagom_rec_op_name },
		{ v1_algos, 10, lagom_rec_algo_name },
		{ v1_protos, 5, lagom_rec_proto_name },
	};
	char rec_text[512];
	int n;

	for (size_t s = 0; s < 3; s++) {
		for (size_t i = 0; i < sets[s].n; i++) {
			unsigned k = 0;

			while (sets[s].name(k) &&
			       strcmp(sets[s].name(k), sets[s].v1[i]) != 0)
				k++;
			assert_non_null(sets[s].name(k));
		}
		assert_null(sets[s].name((unsigned)sets[s].n));
	}
	assert_string_equal(lagom_rec_algo_name(LAGOM_REC_ALGO_COLLNET_DIRECT),
			    "collnet_direct");
	assert_string_equal(
		lagom_nccl_algo_names[LAGOM_NCCL_ALGO_COLLNET_DIRECT],
		"collnetdirect");
	assert_string_equal(lagom_rec_op_name(LAGOM_NCCL_FUNC_ALLTOALL),
			    "alltoall");

	/* a version 1 class line with the record's spelling parses; the
	 * plan's spelling is not the record's */
	for (int plan = 0; plan < 2; plan++) {
		n = snprintf(rec_text, sizeof(rec_text),
			     "lagom-measure 1\nabi 5\njob 7 step 0 task 0 pid "
			     "1\nplan -\ntime 1 2\ncomms 1 dropped 0\ncomm "
			     "00000000000000aa ranks 2 nodes 1 rank 0 name - "
			     "overflow 0 incomplete 0 classes 1\nclass "
			     "allreduce 64 %s simple 2 count 1 gpu 0 0 0 0 gap "
			     "0 0\nperiod 0 n 0 ns 0\nseq\nend\n",
			     plan ? "nvlstree" : "nvls_tree");
		assert_true(n > 0 && (size_t)n < sizeof(rec_text));
		assert_int_equal(lagom_rec_parse(rec_text, (size_t)n, &back,
						 &scratch, NULL),
				 plan ? -EINVAL : 0);
	}
	assert_int_equal(back.comm[0].cls[0].algo, LAGOM_REC_ALGO_NVLS_TREE);
	assert_int_equal(back.comm[0].cls[0].op, LAGOM_NCCL_FUNC_ALLREDUCE);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_largest),
		cmocka_unit_test(test_writer_rules),
		cmocka_unit_test(test_hostile),
		cmocka_unit_test(test_files),
		cmocka_unit_test(test_spellings),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
