# trace: `lagom workload import` - a streaming Kineto trace reader (yajl,
# zlib) and the analysis that turns traces into a workload and a contention
# table (trace/trace.h, doc/workload-import.md).  Outside the pure core.
noinst_LTLIBRARIES += libtrace.la
libtrace_la_SOURCES = trace/trace.h trace/trace_int.h trace/emit.h \
	trace/parse.c trace/rules.c trace/build.c trace/contention.c \
	trace/trace.c trace/emit.c
libtrace_la_CFLAGS = $(AM_CFLAGS) $(YAJL_CFLAGS) $(ZLIB_CFLAGS) \
	$(JANSSON_CFLAGS)
TRACE_LIBS = libtrace.la libworkload.la libmodel.la libcommon.la \
	$(YAJL_LIBS) $(ZLIB_LIBS) $(JANSSON_LIBS) -lm

EXTRA_DIST += doc/workload-import.md

# Tests: golden outputs, replay and contention table on the real traces of
# tests/fixtures/traces; hostile inputs built by the test.
SCRIPT_TESTS += tests/trace/import.sh tests/trace/errors.sh
EXTRA_DIST += tests/trace/import.sh tests/trace/errors.sh \
	tests/trace/contention_check.py tests/trace/golden

# libFuzzer target for the importer ('make fuzz'; clang only).
TRACE_FUZZ_SRC = $(srcdir)/tests/fuzz/fuzz_trace.c \
	$(filter %.c,$(libtrace_la_SOURCES:%=$(srcdir)/%)) \
	$(srcdir)/workload/workload.c \
	$(filter %.c,$(libmodel_la_SOURCES:%=$(srcdir)/%)) \
	$(filter %.c,$(libcommon_la_SOURCES:%=$(srcdir)/%))
LAGOM_FUZZERS += tests/fuzz/fuzz_trace
CLEANFILES += tests/fuzz/fuzz_trace
SCRIPT_TESTS += tests/trace/fuzz_smoke.sh
EXTRA_DIST += tests/trace/fuzz_smoke.sh tests/fuzz/fuzz_trace.c \
	tests/fuzz/corpus/trace
fuzz: fuzz-trace
fuzz-trace: tests/fuzz/fuzz_trace
tests/fuzz/fuzz_trace: $(TRACE_FUZZ_SRC)
	@test -n "$(CLANG)" || { echo "fuzz needs clang (libFuzzer)"; exit 1; }
	@$(MKDIR_P) tests/fuzz
	$(AM_V_CC)$(CLANG) -g -O1 -fsanitize=fuzzer,address,undefined \
		-I$(top_srcdir) -I$(top_builddir) -D_GNU_SOURCE \
		$(YAJL_CFLAGS) $(ZLIB_CFLAGS) $(JANSSON_CFLAGS) -o $@ \
		$(TRACE_FUZZ_SRC) $(YAJL_LIBS) $(ZLIB_LIBS) $(JANSSON_LIBS) -lm
.PHONY: fuzz-trace

# Benchmark (make bench): import time and peak RSS on a ~1 GiB trace built
# in a temporary directory from a fixture's iterations.
EXTRA_DIST += bench/bench_trace_import.py
bench: bench-trace
bench-trace: lagom
	@echo "== bench-trace"
	python3 $(srcdir)/bench/bench_trace_import.py ./lagom \
		$(srcdir)/tests/fixtures/traces/hta-v100-2rank-trace_diff_test.json.gz
.PHONY: bench-trace

# Integration: import a real trace as a user, then srun --lagom=auto
# --lagom-workload=FILE on the local cluster.
INTEGRATION_TESTS += tests/integration/trace-import.sh
EXTRA_DIST += tests/integration/trace-import.sh

UNIT_TESTS += tests/trace/test_trace
check_PROGRAMS += tests/trace/test_trace
# The token guard's fast path against the exact one (compiled with
# trace/parse.c itself: the guards are static).
UNIT_TESTS += tests/trace/test_guard
check_PROGRAMS += tests/trace/test_guard
tests_trace_test_guard_SOURCES = tests/trace/test_guard.c
tests_trace_test_guard_CFLAGS = $(AM_CFLAGS) $(CMOCKA_CFLAGS) $(YAJL_CFLAGS) \
	$(ZLIB_CFLAGS) -Wno-unused-function
tests_trace_test_guard_LDADD = $(TRACE_LIBS) $(CMOCKA_LIBS)
tests_trace_test_trace_SOURCES = tests/trace/test_trace.c
tests_trace_test_trace_CFLAGS = $(AM_CFLAGS) $(CMOCKA_CFLAGS) $(ZLIB_CFLAGS)
tests_trace_test_trace_LDADD = $(TRACE_LIBS) $(CMOCKA_LIBS)
# One cluster at a time: under make -j, wait for spank.sh's cluster instead
# of queueing on its lock.
tests/integration/trace-import.log: tests/integration/spank.log
