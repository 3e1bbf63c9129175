# workload: the JSON workload reader and the rule for "this --workload value
# names a file", shared by the plugin and the CLI (see workload/workload.h).
# jansson; outside the pure core.
noinst_LTLIBRARIES += libworkload.la
libworkload_la_SOURCES = workload/workload.h workload/workload.c \
	workload/file.c
libworkload_la_CFLAGS = $(AM_CFLAGS) $(JANSSON_CFLAGS)

UNIT_TESTS += tests/workload/test_workload_json tests/workload/test_file
check_PROGRAMS += tests/workload/test_workload_json tests/workload/test_file
tests_workload_test_workload_json_SOURCES = tests/workload/test_workload_json.c
tests_workload_test_workload_json_CFLAGS = $(AM_CFLAGS) $(CMOCKA_CFLAGS) \
	$(JANSSON_CFLAGS)
tests_workload_test_workload_json_LDADD = libworkload.la libcatalog.la libmodel.la \
	libcommon.la -lm $(JANSSON_LIBS) $(CMOCKA_LIBS)
tests_workload_test_file_SOURCES = tests/workload/test_file.c
tests_workload_test_file_CFLAGS = $(AM_CFLAGS) $(CMOCKA_CFLAGS)
tests_workload_test_file_LDADD = $(tests_workload_test_workload_json_LDADD)

EXTRA_DIST += tests/workload/data doc/workload-format.md
