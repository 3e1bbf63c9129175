# profile: the node profile format, its strict reader with trust checks and
# the atomic writer (profile/profile.h).  Used by lagom-prolog, the SPANK
# plugin and the CLI.
noinst_LTLIBRARIES += libprofile.la
libprofile_la_SOURCES = profile/profile.h profile/profile.c \
	profile/profile_parse.c profile/profile_emit.c profile/profile_io.c \
	profile/profile_write.c profile/profile_hw.c profile/json_check_int.h \
	profile/json_check.c profile/profile_int.h profile/digest.h \
	profile/digest.c profile/digest_write.c
libprofile_la_CFLAGS = $(AM_CFLAGS) $(JANSSON_CFLAGS)
libprofile_la_LIBADD =

PROFILE_TEST_LIBS = libprofile.la libcatalog.la libmodel.la libcommon.la $(JANSSON_LIBS) -lm

UNIT_TESTS += tests/profile/test_profile tests/profile/test_profile_alloc
check_PROGRAMS += tests/profile/test_profile tests/profile/test_profile_alloc
tests_profile_test_profile_SOURCES = tests/profile/test_profile.c
tests_profile_test_profile_CFLAGS = $(AM_CFLAGS) $(CMOCKA_CFLAGS) \
	$(JANSSON_CFLAGS)
tests_profile_test_profile_LDADD = $(PROFILE_TEST_LIBS) $(CMOCKA_LIBS)
tests_profile_test_profile_alloc_SOURCES = tests/profile/test_profile_alloc.c
tests_profile_test_profile_alloc_CFLAGS = $(AM_CFLAGS) $(CMOCKA_CFLAGS) \
	$(JANSSON_CFLAGS)
tests_profile_test_profile_alloc_LDADD = $(PROFILE_TEST_LIBS) $(CMOCKA_LIBS)
tests_profile_test_profile_alloc_LDFLAGS = $(AM_LDFLAGS) -Wl,--wrap=malloc \
	-Wl,--wrap=calloc -Wl,--wrap=free

# Golden files: tests/profile/valid/*.json must load; each
# tests/profile/invalid/NAME.json must fail with tests/profile/invalid/NAME.msg.
SCRIPT_TESTS += tests/profile/golden.sh tests/profile/trust.sh \
	tests/profile/atomic.sh
check_PROGRAMS += tests/profile/profile_tool
tests_profile_profile_tool_SOURCES = tests/profile/profile_tool.c
tests_profile_profile_tool_CFLAGS = $(AM_CFLAGS) $(JANSSON_CFLAGS)
tests_profile_profile_tool_LDADD = $(PROFILE_TEST_LIBS)
EXTRA_DIST += tests/profile/golden.sh tests/profile/trust.sh \
	tests/profile/atomic.sh tests/profile/valid tests/profile/invalid
