#!/usr/bin/env bash
# tests/integration/spool-trust.sh - issue #25 on a real Slurm: what a user
# may put in their own measurement spool, or on the way to measure_dir,
# never blocks slurmstepd and never redirects what root creates.
#
#   1. A FIFO planted where lagom writes in the user's next step's spool
#      directory (.key.tmp, the name the key writer used to open): the step
#      still starts on every node, its key and predictions are written as
#      regular files, and the FIFO is left alone.  Before the fix,
#      slurmstepd blocked in user_init on every node of the step.
#   2. measure_dir under a directory the user owns: the user swaps a
#      directory on the way for a link to a root-owned decoy.  lagom refuses
#      the spool (one line in the slurmd log) and root creates nothing in
#      the decoy; the step runs unmeasured.  Before the fix, slurmstepd (as
#      root) made a user-owned tree in the decoy.
#
# The user is nobody; every wait is bounded.  On an old plugin
# (LAGOM_TEST_PLUGIN=...), the FIFO is opened for reading after the
# bounded srun so the nodes finish the step, and the test goes on.
. "$top_srcdir/tests/lib/tap.sh"
. "$top_srcdir/tests/lib/cluster.sh"

cluster_need_plugin
profiler=$top_builddir/.libs/libnccl-profiler-lagom.so
profile_fixture=$top_srcdir/tests/profile/valid/a100-full.json
for f in "$LAGOM_PLUGIN" "$profiler" "$profile_fixture"; do
	[ -f "$f" ] || plan_skip_all "$f not built or missing"
done
id nobody >/dev/null 2>&1 || plan_skip_all "no user 'nobody'"
cluster_unexport
cluster_setup "$profile_fixture"
chmod 0755 "$CLUSTER_DIR" # nobody reads the profiles and reaches its spool
cluster_spool
cluster_plugstack $CLUSTER_ARGS measure_dir=$spool profiler=$profiler
tap_on_fail=dump
value() { grep -o "$1=[^ ]*" "$out" | head -1 | cut -d= -f2-; }
show='echo $(hostname) SLURM_JOB_ID=$SLURM_JOB_ID LAGOM_PLAN_ID=$LAGOM_PLAN_ID LAGOM_MEASURE_DIR=$LAGOM_MEASURE_DIR'
as_nobody() { runuser -u nobody -- env SLURM_CONF="$SLURM_CONF" "$@"; }
# a step of nobody's, as run's command (run takes a command, not a function)
step=(runuser -u nobody -- env SLURM_CONF="$SLURM_CONF" srun --chdir=/tmp
	-N3 --gres=gpu:4 --lagom=auto)

# Unblock anything still waiting on FIFO (an old plugin), then wait (at
# most 60 s) until no job is left.
release() {
	local i
	for i in 1 2 3 4 5; do
		[ -p "$1" ] || break
		timeout 3 cat "$1" >/dev/null 2>&1 || true
	done
	for i in $(seq 1 60); do
		[ -z "$(timeout 10 squeue -h -t all -o %i 2>/dev/null |
			grep -v '^$' | head -1)" ] && break
		timeout 10 squeue -h -t CG,R -o %i 2>/dev/null | xargs -r scancel 2>/dev/null
		sleep 1
	done
}

# --- 1. a FIFO in the user's next step's spool directory ------------------
run "${step[@]}" bash -c "$show"
job=$(value SLURM_JOB_ID)
check_that "nobody's first step runs and is measured" \
	'[ "$rc" -eq 0 ] && [ "$(value LAGOM_MEASURE_DIR)" = "$spool/nobody/$job.0" ]'
next=$spool/nobody/$((job + 1)).0
as_nobody mkdir -m 0700 "$next"
as_nobody mkfifo -m 0600 "$next/.key.tmp"
check "nobody planted FIFOs in the next step's directory" [ -p "$next/.key.tmp" ]
run_timeout=40 run "${step[@]}" bash -c "$show"
check_that "the next step starts on all 3 nodes within 40 s (slurmstepd not blocked)" \
	'[ "$rc" -eq 0 ] && [ "$(grep -c LAGOM_PLAN_ID= "$out")" -eq 3 ]'
diag "srun exit status $rc"
[ "$rc" -eq 0 ] || release "$next/.key.tmp"
check_that "its key is a regular file" '[ -f "$next/key" ] && [ ! -L "$next/key" ]'
check "its predictions are a regular file" [ -f "$next/predicted" ]
check "the planted FIFO is left as it was" [ -p "$next/.key.tmp" ]

# --- 2. measure_dir under a user's directory ------------------------------
install -d -o nobody -m 0755 "$CLUSTER_DIR/u"
install -d -m 0755 "$CLUSTER_DIR/u/lagom" "$CLUSTER_DIR/u/lagom/spool" \
	"$CLUSTER_DIR/decoy/spool"
cluster_plugstack $CLUSTER_ARGS measure_dir=$CLUSTER_DIR/u/lagom/spool \
	profiler=$profiler
as_nobody mv "$CLUSTER_DIR/u/lagom" "$CLUSTER_DIR/u/old"
as_nobody ln -s "$CLUSTER_DIR/decoy" "$CLUSTER_DIR/u/lagom"
run "${step[@]}" bash -c "$show"
check "the step runs" [ "$rc" -eq 0 ]
check "... unmeasured (no LAGOM_MEASURE_DIR)" [ -z "$(value LAGOM_MEASURE_DIR)" ]
check "root created nothing in the decoy the user's link led to" \
	[ -z "$(ls -A "$CLUSTER_DIR/decoy/spool")" ]
diag "decoy: $(ls -lR "$CLUSTER_DIR/decoy/spool" | tr '\n' ' ')"
check "the slurmd log says why, naming the user's directory" \
	grep -q "not measured: directory $CLUSTER_DIR/u (holding the measure_dir) is owned by uid $(id -u nobody)" \
	"$CLUSTER_DIR"/log/slurmd.n1.log

plan "$tap_n"
done_testing
