# plugstack: the plugstack.conf argument parser, see plugstack/plugstack.h.
# Shared by the SPANK plugin, lagom-prolog and the command-line tool.
noinst_LTLIBRARIES += libplugstack.la
libplugstack_la_SOURCES = plugstack/plugstack.c plugstack/plugstack.h \
	plugstack/measure.c plugstack/measure.h
libplugstack_la_CPPFLAGS = $(AM_CPPFLAGS) \
	-DLAGOM_CONFIG_DEFAULT_TUNER='"$(libdir)/libnccl-tuner-lagom.so"' \
	-DLAGOM_CONFIG_DEFAULT_PROFILER='"$(libdir)/libnccl-profiler-lagom.so"'

UNIT_TESTS += tests/plugstack/test_plugstack
check_PROGRAMS += tests/plugstack/test_plugstack
tests_plugstack_test_plugstack_SOURCES = tests/plugstack/test_plugstack.c
tests_plugstack_test_plugstack_CFLAGS = $(AM_CFLAGS) $(CMOCKA_CFLAGS)
tests_plugstack_test_plugstack_LDADD = libplugstack.la libcommon.la $(CMOCKA_LIBS)
