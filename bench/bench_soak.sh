#!/usr/bin/env bash
# bench/bench_soak.sh - no rare failure: many steps with and without
# --lagom=auto on the local cluster, every failure kept with srun's message.
#
# LAGOM_SOAK_STEPS (default 1000) steps of each configuration:
#   without  no lagom in plugstack.conf:  srun -N3 --gres=gpu:4 CMD
#   auto     lagom (comment=yes, the default) and
#            srun -N3 --gres=gpu:4 --lagom=auto --lagom-workload=phi-2:fsdp CMD
# in pairs run in a random order, CMD alternating between `true` and a
# 50 ms step (`sleep 0.05`) from one pair to the next.  The cluster is
# restarted every LAGOM_SOAK_CHUNK pairs (default 250), which releases the
# machine-wide cluster lock between chunks for other tests to take.
# LAGOM_SOAK_NODES (default 3) nodes.  Prints per configuration the steps,
# the failures, the median and slowest step; then every failed step with
# its exit status and srun's message, and what successful steps printed on
# stderr; exits 1 when a step failed.  Root only.
#
#   make bench-soak
#   LAGOM_SOAK_STEPS=100 make bench-soak
#   LAGOM_SOAK_KEEP=DIR   keep the figures and messages in DIR
#   LAGOM_BENCH_ARGS=verbose=2 make bench-soak
#       # also how long node 0 held its first task's exit for the job
#       # comment (lagom's "comment took" lines in n1's slurmd log)
set -u
top_srcdir=${top_srcdir:-$(cd "$(dirname "$0")/.." && pwd)}
top_builddir=${top_builddir:-.}
. "$top_srcdir/tests/lib/tap.sh"
. "$top_srcdir/tests/lib/cluster.sh"
. "$top_srcdir/bench/launch_lib.sh"

steps=${LAGOM_SOAK_STEPS:-1000}
chunk=${LAGOM_SOAK_CHUNK:-250}
nodes=${LAGOM_SOAK_NODES:-3}
for v in "$steps" "$chunk" "$nodes"; do
	case $v in '' | *[!0-9]* | 0*) echo "bench_soak: LAGOM_SOAK_STEPS, _CHUNK and _NODES take positive numbers ('$v')" >&2; exit 1 ;; esac
done
if reason=$(cluster_skip_reason); then
	echo "bench_soak: skipped: $reason"
	exit 0
fi
LAGOM_PLUGIN=${LAGOM_PLUGIN:-$top_builddir/spank/.libs/lagom.so}
[ -f "$LAGOM_PLUGIN" ] || { echo "bench_soak: $LAGOM_PLUGIN not built" >&2; exit 1; }
fixture=$top_srcdir/tests/profile/valid/a100-full.json

soak=${LAGOM_SOAK_KEEP:-$(mktemp -d /tmp/lagom-soak.XXXXXX)}
mkdir -p "$soak" || exit 1
for f in without auto failed.without failed.auto messages comment; do : >"$soak/$f"; done
bench_messages=$soak/messages
[ -n "${LAGOM_SOAK_KEEP:-}" ] || trap 'cluster_stop; rm -rf "$soak"' EXIT
[ -z "${LAGOM_SOAK_KEEP:-}" ] || trap cluster_stop EXIT

# one_run without|auto CMD...: that configuration's step, timed
one_run() {
	local c=$1
	shift
	bench_failed=$soak/failed.$c
	case $c in
	without)
		: >"$CLUSTER_DIR/etc/plugstack.conf"
		time_us srun -N"$nodes" --gres=gpu:4 "$@"
		;;
	auto)
		# shellcheck disable=SC2086 # one word per argument
		cluster_plugstack $args
		time_us srun -N"$nodes" --gres=gpu:4 --lagom=auto --lagom-workload=phi-2:fsdp "$@"
		;;
	esac
}

export LAGOM_CLUSTER_NODES=$nodes
version=
busy_s=0 # in the clusters, without the waits for the lock and the starts
clusters=0
for ((done_pairs = 0; done_pairs < steps; )); do
	cluster_start || { echo "bench_soak: cluster did not start" >&2; exit 1; }
	export -n LAGOM_CLUSTER_NODES # srun hands its environment to the tasks
	clusters=$((clusters + 1))
	[ -n "$version" ] || version=$(srun --version 2>/dev/null || echo 'slurm ?')
	cluster_profiles "$fixture"
	args="profile_dir=$CLUSTER_DIR/profiles topology_conf=$CLUSTER_DIR/etc/topology.conf tuner=none ${LAGOM_BENCH_ARGS:-}"
	cd "$CLUSTER_DIR/work" || exit 1
	t_chunk=$SECONDS
	for ((i = 0; i < chunk && done_pairs < steps; i++, done_pairs++)); do
		if ((done_pairs % 2)); then cmd=(sleep 0.05); else cmd=(true); fi
		for c in $(printf '%s\n' without auto | shuf); do
			echo "$(one_run "$c" "${cmd[@]}")" >>"$soak/$c"
		done
	done
	busy_s=$((busy_s + SECONDS - t_chunk))
	# node 0's comment (plugstack verbose=2, LAGOM_BENCH_ARGS): how long
	# its first task's exit waited for slurmctld to take the comment
	grep -ah "comment took" "$CLUSTER_DIR/log/slurmd.n1.log" >>"$soak/comment" 2>/dev/null
	cd / || exit 1
	cluster_stop
	export LAGOM_CLUSTER_NODES=$nodes
done

# slowest <FILE: the largest of microseconds, in ms
slowest() { sort -n | tail -1 | awk '{printf "%.1f", $1 / 1000}'; }
failed() { grep -c '^rc=' "$soak/failed.$1"; }
echo "bench_soak: $version: $steps steps without lagom and $steps with --lagom=auto, srun -N$nodes --gres=gpu:4, true and sleep 0.05 alternating, in pairs in a random order; $clusters cluster start(s), $busy_s s of steps"
printf '  %-22s %5s steps, %3s failed; median %s ms, slowest %s ms\n' \
	"without lagom:" "$(wc -l <"$soak/without")" "$(failed without)" "$(median <"$soak/without")" "$(slowest <"$soak/without")" \
	"with --lagom=auto:" "$(wc -l <"$soak/auto")" "$(failed auto)" "$(median <"$soak/auto")" "$(slowest <"$soak/auto")"
if [ -s "$soak/comment" ]; then
	sed -n 's/.*comment took \([0-9.]*\) ms, \([0-9.]*\) ms of it after.*/\1 \2/p' "$soak/comment" |
		sort -k2,2g | awk '{t[NR] = $1; h[NR] = $2; if ($1 > tm) tm = $1; if ($2 > 1) n1++}
		END {printf "  node 0 held its first task'"'"'s exit for the comment (verbose=2): median %.1f ms, slowest %.1f ms, %d of %d steps over 1 ms; the round trips took at most %.1f ms\n",
			h[int((NR + 1) / 2)], h[NR], n1, NR, tm}'
fi
rc=0
bench_failed=$soak/failed.without report_failures "bench_soak: without lagom" || rc=1
bench_failed=$soak/failed.auto report_failures "bench_soak: with --lagom=auto" || rc=1
if [ -s "$soak/messages" ]; then
	echo "bench_soak: $(grep -c '^rc=' "$soak/messages") steps that succeeded printed on stderr:"
	sed 's/^/  /' "$soak/messages" | head -60
fi
exit "$rc"
