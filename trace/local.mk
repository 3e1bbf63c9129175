# trace: `lagom workload import` - a streaming Kineto trace reader (yajl,
# zlib) and the analysis that turns traces into a workload and a contention
# table (trace/trace.h, doc/workload-import.md).  Outside the pure core.
noinst_LTLIBRARIES += libtrace.la
libtrace_la_SOURCES = trace/trace.h trace/internal.h trace/emit.h \
	trace/parse.c trace/rules.c trace/build.c trace/contention.c \
	trace/trace.c trace/emit.c
libtrace_la_CFLAGS = $(AM_CFLAGS) $(YAJL_CFLAGS) $(ZLIB_CFLAGS) \
	$(JANSSON_CFLAGS)
TRACE_LIBS = libtrace.la libworkload.la libmodel.la libcommon.la \
	$(YAJL_LIBS) $(ZLIB_LIBS) $(JANSSON_LIBS) -lm

EXTRA_DIST += doc/workload-import.md

# Tests: golden outputs, replay and contention table on the real traces of
# tests/fixtures/traces; hostile inputs built by the test.
SCRIPT_TESTS += tests/trace/import.sh tests/trace/errors.sh
EXTRA_DIST += tests/trace/import.sh tests/trace/errors.sh \
	tests/trace/contention_check.py tests/trace/golden
