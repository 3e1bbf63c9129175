# measurement: the formats of what a step measured and what lagom predicted
# for it, shared by the profiler module (which writes records), the SPANK
# plugin (which writes predictions and learns from records), the planner
# (calibration evidence) and `lagom runs`:
#   record.c record_parse.c record_file.c  the measurement record
#                                          (doc/profiler.md)
#   predicted.c                            the "predicted" file
# The profiler module compiles record.c in; its tests are in
# profiler/local.mk.
noinst_LTLIBRARIES += libmeasurement.la
libmeasurement_la_SOURCES = measurement/record.c measurement/record.h \
	measurement/record_parse.c measurement/record_file.c \
	measurement/predicted.c measurement/predicted.h

