# shellcheck shell=bash
# tests/lib/cluster.sh - start and stop the local Slurm cluster of
# contrib/demo-cluster.sh from a TAP test.  Source after tests/lib/tap.sh.
#
#   reason=$(cluster_skip_reason) && plan_skip_all "$reason"
#   cluster_unexport [PREFIX...]  # the harness's LAGOM_*, NCCL_*... stay out
#   LAGOM_PLUGIN=...; cluster_start  # sets CLUSTER_DIR, exports SLURM_CONF
#                              # (keep LAGOM_PLUGIN unexported: srun would
#                              # pass it into every task's environment)
#   trap cluster_stop EXIT
#   cluster_plugstack ARGS...  # rewrite lagom's plugstack.conf line
#   cluster_profiles FIXTURE   # one trusted profile per node from FIXTURE
# or, for the usual set-up, all but cluster_unexport in one:
#   cluster_setup FIXTURE [CLEANUP]
# and:
#   cluster_fit_workload SRC DEST  # a workload fixture fitted to 3 x 4
#   run CMD...; dump          # a bounded command; its output as comments
#
# One cluster at a time on a machine: cluster_start takes a lock
# (/run/lock or /tmp) that cluster_stop releases.

cluster_script=${top_srcdir:-.}/contrib/demo-cluster.sh

# cluster_need_plugin: skip the whole test, saying why, when no local
# cluster can run here or lagom.so is not built; sets LAGOM_PLUGIN
# (LAGOM_TEST_PLUGIN: another build's lagom.so, e.g. to show that a test
# fails on an older plugin).
cluster_need_plugin() {
	local reason
	if reason=$(cluster_skip_reason); then
		plan_skip_all "$reason"
	fi
	LAGOM_PLUGIN=${LAGOM_TEST_PLUGIN:-$top_builddir/spank/.libs/lagom.so}
	[ -f "$LAGOM_PLUGIN" ] ||
		plan_skip_all "lagom.so not built ($LAGOM_PLUGIN)"
}

# Print why this machine cannot run the cluster (and fail), or nothing.
cluster_skip_reason() {
	local p
	if [ -n "${LAGOM_SANITIZED:-}" ]; then
		echo "sanitizer build: lagom.so cannot load into slurmstepd with ASan"
		return 0
	fi
	if [ -n "${LAGOM_NO_INTEGRATION:-}" ]; then
		echo "integration tests disabled: $LAGOM_NO_INTEGRATION"
		return 0
	fi
	if [ "$(id -u)" -ne 0 ]; then
		echo "not root: the local cluster starts munged, slurmctld and slurmd"
		return 0
	fi
	for p in munged mungekey slurmctld slurmd slurmdbd mariadbd \
		mariadb-install-db sacctmgr srun sbatch sacct unshare flock; do
		if ! PATH=$PATH:/usr/sbin:/sbin command -v "$p" >/dev/null 2>&1; then
			echo "$p not installed (run contrib/install-deps.sh)"
			return 0
		fi
	done
	if ! unshare --uts true 2>/dev/null; then
		echo "cannot create UTS namespaces here (unshare --uts)"
		return 0
	fi
	return 1
}

# cluster_site_lua: the site's job_submit.lua in a new temporary file (its
# path printed): lagom's module, the policy lagom-policy next to
# slurm.conf, checked at every submission (reload_s = 0).  The caller
# removes it.
cluster_site_lua() {
	local site
	site=$(mktemp /tmp/lagom-site-lua.XXXXXX) || return 1
	cat >"$site" <<EOF
local here = string.match(debug.getinfo(1, "S").source, "^@(.*)/[^/]*\$")
local lagom = dofile("$top_srcdir/contrib/slurm/lagom_submit.lua")
lagom.setup{ policy = here .. "/lagom-policy", trusted_uids = { 0 },
	     reload_s = 0 }
function slurm_job_submit(job_desc, part_list, submit_uid)
	lagom.job_submit(job_desc, part_list, submit_uid)
	return slurm.SUCCESS
end
function slurm_job_modify(job_desc, job_rec, part_list, modify_uid)
	return slurm.SUCCESS
end
EOF
	echo "$site"
}

