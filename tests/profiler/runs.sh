#!/bin/sh
# `lagom runs` on records the built profiler plugin wrote while the ABI
# harness drove it as NCCL 2.28 would (tests/profiler/test_profiler_abi
# --scenario train): the step, its plan id, the measured GPU time per class
# as the harness's timestamps give it, the iteration, the predictions the
# SPANK plugin leaves; and hostile spool content refused with one line.
. "$top_srcdir/tests/lib/tap.sh"
. "$top_srcdir/tests/cli/lib.sh"

drive="$top_builddir/tests/profiler/test_profiler_abi"
[ -x "$drive" ] || plan_skip_all "$drive not built"
[ -n "$LAGOM_SANITIZED" ] && plan_skip_all "sanitizer build: the harness dlopen()s an ASan module"
me=$(id -un)
step="$TMP/spool/$me/4242.0"
mkdir -p "$step" && chmod 700 "$TMP/spool/$me" "$step"

plan 12

run_step() {
	env LAGOM_MEASURE_DIR="$1" SLURM_JOB_ID=4242 SLURM_STEP_ID=0 \
		SLURM_PROCID="$2" LAGOM_PLAN_ID=3f2a9c0d11e4b7a5 HP_LOG=/dev/null \
		"$drive" --scenario train 5
}
if run_step "$step" 0 && run_step "$step" 1; then
	ok "the harness drove the plugin for two tasks"
else
	not_ok "the harness failed"
fi
cat >"$step/predicted" <<'P'
lagom-predicted 1
plan 3f2a9c0d11e4b7a5
iteration_ns 1000000
class allreduce 0 2097152 16 2 95000
end
P

run_lagom "$TMP/out" "$TMP/err" runs --spool "$TMP/spool"
check "lists the step: exit 0, no message" [ "$rc" -eq 0 ] && [ ! -s "$TMP/err" ]
check "text names the step, plan and tasks" \
	grep -q '^step 4242.0 (job 4242 step 0): plan 3f2a9c0d11e4b7a5, tuned yes, 2 task(s), iteration' "$TMP/out"
# 100000 ns + 7 channels x 50 ns skew: 100.35 us per all-reduce
check "measured all-reduce time from the kernel-channel timestamps, and its prediction" \
	grep -Eq '^  pg:tp +allreduce +1048576 +ring +simple +8 +40 +100\.3 +95\.0 ' "$TMP/out"

run_lagom "$TMP/json" "$TMP/err" runs --spool "$TMP/spool" --format json
check "JSON: one step, tuned, 2 tasks" jtrue "$TMP/json" \
	'len(d["steps"]) == 1 and d["steps"][0]["tuned"] and d["steps"][0]["tasks"] == 2'
check "JSON: send class measured 50 us, four classes on pg:dp__x__" jtrue "$TMP/json" \
	'[c["measured_us"] for c in d["steps"][0]["classes"] if c["op"] == "send"] == [50.0] and len([c for c in d["steps"][0]["classes"] if c["comm"] == "pg:dp__x__"]) == 4'
check "JSON: iteration of 4 collectives (the longest period)" jtrue "$TMP/json" \
	'd["steps"][0]["iteration_collectives"] == 4 and d["steps"][0]["iteration_ms"] > 0'

# hostile content: a corrupt record, a symbolic link, a huge file
good=$(ls "$step"/task-0.*.rec)
sed 's/^abi 5$/abi 9/' "$good" >"$step/task-7.1.rec"
ln -s "$good" "$step/task-8.1.rec"
head -c 1100000 /dev/zero | tr '\0' 'x' >"$step/task-9.1.rec"
run_lagom "$TMP/out" "$TMP/err" runs --spool "$TMP/spool"
check "three refused records: exit 1" [ "$rc" -eq 1 ]
check "one lagom: line per refused record" \
	sh -c "[ \$(grep -c '^lagom: runs: refused' '$TMP/err') -eq 3 ] && [ \$(wc -l <'$TMP/err') -eq 3 ]"
check "the good records are still listed" grep -q '2 task(s).*3 record(s) refused' "$TMP/out"

# predictions of another plan are not shown
sed -i 's/^plan 3f2a9c0d11e4b7a5$/plan 0000000000000001/' "$step/predicted"
run_lagom "$TMP/out" "$TMP/err" runs "$step"
check "predictions of another plan are ignored" \
	grep -Eq '^  pg:tp +allreduce +1048576 +ring +simple +8 +40 +100\.3 +- ' "$TMP/out"

run_lagom "$TMP/out" "$TMP/err" runs --spool "$TMP/spool" --user nobody
check "another user's spool: no steps" grep -q "^no measured steps under $TMP/spool/nobody" "$TMP/out"
done_testing
