# plan: the LAGOM_PLAN format (plan/plan.h, doc/plan-format.md): names,
# records, encoder and decoder.  libc and common/ only: the tuner compiles
# these sources in (tuner/local.mk), everything else links libplan.la
# (libsearch.la carries it).
PLAN_SOURCES = plan/plan.h plan/wire_int.h plan/rules.c plan/encode.c \
	plan/decode.c common/error.c common/error.h common/hash.c \
	common/hash.h common/nccl_names.c common/nccl_names.h

noinst_LTLIBRARIES += libplan.la
libplan_la_SOURCES = plan/plan.h plan/wire_int.h plan/rules.c \
	plan/encode.c plan/decode.c

# The decoder on the golden plans of tests/tuner/plans (.expect dumps), the
# encoder's round trip, the bounds and the lookup.
UNIT_TESTS += tests/plan/test_plan
check_PROGRAMS += tests/plan/test_plan
tests_plan_test_plan_SOURCES = tests/plan/test_plan.c
tests_plan_test_plan_CFLAGS = $(AM_CFLAGS) $(CMOCKA_CFLAGS)
tests_plan_test_plan_LDADD = libplan.la libcommon.la $(CMOCKA_LIBS)
tests_plan_test_plan_CPPFLAGS = $(AM_CPPFLAGS) \
	-DLAGOM_PLANS_DIR='"$(abs_top_srcdir)/tests/tuner/plans"'

