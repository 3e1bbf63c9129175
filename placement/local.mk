# placement: where a step runs - Slurm hostlists, tasks per node, the switch
# tree from topology.conf.  One library, one header: placement/placement.h.
# libplacement: step placement strings, switch tree.  Calls Slurm's hostlist
# functions: the SPANK host provides them; programs and tests add -lslurm.
noinst_LTLIBRARIES += libplacement.la
libplacement_la_SOURCES = placement/placement.h placement/placement_int.h \
	placement/placement.c placement/tasks.c placement/switchtree.c
libplacement_la_CPPFLAGS = $(AM_CPPFLAGS) $(SLURM_CPPFLAGS)

UNIT_TESTS += tests/placement/test_placement tests/placement/test_switchtree
check_PROGRAMS += tests/placement/test_placement tests/placement/test_switchtree
tests_placement_test_placement_SOURCES = tests/placement/test_placement.c
tests_placement_test_placement_CPPFLAGS = $(AM_CPPFLAGS) $(SLURM_CPPFLAGS)
tests_placement_test_placement_CFLAGS = $(AM_CFLAGS) $(CMOCKA_CFLAGS)
tests_placement_test_placement_LDADD = libplacement.la libcommon.la \
	-lslurm $(CMOCKA_LIBS)

tests_placement_test_switchtree_SOURCES = tests/placement/test_switchtree.c
tests_placement_test_switchtree_CPPFLAGS = $(AM_CPPFLAGS) $(SLURM_CPPFLAGS)
tests_placement_test_switchtree_CFLAGS = $(AM_CFLAGS) $(CMOCKA_CFLAGS)
tests_placement_test_switchtree_LDADD = libplacement.la libcommon.la \
	-lslurm $(CMOCKA_LIBS)

# topology/block and --segment on a real Slurm that has them (24.05+)
INTEGRATION_TESTS += tests/integration/block.sh
EXTRA_DIST += tests/integration/block.sh
