# planner: from a step's layout to its plan; shared by spank/ and cli/
# (see planner/planner.h).
noinst_LTLIBRARIES += libplanner.la
libplanner_la_SOURCES = planner/planner.h planner/planner.c \
	planner/planner_int.h planner/profiles.c planner/hw.c planner/hops.c \
	planner/report_int.h planner/report.c planner/comment_text.h \
	planner/comment_text.c planner/explain.c \
	planner/correct.c planner/calib.h planner/calib.c \
	planner/consensus.h planner/consensus.c
libplanner_la_CFLAGS = $(AM_CFLAGS)
libplanner_la_CPPFLAGS = $(AM_CPPFLAGS) $(SLURM_CPPFLAGS)

UNIT_TESTS += tests/planner/test_planner
check_PROGRAMS += tests/planner/test_planner
tests_planner_test_planner_SOURCES = tests/planner/test_planner.c
tests_planner_test_planner_CFLAGS = $(AM_CFLAGS) $(CMOCKA_CFLAGS)
tests_planner_test_planner_LDADD = libplanner.la libsearch.la \
	libprofile.la libplacement.la libcatalog.la libmodel.la libcommon.la \
	$(CMOCKA_LIBS) $(JANSSON_LIBS) -lslurm -lm

# The job comment's grammar: one table, written and read back.
UNIT_TESTS += tests/planner/test_comment_text
check_PROGRAMS += tests/planner/test_comment_text
tests_planner_test_comment_text_SOURCES = tests/planner/test_comment_text.c
tests_planner_test_comment_text_CFLAGS = $(AM_CFLAGS) $(CMOCKA_CFLAGS)
tests_planner_test_comment_text_LDADD = libplanner.la libcatalog.la \
	libmodel.la libcommon.la $(CMOCKA_LIBS) -lm

# The measured correction (planner/correct.c).
UNIT_TESTS += tests/planner/test_correct
check_PROGRAMS += tests/planner/test_correct
tests_planner_test_correct_SOURCES = tests/planner/test_correct.c
tests_planner_test_correct_CFLAGS = $(AM_CFLAGS) $(CMOCKA_CFLAGS)
tests_planner_test_correct_LDADD = $(tests_planner_test_planner_LDADD)

# Every allocation of the planner fails in turn (link-time wrappers).
UNIT_TESTS += tests/planner/test_planner_oom
check_PROGRAMS += tests/planner/test_planner_oom
tests_planner_test_planner_oom_SOURCES = tests/planner/test_planner_oom.c
tests_planner_test_planner_oom_CFLAGS = $(AM_CFLAGS) $(CMOCKA_CFLAGS)
tests_planner_test_planner_oom_LDFLAGS = -Wl,--wrap=malloc,--wrap=calloc \
	-Wl,--wrap=realloc,--wrap=strdup,--wrap=strndup,--wrap=asprintf
tests_planner_test_planner_oom_LDADD = $(tests_planner_test_planner_LDADD)

# The weakest hardware depends on the nodes' hardware only (names, order).
UNIT_TESTS += tests/planner/test_weakest
check_PROGRAMS += tests/planner/test_weakest
tests_planner_test_weakest_SOURCES = tests/planner/test_weakest.c
tests_planner_test_weakest_CFLAGS = $(AM_CFLAGS) $(CMOCKA_CFLAGS)
tests_planner_test_weakest_LDADD = $(tests_planner_test_planner_LDADD)

# The cluster digest: format, same plan with and without, refusals.
UNIT_TESTS += tests/planner/test_digest
check_PROGRAMS += tests/planner/test_digest
tests_planner_test_digest_SOURCES = tests/planner/test_digest.c
tests_planner_test_digest_CFLAGS = $(AM_CFLAGS) $(CMOCKA_CFLAGS)
tests_planner_test_digest_LDADD = $(tests_planner_test_planner_LDADD)
EXTRA_DIST += tests/profile/digest

