# shellcheck shell=bash
# bench/launch_lib.sh - what the launch benches share (bench_launch.sh,
# bench_nodes.sh, bench_soak.sh): a timed, bounded srun whose failure is
# kept with srun's own message, medians, and paired differences.
# Source after tests/lib/cluster.sh; CLUSTER_DIR is the running cluster;
# failed runs go to $bench_failed (default $CLUSTER_DIR/failed).
#
#   t=$(time_us CMD...)       # microseconds; a failure goes to
#                             # $CLUSTER_DIR/failed with its message
#   median <FILE              # of microseconds, printed in ms
#   paired X Y LABEL          # Y - X per run: median and its 95 % CI
#   report_failures           # every failed run with srun's message; 1 if any

# time_us CMD...: wall-clock microseconds of one run bounded by 60 s
# (after a pause of LAGOM_BENCH_SETTLE seconds, default 0, untimed: the job
# before completes in slurmctld, slurmdbd and MariaDB meanwhile, which
# would otherwise land on whichever run comes next).  A run that fails is
# named on stderr and appended to $bench_failed as
# "rc=N CMD" followed by its stderr (srun's message), indented; with
# $bench_messages set, what a run that succeeded printed on stderr goes
# there the same way.
time_us() {
	local t0 t1 rc=0 msg
	sleep "${LAGOM_BENCH_SETTLE:-0}"
	msg=$(mktemp "$CLUSTER_DIR/run-err.XXXXXX")
	t0=$(date +%s%N)
	timeout 60 "$@" >/dev/null 2>"$msg" || rc=$?
	t1=$(date +%s%N)
	# lagom's own lines at verbose (srun: lagom: ...) are no message here
	if [ "$rc" -eq 0 ] && [ -n "${bench_messages:-}" ] &&
		grep -qv '^srun: lagom: ' "$msg"; then
		{
			echo "rc=0 $*"
			grep -v '^srun: lagom: ' "$msg" | head -20 | sed 's/^/    | /'
		} >>"$bench_messages"
	fi
	if [ "$rc" -ne 0 ]; then
		echo "bench: '$*' failed (rc $rc): $(head -c 300 "$msg" | tr '\n' ' ')" >&2
		{
			echo "rc=$rc $*"
			[ "$rc" -ne 124 ] || echo "    (killed after 60 s)"
			head -20 "$msg" | sed 's/^/    | /'
		} >>"${bench_failed:-$CLUSTER_DIR/failed}"
	fi
	rm -f "$msg"
	echo $(((t1 - t0) / 1000))
}

# median <FILE: the median of microseconds, in ms with one decimal
median() { sort -n | awk '{a[NR]=$1} END {if (NR == 0) {print "-"; exit} m=(NR%2)?a[(NR+1)/2]:(a[NR/2]+a[NR/2+1])/2; printf "%.1f", m/1000}'; }

# paired X Y LABEL: the per-iteration difference Y - X (interleaved runs
# share the machine's state at that moment) of the files $CLUSTER_DIR/X and
# $CLUSTER_DIR/Y, its median and a distribution-free 95 % confidence
# interval of that median (order statistics n/2 -/+ 0.98 sqrt(n)), in ms
# and in % of X's median.
paired() {
	local base
	base=$(median <"$CLUSTER_DIR/$1")
	paste "$CLUSTER_DIR/$1" "$CLUSTER_DIR/$2" | awk '{print ($2 - $1) / 1000}' | sort -g |
		awk -v base="$base" -v label="$3" '{d[NR] = $1}
		END {
			n = NR; if (n == 0 || base <= 0) exit
			m = (n % 2) ? d[(n + 1) / 2] : (d[n / 2] + d[n / 2 + 1]) / 2
			k = int(n / 2 - 0.98 * sqrt(n)); if (k < 1) k = 1
			h = n - k + 1
			printf "  %-34s %+6.2f ms (95 %% CI %+.2f .. %+.2f), %+5.1f %% (CI %+.1f .. %+.1f %%)\n",
				label, m, d[k], d[h], 100 * m / base, 100 * d[k] / base, 100 * d[h] / base
		}'
}

# report_failures [WHAT]: every failed run, with srun's message; returns 1
# when there was one (its time is in the figures printed before)
report_failures() {
	local nfail
	local f=${bench_failed:-$CLUSTER_DIR/failed}
	nfail=$(grep -c '^rc=' "$f" 2>/dev/null)
	[ "${nfail:-0}" -gt 0 ] || return 0
	echo "${1:-bench}: $nfail timed runs failed (their times are in the figures above):"
	sed 's/^/  /' "$f"
	return 1
}
