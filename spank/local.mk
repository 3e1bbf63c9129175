# spank: the SPANK plugin lagom.so (see spank/lagom.h for the layout).
#
# A libtool module installed into Slurm's plugin directory.  Never linked
# with -lslurm nor with --no-undefined: srun, sbatch, salloc and slurmstepd
# export spank_* and slurm_* (libslurmfull.so).  The version script keeps
# every other symbol local.
slurmplugindir = $(slurm_plugindir)
slurmplugin_LTLIBRARIES = spank/lagom.la

# Everything but the planner adapter, so tests/spank/ can drive the
# callbacks with stubs of spank_*, slurm_* and the planner.
noinst_LTLIBRARIES += libspank.la
libspank_la_SOURCES = spank/lagom.h spank/local_int.h spank/remote_int.h \
	spank/lagom.c spank/log.c spank/options.c \
	spank/local.c spank/revert.c spank/remote.c spank/envset.c spank/comment.c \
	spank/step.c spank/step.h spank/srun_planner.h spank/carrier.c \
	spank/carrier_trust.c spank/carrier.h spank/srun_step.c \
	spank/srun_step.h spank/srun_parse.c spank/srun_parse.h \
	spank/step_query.c spank/step_query.h spank/spool.c \
	spank/learn.c spank/pin.c spank/container.c spank/container.h \
	spank/container_mounts.c
libspank_la_CPPFLAGS = $(AM_CPPFLAGS) $(SLURM_CPPFLAGS)

spank_lagom_la_SOURCES = spank/srun_planner.c spank/srun_planner.h
spank_lagom_la_CPPFLAGS = $(AM_CPPFLAGS) $(SLURM_CPPFLAGS)
spank_lagom_la_LDFLAGS = $(AM_LDFLAGS) -module -avoid-version -shared \
	-Wl,--version-script=$(top_srcdir)/spank/lagom.map
# No libtopology.la (hwloc): the planner never reads the local machine, and
# libtool links convenience libraries whole, so it would make srun and
# sbatch load libhwloc and libudev for nothing at every launch.
spank_lagom_la_LIBADD = libspank.la libmeasurement.la libplanner.la libsearch.la \
	libprofile.la libworkload.la libplacement.la libcatalog.la libmodel.la \
	libplugstack.la libcommon.la $(JANSSON_LIBS) -lpthread -lm
EXTRA_spank_lagom_la_DEPENDENCIES = spank/lagom.map
EXTRA_DIST += spank/lagom.map

# Unit tests: the callbacks with a stub SPANK host (tests/spank/stub.c).
UNIT_TESTS += tests/spank/test_spank
check_PROGRAMS += tests/spank/test_spank
tests_spank_test_spank_SOURCES = tests/spank/test_spank.c \
	tests/spank/stub.c tests/spank/stub.h
tests_spank_test_spank_CPPFLAGS = $(AM_CPPFLAGS) $(SLURM_CPPFLAGS)
tests_spank_test_spank_CFLAGS = $(AM_CFLAGS) $(CMOCKA_CFLAGS)
tests_spank_test_spank_LDADD = libspank.la libmeasurement.la libplanner.la \
	libsearch.la libplacement.la libcatalog.la libmodel.la \
	libplugstack.la libcommon.la $(CMOCKA_LIBS) $(JANSSON_LIBS) -lpthread -lm

# The step's plan on its way from srun to the nodes, and the GPU request.
UNIT_TESTS += tests/spank/test_carrier
check_PROGRAMS += tests/spank/test_carrier
tests_spank_test_carrier_SOURCES = tests/spank/test_carrier.c \
	tests/spank/stub.c tests/spank/stub.h
tests_spank_test_carrier_CPPFLAGS = $(AM_CPPFLAGS) $(SLURM_CPPFLAGS)
tests_spank_test_carrier_CFLAGS = $(AM_CFLAGS) $(CMOCKA_CFLAGS)
tests_spank_test_carrier_LDADD = $(tests_spank_test_spank_LDADD)

