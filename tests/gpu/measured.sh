#!/bin/sh
# tests/gpu/measured.sh - what the GPU check kit's first run measured
# (an H200, 2026-11-26; tests/gpu/h200-2026-11-26/README.md) and what lagom
# makes of it: the profiles pass `lagom profile check`; their contention
# curves are measured, never below 1 (contention never speeds a kernel up)
# and rise with the CTAs within noise; `lagom runs` on the records shows the
# tuner's choices reached NCCL (2 tasks, all-reduces <= 1 MiB ring/simple on
# 2 channels, all-gathers ring on 1, >= 20 calls each); `lagom plan` with
# the profile on 1 and 2 nodes.  Each check on the data is also run on a
# copy spoiled the way it must catch, and must fail there.
. "$top_srcdir/tests/lib/tap.sh"

command -v jq >/dev/null 2>&1 || plan_skip_all "jq not installed (the checks read lagom's JSON with it)"
[ -x "$top_builddir/lagom" ] || plan_skip_all "lagom not built"
fix=$top_srcdir/tests/gpu/h200-2026-11-26
lagom=$top_builddir/lagom
model=$top_builddir/tests/gpu/contention_model
TMP=$(mktemp -d "${TMPDIR:-/tmp}/lagom-measured.XXXXXX") || exit 1
trap 'rm -rf "$TMP"' EXIT

plan 22

# curve_ok FILE: the profile's contention curve is measured, has 18
# points, none below 1, and per chunk rises with the CTAs: no point more
# than 0.03 (the two runs differ by up to 0.024 at one point) below the
# one before, and 32 CTAs at least 0.2 above 1 CTA.
curve_ok() {
	jq -e '.measurements.contention as $c
		| $c.source == "measured" and ($c.points | length) == 18
		and all($c.points[]; .slowdown >= 1)
		and all($c.points | group_by(.chunk_bytes)[] | sort_by(.ctas);
			. as $p | ($p[-1].ctas == 32 and $p[0].ctas == 1)
			and ($p[-1].slowdown - $p[0].slowdown >= 0.2)
			and all(range(1; $p | length);
				$p[.].slowdown >= $p[. - 1].slowdown - 0.03))' \
		"$1" >/dev/null
}

for f in profile_long profile; do
	out=$("$lagom" profile check --no-trust "$fix/$f.json" 2>&1)
	rc=$?
	tap_on_fail="echo $out"
	check_that "$f.json passes lagom profile check" \
		'[ $rc -eq 0 ] && echo "$out" | grep -q " ok  *gpu0  *H200-SXM-141GB  *1 "'
	check_that "$f.json: measured curve, >= 1, rising in CTAs within noise" 'curve_ok "$fix/$f.json"'
	tap_on_fail=
done
# The same checks must fail on what they are there to catch.
jq '.measurements.contention.points[3].slowdown = 0.97' "$fix/profile_long.json" >"$TMP/below1.json"
jq '.measurements.contention.points[4].slowdown = 1.05' "$fix/profile_long.json" >"$TMP/dip.json"
jq '.measurements.contention.source = "table"' "$fix/profile_long.json" >"$TMP/table.json"
jq '.measurements.contention.points |= map(.slowdown = 1.1)' "$fix/profile_long.json" >"$TMP/flat.json"
check_that "the curve check refuses a point below 1, a dip, a table curve, a flat curve" \
	'! curve_ok "$TMP/below1.json" && ! curve_ok "$TMP/dip.json" && ! curve_ok "$TMP/table.json" && ! curve_ok "$TMP/flat.json"'

# The model beside the curve (doc/model.md 4.2): it reads, fits, prints.
if [ -x "$model" ]; then
	"$model" "$fix/profile_long.json" >"$TMP/model.txt" 2>&1
	rc=$?
	tap_on_fail="cat $TMP/model.txt"
	check_that "contention_model: 18 rows, the model never below 1" \
		'[ $rc -eq 0 ] && [ "$(awk "NF == 6 && \$1 ~ /^[0-9]+\$/" "$TMP/model.txt" | wc -l)" -eq 18 ] &&
		 awk "NF == 6 && \$1 ~ /^[0-9]+\$/ && (\$4 < 1 || \$5 < \$4 || \$6 < 1) { bad = 1 } END { exit bad }" "$TMP/model.txt"'
	check_that "contention_model: the fit's line" 'grep -q "^fit ok sm=" "$TMP/model.txt"'
	tap_on_fail=
