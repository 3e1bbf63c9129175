# policy: the cost of spreading a job over the spine, the policy decision and
# the placement options (policy/policy.h).  Pure: no I/O (tests/purity.sh).
noinst_LTLIBRARIES += libpolicy.la
libpolicy_la_SOURCES = policy/policy.h policy/cost.c policy/place.c \
	policy/topo_text.c

UNIT_TESTS += tests/policy/test_policy
check_PROGRAMS += tests/policy/test_policy
tests_policy_test_policy_SOURCES = tests/policy/test_policy.c
tests_policy_test_policy_CFLAGS = $(AM_CFLAGS) $(CMOCKA_CFLAGS)
tests_policy_test_policy_LDADD = libpolicy.la libsearch.la \
	libplacement.la libcatalog.la libmodel.la libcommon.la $(CMOCKA_LIBS) -lslurm -lm

EXTRA_DIST += doc/policy-format.md doc/scheduler.md

# The job_submit/lua module and an example site script (doc/scheduler.md).
luamoddir = $(datadir)/lagom
dist_luamod_DATA = contrib/slurm/lagom_submit.lua
EXTRA_DIST += contrib/slurm/job_submit.lua.example

SCRIPT_TESTS += tests/lua/lagom_submit.sh
INTEGRATION_TESTS += tests/integration/scheduler.sh
EXTRA_DIST += tests/lua/lagom_submit.sh tests/lua/test_lagom_submit.lua \
	tests/integration/scheduler.sh bench/bench_submit.sh

# `make bench-submit`: 500 submissions with the module against without
# (root only; starts the local cluster).
bench-submit: lagom$(EXEEXT) spank/lagom.la
	top_srcdir='$(abs_top_srcdir)' top_builddir='$(abs_top_builddir)' \
		$(SHELL) $(top_srcdir)/bench/bench_submit.sh
.PHONY: bench-submit
