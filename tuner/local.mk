# tuner: libnccl-tuner-lagom.so, NCCL's tuner plugin applying LAGOM_PLAN per
# collective (tuner/nccl_tuner_abi.h, plan/plan.h, doc/tuner.md).
# It links nothing but libc: plan/'s decoder and the common/ pieces it
# needs are compiled in ($(PLAN_SOURCES), common/io.c), no convenience
# library.

# Installed as $(libdir)/libnccl-tuner-lagom.so.  Its own install-dir name
# (not lib_LTLIBRARIES, which Makefile.am does not initialise) keeps this
# fragment independent of the others.
lagomtunerdir = $(libdir)
lagomtuner_LTLIBRARIES = libnccl-tuner-lagom.la
libnccl_tuner_lagom_la_SOURCES = tuner/tuner.c tuner/tuner_abi.c \
	tuner/tuner_int.h tuner/nccl_tuner_abi.h $(PLAN_SOURCES) \
	common/io.c common/io.h
libnccl_tuner_lagom_la_CFLAGS = $(AM_CFLAGS) -fvisibility=hidden
libnccl_tuner_lagom_la_LDFLAGS = -module -avoid-version -shared \
	-Wl,--version-script=$(srcdir)/tuner/tuner.map -Wl,--as-needed
libnccl_tuner_lagom_la_LIBADD =
EXTRA_libnccl_tuner_lagom_la_DEPENDENCIES = tuner/tuner.map
EXTRA_DIST += tuner/tuner.map doc/tuner.md

# Golden plans through plan/'s decoder, one TAP line each (plan_golden.sh).
check_PROGRAMS += tests/tuner/plan_tool
tests_tuner_plan_tool_SOURCES = tests/tuner/plan_tool.c
tests_tuner_plan_tool_LDADD = libplan.la libcommon.la

# Tests: the built module driven as NCCL does (the decoder: tests/plan).
TUNER_CHECKS = tests/tuner/test_tuner_abi tests/tuner/test_tuner_noop
UNIT_TESTS += $(TUNER_CHECKS)
check_PROGRAMS += $(TUNER_CHECKS)

TUNER_HARNESS = tests/tuner/harness.c tests/tuner/harness.h \
	tuner/nccl_tuner_abi.h
tests_tuner_test_tuner_abi_SOURCES = tests/tuner/test_tuner_abi.c \
	$(TUNER_HARNESS)
tests_tuner_test_tuner_abi_CFLAGS = $(AM_CFLAGS) $(CMOCKA_CFLAGS)
tests_tuner_test_tuner_abi_LDADD = $(CMOCKA_LIBS)
tests_tuner_test_tuner_noop_SOURCES = tests/tuner/test_tuner_noop.c \
	$(TUNER_HARNESS) plan/plan.h
tests_tuner_test_tuner_noop_CFLAGS = $(AM_CFLAGS) $(CMOCKA_CFLAGS)
tests_tuner_test_tuner_noop_LDADD = $(CMOCKA_LIBS)
# The harness dlopen()s the module: build it first.
EXTRA_tests_tuner_test_tuner_abi_DEPENDENCIES = libnccl-tuner-lagom.la
EXTRA_tests_tuner_test_tuner_noop_DEPENDENCIES = libnccl-tuner-lagom.la

if HAVE_CUDA
# Lagom's ABI values against the installed nccl.h (GPU-free).
UNIT_TESTS += tests/tuner/test_nccl_header
check_PROGRAMS += tests/tuner/test_nccl_header
tests_tuner_test_nccl_header_SOURCES = tests/tuner/test_nccl_header.c \
	tuner/nccl_tuner_abi.h
tests_tuner_test_nccl_header_CPPFLAGS = $(AM_CPPFLAGS) $(CUDA_CPPFLAGS)
# nccl.h declares f() without void.
tests_tuner_test_nccl_header_CFLAGS = $(AM_CFLAGS) -Wno-strict-prototypes \
	$(CMOCKA_CFLAGS)
tests_tuner_test_nccl_header_LDADD = $(CMOCKA_LIBS)
endif

SCRIPT_TESTS += tests/tuner/symbols.sh tests/tuner/fuzz_smoke.sh \
	tests/tuner/plan_golden.sh
EXTRA_DIST += tests/tuner/symbols.sh tests/tuner/fuzz_smoke.sh \
	tests/tuner/plan_golden.sh \
	tests/tuner/plans tests/fuzz/fuzz_plan.c tests/fuzz/corpus/plan

# libFuzzer target for the plan reader ('make fuzz' runs LAGOM_FUZZERS).
LAGOM_FUZZERS += tests/fuzz/fuzz_plan
CLEANFILES += tests/fuzz/fuzz_plan
fuzz: fuzz-plan
fuzz-plan: tests/fuzz/fuzz_plan
FUZZ_PLAN_C = plan/rules.c plan/encode.c plan/decode.c common/error.c \
	common/hash.c common/nccl_names.c
tests/fuzz/fuzz_plan: $(srcdir)/tests/fuzz/fuzz_plan.c \
		$(FUZZ_PLAN_C:%=$(srcdir)/%) $(srcdir)/plan/plan.h
	@test -n "$(CLANG)" || { echo "fuzz-plan needs clang (libFuzzer)"; exit 1; }
	@$(MKDIR_P) tests/fuzz
	$(AM_V_CC)$(CLANG) -g -O1 -fsanitize=fuzzer,address,undefined \
		-I$(top_srcdir) -I$(top_builddir) -D_GNU_SOURCE -o $@ \
		$(srcdir)/tests/fuzz/fuzz_plan.c $(FUZZ_PLAN_C:%=$(srcdir)/%)
.PHONY: fuzz-plan
