# policy: the cost of spreading a job over the spine, the policy decision and
# the placement options (policy/policy.h).  Pure: no I/O (tests/purity.sh).
noinst_LTLIBRARIES += libpolicy.la
libpolicy_la_SOURCES = policy/policy.h policy/cost.c policy/place.c \
	policy/topo_text.c

UNIT_TESTS += tests/policy/test_policy
check_PROGRAMS += tests/policy/test_policy
tests_policy_test_policy_SOURCES = tests/policy/test_policy.c
tests_policy_test_policy_CFLAGS = $(AM_CFLAGS) $(CMOCKA_CFLAGS)
tests_policy_test_policy_LDADD = libpolicy.la libsearch.la libmodel.la \
	libcommon.la $(CMOCKA_LIBS) -lm

EXTRA_DIST += doc/policy-format.md doc/scheduler.md
