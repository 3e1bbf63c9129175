/*
 * tests/topology/topo_fixture.h - load a topology fixture of tests/fixtures
 * (hwloc XML or NCCL topology file) for the tests of topology/ and of the
 * programs that use it.  Include after tests/lib/lagom_test.h.
 */
#ifndef LAGOM_TESTS_TOPO_FIXTURE_H
#define LAGOM_TESTS_TOPO_FIXTURE_H

#include <stdbool.h>
#include <stdlib.h>

#include "topology/topology.h"

/* The fixture rel (an NCCL topology file when nccl), malloc'd; fails the
 * test when it does not load. */
static inline struct lagom_node_topo *topo_fixture_load(const char *rel,
							bool nccl)
{
	char path[4096];
	struct lagom_error err = { 0 };
	struct lagom_node_topo *t = malloc(sizeof(*t));
	int rc;

	assert_non_null(t);
	lagom_fixture(path, sizeof(path), rel);
	rc = nccl ? lagom_topo_load_nccl_file(path, t, &err)
		  : lagom_topo_load_hwloc(path, t, &err);
	if (rc != 0)
		fail_msg("%s: %s", rel, err.text);
	return t;
}

#endif /* LAGOM_TESTS_TOPO_FIXTURE_H */
