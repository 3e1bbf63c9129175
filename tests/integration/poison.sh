#!/usr/bin/env bash
# tests/integration/poison.sh - no single user can bend the site's model
# (issue 33), on a real Slurm (the cluster of tests/integration/spank.sh).
#
# Three users run real measured steps (the plugin makes their spool
# directories, owned by them); then, as themselves, they leave records of
# 2-node steps of a table profile of 8 x H100 with 8 x 400 Gb/s:
#   nobody         5 runs, an honest site at 0.8 of the line rate
#   daemon         3 runs of the same site, 3 % slower (a second honest user)
#   lagom-poison   50 fabricated runs claiming an 8x slower network, their
#                  records naming nobody's job id (created with useradd,
#                  removed at the end)
# The issue's case (nobody's 5 against lagom-poison's 50) moves no constant:
# `lagom calibrate` writes nothing and --check names both users who
# disagree.  With the honest majority the calibration is written, its
# line-rate share the honest one, and `lagom plan --nodes 2 --workload
# phi-2:fsdp` with it is the plan of the honest users' calibration alone;
# a fourth user's real step plans with it.  A record outside physical
# bounds (a call of 1 ns) is refused, one line naming its file.
#
# Times come from `lagom predict --calibration` of the honest site's
# constants (no GPU here); the users, directories, ownership, walk and
# fit are real.
. "$top_srcdir/tests/lib/tap.sh"
. "$top_srcdir/tests/lib/cluster.sh"

cluster_need_plugin
profiler=$top_builddir/.libs/libnccl-profiler-lagom.so
profile_fixture=$top_srcdir/tests/profile/valid/a100-full.json
LAGOM=$top_builddir/lagom
for f in "$LAGOM_PLUGIN" "$profiler" "$profile_fixture" "$LAGOM"; do
	[ -f "$f" ] || plan_skip_all "$f not built or missing"
done
for u in nobody daemon; do
	id "$u" >/dev/null 2>&1 || plan_skip_all "no user '$u'"
done
command -v useradd >/dev/null || plan_skip_all "no useradd for the poisoning user"
bad=lagom-poison
made_user=
if ! id "$bad" >/dev/null 2>&1; then
	useradd -r -M -d /nonexistent -s /usr/sbin/nologin "$bad" 2>/dev/null ||
		plan_skip_all "useradd $bad failed"
	made_user=1
fi
poison_stop() {
	cluster_stop
	[ -z "$made_user" ] || userdel "$bad" 2>/dev/null || true
}
cluster_unexport HP_
cluster_setup "$profile_fixture" poison_stop
chmod 0755 "$CLUSTER_DIR"
cluster_spool
cluster_plugstack $CLUSTER_ARGS "measure_dir=$spool profiler=$profiler"
tap_on_fail=dump
value() { grep -o "$1=[^ ]*" "$out" | head -1 | cut -d= -f2-; }
as() { # USER CMD...
	local u=$1
	shift
	run runuser -u "$u" -- env SLURM_CONF="$SLURM_CONF" "$@"
}
HW="--gpu H100-SXM --nic 8x400 --gpus-per-node 8"
T=$CLUSTER_DIR/poison
install -d -m 0755 "$T"

# --- the honest site's times -------------------------------------------------
cat >"$T/truth.json" <<'J'
{"format": "lagom-calibration", "version": 1, "date_unix": 1764201600,
 "classes": 16, "runs": 3,
 "transports": {"ib": {"2": {"classes": 16, "eff": 0.8}}}}
J
: >"$T/classes"
for coll in allreduce allgather; do
	for b in 65536 262144 1048576 4194304 16777216 67108864 268435456 1073741824; do
		"$LAGOM" predict $HW --nodes 2 --collective $coll --bytes $b \
			--algo ring --proto simple --channels 32 \
			--calibration "$T/truth.json" --format json >"$T/p.json" ||
			exit 1
		python3 -c "import json,sys; print(sys.argv[1], sys.argv[2], json.load(open(sys.argv[3]))['prediction']['time_us'])" \
			$coll $b "$T/p.json" >>"$T/classes"
	done
