# cli: the `lagom` command-line tool (see cli/cli.h, doc/lagom.1,
# doc/cli-json.md).  It runs the planner the SPANK plugin runs.
bin_PROGRAMS += lagom
lagom_SOURCES = cli/main.c cli/cli.h cli/util.c cli/table.c \
	cli/write_atomic.c \
	cli/hw_int.h cli/hw.c cli/cmd_workloads.c cli/cmd_predict.c \
	cli/plan_int.h cli/cmd_plan.c cli/plan_step.c cli/plan_out.c \
	cli/workload_int.h cli/workload_file.c \
	cli/synth_table.c cli/cmd_profile.c \
	cli/cmd_profile_check.c cli/cmd_topo.c \
	cli/cmd_workload.c cli/cmd_workload_show.c \
	cli/svg_int.h cli/plan_curve.c cli/svg.c cli/plan_svg.c \
	cli/policy_int.h cli/place_int.h cli/policy_common.c cli/cmd_policy.c \
	cli/policy_run.c cli/cmd_place.c cli/place_slurm.c \
	cli/cmd_runs.c cli/runs_int.h cli/runs_predicted.c \
	cli/cmd_calibrate.c cli/calib_int.h cli/calib_consensus.c \
	cli/report_int.h cli/cmd_report.c cli/report_spool.c cli/report_html.c
lagom_CFLAGS = $(AM_CFLAGS) $(JANSSON_CFLAGS) $(HWLOC_CFLAGS)
lagom_LDADD = libtrace.la $(YAJL_LIBS) $(ZLIB_LIBS) libpolicy.la \
	libplanner.la libmeasurement.la libsearch.la libprofile.la \
	libworkload.la \
	libtopology.la libplacement.la libcatalog.la libmodel.la \
	libprolog.la libplugstack.la libcommon.la \
	$(JANSSON_LIBS) $(HWLOC_LIBS) -lslurm -lm

dist_man_MANS += doc/lagom.1
EXTRA_DIST += doc/cli-json.md doc/report.md doc/report-demo.png

SCRIPT_TESTS += tests/cli/cli-basic.sh tests/cli/cli-errors.sh \
	tests/cli/plan-svg.sh tests/cli/policy.sh
EXTRA_DIST += tests/cli/cli-basic.sh tests/cli/cli-errors.sh \
	tests/cli/lib.sh tests/cli/plan-svg.sh tests/cli/png_check.py \
	tests/cli/policy.sh doc/plan-example.svg
SCRIPT_TESTS += tests/cli/cli-predict-kernel.sh tests/cli/cli-rack.sh
EXTRA_DIST += tests/cli/cli-predict-kernel.sh tests/cli/cli-rack.sh
# NCCL_CTA_POLICY's gates through `lagom plan` (doc/search.md).
SCRIPT_TESTS += tests/cli/plan-gates.sh
EXTRA_DIST += tests/cli/plan-gates.sh
# lagom calibrate end to end (cli/cmd_calibrate.c).
SCRIPT_TESTS += tests/cli/calibrate.sh
EXTRA_DIST += tests/cli/calibrate.sh
# lagom calibrate on a dense calibration run's records (the dense form).
SCRIPT_TESTS += tests/cli/calibrate_dense.sh
EXTRA_DIST += tests/cli/calibrate_dense.sh
# lagom calibrate on the demo cluster: two users' records, one calibration,
# a third user's step plans with it.
INTEGRATION_TESTS += tests/integration/calibrate.sh
EXTRA_DIST += tests/integration/calibrate.sh
# lagom report (cli/cmd_report.c, doc/report.md): the figures against an
# independent computation, and the HTML page in headless chromium.
SCRIPT_TESTS += tests/cli/report.sh tests/cli/report-chromium.sh
EXTRA_DIST += tests/cli/report.sh tests/cli/report-chromium.sh \
	tests/cli/report_spool.py tests/cli/report_html_check.py
# One user cannot bend the site's model (issue 33): real users' spools.
INTEGRATION_TESTS += tests/integration/poison.sh
EXTRA_DIST += tests/integration/poison.sh
