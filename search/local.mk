# search: the priority-based search over the cost model, its baselines, the
# LAGOM_PLAN text and the environment of a plan (search/search.h).
noinst_LTLIBRARIES += libsearch.la
libsearch_la_SOURCES = search/search.h search/search_int.h search/engine_int.h \
	search/engine.c search/problem.c search/search.c search/globals.c \
	search/nowork.c search/encode.c search/vars.c search/ctapolicy.c \
	search/deviate.c
# The plan text: plan/'s encoder travels with the search.
libsearch_la_LIBADD = libplan.la

UNIT_TESTS += tests/search/test_engine tests/search/test_search
check_PROGRAMS += tests/search/test_engine tests/search/test_search
tests_search_test_engine_SOURCES = tests/search/test_engine.c \
	tests/search/scenarios.h
tests_search_test_engine_CFLAGS = $(AM_CFLAGS) $(CMOCKA_CFLAGS)
tests_search_test_engine_LDADD = libsearch.la libcatalog.la libmodel.la libcommon.la \
	$(CMOCKA_LIBS) -lm
tests_search_test_search_SOURCES = tests/search/test_search.c \
	tests/search/paper.h tests/search/scenarios.h
tests_search_test_search_CFLAGS = $(AM_CFLAGS) $(CMOCKA_CFLAGS)
tests_search_test_search_LDADD = libsearch.la libcatalog.la libmodel.la libcommon.la \
	$(CMOCKA_LIBS) -lm

# A table profile never pins a critical-path class below NCCL's channels.
UNIT_TESTS += tests/search/test_cta_floor
check_PROGRAMS += tests/search/test_cta_floor
tests_search_test_cta_floor_SOURCES = tests/search/test_cta_floor.c
tests_search_test_cta_floor_CFLAGS = $(AM_CFLAGS) $(CMOCKA_CFLAGS)
tests_search_test_cta_floor_LDADD = libsearch.la libcatalog.la libmodel.la \
	libcommon.la $(CMOCKA_LIBS) -lm

# Copy-engine collectives (NCCL_CTA_POLICY=zero): model term and gates.
UNIT_TESTS += tests/search/test_ce
check_PROGRAMS += tests/search/test_ce
tests_search_test_ce_SOURCES = tests/search/test_ce.c
tests_search_test_ce_CFLAGS = $(AM_CFLAGS) $(CMOCKA_CFLAGS)
tests_search_test_ce_LDADD = libsearch.la libcatalog.la libmodel.la \
	libcommon.la $(CMOCKA_LIBS) -lm

# Prints the greedy-vs-exhaustive figures and the paper-workload table.
noinst_PROGRAMS += tests/search/search_report
tests_search_search_report_SOURCES = tests/search/search_report.c \
	tests/search/paper.h tests/search/scenarios.h
tests_search_search_report_LDADD = libsearch.la libcatalog.la libmodel.la libcommon.la -lm

LAGOM_BENCHES += bench/bench_search
bench_bench_search_SOURCES = bench/bench_search.c
bench_bench_search_LDADD = libsearch.la libcatalog.la libmodel.la libcommon.la -lm

EXTRA_DIST += doc/search.md