else
	skip "tests/gpu/contention_model not built"
	skip "tests/gpu/contention_model not built"
fi

# runs_ok STEP_DIR: lagom runs reads 2 tasks; every all-reduce <= 1 MiB on
# ring/simple over 2 channels, every all-gather on ring over 1, >= 20
# calls per task each; 6 classes of each op.
runs_ok() {
	"$lagom" runs --format json "$1" >"$TMP/runs.json" 2>"$TMP/runs.err" &&
		[ ! -s "$TMP/runs.err" ] &&
		jq -e '.steps | length == 1 and (.[0] as $s
			| $s.tasks == 2 and $s.tuned and $s.plan == "8c909ef4dea75e90"
			and ([$s.classes[] | select(.op == "allreduce")] | length) == 6
			and ([$s.classes[] | select(.op == "allgather")] | length) == 6
			and all($s.classes[] | select(.op == "allreduce" and .bytes <= 1048576);
				.algo == "ring" and .proto == "simple" and .channels == 2)
			and all($s.classes[] | select(.op == "allgather");
				.algo == "ring" and .channels == 1)
			and all($s.classes[]; .tasks == 2 and .calls / .tasks >= 20
				and .gpu_samples == .calls and .measured_us > 0))' \
			"$TMP/runs.json" >/dev/null
}

