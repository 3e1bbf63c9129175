# profiler: libnccl-profiler-lagom.so, NCCL's profiler plugin (ABI v4, v5,
# v6) that records per communicator and per collective class what NCCL did
# and how long it took on the GPU (profiler/prof_int.h, doc/profiler.md);
# the record's writer (measurement/record.c) is compiled in.  The module
# links nothing but libc (common/io.c and error.c are compiled in).

lagomprofilerdir = $(libdir)
lagomprofiler_LTLIBRARIES = libnccl-profiler-lagom.la
libnccl_profiler_lagom_la_SOURCES = profiler/prof_abi.c \
	profiler/prof_event.c profiler/prof_flush.c profiler/prof_int.h \
	profiler/nccl_profiler_abi.h measurement/record.c \
	measurement/record.h common/nccl_names.c common/nccl_names.h \
	common/nccl_abi.h common/io.c common/io.h common/error.c \
	common/error.h
libnccl_profiler_lagom_la_CFLAGS = $(AM_CFLAGS) -fvisibility=hidden \
	-pthread
libnccl_profiler_lagom_la_LDFLAGS = -module -avoid-version -shared \
	-Wl,--version-script=$(srcdir)/profiler/profiler.map -Wl,--as-needed
libnccl_profiler_lagom_la_LIBADD =
EXTRA_libnccl_profiler_lagom_la_DEPENDENCIES = profiler/profiler.map
EXTRA_DIST += profiler/profiler.map doc/profiler.md bench/nccl_profiler_run.sh

# Tests: the record alone, and the built module driven as NCCL does.
PROFILER_CHECKS = tests/profiler/test_record tests/profiler/test_profiler_abi
UNIT_TESTS += $(PROFILER_CHECKS)
check_PROGRAMS += $(PROFILER_CHECKS)
tests_profiler_test_record_SOURCES = tests/profiler/test_record.c
tests_profiler_test_record_CFLAGS = $(AM_CFLAGS) $(CMOCKA_CFLAGS)
tests_profiler_test_record_LDADD = libmeasurement.la libcommon.la $(CMOCKA_LIBS)
tests_profiler_test_profiler_abi_SOURCES = \
	tests/profiler/test_profiler_abi.c tests/profiler/harness.c \
	tests/profiler/harness.h profiler/nccl_profiler_abi.h
tests_profiler_test_profiler_abi_CFLAGS = $(AM_CFLAGS) $(CMOCKA_CFLAGS)
tests_profiler_test_profiler_abi_LDADD = libmeasurement.la libcommon.la \
	$(CMOCKA_LIBS) -ldl
EXTRA_tests_profiler_test_profiler_abi_DEPENDENCIES = \
	libnccl-profiler-lagom.la

SCRIPT_TESTS += tests/profiler/symbols.sh tests/profiler/fuzz_smoke.sh \
	tests/profiler/size.sh \
	tests/profiler/runs.sh
EXTRA_DIST += tests/profiler/symbols.sh tests/profiler/fuzz_smoke.sh \
	tests/profiler/size.sh \
	tests/profiler/runs.sh \
	tests/fuzz/fuzz_record.c tests/fuzz/corpus/record

# Overhead per event (ns), as NCCL calls the module.
LAGOM_BENCHES += bench/bench_profiler
bench_bench_profiler_SOURCES = bench/bench_profiler.c \
	tests/profiler/harness.c tests/profiler/harness.h
bench_bench_profiler_LDADD = -ldl
EXTRA_bench_bench_profiler_DEPENDENCIES = libnccl-profiler-lagom.la

# libFuzzer target for the record reader ('make fuzz' runs LAGOM_FUZZERS).
LAGOM_FUZZERS += tests/fuzz/fuzz_record
CLEANFILES += tests/fuzz/fuzz_record
fuzz: fuzz-record
fuzz-record: tests/fuzz/fuzz_record
tests/fuzz/fuzz_record: $(srcdir)/tests/fuzz/fuzz_record.c \
		$(srcdir)/measurement/record.c $(srcdir)/measurement/record_parse.c \
		$(srcdir)/measurement/record.h $(srcdir)/measurement/predicted.c \
		$(srcdir)/measurement/predicted.h $(srcdir)/common/error.c \
		$(srcdir)/common/nccl_names.c
	@test -n "$(CLANG)" || { echo "fuzz-record needs clang (libFuzzer)"; exit 1; }
	@$(MKDIR_P) tests/fuzz
	$(AM_V_CC)$(CLANG) -g -O1 -fsanitize=fuzzer,address,undefined \
		-I$(top_srcdir) -I$(top_builddir) -D_GNU_SOURCE -o $@ \
		$(srcdir)/tests/fuzz/fuzz_record.c $(srcdir)/measurement/record.c \
		$(srcdir)/measurement/record_parse.c \
		$(srcdir)/measurement/predicted.c $(srcdir)/common/error.c \
		$(srcdir)/common/nccl_names.c
.PHONY: fuzz-record

# The loop on a real Slurm (root; skips loudly otherwise).
INTEGRATION_TESTS += tests/integration/measure.sh tests/integration/spool-trust.sh
EXTRA_DIST += tests/integration/measure.sh tests/integration/spool-trust.sh
