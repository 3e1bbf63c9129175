/*
 * tests/lib/model_fixture.h - model inputs the model's tests share
 * (tests/model/): one writer of each, not a copy per test.  Header only.
 */
#ifndef LAGOM_TEST_MODEL_FIXTURE_H
#define LAGOM_TEST_MODEL_FIXTURE_H

#include "model/model.h"

/* nodes x ppn ranks: one node, or several under one leaf switch. */
static inline struct lagom_comm lagom_test_comm(unsigned nodes, unsigned ppn)
{
	return (struct lagom_comm){ .ranks = nodes * ppn,
				    .nodes = nodes,
				    .ranks_per_node = ppn,
				    .hops = nodes > 1 ? LAGOM_HOPS_SAME_LEAF
						      : LAGOM_HOPS_SAME_NODE };
}

#endif /* LAGOM_TEST_MODEL_FIXTURE_H */