# srun's request and command line, parsed without Slurm (spank/srun_parse.c).
UNIT_TESTS += tests/spank/test_srun_parse
check_PROGRAMS += tests/spank/test_srun_parse
tests_spank_test_srun_parse_SOURCES = tests/spank/test_srun_parse.c \
	spank/srun_parse.c spank/srun_parse.h
tests_spank_test_srun_parse_CFLAGS = $(AM_CFLAGS) $(CMOCKA_CFLAGS)
tests_spank_test_srun_parse_LDADD = libplacement.la libcommon.la \
	$(CMOCKA_LIBS)

# What a node takes from the plan text (the user's input), against the real
# planner's plans: pure, no Slurm.
UNIT_TESTS += tests/spank/test_trust
check_PROGRAMS += tests/spank/test_trust
tests_spank_test_trust_SOURCES = tests/spank/test_trust.c spank/carrier.c \
	spank/carrier_trust.c spank/carrier.h
tests_spank_test_trust_CFLAGS = $(AM_CFLAGS) $(CMOCKA_CFLAGS)
tests_spank_test_trust_LDADD = libplanner.la libsearch.la libprofile.la \
	libworkload.la libplacement.la libcatalog.la libmodel.la \
	libplugstack.la libcommon.la $(CMOCKA_LIBS) $(JANSSON_LIBS) -lslurm -lm

# A step in Slurm's OCI container: the bundle's mounts, the decision.
UNIT_TESTS += tests/spank/test_container
check_PROGRAMS += tests/spank/test_container
tests_spank_test_container_SOURCES = tests/spank/test_container.c \
	tests/spank/stub.c tests/spank/stub.h
tests_spank_test_container_CPPFLAGS = $(AM_CPPFLAGS) $(SLURM_CPPFLAGS)
tests_spank_test_container_CFLAGS = $(AM_CFLAGS) $(CMOCKA_CFLAGS)
tests_spank_test_container_LDADD = $(tests_spank_test_spank_LDADD)

# Mounts judged as runc makes them: lagom's reader and runc itself on the
# same cases (runc where it runs here).
SCRIPT_TESTS += tests/spank/mounts.sh
check_PROGRAMS += tests/spank/mounts_judge
tests_spank_mounts_judge_SOURCES = tests/spank/mounts_judge.c \
	spank/container_mounts.c
tests_spank_mounts_judge_CPPFLAGS = $(AM_CPPFLAGS) $(SLURM_CPPFLAGS)
tests_spank_mounts_judge_LDADD = $(JANSSON_LIBS)
EXTRA_DIST += tests/spank/mounts.sh tests/spank/mount_cases.txt

# The step's end: the measured figure and the job comment.
UNIT_TESTS += tests/spank/test_measured
check_PROGRAMS += tests/spank/test_measured
tests_spank_test_measured_SOURCES = tests/spank/test_measured.c \
	tests/spank/stub.c tests/spank/stub.h
tests_spank_test_measured_CPPFLAGS = $(AM_CPPFLAGS) $(SLURM_CPPFLAGS)
tests_spank_test_measured_CFLAGS = $(AM_CFLAGS) $(CMOCKA_CFLAGS)
tests_spank_test_measured_LDADD = $(tests_spank_test_spank_LDADD)

# A bounded libFuzzer run of the decoder every node runs (clang only).
SCRIPT_TESTS += tests/spank/fuzz_smoke.sh
EXTRA_DIST += tests/spank/fuzz_smoke.sh tests/fuzz/fuzz_carrier.c \
	tests/fuzz/corpus/carrier

# lagom.so's exported and undefined symbols (a missing one would only show
# as a "symbol lookup error" inside a job step).
SCRIPT_TESTS += tests/spank/symbols.sh
EXTRA_DIST += tests/spank/symbols.sh

# Integration: one script starts one real cluster for every check.
INTEGRATION_TESTS += tests/integration/spank.sh tests/integration/one_plan.sh
EXTRA_DIST += tests/integration/spank.sh tests/integration/one_plan.sh \
	tests/lib/cluster.sh \
	bench/bench_launch.sh bench/spank_null.c bench/launch_lib.sh \
	bench/bench_nodes.sh bench/bench_soak.sh
