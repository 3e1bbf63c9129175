# topology: what a node has (hwloc, NCCL topology files); see
# topology/topology.h.  Where a step runs is placement/ (placement/local.mk).

# libtopology: hwloc adapter and NCCL topology file reader; lagom-prolog
# turns a topology into a profile's hardware section (prolog/hwinfo.c).
# Links $(HWLOC_LIBS).
noinst_LTLIBRARIES += libtopology.la
libtopology_la_SOURCES = topology/topology.h topology/topology_int.h \
	topology/topo_core.c topology/topo_hwloc.c topology/nccl_topo.c \
	topology/xml_lite_int.h topology/xml_lite.c
libtopology_la_CFLAGS = $(AM_CFLAGS) $(HWLOC_CFLAGS)

# Tests.
UNIT_TESTS += tests/topology/test_topo_fixtures tests/topology/test_nccl_topo
check_PROGRAMS += tests/topology/test_topo_fixtures \
	tests/topology/test_nccl_topo

tests_topology_test_topo_fixtures_SOURCES = \
	tests/topology/test_topo_fixtures.c tests/topology/topo_fixture.h
tests_topology_test_topo_fixtures_CFLAGS = $(AM_CFLAGS) $(CMOCKA_CFLAGS)
tests_topology_test_topo_fixtures_LDADD = libtopology.la \
	libcommon.la $(HWLOC_LIBS) $(CMOCKA_LIBS) -lm

tests_topology_test_nccl_topo_SOURCES = tests/topology/test_nccl_topo.c
tests_topology_test_nccl_topo_CFLAGS = $(AM_CFLAGS) $(CMOCKA_CFLAGS)
tests_topology_test_nccl_topo_LDADD = libtopology.la libcommon.la \
	$(HWLOC_LIBS) $(CMOCKA_LIBS) -lm

# libFuzzer targets for the string parsers ('make fuzz'; clang only).
TOPO_FUZZ_FLAGS = -g -O1 -fsanitize=fuzzer,address,undefined \
	-I$(top_srcdir) -I$(top_builddir) -D_GNU_SOURCE
LAGOM_FUZZERS += tests/fuzz/fuzz_nccl_topo tests/fuzz/fuzz_step_strings \
	tests/fuzz/fuzz_switchtree
CLEANFILES += tests/fuzz/fuzz_nccl_topo tests/fuzz/fuzz_step_strings \
	tests/fuzz/fuzz_switchtree
SCRIPT_TESTS += tests/topology/fuzz_smoke.sh
# tests/lib/fuzz.sh is shared with tests/tuner/fuzz_smoke.sh.
EXTRA_DIST += tests/topology/fuzz_smoke.sh tests/lib/fuzz.sh \
	tests/fuzz/fuzz_nccl_topo.c \
	tests/fuzz/fuzz_step_strings.c tests/fuzz/fuzz_switchtree.c \
	tests/fuzz/corpus/nccl_topo tests/fuzz/corpus/step_strings \
	tests/fuzz/corpus/switchtree

fuzz: fuzz-topology
fuzz-topology: tests/fuzz/fuzz_nccl_topo tests/fuzz/fuzz_step_strings \
	tests/fuzz/fuzz_switchtree
tests/fuzz/fuzz_nccl_topo: $(srcdir)/tests/fuzz/fuzz_nccl_topo.c \
		$(libtopology_la_SOURCES) $(srcdir)/common/error.c
	@test -n "$(CLANG)" || { echo "fuzz needs clang (libFuzzer)"; exit 1; }
	@$(MKDIR_P) tests/fuzz
	$(AM_V_CC)$(CLANG) $(TOPO_FUZZ_FLAGS) -o $@ \
		$(srcdir)/tests/fuzz/fuzz_nccl_topo.c \
		$(srcdir)/topology/nccl_topo.c $(srcdir)/topology/topo_core.c \
		$(srcdir)/topology/xml_lite.c \
		$(srcdir)/common/error.c
tests/fuzz/fuzz_step_strings: $(srcdir)/tests/fuzz/fuzz_step_strings.c \
		$(libplacement_la_SOURCES) $(srcdir)/common/error.c
	@test -n "$(CLANG)" || { echo "fuzz needs clang (libFuzzer)"; exit 1; }
	@$(MKDIR_P) tests/fuzz
	$(AM_V_CC)$(CLANG) $(TOPO_FUZZ_FLAGS) -o $@ \
		$(srcdir)/tests/fuzz/fuzz_step_strings.c \
		$(srcdir)/placement/tasks.c $(srcdir)/common/error.c
tests/fuzz/fuzz_switchtree: $(srcdir)/tests/fuzz/fuzz_switchtree.c \
		$(libplacement_la_SOURCES) $(srcdir)/common/error.c
	@test -n "$(CLANG)" || { echo "fuzz needs clang (libFuzzer)"; exit 1; }
	@$(MKDIR_P) tests/fuzz
	$(AM_V_CC)$(CLANG) $(TOPO_FUZZ_FLAGS) $(SLURM_CPPFLAGS) -o $@ \
		$(srcdir)/tests/fuzz/fuzz_switchtree.c \
		$(srcdir)/placement/switchtree.c $(srcdir)/placement/placement.c \
		$(srcdir)/placement/tasks.c $(srcdir)/common/error.c -lslurm
.PHONY: fuzz-topology
