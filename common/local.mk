noinst_LTLIBRARIES += libcommon.la
libcommon_la_SOURCES = common/error.c common/error.h \
	common/hash.c common/hash.h common/nccl_names.c common/nccl_names.h \
	common/nccl_abi.h \
	common/escape.c common/escape.h common/io.c common/io.h \
	common/trusted_dir.c common/trusted_dir.h common/text.c common/text.h \
	common/json_keys.c common/json_keys.h
libcommon_la_CFLAGS = $(AM_CFLAGS) $(JANSSON_CFLAGS)

UNIT_TESTS += tests/common/test_error
check_PROGRAMS += tests/common/test_error
tests_common_test_error_SOURCES = tests/common/test_error.c
tests_common_test_error_CFLAGS = $(AM_CFLAGS) $(CMOCKA_CFLAGS)
tests_common_test_error_LDADD = libcommon.la $(CMOCKA_LIBS)

UNIT_TESTS += tests/common/test_io
check_PROGRAMS += tests/common/test_io
tests_common_test_io_SOURCES = tests/common/test_io.c
tests_common_test_io_CFLAGS = $(AM_CFLAGS) $(CMOCKA_CFLAGS)
tests_common_test_io_LDADD = libcommon.la $(CMOCKA_LIBS)
# read(2) wrapped: EINTR and short reads on demand
tests_common_test_io_LDFLAGS = -Wl,--wrap=read

UNIT_TESTS += tests/common/test_hash
check_PROGRAMS += tests/common/test_hash
tests_common_test_hash_SOURCES = tests/common/test_hash.c
tests_common_test_hash_CFLAGS = $(AM_CFLAGS) $(CMOCKA_CFLAGS)
tests_common_test_hash_LDADD = libcommon.la $(CMOCKA_LIBS)

UNIT_TESTS += tests/common/test_trusted_dir
check_PROGRAMS += tests/common/test_trusted_dir
tests_common_test_trusted_dir_SOURCES = tests/common/test_trusted_dir.c
tests_common_test_trusted_dir_CFLAGS = $(AM_CFLAGS) $(CMOCKA_CFLAGS)
tests_common_test_trusted_dir_LDADD = libcommon.la $(CMOCKA_LIBS)

UNIT_TESTS += tests/common/test_text
check_PROGRAMS += tests/common/test_text
tests_common_test_text_SOURCES = tests/common/test_text.c
tests_common_test_text_CFLAGS = $(AM_CFLAGS) $(CMOCKA_CFLAGS)
tests_common_test_text_LDADD = libcommon.la $(CMOCKA_LIBS)

UNIT_TESTS += tests/common/test_json_keys
check_PROGRAMS += tests/common/test_json_keys
tests_common_test_json_keys_SOURCES = tests/common/test_json_keys.c
tests_common_test_json_keys_CFLAGS = $(AM_CFLAGS) $(CMOCKA_CFLAGS) \
	$(JANSSON_CFLAGS)
tests_common_test_json_keys_LDADD = libcommon.la $(CMOCKA_LIBS) $(JANSSON_LIBS)