# The cluster digest written by the prologs, read by srun (real cluster).
INTEGRATION_TESTS += tests/integration/digest.sh
EXTRA_DIST += tests/integration/digest.sh
INTEGRATION_TESTS += tests/integration/step_source.sh tests/integration/off_cost.sh
EXTRA_DIST += tests/integration/step_source.sh tests/integration/off_cost.sh
# The plan carrier is the user's input: what srun sends, what nodes take.
INTEGRATION_TESTS += tests/integration/carrier_trust.sh
EXTRA_DIST += tests/integration/carrier_trust.sh \
	tests/integration/forge_carrier.py
# What srun sends beside the plan reaches the nodes under --export=NONE.
INTEGRATION_TESTS += tests/integration/export_none.sh
EXTRA_DIST += tests/integration/export_none.sh
# A step of 128 nodes of a real Slurm (128 slurmd here), with a probe plugin
# that logs the carrier each node received (issue 34).
INTEGRATION_TESTS += tests/integration/many_nodes.sh
EXTRA_DIST += tests/integration/many_nodes.sh \
	tests/integration/carrier_probe.c
# The short soak: 100 steps with and 100 without --lagom=auto, none fails
# (bench/bench_soak.sh; `make bench-soak` runs 1000 + 1000).
INTEGRATION_TESTS += tests/integration/soak.sh
EXTRA_DIST += tests/integration/soak.sh
dist_man_MANS += doc/lagom-spank.8
EXTRA_DIST += doc/consistency.md

# `make bench-launch`: srun -N3 true with and without lagom (root only).
bench-launch: spank/lagom.la
	top_srcdir='$(abs_top_srcdir)' top_builddir='$(abs_top_builddir)' \
		$(SHELL) $(top_srcdir)/bench/bench_launch.sh
# `make bench-nodes`: a 50 ms step at 4, 16, 64 and 128 nodes, with and
# without --lagom=auto (root only; 128 slurmd on this machine).
bench-nodes: spank/lagom.la
	top_srcdir='$(abs_top_srcdir)' top_builddir='$(abs_top_builddir)' \
		$(SHELL) $(top_srcdir)/bench/bench_nodes.sh
# `make bench-soak`: LAGOM_SOAK_STEPS (1000) steps with and as many without
# --lagom=auto, short and 50 ms, interleaved; every failure with srun's
# message (root only).
bench-soak: spank/lagom.la
	top_srcdir='$(abs_top_srcdir)' top_builddir='$(abs_top_builddir)' \
		$(SHELL) $(top_srcdir)/bench/bench_soak.sh
# `make bench-salloc`: LAGOM_SALLOC_ROUNDS (200) salloc rounds of two steps,
# every hung round's process states and kernel stacks kept (root only).
bench-salloc: spank/lagom.la
	top_srcdir='$(abs_top_srcdir)' top_builddir='$(abs_top_builddir)' \
		$(SHELL) $(top_srcdir)/bench/bench_salloc.sh
EXTRA_DIST += bench/bench_salloc.sh
.PHONY: bench-launch bench-nodes bench-soak bench-salloc
.PHONY: bench-launch
# The control arm on the real cluster (doc/report.md).
INTEGRATION_TESTS += tests/integration/control.sh tests/integration/revert.sh
EXTRA_DIST += tests/integration/control.sh tests/integration/revert.sh

# What reading the user's spool costs srun at each launch (learn.c and
# revert.c on a spool of 1000 measured steps of one class; make bench).
# A white-box driver of spank's internals, so its source is beside
# tests/spank's (tests/purity.sh).
LAGOM_BENCHES += bench/bench_srun_spool
bench_bench_srun_spool_SOURCES = tests/spank/bench_srun_spool.c \
	tests/spank/stub.c tests/spank/stub.h
bench_bench_srun_spool_CPPFLAGS = $(AM_CPPFLAGS) $(SLURM_CPPFLAGS)
bench_bench_srun_spool_LDADD = $(tests_spank_test_spank_LDADD)
