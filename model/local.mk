# model: the unified cost model (pure core; see model/model.h).
noinst_LTLIBRARIES += libmodel.la
libmodel_la_SOURCES = model/model.h model/model_fast.h model/model_fit.h \
	model/model_int.h model/names.c \
	model/gpu.c model/coll.c model/nccl.c model/compute.c \
	model/workload.c
libmodel_la_SOURCES += model/fit.c model/netcal_int.h model/net.c model/netcal_data.c \
	model/netfit.c model/netsite.c model/size_band.h
libmodel_la_SOURCES += model/channel.c
# The dense calibration form (issue 33).
libmodel_la_SOURCES += model/netdense.h model/netdense.c

MODEL_TEST_LIBS = libcatalog.la libmodel.la libcommon.la -lm $(CMOCKA_LIBS)

UNIT_TESTS += tests/model/test_model tests/model/test_workloads \
	tests/model/busbw.sh tests/model/contention.sh
check_PROGRAMS += tests/model/test_model tests/model/test_workloads \
	tests/model/busbw_report tests/model/contention_report
tests_model_contention_report_SOURCES = tests/model/contention_report.c \
	tests/model/busbw_rows.c tests/model/busbw_rows.h
tests_model_contention_report_LDADD = $(TRACE_LIBS) libcatalog.la
tests_model_test_model_SOURCES = tests/model/test_model.c
tests_model_test_model_CFLAGS = $(AM_CFLAGS) $(CMOCKA_CFLAGS)
tests_model_test_model_LDADD = $(MODEL_TEST_LIBS)
tests_model_test_workloads_SOURCES = tests/model/test_workloads.c
tests_model_test_workloads_CFLAGS = $(AM_CFLAGS) $(CMOCKA_CFLAGS)
tests_model_test_workloads_LDADD = $(MODEL_TEST_LIBS)
tests_model_busbw_report_SOURCES = tests/model/busbw_report.c \
	tests/model/busbw_rows.c tests/model/busbw_rows.h
tests_model_busbw_report_LDADD = libcatalog.la libmodel.la libcommon.la -lm

UNIT_TESTS += tests/model/test_fit tests/model/test_gpu \
	tests/model/test_bounds tests/model/test_netfit
check_PROGRAMS += tests/model/test_fit tests/model/test_gpu \
	tests/model/test_bounds tests/model/test_netfit
tests_model_test_netfit_SOURCES = tests/model/test_netfit.c
tests_model_test_netfit_CFLAGS = $(AM_CFLAGS) $(CMOCKA_CFLAGS)
tests_model_test_netfit_LDADD = $(MODEL_TEST_LIBS)
tests_model_test_bounds_SOURCES = tests/model/test_bounds.c \
	tests/model/busbw_rows.c tests/model/busbw_rows.h
tests_model_test_bounds_CFLAGS = $(AM_CFLAGS) $(CMOCKA_CFLAGS)
tests_model_test_bounds_LDADD = $(MODEL_TEST_LIBS)
tests_model_test_gpu_SOURCES = tests/model/test_gpu.c
tests_model_test_gpu_CFLAGS = $(AM_CFLAGS) $(CMOCKA_CFLAGS)
tests_model_test_gpu_LDADD = $(MODEL_TEST_LIBS)
tests_model_test_fit_SOURCES = tests/model/test_fit.c
tests_model_test_fit_CFLAGS = $(AM_CFLAGS) $(CMOCKA_CFLAGS)
tests_model_test_fit_LDADD = $(MODEL_TEST_LIBS)

LAGOM_BENCHES += bench/bench_model
bench_bench_model_SOURCES = bench/bench_model.c
bench_bench_model_LDADD = libcatalog.la libmodel.la libcommon.la -lm

EXTRA_DIST += tests/model/busbw.sh tests/model/contention.sh doc/model.md \
	doc/calibration-format.md

# The contention model beside the H200 curves (doc/model.md 4) and its
# physical bounds.
UNIT_TESTS += tests/model/contention_h200.sh tests/model/test_contention
check_PROGRAMS += tests/model/contention_h200 tests/model/test_contention
tests_model_contention_h200_SOURCES = tests/model/contention_h200.c
tests_model_contention_h200_CFLAGS = $(AM_CFLAGS) $(JANSSON_CFLAGS)
tests_model_contention_h200_LDADD = $(PROFILE_TEST_LIBS)
tests_model_test_contention_SOURCES = tests/model/test_contention.c
tests_model_test_contention_CFLAGS = $(AM_CFLAGS) $(CMOCKA_CFLAGS)
tests_model_test_contention_LDADD = $(MODEL_TEST_LIBS)
EXTRA_DIST += tests/model/contention_h200.sh tests/gpu/h100-2026-11-27

UNIT_TESTS += tests/model/test_nocheck
check_PROGRAMS += tests/model/test_nocheck
tests_model_test_nocheck_SOURCES = tests/model/test_nocheck.c
tests_model_test_nocheck_CFLAGS = $(AM_CFLAGS) $(CMOCKA_CFLAGS)
tests_model_test_nocheck_LDADD = $(MODEL_TEST_LIBS)

# A site calibration fitted on records made from the published sweeps
# (tests/model/calib_report.c says how).
UNIT_TESTS += tests/model/calib.sh
check_PROGRAMS += tests/model/calib_report
tests_model_calib_report_SOURCES = tests/model/calib_report.c \
	tests/model/busbw_rows.c tests/model/busbw_rows.h
tests_model_calib_report_LDADD = libplanner.la libprofile.la libmeasurement.la \
	libcatalog.la libmodel.la libcommon.la $(JANSSON_LIBS) -lm
EXTRA_DIST += tests/model/calib.sh

# What one CTA carries, against the A100 CTA sweep (doc/model.md 2.8).
UNIT_TESTS += tests/model/cta_a100.sh
check_PROGRAMS += tests/model/cta_a100
tests_model_cta_a100_SOURCES = tests/model/cta_a100.c
tests_model_cta_a100_LDADD = libmodel.la libcommon.la -lm
EXTRA_DIST += tests/model/cta_a100.sh
# The dense calibration form: constants recovered from synthetic dense
# sweeps, other node counts predicted (model/netdense.c).
UNIT_TESTS += tests/model/test_netdense
check_PROGRAMS += tests/model/test_netdense
tests_model_test_netdense_SOURCES = tests/model/test_netdense.c
tests_model_test_netdense_CFLAGS = $(AM_CFLAGS) $(CMOCKA_CFLAGS)
tests_model_test_netdense_LDADD = $(MODEL_TEST_LIBS)

# The dense form on the published node-count sweeps it did not fit
# (tests/model/dense_report.c says how).
UNIT_TESTS += tests/model/dense.sh
check_PROGRAMS += tests/model/dense_report
tests_model_dense_report_SOURCES = tests/model/dense_report.c
tests_model_dense_report_LDADD = libmodel.la libcommon.la -lm
EXTRA_DIST += tests/model/dense.sh
