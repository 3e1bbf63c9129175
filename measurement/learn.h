/*
 * measurement/learn.h - the pure half of planning from measurements
 * (doc/profiler.md, "Planning from measurements"): the step key's text and
 * what a measurement record means to the cost model.  No I/O, no
 * environment: the SPANK plugin (spank/learn.c) reads the spool, the
 * environment and the step, and calls these.
 */
#ifndef LAGOM_MEASUREMENT_LEARN_H
#define LAGOM_MEASUREMENT_LEARN_H

#include <stdbool.h>
#include <stddef.h>

#include "measurement/record.h"
#include "model/model.h"

/* A step key's largest text, with its NUL. */
#define LAGOM_LEARN_KEY_MAX 256

/*
 * The key of a step (STEP/key in the spool): "lagom-key 1\nuser:KEY\n"
 * when user_key (LAGOM_MEASURE_KEY) is set and not empty, else
 * "lagom-key 1\njob:NAME shape:NODESxTASKSxGPUS workload:W\n", job_name
 * "-" when NULL or empty, workload "-" when NULL (none given).  Characters outside the record's
 * token set become '_'; each value is cut to 127 characters.
 */
void lagom_learn_key(char *key, size_t len, const char *user_key,
		     const char *job_name, size_t nodes,
		     unsigned ranks_per_node, unsigned gpus_per_node,
		     const char *workload);
/* Whether key is text as lagom_learn_key() writes it (NUL-terminated). */
bool lagom_learn_key_ok(const char *key);

/* The model's collective of a measured operation (send and recv are its
 * sendrecv): 0, or -1 for one the model has none of. */
int lagom_learn_coll(unsigned op, enum lagom_coll *out);
/* A measured class's algorithm, protocol and channels as the model's
 * (send/recv: ring, simple): 0, or -1 when the model has none, and when
 * channels is 0 (see lagom_learn_class()). */
int lagom_learn_config(const struct lagom_rec_class *k,
		       struct lagom_coll_config *cfg);

/* A measured class as the cost model's. */
struct lagom_learn_class {
	enum lagom_coll coll;		 /* lagom_learn_coll() */
	uint64_t bytes;			 /* lagom_rec_plan_bytes() */
	struct lagom_coll_config config; /* lagom_learn_config() */
};

/*
 * The one mapping from a record's class (k, of communicator m) to the
 * model, for every reader of measurements (the planner's corrections,
 * spank/learn.c; the calibration's evidence, planner/consensus.c):
 * 0, or -1 when the model has no such class: no bytes, an operation, an
 * algorithm or a protocol the model has none of, or channels == 0.
 *
 * channels == 0 is refused because the model prices a configuration of 1
 * to 64 CTAs (lagom_coll_predict() refuses nchannels 0): a class whose
 * record names no channel count says nothing the model can compare, so it
 * neither corrects a prediction nor moves a calibrated constant (before,
 * the calibration refused it and the planner kept it in its table only to
 * find no model time for it).  tests/measurement/test_learn.c pins it.
 */
int lagom_learn_class(const struct lagom_rec_comm *m,
		      const struct lagom_rec_class *k,
		      struct lagom_learn_class *out);
/* The workload of a communicator's measured iteration: one region per
 * collective, its mean measured gap as the computation beside it; NULL
 * when it has none (or on allocation failure).  Free with
 * lagom_workload_destroy(). */
struct lagom_workload *lagom_learn_workload(const struct lagom_rec_comm *m,
					    const char *name);

#endif /* LAGOM_MEASUREMENT_LEARN_H */