done
chmod 0644 "$T"/*
cat >"$T/gen.py" <<'PY'
# gen.py CLASSES DIR JOB_IN_TEXT RUNS SLOW: RUNS step directories under DIR
# (DIR/9000NN.0), two tasks each, every class's fastest call at SLOW x the
# honest time (task 1 a quarter slower), the record's job field JOB_IN_TEXT
# ("-": the directory's own).
import os, sys
cls, d, job_text, runs, slow = sys.argv[1], sys.argv[2], sys.argv[3], \
    int(sys.argv[4]), float(sys.argv[5])
rows = [l.split() for l in open(cls)]
for i in range(runs):
    job = 900000 + i
    step_dir = "%s/%d.0" % (d, job)
    os.makedirs(step_dir, exist_ok=True)
    for task in (0, 1):
        out = ["lagom-measure 1", "abi 5",
               "job %s step 0 task %d pid %d" % (
                   job if job_text == "-" else job_text, task, 100 + task),
               "plan -", "time 1764200000 1764200060", "comms 1 dropped 0",
               "comm 0000000000001000 ranks 16 nodes 2 rank %d name - "
               "overflow 0 incomplete 0 classes %d" % (task * 8, len(rows))]
        for coll, b, us in rows:
            nccl = int(b) // 16 if coll == "allgather" else int(b)
            ns = round(float(us) * 1000 * slow * (1 + i / 200.0) *
                       (1.25 if task else 1.0))
            out.append("class %s %d ring simple 32 count 20 gpu 20 %d %d %d "
                       "gap 0 0" % (coll, nccl, ns * 22, ns, ns * 13 // 10))
        out += ["period 0 n 0 ns 0", "seq", "end"]
        with open("%s/task-%d.%d.rec" % (step_dir, task, 100 + task),
                  "w") as f:
            f.write("\n".join(out) + "\n")
PY

# --- each user's real step makes their spool, then their records -----------
for u in nobody daemon "$bad"; do
	as "$u" srun -N2 --gres=gpu:4 --chdir=/tmp -J lagom-poison-it \
		--lagom=auto bash -c 'echo SLURM_JOB_ID=$SLURM_JOB_ID'
	job=$(value SLURM_JOB_ID)
	check_that "$u's measured step runs and its spool is its own" \
		'[ "$rc" -eq 0 ] && [ "$(stat -c %U "$spool/'"$u"'/$job.0")" = "$u" ]'
	[ "$u" = nobody ] && honest_job=$job
done
as nobody python3 "$T/gen.py" "$T/classes" "$spool/nobody" - 5 1.0
as daemon python3 "$T/gen.py" "$T/classes" "$spool/daemon" - 3 1.03
as "$bad" python3 "$T/gen.py" "$T/classes" "$spool/$bad" "$honest_job" 50 8.0
n_recs=$(find "$spool" -name '*.rec' | wc -l)
check_that "the users leave their records as themselves (116)" \
	'[ "$n_recs" -eq 116 ] && [ "$(find "$spool/$bad" -name "*.rec" -user "$bad" | wc -l)" -eq 100 ]'

calibrate() { run "$LAGOM" calibrate $HW "$@"; }

# --- the issue's case: one honest user against 50 fabricated runs ----------
calibrate --check --out "$T/two.cal" "$spool/nobody" "$spool/$bad"
sed 's/^/# /' "$err" | grep -v refused | head -12
check_that "nobody's 5 runs against $bad's 50: no class agreed, nothing written" \
	'[ "$rc" -eq 1 ] && [ ! -e "$T/two.cal" ] &&
	grep -q "0 multi-node classes agreed (0 from the trusted account), 16 disputed" "$err"'
check_that "... --check names both users who disagree (two users: nobody can tell who is right)" \
	'grep -q "user nobody (uid [0-9]*) disagrees with the others on 16 classes" "$err" &&
	grep -q "user $bad (uid [0-9]*) disagrees with the others on 16 classes" "$err"'

# --- the honest majority calibrates; the poisoner changes nobody's plan ----
calibrate --out "$T/honest.cal" "$spool/nobody" "$spool/daemon"
check_that "the honest users alone calibrate" '[ "$rc" -eq 0 ] && [ -f "$T/honest.cal" ]'
cal=$CLUSTER_DIR/profiles/lagom-calibration.json
calibrate --check --out "$cal" "$spool"
sed 's/^/# /' "$err" "$out" | grep -v refused | head -30
check_that "the whole spool: 16 classes agreed, the honest line-rate share (0.8)" \
	'[ "$rc" -eq 0 ] && grep -q "16 multi-node classes agreed" "$err" &&
	python3 -c "import json,sys; e=json.load(open(sys.argv[1]))[\"transports\"][\"ib\"][\"2\"][\"eff\"]; sys.exit(0 if abs(e/0.8-1) < 0.05 else 1)" "$cal"'
check_that "... --check names $bad as disagreeing (about 8x), and a most influential user" \
	'grep -q "user $bad (uid [0-9]*) disagrees with the others on 16 classes: their times [6-9]\.[0-9]*x" "$err" &&
	! grep -q "user nobody .*disagrees" "$err" &&
	grep -q "^most influential user: " "$out"'
"$LAGOM" profile synth $HW --node n1 >"$T/p.json"
planline() {
	"$LAGOM" plan --profile "$T/p.json" --nodes 2 --workload phi-2:fsdp \
		--tuner none "$@" | grep '^LAGOM_PLAN:'
}
p_all=$(planline --calibration "$cal")
p_honest=$(planline --calibration "$T/honest.cal")
diag "with the whole spool: $p_all"
diag "honest users alone:   $p_honest"
check_that "lagom plan --nodes 2 --workload phi-2:fsdp: the same plan as the honest users' calibration" \
	'[ -n "$p_all" ] && [ "$p_all" = "$p_honest" ]'

# --- a fourth user's real step plans with it ---------------------------------
chmod 0644 "$cal"
as root srun -N2 --gres=gpu:4 -J other-job --lagom=explain bash -c true
check_that "root's --lagom=explain plans with the calibration" \
	'[ "$rc" -eq 0 ] && grep -q "network constants: calibrated from 16 classes" "$err"'

# --- a record outside physical bounds ------------------------------------
as "$bad" bash -c "mkdir -p '$spool/$bad/1.0' && sed 's/ gpu 20 [0-9]* [0-9]* / gpu 20 22 1 /' '$spool/$bad/900000.0/task-0.100.rec' >'$spool/$bad/1.0/x.rec'"
calibrate --accept --out "$T/again.cal" "$spool"
check_that "a call of 1 ns: the record refused, one line" \
	'[ "$rc" -eq 0 ] && [ "$(grep -c "1.0/x.rec refused: comm 0 class 0: a call of 1 ns, below 1000 ns" "$err")" -eq 1 ] &&
	grep -q "user $bad (uid [0-9]*): 1 records refused: outside physical bounds" "$err"'

plan "$tap_n"
done_testing
