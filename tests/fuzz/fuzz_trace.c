/*
 * tests/fuzz/fuzz_trace.c - libFuzzer target for `lagom workload import`'s
 * streaming Kineto reader and analysis (trace/).  Besides ASan/UBSan
 * findings it traps when an accepted trace breaks a promise: the workload
 * must be one lagom's own reader accepts and the model can time, every
 * contention row must follow the selection rules.
 * Build and run: make fuzz-trace && tests/fuzz/fuzz_trace CORPUS_DIR
 */
#include "config.h"

#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "trace/emit.h"
#include "trace/trace.h"
#include "workload/workload.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_rows(const struct lagom_trace_import *imp)
{
	for (size_t i = 0; i < imp->nrows; i++) {
		const struct lagom_trace_contention *r = &imp->rows[i];
		if (r->alone_n < LAGOM_TRACE_MIN_SAMPLES ||
		    r->beside_n < LAGOM_TRACE_MIN_SAMPLES ||
		    !(r->alone_us > 0) || !isfinite(r->slowdown) ||
		    r->nccl_op >= LAGOM_COLL_COUNT)
			__builtin_trap();
	}
}

static void check_workload(const struct lagom_trace_import *imp)
{
	struct lagom_workload *back = NULL;
	struct lagom_error err;
	json_t *doc = lagom_trace_workload_json(imp);
	char *text;

	if (!doc)
		return; /* allocation failure */
	text = json_dumps(doc, JSON_REAL_PRECISION(17));
	json_decref(doc);
	if (!text)
		return;
	if (lagom_workload_read_string(text, &back, &err) != 0)
		__builtin_trap(); /* import wrote what lagom cannot read */
	if (back->nregions != imp->workload->nregions)
		__builtin_trap();
	lagom_workload_destroy(back);
	free(text);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct lagom_trace_import *imp = NULL;
	struct lagom_trace_replay rp;
	struct lagom_error err;

	if (lagom_trace_import_buffer(data, size, &imp, &err) != 0) {
		if (imp || memchr(err.text, '\0', sizeof(err.text)) == NULL)
			__builtin_trap();
		return 0;
	}
	if (!imp || !imp->workload || imp->workload->nregions == 0)
		__builtin_trap();
	check_rows(imp);
	check_workload(imp);
	(void)lagom_trace_replay(imp, &rp, &err);
	lagom_trace_import_destroy(imp);
	return 0;
}
