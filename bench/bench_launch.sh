#!/usr/bin/env bash
# bench/bench_launch.sh - launch overhead of lagom.so on the local cluster.
#
# Starts one cluster (tests/lib/cluster.sh), then times `srun -N3 true`
# (and the same with --gres=gpu:4 --lagom=auto, which plans once in srun,
# with and without comment=no) with lagom in plugstack.conf against an
# empty plugstack.conf and against a plugin that does nothing
# (bench/spank_null.c: what any SPANK plugin costs), interleaved,
# LAGOM_BENCH_RUNS times each.  Prints
# the medians, their ratios and differences.  It asserts nothing about
# speed.  Root only (it starts the daemons).  On one host, slurmctld,
# slurmdbd and MariaDB share the CPUs with the step, so the job comment's
# two round trips cost launch time here even though no task waits for them.
#
#   make bench-launch            # from the build tree
#   LAGOM_BENCH_RUNS=100 make bench-launch
#   LAGOM_BENCH_ARGS=comment=no make bench-launch   # extra plugstack args
#   LAGOM_BENCH_BEFORE=/tmp/old/lagom.so make bench-launch
#       # also --lagom=auto with another lagom.so (an earlier build), in
#       # the same interleaved runs: a before/after comparison
#   contrib/slurm-release.sh 24.11 bench   # on another Slurm release
#       # (doc/slurm-releases.md "The launch bench per release")
#
# A timed srun that fails is named on stderr and listed at the end with its
# exit status and srun's message (bench/launch_lib.sh); the bench then
# exits 1 (its time is in the medians).
set -u
top_srcdir=${top_srcdir:-$(cd "$(dirname "$0")/.." && pwd)}
top_builddir=${top_builddir:-.}
. "$top_srcdir/tests/lib/tap.sh"
. "$top_srcdir/tests/lib/cluster.sh"
. "$top_srcdir/bench/launch_lib.sh"

runs=${LAGOM_BENCH_RUNS:-40}
if reason=$(cluster_skip_reason); then
	echo "bench_launch: skipped: $reason"
	exit 0
fi
LAGOM_PLUGIN=${LAGOM_PLUGIN:-$top_builddir/spank/.libs/lagom.so}
[ -f "$LAGOM_PLUGIN" ] || { echo "bench_launch: $LAGOM_PLUGIN not built" >&2; exit 1; }

null_so=
if command -v "${CC:-cc}" >/dev/null 2>&1; then
	null_so=$(mktemp /tmp/lagom-null.XXXXXX.so)
	"${CC:-cc}" -shared -fPIC -o "$null_so" "$top_srcdir/bench/spank_null.c" 2>/dev/null || {
		rm -f "$null_so"
		null_so=
	}
fi
# against this release's slurm/spank.h: Slurm 24.11 and newer load only
# plugins built for their own release
[ -n "$null_so" ] ||
	echo "bench_launch: bench/spank_null.c did not compile with ${CC:-cc}: no null-plugin rows" >&2

trap 'cluster_stop; [ -z "$null_so" ] || rm -f "$null_so"' EXIT
cluster_start || { echo "bench_launch: cluster did not start" >&2; exit 1; }
fixture=$top_srcdir/tests/profile/valid/a100-full.json
[ -f "$fixture" ] && cluster_profiles "$fixture"
# the cluster digest, as lagom-prolog keeps it on a cluster where it runs as
# the Prolog (doc/consistency.md "Cluster digest"); LAGOM_BENCH_DIGEST=no:
# srun reads every node's profile instead
digest=no
if [ "${LAGOM_BENCH_DIGEST:-yes}" != no ] && [ -x "$top_builddir/lagom-prolog" ] &&
	"$top_builddir/lagom-prolog" --digest -d "$CLUSTER_DIR/profiles" >/dev/null 2>&1; then
	digest=yes
fi
args="profile_dir=$CLUSTER_DIR/profiles topology_conf=$CLUSTER_DIR/etc/topology.conf tuner=none ${LAGOM_BENCH_ARGS:-}"
cd "$CLUSTER_DIR/work" || exit 1

for f in failed without with gres auto nocomment null before query gres_sleep auto_sleep; do
	: >"$CLUSTER_DIR/$f"
