# config: the plugstack.conf argument parser, see config/config.h.
# Shared by the SPANK plugin, lagom-prolog and the command-line tool.
noinst_LTLIBRARIES += libconfig.la
libconfig_la_SOURCES = config/config.c config/config.h \
	config/measure.c config/measure.h
libconfig_la_CPPFLAGS = $(AM_CPPFLAGS) \
	-DLAGOM_CONFIG_DEFAULT_TUNER='"$(libdir)/libnccl-tuner-lagom.so"' \
	-DLAGOM_CONFIG_DEFAULT_PROFILER='"$(libdir)/libnccl-profiler-lagom.so"'

UNIT_TESTS += tests/spank/test_config
check_PROGRAMS += tests/spank/test_config
tests_spank_test_config_SOURCES = tests/spank/test_config.c
tests_spank_test_config_CFLAGS = $(AM_CFLAGS) $(CMOCKA_CFLAGS)
tests_spank_test_config_LDADD = libconfig.la libcommon.la $(CMOCKA_LIBS)