cluster_start() {
	local lockdir=/run/lock
	[ -d "$lockdir" ] || lockdir=/tmp
	exec 8>"$lockdir/lagom-cluster.lock"
	if ! flock -w 600 8; then
		echo "# another lagom cluster held the lock for 10 minutes" >&2
		return 1
	fi
	CLUSTER_DIR=$(mktemp -d /tmp/lagom-cluster.XXXXXX)
	export PATH=$PATH:/usr/sbin:/sbin
	# 8>&-: the daemons must not inherit the lock, or one that outlives
	# its cluster (a test killed by a timeout) holds it for every later run.
	if ! LAGOM_PLUGIN=${LAGOM_PLUGIN:-} bash "$cluster_script" start "$CLUSTER_DIR" >"$CLUSTER_DIR.start.log" 2>&1 8>&-; then
		sed 's/^/# /' "$CLUSTER_DIR.start.log" >&2
		return 1
	fi
	export SLURM_CONF=$CLUSTER_DIR/etc/slurm.conf
}

cluster_stop() {
	[ -n "${CLUSTER_DIR:-}" ] || return 0
	bash "$cluster_script" stop "$CLUSTER_DIR" >/dev/null 2>&1 || true
	if [ -z "${LAGOM_KEEP_CLUSTER:-}" ]; then
		rm -rf "$CLUSTER_DIR" "$CLUSTER_DIR.start.log"
	else
		echo "# cluster state kept in $CLUSTER_DIR" >&2
	fi
	CLUSTER_DIR=
	flock -u 8 2>/dev/null || true
}

# cluster_plugstack ARGS...: lagom's line with these arguments (srun, sbatch
# and slurmstepd reread plugstack.conf at every launch).
cluster_plugstack() {
	echo "required ${LAGOM_PLUGIN:?} $*" >"$CLUSTER_DIR/etc/plugstack.conf"
}

# cluster_profiles FIXTURE: copy FIXTURE as the profile of n1..nN, owned by
# root, mode 0644, in a 0755 directory (what the trust rules accept).
cluster_profiles() {
	local i dir=$CLUSTER_DIR/profiles name
	name=$(sed -n 's/.*"name": *"\([^"]*\)".*/\1/p' "$1" | head -1)
	install -d -m 0755 "$dir"
	for i in $(seq 1 "${LAGOM_CLUSTER_NODES:-3}"); do
		sed "s/\"name\": *\"$name\"/\"name\": \"n$i\"/" "$1" >"$dir/n$i.json"
		chmod 0644 "$dir/n$i.json"
	done
}

# cluster_unexport [PREFIX...]: srun passes the caller's environment on, so
# keep the harness's LAGOM_*, NCCL_*, TORCH_NCCL* and CUDA_DEVICE_MAX*
# variables (and those starting with a PREFIX) out of the tasks: what a
# task has came from lagom.
cluster_unexport() {
	local v re='^(LAGOM_|NCCL_|TORCH_NCCL|CUDA_DEVICE_MAX'
	for v in "$@"; do
		re="$re|$v"
	done
	for v in $(compgen -e | grep -E "$re)"); do
		# shellcheck disable=SC2163 # the variable named by v
		export -n "$v"
	done
}

# cluster_setup FIXTURE [CLEANUP]: the usual test cluster.  CLEANUP (default
# cluster_stop, which it must call) becomes the EXIT trap; the cluster
# starts (or the test bails out); lagom's line gets CLUSTER_ARGS (the
# cluster's profile_dir and topology_conf, tuner=none; add to it with
# cluster_plugstack $CLUSTER_ARGS MORE...); every node gets FIXTURE as its
# profile; the shell moves to $work.  Sets CLUSTER_ARGS, work, out and err
# (for run and dump).
cluster_setup() {
	# shellcheck disable=SC2064 # the function's name, known now
	trap "${2:-cluster_stop}" EXIT
	if ! cluster_start; then
		echo "Bail out! the local cluster did not start"
		exit 1
	fi
	diag "cluster in $CLUSTER_DIR"
	CLUSTER_ARGS="profile_dir=$CLUSTER_DIR/profiles topology_conf=$CLUSTER_DIR/etc/topology.conf tuner=none"
	# shellcheck disable=SC2086 # one word per argument
	cluster_plugstack $CLUSTER_ARGS
	cluster_profiles "$1"
	work=$CLUSTER_DIR/work
	out=$CLUSTER_DIR/out
	err=$CLUSTER_DIR/err
	cd "$work" || exit 1
}