done
before=${LAGOM_BENCH_BEFORE:-}
[ -z "$before" ] || [ -f "$before" ] || { echo "bench_launch: $before not found" >&2; exit 1; }
auto=(srun -N3 --gres=gpu:4 --lagom=auto --lagom-workload=phi-2:fsdp true)
# one_run NAME: set the plugstack.conf of configuration NAME, time its srun
one_run() {
	case $1 in
	without) : >"$CLUSTER_DIR/etc/plugstack.conf"; time_us srun -N3 true ;;
	gres) : >"$CLUSTER_DIR/etc/plugstack.conf"; time_us srun -N3 --gres=gpu:4 true ;;
	null) echo "required $null_so" >"$CLUSTER_DIR/etc/plugstack.conf"; time_us srun -N3 true ;;
	with) cluster_plugstack $args; time_us srun -N3 true ;;
	auto) cluster_plugstack $args; time_us "${auto[@]}" ;;
	nocomment) cluster_plugstack $args comment=no; time_us "${auto[@]}" ;;
	query) cluster_plugstack $args step_query=always; time_us "${auto[@]}" ;;
	before) echo "required $before $args" >"$CLUSTER_DIR/etc/plugstack.conf"; time_us "${auto[@]}" ;;
	gres_sleep) : >"$CLUSTER_DIR/etc/plugstack.conf"; time_us srun -N3 --gres=gpu:4 sleep 0.05 ;;
	auto_sleep) cluster_plugstack $args; time_us "${auto[@]:0:5}" sleep 0.05 ;;
	esac
}
configs="without gres with auto nocomment query gres_sleep auto_sleep"
[ -z "$null_so" ] || configs="$configs null"
[ -z "$before" ] || configs="$configs before"
# Every iteration runs each configuration once, in a new random order
# (slurmctld, slurmdbd and MariaDB finish a job's accounting while the
# next srun starts: a fixed order would charge that to one configuration).
for ((i = 0; i < runs + 3; i++)); do
	for c in $(printf '%s\n' $configs | shuf); do
		t=$(one_run "$c")
		[ "$i" -lt 3 ] || echo "$t" >>"$CLUSTER_DIR/$c" # 3 warm-ups
	done
done
m0=$(median <"$CLUSTER_DIR/without")
m1=$(median <"$CLUSTER_DIR/with")
m2=$(median <"$CLUSTER_DIR/auto")
mg=$(median <"$CLUSTER_DIR/gres")
m3=$(median <"$CLUSTER_DIR/nocomment")
mq=$(median <"$CLUSTER_DIR/query")
mn=$(median <"$CLUSTER_DIR/null")
me=$(median <"$CLUSTER_DIR/before")
echo "bench_launch: $(srun --version 2>/dev/null || echo 'slurm ?'): srun -N3 true, median of $runs runs each (ms); cluster digest: $digest"
echo "  without lagom in plugstack.conf:       $m0"
echo "  a plugin that does nothing:            $mn"
echo "  with lagom loaded (default off):       $m1"
echo "  without lagom, --gres=gpu:4:          $mg"
echo "  with lagom, --gres=gpu:4 --lagom=auto: $m2"
echo "  the same with comment=no:              $m3"
echo "  the same with step_query=always:       $mq"
echo "  a 50 ms step (sleep 0.05), without:    $(median <"$CLUSTER_DIR/gres_sleep")"
echo "  a 50 ms step, --lagom=auto:            $(median <"$CLUSTER_DIR/auto_sleep")"
[ -z "$before" ] || echo "  --lagom=auto with $before: $me"
echo "paired differences, median of the $runs per-run differences:"
paired without with "loaded (off) - without:"
[ -z "$null_so" ] || paired null with "loaded (off) - null plugin:"
[ -z "$null_so" ] || paired without null "null plugin - without:"
paired gres auto "auto - without (both gres):"
paired gres nocomment "auto, comment=no - without:"
paired gres query "auto, step_query=always - without:"
paired gres_sleep auto_sleep "50 ms step: auto - without:"
[ -z "$before" ] || paired gres before "auto, before - without:"
report_failures bench_launch || exit 1
