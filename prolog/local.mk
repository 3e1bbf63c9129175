# prolog: lagom-prolog, which measures a node and writes its profile
# (prolog/prolog.h, doc/lagom-prolog.8).  The GPU probes dlopen the CUDA
# runtime, cuBLAS and NCCL, so the one binary runs with and without GPUs.
noinst_LTLIBRARIES += libprolog.la
libprolog_la_SOURCES = prolog/prolog.h prolog/hwinfo.c prolog/plugstack.c \
	prolog/probe.c prolog/probe_cuda_int.h prolog/probe_cuda.c \
	prolog/probe_contention.c prolog/probe_nccl.c
libprolog_la_CFLAGS = $(AM_CFLAGS) $(JANSSON_CFLAGS)

PROLOG_LIBS = libprolog.la libprofile.la libtopology.la libplugstack.la \
	libcatalog.la libmodel.la libcommon.la $(JANSSON_LIBS) $(HWLOC_LIBS) -lm

sbin_PROGRAMS += lagom-prolog
lagom_prolog_SOURCES = prolog/main.c
lagom_prolog_CFLAGS = $(AM_CFLAGS) $(JANSSON_CFLAGS)
lagom_prolog_LDADD = $(PROLOG_LIBS)

dist_man_MANS += doc/lagom-prolog.8
EXTRA_DIST += doc/profile-format.md contrib/prolog/lagom-prolog.sh \
	contrib/prolog/slurm.conf.lagom

# lagom-prolog on this node: topology-only profile, valgrind, cache.
SCRIPT_TESTS += tests/prolog/prolog.sh tests/prolog/ptx.sh
check_PROGRAMS += tests/prolog/print_ptx
tests_prolog_print_ptx_SOURCES = tests/prolog/print_ptx.c
tests_prolog_print_ptx_LDADD = $(PROLOG_LIBS)
EXTRA_DIST += tests/prolog/prolog.sh tests/prolog/ptx.sh \
	tests/valgrind/libpciaccess-pci_get_strings.supp \
	tests/valgrind/libhwloc-2.15-topology_load.supp \
	tests/prolog/format-1.0

UNIT_TESTS += tests/prolog/test_prolog tests/prolog/test_hw_paths
check_PROGRAMS += tests/prolog/test_prolog tests/prolog/test_hw_paths
tests_prolog_test_prolog_SOURCES = tests/prolog/test_prolog.c
tests_prolog_test_prolog_CFLAGS = $(AM_CFLAGS) $(CMOCKA_CFLAGS)
tests_prolog_test_prolog_LDADD = $(PROLOG_LIBS) $(CMOCKA_LIBS)
tests_prolog_test_hw_paths_SOURCES = tests/prolog/test_hw_paths.c \
	tests/topology/topo_fixture.h
tests_prolog_test_hw_paths_CFLAGS = $(AM_CFLAGS) $(CMOCKA_CFLAGS)
tests_prolog_test_hw_paths_LDADD = $(PROLOG_LIBS) $(CMOCKA_LIBS)