# The records as the spool holds them: owner-only directory and files.
step=$TMP/spool/1.0
mkdir -p "$step" && cp "$fix"/records/1.0/*.rec "$step/" && chmod 700 "$TMP/spool" "$step" && chmod 600 "$step"/*.rec
tap_on_fail="cat $TMP/runs.err $TMP/runs.json"
check_that "lagom runs: 2 tasks, the plan's choices, >= 20 calls per class" 'runs_ok "$step"'
tap_on_fail=
check_that "lagom runs text: 12 classes of 22 calls per task" \
	'[ "$("$lagom" runs "$step" | awk "\$2 ~ /^all/ && \$7 == 22" | wc -l)" -eq 12 ]'
spoil() { # spoil NAME SED: a copy of the step with one record changed
	mkdir -p "$TMP/$1/1.0" && cp "$step"/*.rec "$TMP/$1/1.0/" &&
		chmod 700 "$TMP/$1" "$TMP/$1/1.0" &&
		sed -i "$2" "$TMP/$1/1.0/task-0.604.rec"
}
spoil ag4 's/^class allgather 131072 ring simple 1 /class allgather 131072 ring simple 4 /'
spoil artree 's/^class allreduce 262144 ring simple 2 /class allreduce 262144 tree simple 2 /'
spoil few 's/^class allreduce 65536 ring simple 2 count 22 gpu 22 /class allreduce 65536 ring simple 2 count 12 gpu 12 /'
spoil one 's/^x//' && rm -f "$TMP/one/1.0/task-1.605.rec"
check_that "the runs check refuses 4 channels, a tree all-reduce, 12 calls, one task" \
	'! runs_ok "$TMP/ag4/1.0" && ! runs_ok "$TMP/artree/1.0" && ! runs_ok "$TMP/few/1.0" && ! runs_ok "$TMP/one/1.0"'
check_that "(the spoiled records are still read: the refusals are the check's)" \
	'"$lagom" runs "$TMP/ag4/1.0" | grep -q "allgather *131072 *ring *simple *4 "'

# lagom plan with the measured profile.  1 node: one GPU, nothing to tune.
"$lagom" plan --profile "$fix/profile_long.json" --nodes 1 --format json >"$TMP/p1.json" 2>"$TMP/p1.err"
check_that "plan, 1 node: exit 0, no message" '[ $? -eq 0 ] && [ ! -s "$TMP/p1.err" ]'
check_that "plan, 1 node: falls back (a single GPU), NCCL left alone" \
	'jq -e ".fell_back and (.fallback_reason | test(\"single GPU\")) and (.plan_text | test(\";env tuner=0 \"))" "$TMP/p1.json" >/dev/null'
# 2 nodes: the VM's NIC reported no link speed (nic_link_bw_Bps 0), so the
# model has no network: a named workload is refused with one line, and
# without one NCCL is left alone (tuner=0).
"$lagom" plan --profile "$fix/profile_long.json" --nodes 2 --workload gpt2-xl:dp >"$TMP/p2w.out" 2>"$TMP/p2w.err"
rc=$?
check_that "plan, 2 nodes, gpt2-xl:dp: refused with one lagom: line (no NIC)" \
	'[ $rc -ne 0 ] && [ "$(wc -l <"$TMP/p2w.err")" -eq 1 ] && grep -q "^lagom: .*no NIC" "$TMP/p2w.err"'
"$lagom" plan --profile "$fix/profile_long.json" --nodes 2 --format json >"$TMP/p2.json" 2>"$TMP/p2.err"
rc=$?
check_that "plan, 2 nodes, no workload: exit 0, NCCL left alone (tuner=0)" \
	'[ $rc -eq 0 ] && jq -e ".plan_text | test(\"ranks=2 nodes=2;env tuner=0 \")" "$TMP/p2.json" >/dev/null'
check_that "plan, 2 nodes, no workload: falls back, saying why (no catalog workload can be priced)" \
	'jq -e ".fell_back and (.fallback_reason | test(\"no catalog workload\"))" "$TMP/p2.json" >/dev/null'
# With a 100 Gb/s NIC stated (measurements.nic_bw, outside the hardware
# section and its fingerprint): the measured GEMM, HBM and contention
# curve in a real 2-node plan.
jq '.measurements.nic_bw = {"value": 12.5e9, "unit": "B/s", "source": "table"}' \
	"$fix/profile_long.json" >"$TMP/nic.json"
"$lagom" plan --profile "$TMP/nic.json" --nodes 2 --workload gpt2-xl:dp --format json >"$TMP/p2n.json" 2>"$TMP/p2n.err"
rc=$?
tap_on_fail="cat $TMP/p2n.err"
check_that "plan, 2 nodes with a NIC, gpt2-xl:dp: exit 0, tuned, no message" \
	'[ $rc -eq 0 ] && [ ! -s "$TMP/p2n.err" ] && jq -e "(.fell_back | not) and (.plan_text | test(\";env tuner=1 \"))" "$TMP/p2n.json" >/dev/null'
tap_on_fail="jq -c .predicted,.hardware $TMP/p2n.json"
check_that "plan, 2 nodes with a NIC: the measured H200 in it (888 TFLOP/s bf16, 4194 GB/s)" \
	'jq -e ".hardware | .gpu == \"H200\" and (.bf16_tflops | floor) == 887 and (.hbm_GBps | floor) == 4193 and .nic_Gbps == 100" "$TMP/p2n.json" >/dev/null'
check_that "plan, 2 nodes with a NIC: iteration 1 ms..100 s, never above NCCL's default" \
	'jq -e ".predicted | .iteration_ms > 1 and .iteration_ms < 1e5 and .iteration_ms <= .nccl_default_ms and .speedup_vs_nccl >= 1" "$TMP/p2n.json" >/dev/null'
tap_on_fail=
# The same figures checks refuse the figures of the plan without a NIC.
check_that "(the figures check refuses 0.000 ms figures)" \
	'! jq -e ".predicted | .iteration_ms > 1 and .iteration_ms < 1e5" "$TMP/p2.json" >/dev/null'
# And the kit's own summary says what the fixtures hold.
check_that "summary.txt: H200, driver 580.159.04, NCCL 2.28.9 took both plugins at v5" \
	'grep -q "^NVIDIA H200, 580.159.04," "$fix/summary.txt" && grep -q "TUNER/Plugin: Using lagom (v5)" "$fix/summary.txt" && grep -q "PROFILER/Plugin: Loaded lagom (v5)" "$fix/summary.txt"'
check_that "summary.txt: NCCL's TUNING lines show 2 channels for all-reduce, 1 for all-gather" \
	'[ "$(grep -c "AllReduce: .* Algo RING proto SIMPLE channel{Lo..Hi}={0..1}" "$fix/summary.txt")" -eq 6 ] && [ "$(grep -c "AllGather: .* Algo RING proto SIMPLE channel{Lo..Hi}={0..0}" "$fix/summary.txt")" -eq 6 ]'
done_testing
