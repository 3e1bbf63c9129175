# measurement: the formats of what a step measured and what lagom predicted
# for it, shared by the profiler module (which writes records), the SPANK
# plugin (which writes predictions and learns from records), the planner
# (calibration evidence) and `lagom runs`:
#   record.c record_parse.c record_file.c  the measurement record
#                                          (doc/profiler.md)
#   predicted.c                            the "predicted" file
#   spool.c                                the spool's layout, order and
#                                          walk
#   learn.c                                the step key and a record's
#                                          meaning to the cost model (pure;
#                                          spank/learn.c reads the spool)
#   arm.c arm_spool.c                      the control arm's evidence: a
#                                          user's steps as tuned/control
#                                          runs (arm_spool.c: the one spool
#                                          adapter), a class's two samples
#   stats.c                                the control arm: which steps
#                                          are controls, the speedup and
#                                          its interval (pure; doc/report.md)
# The profiler module compiles record.c in; its tests are in
# profiler/local.mk.
noinst_LTLIBRARIES += libmeasurement.la
libmeasurement_la_SOURCES = measurement/record.c measurement/record.h \
	measurement/record_parse.c measurement/record_file.c \
	measurement/predicted.c measurement/predicted.h \
	measurement/learn.c measurement/learn.h \
	measurement/spool.c measurement/spool.h \
	measurement/stats.c measurement/stats.h \
	measurement/arm.c measurement/arm.h measurement/arm_spool.c

# The step key and a record's meaning to the model (the record's own tests
# are tests/profiler/test_record.c, in profiler/local.mk).
UNIT_TESTS += tests/measurement/test_learn
check_PROGRAMS += tests/measurement/test_learn
tests_measurement_test_learn_SOURCES = tests/measurement/test_learn.c
tests_measurement_test_learn_CFLAGS = $(AM_CFLAGS) $(CMOCKA_CFLAGS)
tests_measurement_test_learn_LDADD = libmeasurement.la libmodel.la \
	libcommon.la $(CMOCKA_LIBS) -lm

# The spool's order, limits per user, escaped lines, owner (root: chown).
UNIT_TESTS += tests/measurement/test_spool
check_PROGRAMS += tests/measurement/test_spool
tests_measurement_test_spool_SOURCES = tests/measurement/test_spool.c
tests_measurement_test_spool_CFLAGS = $(AM_CFLAGS) $(CMOCKA_CFLAGS)
tests_measurement_test_spool_LDADD = libmeasurement.la libmodel.la \
	libcommon.la $(CMOCKA_LIBS) -lm

# The spool's walk at site scale: 1,000,000 records (hard links of one),
# read and parsed; time and peak memory (make bench).
LAGOM_BENCHES += bench/bench_spool
bench_bench_spool_SOURCES = bench/bench_spool.c
bench_bench_spool_LDADD = libmeasurement.la libmodel.la libcommon.la -lm
# The control arm's statistics: false claims under no difference, power,
# coverage, the control pick (measurement/stats.h).
UNIT_TESTS += tests/measurement/test_stats
check_PROGRAMS += tests/measurement/test_stats
tests_measurement_test_stats_SOURCES = tests/measurement/test_stats.c
tests_measurement_test_stats_CFLAGS = $(AM_CFLAGS) $(CMOCKA_CFLAGS)
tests_measurement_test_stats_LDADD = libmeasurement.la libcommon.la \
	$(CMOCKA_LIBS) -lm

# The predictions file's control-arm lines (measurement/predicted.h).
UNIT_TESTS += tests/measurement/test_predicted
check_PROGRAMS += tests/measurement/test_predicted
tests_measurement_test_predicted_SOURCES = tests/measurement/test_predicted.c
tests_measurement_test_predicted_CFLAGS = $(AM_CFLAGS) $(CMOCKA_CFLAGS)
tests_measurement_test_predicted_LDADD = libmeasurement.la libcommon.la \
	$(CMOCKA_LIBS) -lm
