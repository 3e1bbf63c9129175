#!/usr/bin/env bash
# tests/integration/calibrate.sh - lagom calibrate on a real Slurm (the
# cluster of tests/integration/spank.sh): two users' measured steps leave
# records in their spools; the admin's `lagom calibrate` reads the whole
# spool and writes the trusted calibration beside the profiles; a third
# user's next step plans with it (`--lagom=explain` and the job comment
# say "calibrated from N classes of M runs, DATE"); a calibration that
# fails the trust rules costs one lagom: line (srun -v, like a refused
# digest) and the step runs with the built-in constants.
#
# This machine has no GPU: the tasks run lagom's ABI harness
# (tests/profiler/test_profiler_abi --scenario train), which drives the
# profiler plugin as NCCL 2.28 would, with made-up kernel timestamps: the
# calibration is real, its figures say nothing about a network.
. "$top_srcdir/tests/lib/tap.sh"
. "$top_srcdir/tests/lib/cluster.sh"

LAGOM=$top_builddir/lagom
id daemon >/dev/null 2>&1 || plan_skip_all "no user 'daemon' for the third user's step"
cluster_spool_setup "$LAGOM"
tap_on_fail=dump
value() { grep -o "$1=[^ ]*" "$out" | head -1 | cut -d= -f2-; }
comment_of() { timeout 10 squeue -h -t all -j "$1" -o %k; }
harness="HP_LOG=/dev/null HP_RANKS=12 HP_NODES=3 $drive --scenario train 5"
as() { # USER CMD...: run as USER with the cluster's configuration
	local u=$1
	shift
	if [ "$u" = root ]; then
		run "$@"
	else
		run runuser -u "$u" -- env SLURM_CONF="$SLURM_CONF" "$@"
	fi
}

# --- two users' measured steps -----------------------------------------------
for u in root nobody; do
	as "$u" srun -N3 --gres=gpu:4 -J lagom-calibrate-it --lagom=auto \
		bash -c "echo SLURM_JOB_ID=\$SLURM_JOB_ID; $harness"
	check_that "$u's measured step runs and leaves 3 records" \
		'[ "$rc" -eq 0 ] && [ "$(ls "$spool/'"$u"'/$(value SLURM_JOB_ID).0" 2>/dev/null | grep -c "\.rec$")" -eq 3 ]'
done

# --- the admin's calibration, beside the profiles -----------------------------
# (--accept: the harness's made-up times may move a constant beyond the
# bound from the built-in values)
cal=$CLUSTER_DIR/profiles/lagom-calibration.json
run "$LAGOM" calibrate --profile "$CLUSTER_DIR/profiles/n1.json" \
	--accept --out "$cal" "$spool"
sed 's/^/# /' "$err" | head -20
check_that "lagom calibrate reads both users' records (6) and writes the file" \
	'[ "$rc" -eq 0 ] && grep -q "6 records (0 refused)" "$err" && [ -f "$cal" ]'
check_that "... root-owned, mode 0644, 2 runs, nothing user-specific" \
	'[ "$(stat -c "%U %a" "$cal")" = "root 644" ] &&
	python3 -c "import json,sys; d=json.load(open(sys.argv[1])); assert d[\"runs\"] == 2 and d[\"classes\"] > 0, d; assert set(d) == {\"format\",\"version\",\"date_unix\",\"classes\",\"runs\",\"transports\"}" "$cal" &&
	! grep -Eq "root|nobody|lagom-calibrate-it|n[0-9]" "$cal"'
line=$(python3 -c "import json,sys,time; d=json.load(open(sys.argv[1])); print('calibrated from %d classes of %d runs, %s' % (d['classes'], d['runs'], time.strftime('%Y-%m-%d', time.gmtime(d['date_unix']))))" "$cal")

# --- a third user's step plans with it ---------------------------------------
as daemon srun -N3 --gres=gpu:4 -J other-job --lagom=explain bash -c true
check_that "daemon's --lagom=explain says '$line'" \
	'[ "$rc" -eq 0 ] && grep -q "network constants: $line" "$err"'
as daemon srun -N3 --gres=gpu:4 -J other-job --lagom=auto \
	bash -c 'echo SLURM_JOB_ID=$SLURM_JOB_ID'
job=$(value SLURM_JOB_ID)
check_that "daemon's step runs and its comment says '$line'" \
	'[ "$rc" -eq 0 ] && grep -q "; $line" <<<"$(comment_of "$job")"'

# --- a calibration that fails the trust rules: one line, built-in constants ---
chmod 0666 "$cal"
as daemon srun -v -N3 --gres=gpu:4 -J other-job --lagom=auto \
	bash -c 'echo SLURM_JOB_ID=$SLURM_JOB_ID'
job=$(value SLURM_JOB_ID)
check_that "a world-writable calibration: refused with one lagom: line, the step runs uncalibrated" \
	'[ "$rc" -eq 0 ] && [ "$(grep -c "lagom:.*lagom-calibration.json is writable by group or others" "$err")" -eq 1 ] &&
	! grep -q "calibrated from" <<<"$(comment_of "$job")"'

plan "$tap_n"
done_testing
