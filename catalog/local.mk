# catalog: model shapes, the workload-name grammar and the example set that
# drives the no-workload policy (pure core; see catalog/catalog.h).
noinst_LTLIBRARIES += libcatalog.la
libcatalog_la_SOURCES = catalog/catalog.h catalog/catalog.c \
	catalog/workload.c