# srun's cost to plan one big step (doc/consistency.md): opens, bytes, time.
LAGOM_BENCHES += bench/bench_plan_scale
bench_bench_plan_scale_SOURCES = bench/bench_plan_scale.c
bench_bench_plan_scale_LDFLAGS = -Wl,--wrap=open,--wrap=openat,--wrap=read,--wrap=fstatat
bench_bench_plan_scale_LDADD = $(tests_planner_test_planner_LDADD)

# A re-profiling herd on one digest (doc/profile-format.md "Cluster
# digest"): 1024 prologs at once against 16,384 profiles, srun reading
# meanwhile.  make bench-herd runs it as before lagom_digest_sync_for
# (every writer a full sync) and as lagom-prolog runs it now.
LAGOM_BENCHES += bench/bench_digest_herd
bench_bench_digest_herd_SOURCES = bench/bench_digest_herd.c
bench_bench_digest_herd_LDADD = $(tests_planner_test_planner_LDADD)
bench-herd: bench/bench_digest_herd
	@echo "== bench-herd: every writer a full sync"
	LAGOM_HERD_PLAIN=1 LAGOM_FIXTURES='$(abs_top_srcdir)/tests/fixtures' \
		./bench/bench_digest_herd
	@echo "== bench-herd: lagom_digest_sync_for"
	LAGOM_FIXTURES='$(abs_top_srcdir)/tests/fixtures' \
		./bench/bench_digest_herd
.PHONY: bench-herd

# topology/block decides which of a step's nodes share an NVLink domain.
UNIT_TESTS += tests/planner/test_blocks
check_PROGRAMS += tests/planner/test_blocks
tests_planner_test_blocks_SOURCES = tests/planner/test_blocks.c
tests_planner_test_blocks_CFLAGS = $(AM_CFLAGS) $(CMOCKA_CFLAGS)
tests_planner_test_blocks_LDADD = $(tests_planner_test_planner_LDADD)

# The site calibration file, its evidence and its fit (planner/calib*.c,
# model/netsite.c).
UNIT_TESTS += tests/planner/test_calib
check_PROGRAMS += tests/planner/test_calib
tests_planner_test_calib_SOURCES = tests/planner/test_calib.c
tests_planner_test_calib_CFLAGS = $(AM_CFLAGS) $(CMOCKA_CFLAGS)
tests_planner_test_calib_LDADD = libplanner.la libprofile.la libmeasurement.la \
	libmodel.la libcommon.la $(CMOCKA_LIBS) $(JANSSON_LIBS) -lm

# The site calibration's known error in the deviation gate (issue 33)
UNIT_TESTS += tests/planner/test_calib_gate
check_PROGRAMS += tests/planner/test_calib_gate
tests_planner_test_calib_gate_SOURCES = tests/planner/test_calib_gate.c
tests_planner_test_calib_gate_CFLAGS = $(AM_CFLAGS) $(CMOCKA_CFLAGS)
tests_planner_test_calib_gate_LDADD = libsearch.la libcatalog.la libmodel.la \
	libcommon.la $(CMOCKA_LIBS) -lm

# The users' consensus over records: physical bounds, per-user limits,
# volume against users, the trusted account, the bound on a move
# (planner/consensus.c).
UNIT_TESTS += tests/planner/test_consensus
check_PROGRAMS += tests/planner/test_consensus
tests_planner_test_consensus_SOURCES = tests/planner/test_consensus.c
tests_planner_test_consensus_CFLAGS = $(AM_CFLAGS) $(CMOCKA_CFLAGS)
tests_planner_test_consensus_LDADD = $(tests_planner_test_calib_LDADD)

# `lagom calibrate` over a spool of 1,000,000 records (250 users x 40 steps
# x 100 tasks): wall time and peak memory of the real binary (make bench).
LAGOM_BENCHES += bench/bench_calibrate
bench_bench_calibrate_SOURCES = bench/bench_calibrate.c
