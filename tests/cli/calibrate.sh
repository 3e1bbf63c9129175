#!/bin/sh
# lagom calibrate end to end: a site whose network is slower than the
# built-in model (its own constants, written as a calibration file by
# hand: 0.70 of the line rate, 40 us per network step on 2 nodes) runs
# allreduce and allgather at eight sizes; `lagom predict --calibration`
# with those constants gives the times its profiler would record.  The
# records (doc/profiler.md's format, two tasks and three steps, one of
# them contended) go through `lagom calibrate`, which must recover the
# constants and make `lagom predict --calibration` match the measured
# times; hostile inputs (a symbolic link, a FIFO, a corrupt record) are
# refused one by one, a linked step directory is not followed, and a bad
# calibration file is refused whole.  Every record lies in directories
# this test's user owns: one user, so its runs count only as the trusted
# calibration account's (--trusted-user); against a last calibration of
# 0.4 of the line rate the fitted 0.7 moves more than the bound, so a run
# without --accept writes nothing and says which constant.
. "${top_srcdir:-.}/tests/lib/tap.sh"
. "${top_srcdir:-.}/tests/cli/lib.sh"

plan 16
HW="--gpu H100-SXM --nic 8x400"
cat >"$TMP/truth.json" <<'J'
{"format": "lagom-calibration", "version": 1, "date_unix": 1764201600,
 "classes": 16, "runs": 3,
 "transports": {"ib": {"2": {"classes": 16, "eff": 0.7, "step_us": 40}}}}
J
SIZES="65536 262144 1048576 4194304 16777216 67108864 268435456 1073741824"
: >"$TMP/classes"
for coll in allreduce allgather; do
	for b in $SIZES; do
		"$LAGOM" predict $HW --nodes 2 --collective $coll --bytes $b \
			--algo ring --proto simple --channels 32 \
			--calibration "$TMP/truth.json" --format json \
			>"$TMP/p.json" || exit 1
		echo "$coll $b $(jget "$TMP/p.json" "d['prediction']['time_us']")" \
			>>"$TMP/classes"
	done