# cluster_fit_workload SRC DEST: the workload fixture SRC (communicators of
# 16 ranks on 2 nodes) as DEST, mode 0644, made to fit the cluster's 3 x 4
# steps (a communicator wider than the step is refused: doc/plan-format.md).
cluster_fit_workload() {
	sed -e 's/"ranks": 16, "nodes": 2/"ranks": 12, "nodes": 3/' \
		-e 's/"ranks_per_node": 8/"ranks_per_node": 4/' "$1" >"$2" &&
		chmod 0644 "$2"
}

# run CMD...: CMD bounded by ${run_timeout:-60} seconds, its stdout in $out,
# its stderr in $err, its exit status in $rc.
# shellcheck disable=SC2034 # rc is the caller's
run() {
	rc=0
	timeout "${run_timeout:-60}" "$@" >"$out" 2>"$err" || rc=$?
}

# dump: the start of the last run's output, as TAP comments.
dump() { sed 's/^/#   /' "$out" "$err" | head -20; }

# cluster_sacct JOB FIELD [WORD] [TRIES]: the job's FIELD (Comment,
# AdminComment, ...) as sacct shows it, read every 0.5 s (at most TRIES
# times, default 20) until it contains WORD, or, without WORD, until it is
# not empty: the job-complete record reaches slurmdbd shortly after the job
# ends.  Prints the last value read.
cluster_sacct() {
	local c='' _
	for _ in $(seq 1 "${4:-20}"); do
		c=$(timeout 10 sacct -X -n -P -j "$1" -o "$2" 2>/dev/null | head -1)
		if [ -n "${3:-}" ]; then
			case $c in *"$3"*) break ;; esac
		elif [ -n "$c" ]; then
			break
		fi
		sleep 0.5
	done
	echo "$c"
}

# cluster_spool: the cluster's measurement spool, $CLUSTER_DIR/spool, made
# root's and 0755 (what measure_dir= accepts); sets spool.  The caller puts
# it on lagom's line (cluster_plugstack ... measure_dir=$spool).
cluster_spool() {
	spool=$CLUSTER_DIR/spool
	install -d -m 0755 "$spool"
}

# cluster_spool_setup [FILE...]: the cluster of the measurement loop's
# tests: skips (saying what is missing) unless lagom.so, the profiler
# plugin, its ABI harness (the tasks' stand-in for NCCL) and every FILE
# are there; keeps the harness's HP_* variables out of the tasks; then
# cluster_setup with the A100 profile fixture, and lagom's line gets a
# spool, $CLUSTER_DIR/spool (0755), and the profiler.  Sets profiler,
# drive (the harness) and spool, and what cluster_setup sets.
cluster_spool_setup() {
	local f fixture=$top_srcdir/tests/profile/valid/a100-full.json
	cluster_need_plugin
	profiler=$top_builddir/.libs/libnccl-profiler-lagom.so
	drive=$top_builddir/tests/profiler/test_profiler_abi
	for f in "$LAGOM_PLUGIN" "$profiler" "$drive" "$fixture" "$@"; do
		[ -f "$f" ] || plan_skip_all "$f not built or missing"
	done
	cluster_unexport HP_
	cluster_setup "$fixture"
	cluster_spool
	# shellcheck disable=SC2086 # one word per argument
	cluster_plugstack $CLUSTER_ARGS "measure_dir=$spool profiler=$profiler"
}
