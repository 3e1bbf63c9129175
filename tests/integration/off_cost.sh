#!/usr/bin/env bash
# tests/integration/off_cost.sh - what lagom does in srun, seen through
# strace on a real Slurm (doc/consistency.md "Cost"): loaded with lagom off
# for the step, srun opens none of lagom's files and makes no more
# connections to slurmctld than without lagom; with --lagom=auto on a step
# whose options name its GPUs, srun reads the profiles (here: the cluster
# digest) but still asks slurmctld nothing more; with step_query=always it
# asks once more.
. "$top_srcdir/tests/lib/tap.sh"
. "$top_srcdir/tests/lib/cluster.sh"

cluster_need_plugin
command -v strace >/dev/null 2>&1 || plan_skip_all "strace not installed"
profile_fixture=$top_srcdir/tests/profile/valid/a100-full.json
[ -f "$profile_fixture" ] || plan_skip_all "no profile fixture ($profile_fixture)"
prolog_bin=$top_builddir/lagom-prolog
[ -x "$prolog_bin" ] || plan_skip_all "lagom-prolog not built ($prolog_bin)"

cluster_unexport SLURM_
cluster_setup "$profile_fixture"
"$prolog_bin" --digest -d "$CLUSTER_DIR/profiles" >/dev/null 2>&1 ||
	diag "no cluster digest: srun reads the profiles"
port=$(sed -n 's/^SlurmctldPort=//p' "$SLURM_CONF")
[ -n "$port" ] || {
	echo "Bail out! no SlurmctldPort in $SLURM_CONF"
	exit 1
}
trace=$CLUSTER_DIR/strace.out
run_timeout=60

# traced CMD...: CMD under strace (srun's threads too, not its children's
# execs), its system calls in $trace
traced() {
	run strace -f -qq -e trace=openat,open,connect,stat,newfstatat,access,faccessat -o "$trace" "$@"
}
# ctld: connections srun made to slurmctld; lagom_files: opens of
# anything in the profile directory or topology.conf
ctld() { grep -c "connect(.*sin_port=htons($port)" "$trace"; }
lagom_files() { grep -c "\(open\|stat\|access\).*\(/profiles\|lagom-cluster.digest\|topology.conf\|\"profiles\"\)" "$trace"; }

: >"$CLUSTER_DIR/etc/plugstack.conf"
traced srun -N3 --gres=gpu:4 true
base_rc=$rc
base=$(ctld)
base_files=$(lagom_files)
diag "without lagom: srun connected to slurmctld $base times"
check_that "without lagom: the step ran (rc $base_rc)" '[ "$base_rc" -eq 0 ] && [ "$base" -gt 0 ]'

cluster_plugstack $CLUSTER_ARGS
traced srun -N3 --gres=gpu:4 true
off=$(ctld)
check_that "lagom loaded, off: the step ran (rc $rc)" '[ "$rc" -eq 0 ]'
check_that "... srun touched none of lagom's files ($(lagom_files) opens, $base_files without lagom)" \
	'[ "$(lagom_files)" -eq "$base_files" ]'
check_that "... and asked slurmctld nothing more ($off connections, $base without lagom)" '[ "$off" -eq "$base" ]'

traced srun -v -N3 --gres=gpu:4 --lagom=auto --lagom-workload=phi-2:fsdp true
auto=$(ctld)
check_that "--lagom=auto, --gres=gpu:4: planned (rc $rc)" \
	'[ "$rc" -eq 0 ] && grep -q "lagom: job .*auto plan .*from srun.s options" "$err"'
check_that "... srun read the hardware ($(lagom_files) opens in the profile directory)" \
	'[ "$(lagom_files)" -gt "$base_files" ]'
check_that "... and asked slurmctld nothing more ($auto connections, $base without lagom)" '[ "$auto" -eq "$base" ]'

cluster_plugstack $CLUSTER_ARGS step_query=always
traced srun -v -N3 --gres=gpu:4 --lagom=auto --lagom-workload=phi-2:fsdp true
always=$(ctld)
check_that "step_query=always: one more question ($always connections, $base without lagom)" \
	'[ "$rc" -eq 0 ] && [ "$always" -eq $((base + 1)) ]'

plan "$tap_n"
done_testing