done
mkdir -p "$TMP/spool/alice/100.0" "$TMP/spool/bob/101.0" "$TMP/spool/bob/102.0"
python3 - "$TMP" <<'PY'
import sys
tmp = sys.argv[1]
rows = [l.split() for l in open(tmp + "/classes")]
def record(path, job, task, slow):
    out = ["lagom-measure 1", "abi 5",
           "job %d step 0 task %d pid %d" % (job, task, 100 + task),
           "plan -", "time 1764200000 1764200060", "comms 1 dropped 0",
           "comm 0000000000001000 ranks 16 nodes 2 rank %d name - "
           "overflow 0 incomplete 0 classes %d" % (task * 15, len(rows))]
    for coll, b, us in rows:
        nccl_bytes = int(b) // 16 if coll == "allgather" else int(b)
        ns = round(float(us) * 1000 * slow)
        out.append("class %s %d ring simple 32 count 20 gpu 20 %d %d %d "
                   "gap 0 0" % (coll, nccl_bytes, ns * 22, ns, ns * 13 // 10))
    out += ["period 0 n 0 ns 0", "seq", "end"]
    open(path, "w").write("\n".join(out) + "\n")
for job, user, slow in ((100, "alice", 1.0), (101, "bob", 1.0),
                        (102, "bob", 1.4)):
    for task in (0, 1):
        record("%s/spool/%s/%d.0/task-%d.%d.rec" % (tmp, user, job, task,
               100 + task), job, task, slow * (1.25 if task else 1.0))
PY
ln -s "$TMP/spool/alice/100.0/task-0.100.rec" "$TMP/spool/alice/100.0/link.rec"
mkfifo "$TMP/spool/alice/100.0/fifo.rec"
ln -s "$TMP/spool/alice/100.0" "$TMP/spool/bob/103.0" # not followed
printf 'lagom-measure 1\nabi 9\n' >"$TMP/spool/bob/101.0/bad.rec"

run_lagom "$TMP/out" "$TMP/err" calibrate $HW --out "$TMP/site.json" \
	"$TMP/spool"
[ $rc -eq 1 ] && [ ! -e "$TMP/site.json" ] &&
	grep -q '0 multi-node classes agreed (0 from the trusted account), 0 disputed.*16 of fewer than 2 users' "$TMP/err" &&
	grep -q 'calibrate: no multi-node class to fit' "$TMP/err" &&
	ok "calibrate: one user's runs alone move no constant" ||
	not_ok "calibrate: one user: exit $rc: $(grep -v refused "$TMP/err")"
sed 's/"eff": 0.7/"eff": 0.4/' "$TMP/truth.json" >"$TMP/last.json"
run_lagom "$TMP/out" "$TMP/err" calibrate $HW --trusted-user "$(id -u)" \
	--last "$TMP/last.json" --out "$TMP/site.json" "$TMP/spool"
[ $rc -eq 1 ] && [ ! -e "$TMP/site.json" ] &&
	grep -q 'constants move more than a factor 1.5 from the last calibration: ib 2 eff 0.4 -> 0.7, ' "$TMP/err" &&
	grep -q 'not written: check the influence (--check), then --accept' "$TMP/err" &&
	ok "calibrate: a move beyond the bound is not written without --accept" ||
	not_ok "calibrate: bound: exit $rc: $(grep -v refused "$TMP/err")"
printf '# lagom\nrequired /usr/lib/slurm/lagom.so profile_dir=/x calibration_user=%s\n' \
	"$(id -un)" >"$TMP/plugstack.conf"
run_lagom "$TMP/out" "$TMP/err" calibrate $HW --plugstack "$TMP/plugstack.conf" \
	--accept --last "$TMP/last.json" --out "$TMP/pl.json" "$TMP/spool"
[ $rc -eq 0 ] && grep -q '16 multi-node classes agreed (16 from the trusted account)' "$TMP/err" &&
	ok "calibrate: the calibration account from plugstack.conf's calibration_user=" ||
	not_ok "calibrate --plugstack: exit $rc: $(grep -v refused "$TMP/err")"
expect_status 2 "calibrate: an unreadable --plugstack is refused" \
	calibrate $HW --plugstack "$TMP/no-such.conf" "$TMP/spool"
run_lagom "$TMP/out" "$TMP/err" calibrate $HW --check --accept \
	--last "$TMP/last.json" --trusted-user "$(id -u)" \
	--out "$TMP/site.json" "$TMP/spool"
sed 's/^/# /' "$TMP/err" "$TMP/out"
[ $rc -eq 0 ] && ok "calibrate: exit 0 on the spool" ||
	not_ok "calibrate: exit $rc"
refused=$(grep -c 'refused:' "$TMP/err")
[ "$refused" -eq 3 ] && ok "calibrate: link, FIFO and corrupt record refused one by one" ||
	not_ok "calibrate: $refused refusals, expected 3"
grep -q '6 records (3 refused)' "$TMP/err" &&
	grep -q '1 users, 16 classes: 16 multi-node classes agreed (16 from the trusted account)' "$TMP/err" &&
	ok "calibrate: 6 records, 16 classes of 3 runs (a linked step directory not followed)" ||
	not_ok "calibrate: counts wrong"
jtrue "$TMP/site.json" "abs(d['transports']['ib']['2']['eff'] - 0.7) < 0.014" &&
	ok "calibrate: line-rate share recovered ($(jget "$TMP/site.json" "d['transports']['ib']['2']['eff']"), true 0.70)" ||
	not_ok "calibrate: eff $(jget "$TMP/site.json" "d['transports']['ib']['2']")"
jtrue "$TMP/site.json" "len([k for k in ('step_us', 'mn_step_us') if k in d['transports']['ib']['2']]) == 1" &&
	ok "calibrate: one latency constant moved (a ring on 2 nodes cannot tell the network step from the proxy's)" ||
	not_ok "calibrate: latency constants $(jget "$TMP/site.json" "d['transports']['ib']['2']")"
grep -q 'kept: the data do not determine it' "$TMP/err" &&
	ok "calibrate: says which constants the data do not determine" ||
	not_ok "calibrate: no 'kept' line"
"$LAGOM" predict $HW --nodes 2 --collective allreduce --bytes 16777216 \
	--algo ring --proto simple --channels 32 --calibration "$TMP/site.json" \
	--format json >"$TMP/p.json"
want=$(grep '^allreduce 16777216 ' "$TMP/classes" | cut -d' ' -f3)
jtrue "$TMP/p.json" "abs(d['prediction']['time_us'] / $want - 1) < 0.02" &&
	ok "predict --calibration: 16 MiB allreduce within 2 % of measured ($want us)" ||
	not_ok "predict --calibration: $(jget "$TMP/p.json" "d['prediction']['time_us']") vs $want"
grep -q 'leave-one-class-out' "$TMP/out" &&
	ok "calibrate --check: leave-one-class-out table" ||
	not_ok "calibrate --check: no table"
printf '{"format": "lagom-calibration", "version": 1, "date_unix": 0, "classes": 1, "runs": 1, "transports": {"ib": {"2": {"classes": 1, "eff": 1.5}}}}' >"$TMP/bad.json"
expect_status 1 "predict: a constant out of range is refused" \
	predict $HW --nodes 2 --collective allreduce --bytes 1M \
	--calibration "$TMP/bad.json"

# srun's planning: the profile directory's calibration, read like the
# digest (trust rules), named in the plan's summary and explanation.
mkdir "$TMP/prof"
for n in n1 n2; do
	"$LAGOM" profile synth $HW --gpus-per-node 8 --node $n >"$TMP/prof/$n.json"
done
cp "$TMP/site.json" "$TMP/prof/lagom-calibration.json"
chmod 755 "$TMP/prof"
chmod 644 "$TMP/prof"/*
PLAN="plan --profile $TMP/prof --nodelist n[1-2] --workload llama-3-70b:tp4,fsdp --tuner none"
"$LAGOM" $PLAN --trusted-uid "$(id -u)" >"$TMP/plan.txt" 2>"$TMP/err"
grep -q '^summary: .*; calibrated from 16 classes of 3 runs, ' "$TMP/plan.txt" &&
	grep -q '^network constants: calibrated from 16 classes of 3 runs' "$TMP/plan.txt" &&
	ok "plan: the profile directory's calibration is used and named" ||
	not_ok "plan: no calibration line: $(grep -E 'summary|network' "$TMP/plan.txt")"
calibrated=$(sed -n 's/^predicted iteration: \([0-9.]*\) ms.*/\1/p' "$TMP/plan.txt")
chmod 666 "$TMP/prof/lagom-calibration.json"
"$LAGOM" $PLAN --trusted-uid "$(id -u)" >"$TMP/plan.txt" 2>"$TMP/err"
builtin=$(sed -n 's/^predicted iteration: \([0-9.]*\) ms.*/\1/p' "$TMP/plan.txt")
grep -q 'lagom-calibration.json is writable by group or others.*built-in network constants' "$TMP/err" &&
	! grep -q calibrated "$TMP/plan.txt" &&
	ok "plan: a world-writable calibration is refused with one line, the plan made without it" ||
	not_ok "plan: writable calibration: $(cat "$TMP/err")"
python3 -c "import sys; sys.exit(0 if float('$calibrated') > float('$builtin') * 1.05 else 1)" &&
	ok "plan: the slower site's calibration predicts a slower iteration ($calibrated ms against $builtin ms)" ||
	not_ok "plan: calibrated $calibrated ms, built-in $builtin ms"
done_testing
