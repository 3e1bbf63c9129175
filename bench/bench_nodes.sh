#!/usr/bin/env bash
# bench/bench_nodes.sh - the launch cost of --lagom=auto per node count, on
# one local cluster of 128 slurmd (contrib/demo-cluster.sh).
#
# For each node count N (LAGOM_BENCH_NODES, default "4 16 64 128"), times a
# 50 ms step, `srun -N N --gres=gpu:4 sleep 0.05`, without lagom in
# plugstack.conf and with `--lagom=auto` (srun plans from the cluster
# digest, as where lagom-prolog is the Prolog), interleaved in a random
# order, LAGOM_BENCH_RUNS times each (default 20, after 2 warm-ups), and
# prints the medians and the paired difference with its 95 % interval.
# It asserts nothing about speed.  On this one host every slurmd and
# slurmstepd shares the CPUs: the time of a step grows with N here for
# Slurm's own reasons (N slurmstepd to start), with or without lagom.
# A failed run is listed at the end with srun's message, and the bench
# exits 1.  Root only.
#
#   make bench-nodes
#   LAGOM_BENCH_NODES="4 128" LAGOM_BENCH_RUNS=40 make bench-nodes
set -u
top_srcdir=${top_srcdir:-$(cd "$(dirname "$0")/.." && pwd)}
top_builddir=${top_builddir:-.}
. "$top_srcdir/tests/lib/tap.sh"
. "$top_srcdir/tests/lib/cluster.sh"
. "$top_srcdir/bench/launch_lib.sh"

runs=${LAGOM_BENCH_RUNS:-20}
counts=${LAGOM_BENCH_NODES:-4 16 64 128}
if reason=$(cluster_skip_reason); then
	echo "bench_nodes: skipped: $reason"
	exit 0
fi
LAGOM_PLUGIN=${LAGOM_PLUGIN:-$top_builddir/spank/.libs/lagom.so}
[ -f "$LAGOM_PLUGIN" ] || { echo "bench_nodes: $LAGOM_PLUGIN not built" >&2; exit 1; }
max=0
for n in $counts; do
	case $n in '' | *[!0-9]* | 0*) echo "bench_nodes: LAGOM_BENCH_NODES: '$n' is not a node count" >&2; exit 1 ;; esac
	[ "$n" -le "$max" ] || max=$n
done

trap cluster_stop EXIT
export LAGOM_CLUSTER_NODES=$max
cluster_start || { echo "bench_nodes: the $max-node cluster did not start" >&2; exit 1; }
export -n LAGOM_CLUSTER_NODES # srun hands its environment to the tasks
cluster_profiles "$top_srcdir/tests/profile/valid/a100-full.json"
digest=no
if [ -x "$top_builddir/lagom-prolog" ] &&
	"$top_builddir/lagom-prolog" --digest -d "$CLUSTER_DIR/profiles" >/dev/null 2>&1; then
	digest=yes
fi
args="profile_dir=$CLUSTER_DIR/profiles topology_conf=$CLUSTER_DIR/etc/topology.conf tuner=none ${LAGOM_BENCH_ARGS:-}"
cd "$CLUSTER_DIR/work" || exit 1

# one_run without|auto N: that configuration's plugstack.conf, its 50 ms step
one_run() {
	case $1 in
	without)
		: >"$CLUSTER_DIR/etc/plugstack.conf"
		time_us srun -N"$2" --gres=gpu:4 sleep 0.05
		;;
	auto)
		# shellcheck disable=SC2086 # one word per argument
		cluster_plugstack $args
		time_us srun -N"$2" --gres=gpu:4 --lagom=auto --lagom-workload=phi-2:fsdp sleep 0.05
		;;
	esac
}

: >"$CLUSTER_DIR/failed"
echo "bench_nodes: $(srun --version 2>/dev/null || echo 'slurm ?'): a 50 ms step (srun -N N --gres=gpu:4 sleep 0.05) on $max local slurmd, $runs paired runs per N; cluster digest: $digest"
printf '  %5s  %12s  %12s  %s\n' nodes "without (ms)" "auto (ms)" "auto - without, paired (median, 95 % CI)"
for n in $counts; do
	: >"$CLUSTER_DIR/without.$n"
	: >"$CLUSTER_DIR/auto.$n"
	for ((i = 0; i < runs + 2; i++)); do
		for c in $(printf '%s\n' without auto | shuf); do
			t=$(one_run "$c" "$n")
			[ "$i" -lt 2 ] || echo "$t" >>"$CLUSTER_DIR/$c.$n" # 2 warm-ups
		done
	done
	printf '  %5s  %12s  %12s %s\n' "$n" "$(median <"$CLUSTER_DIR/without.$n")" \
		"$(median <"$CLUSTER_DIR/auto.$n")" "$(paired "without.$n" "auto.$n" "" | sed 's/^ *//')"
done
report_failures bench_nodes || exit 1
