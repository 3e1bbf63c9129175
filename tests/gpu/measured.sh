#!/bin/sh
# tests/gpu/measured.sh - what the GPU check kit's first run measured
# (an H200, 2026-11-26; tests/gpu/h200-2026-11-26/README.md) and what lagom
# makes of it: the profiles pass `lagom profile check`; their contention
# curves are measured, never below 1 (contention never speeds a kernel up)
# and rise with the CTAs within noise; `lagom runs` on the records shows the
# tuner's choices reached NCCL (2 tasks, all-reduces <= 1 MiB ring/simple on
# 2 channels, all-gathers ring on 1, >= 20 calls each); `lagom plan` with
# the profile on 1 and 2 nodes.  The second run (contention/: the GEMM
# beside real NCCL kernels, bench/nccl_contention.c): the CSV parses, NCCL
# ran the k channels asked (the CSV and NCCL's own TUNING lines), the
# kernels stayed resident, no slowdown below 1, idle and MPS moving rise
# with the CTAs resident, moving (2k CTAs) matches idle at 2k, and the
# idle curve lies within 0.1 of the probe's at the same CTAs; the checks
# prepared for the kit's later CSV (three kernels, the hog) read the first
# run's rows in that layout.  Each check
# on the data is also run on a copy spoiled the way it must catch, and
# must fail there.
. "$top_srcdir/tests/lib/tap.sh"

command -v jq >/dev/null 2>&1 || plan_skip_all "jq not installed (the checks read lagom's JSON with it)"
[ -x "$top_builddir/lagom" ] || plan_skip_all "lagom not built"
fix=$top_srcdir/tests/gpu/h200-2026-11-26
lagom=$top_builddir/lagom
model=$top_builddir/tests/gpu/contention_model
TMP=$(mktemp -d "${TMPDIR:-/tmp}/lagom-measured.XXXXXX") || exit 1
trap 'rm -rf "$TMP"' EXIT

csv=$fix/contention/contention_nccl.csv

plan 38

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
# (rc is taken here: inside check_that, $? is that of its shift.)
"$lagom" plan --profile "$fix/profile_long.json" --nodes 1 --format json >"$TMP/p1.json" 2>"$TMP/p1.err"
rc=$?
check_that "plan, 1 node: exit 0, no message" '[ $rc -eq 0 ] && [ ! -s "$TMP/p1.err" ]'
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

# The second run: bench/nccl_contention on the same H200, plain and under
# MPS (contention/README in h200-2026-11-26/README.md).  Columns: 1 mode,
# 2 k, 3 nccl_channels, 4 algo, 5 proto, 6 alone_ms, 7 idle_ms,
# 8 idle_slowdown, 9 moving_ms, 10 moving_slowdown, 11 after_ms,
# 12 allreduce_calls, 13 allreduce_GBps, 14 held, 15 covered.
hdr=mode,k,nccl_channels,algo,proto,alone_ms,idle_ms,idle_slowdown,moving_ms,moving_slowdown,after_ms,allreduce_calls,allreduce_GBps,held,covered
# ncsv_ok CSV: the header, then one row per mode (plain, mps) and k (1 2 4
# 8 16 32, in order), 15 fields, every figure a positive number.
ncsv_ok() {
	[ "$(head -n 1 "$1")" = "$hdr" ] &&
		awk -F, 'NR == 1 { next }
			{ m = (NR - 2 < 6) ? "plain" : "mps"
			  k = 2 ^ ((NR - 2) % 6)
			  if (NF != 15 || $1 != m || $2 != k) bad = 1
			  for (i = 6; i <= 13; i++)
				if ($i !~ /^[0-9]+(\.[0-9]+)?$/ || $i + 0 <= 0) bad = 1 }
			END { exit bad || NR != 13 }' "$1"
}
# nc_ok CSV: NCCL used exactly k channels, ring/simple, every row.
nc_ok() { awk -F, 'NR > 1 && ($3 != $2 || $4 != "RING" || $5 != "SIMPLE") { bad = 1 } END { exit bad }' "$1"; }
# held_ok CSV: the idle kernel outlived the GEMMs, the loop covered them.
held_ok() { awk -F, 'NR > 1 && ($14 != 1 || $15 != 1) { bad = 1 } END { exit bad }' "$1"; }
# bound_ok CSV: no slowdown below 1 (contention never speeds a kernel up).
bound_ok() { awk -F, 'NR > 1 && ($8 < 1 || $10 < 1) { bad = 1 } END { exit bad }' "$1"; }
# rise_ok CSV: with k, idle_x (both modes) and the MPS move_x never fall
# more than 0.03 below the k before, and rise by at least 0.2 in all.
rise_ok() {
	awk -F, 'function step(key, v) {
			if (key in last && v < last[key] - 0.03) bad = 1
			if (!(key in first)) first[key] = v
			last[key] = v }
		NR > 1 { step($1 " idle", $8); if ($1 == "mps") step("mps moving", $10) }
		END { for (key in first) if (last[key] - first[key] < 0.2) bad = 1
		      exit bad || length(first) != 3 }' "$1"
}
# equal_ok CSV: at equal CTAs resident, the MPS moving slowdown (both
# ranks: 2k CTAs) is within 0.03 of idle (one rank: k CTAs) of either
# mode, where both were measured (k = 1..16 moving, 2..32 idle): 10 pairs.
equal_ok() {
	awk -F, 'NR > 1 { idle[$1, $2] = $8; if ($1 == "mps") mv[$2 * 2] = $10 }
		END { for (c in mv) for (m = 0; m < 2; m++) {
			key = (m ? "mps" : "plain") SUBSEP c
			if (!(key in idle)) continue
			n++; d = mv[c] - idle[key]
			if (d > 0.03 || d < -0.03) bad = 1 }
		      exit bad || n != 10 }' "$1"
}
# probe_ok CSV PROFILE: the idle curve (both modes) within 0.1 of the
# probe's curve at the same CTAs, every chunk: 6 CTA counts x 3 chunks x 2.
probe_ok() {
	jq -r '.measurements.contention.points[] | "\(.ctas) \(.slowdown)"' "$2" >"$TMP/probe.txt" &&
		awk -F, 'FNR == NR { p[++np] = $0; next }
			FNR > 1 { for (i = 1; i <= np; i++) {
				split(p[i], f, " ")
				if (f[1] != $2) continue
				n++; d = $8 - f[2]
				if (d > 0.1 || d < -0.1) bad = 1 } }
			END { exit bad || n != 36 }' "$TMP/probe.txt" "$1"
}
# The kit's CSV since it times three kernels and the hog (doc/gpu-check.md
# step 6): 27 columns, the 15 above first.  kernel_rows CSV KERNEL prints
# the header and rows of KERNEL in the 15 columns above, so that the checks
# above apply to each kernel of a later run; a CSV of the first run's
# layout holds the 8192^3 GEMM alone.
khdr=$hdr,kernel,unit,work,alone_rate,idle_rate,moving_rate,blocks,hog_ms,hog_slowdown,hog_GBps,hog_alone_GBps,hog_covered
kernel_rows() {
	awk -F, -v OFS=, -v want="$2" 'NR == 1 { old = NF == 15 }
		NR == 1 || (old ? want == "gemm_bf16_8192x8192x8192" : $16 == want) {
			NF = 15; print }' "$1"
}
# kcsv_ok CSV: the 27-column header; every row a known kernel, its rates
# its work over its times (within 0.5 %), its hog columns all empty or
# all set with hog_slowdown = hog_ms / alone_ms (within 0.001) and the
# hog's rate positive.
kcsv_ok() {
	[ "$(head -n 1 "$1")" = "$khdr" ] &&
		awk -F, 'function near(a, b) { return a > 0 && b > 0 && (a / b < 1.005 && b / a < 1.005) }
			NR == 1 { next }
			{ if (NF != 27) bad = 1
			  if ($16 ~ /^gemm_bf16_/) { if ($17 != "TFLOP/s") bad = 1; s = 1e12 }
			  else if ($16 == "triad_f32_3x1GiB") { if ($17 != "GB/s" || $22 <= 0) bad = 1; s = 1e9 }
			  else bad = 1
			  if (!near($19, $18 / ($6 * 1e-3) / s) || !near($20, $18 / ($7 * 1e-3) / s) ||
			      !near($21, $18 / ($9 * 1e-3) / s)) bad = 1
			  h = ($23 != "") + ($24 != "") + ($25 != "") + ($26 != "") + ($27 != "")
			  if (h != 0 && h != 5) bad = 1
			  if (h == 5 && ($24 - $23 / $6 > 0.001 || $23 / $6 - $24 > 0.001 || $26 <= 0 || $25 <= 0)) bad = 1
			  n++ }
			END { exit bad || n == 0 }' "$1"
}
check_that "contention_nccl.csv: parses, 6 rows per mode (k 1..32)" 'ncsv_ok "$csv"'
check_that "contention_nccl.csv: NCCL used k channels, ring/simple, every row" 'nc_ok "$csv"'
check_that "contention_nccl.csv: the kernels stayed resident (held, cover)" 'held_ok "$csv"'
check_that "contention_nccl.csv: no slowdown below 1" 'bound_ok "$csv"'
check_that "contention_nccl.csv: idle and MPS moving rise with the CTAs (within 0.03)" 'rise_ok "$csv"'
check_that "contention_nccl.csv: MPS moving (2k CTAs) within 0.03 of idle at 2k" 'equal_ok "$csv"'
check_that "contention_nccl.csv: the idle curve within 0.1 of the probe's (profile_long.json)" \
	'probe_ok "$csv" "$fix/profile_long.json"'
# The prepared checks on the first run's rows in the later layout (the
# GEMM's rates from its times, no hog): kernel_rows gives the first run's
# CSV back from it and from itself, kcsv_ok passes it and refuses a rate
# 1 % off and a hog half written.
awk -F, -v OFS=, -v h="$khdr" 'NR == 1 { print h; next }
	{ w = 2 * 8192 ^ 3; print $0, "gemm_bf16_8192x8192x8192", "TFLOP/s", w,
		sprintf("%.2f", w / ($6 * 1e-3) / 1e12), sprintf("%.2f", w / ($7 * 1e-3) / 1e12),
		sprintf("%.2f", w / ($9 * 1e-3) / 1e12), 0, "", "", "", "", "" }' "$csv" >"$TMP/k.csv"
check_that "kernel_rows: the first run's CSV back from the 27-column layout and from itself" \
	'kernel_rows "$TMP/k.csv" gemm_bf16_8192x8192x8192 | cmp -s - "$csv" && kernel_rows "$csv" gemm_bf16_8192x8192x8192 | cmp -s - "$csv" && [ "$(kernel_rows "$TMP/k.csv" triad_f32_3x1GiB)" = "$hdr" ]'
check_that "kcsv_ok: passes the 27-column layout" 'kcsv_ok "$TMP/k.csv" && ! kcsv_ok "$csv"'
awk -F, -v OFS=, 'NR == 3 { $19 = $19 * 1.01 } 1' "$TMP/k.csv" >"$TMP/k_rate.csv"
awk -F, -v OFS=, 'NR == 4 { $23 = $6 } 1' "$TMP/k.csv" >"$TMP/k_hog.csv"
check_that "kcsv_ok refuses a rate 1 % off its time and a hog half written" \
	'! kcsv_ok "$TMP/k_rate.csv" && ! kcsv_ok "$TMP/k_hog.csv"'
# NCCL's own TUNING lines in rank 0's log: after "Max CTAs set to K",
# every 256 MiB all-reduce ran on ring/simple over channels 0..K-1; 5 per
# K and mode.
tuning_ok() {
	awk '/NCCL INFO Comm config Max CTAs set to / { k = $NF }
		/NCCL INFO AllReduce: 268435456 Bytes -> / { n++
			if ($0 !~ ("Algo RING proto SIMPLE channel[{]Lo[.][.]Hi[}]=[{]0[.][.]" k - 1 "[}]$")) bad = 1 }
		END { exit bad || n != 60 }' "$1"
}
check_that "nccl_pair.log: NCCL's TUNING lines show k channels (60 all-reduces)" \
	'tuning_ok "$fix/contention/nccl_pair.log"'
# Spoiled copies: one each, and every check must refuse its own.
sp() { sed "$2" "$csv" >"$TMP/$1.csv"; }
sp bad_hdr '1s/idle_slowdown/idle_x/'
sp bad_row '$d'
sp bad_nc '4s/^plain,4,4,/plain,4,3,/'
sp bad_held '9s/,1,1$/,1,0/'
sp bad_bound '8s/,1\.0790,/,0.9990,/'
sp bad_rise '6s/,1\.2310,4\.0170,/,1.1010,4.0170,/'
awk -F, -v OFS=, 'NR > 1 { $8 = 1.1 } 1' "$csv" >"$TMP/bad_flat.csv"
sp bad_equal '12s/,1\.3872,/,1.4372,/'
sp bad_probe '6s/,1\.2310,4\.0170,/,1.4100,4.0170,/'
check_that "the CSV checks refuse a changed header, a missing row, 3 channels for 4, a kernel not held" \
	'! ncsv_ok "$TMP/bad_hdr.csv" && ! ncsv_ok "$TMP/bad_row.csv" && ! nc_ok "$TMP/bad_nc.csv" && ! held_ok "$TMP/bad_held.csv"'
check_that "... a slowdown of 0.999, a dip of 0.055, a flat idle curve, moving 0.05 off idle, idle 0.11 off the probe" \
	'! bound_ok "$TMP/bad_bound.csv" && ! rise_ok "$TMP/bad_rise.csv" && ! rise_ok "$TMP/bad_flat.csv" && ! equal_ok "$TMP/bad_equal.csv" && ! probe_ok "$TMP/bad_probe.csv" "$fix/profile_long.json"'
sed 's/channel{Lo..Hi}={0..15}$/channel{Lo..Hi}={0..7}/' "$fix/contention/nccl_pair.log" >"$TMP/tuning.log"
check_that "... and 8 channels where k was 16 in NCCL's TUNING lines" '! tuning_ok "$TMP/tuning.log"'
# The model beside NCCL's kernels (doc/model.md 4.2): 1..64 CTAs.
if [ -x "$model" ]; then
	"$model" "$fix/profile_long.json" 1 2 4 8 16 32 64 >"$TMP/nmodel.txt" 2>&1
	rc=$?
	tap_on_fail="cat $TMP/nmodel.txt"
	check_that "contention_model CTAS: 7 nccl rows at the ring/simple chunk, never below 1" \
		'[ $rc -eq 0 ] && [ "$(awk "\$1 == \"nccl\" && \$3 == 2097152 && \$4 >= 1 && \$5 >= \$4 && \$6 >= 1" "$TMP/nmodel.txt" | wc -l)" -eq 7 ]'
	tap_on_fail=
	"$model" "$fix/profile_long.json" 1 0 >"$TMP/nmodel0.txt" 2>&1
	rc=$?
	check_that "contention_model with 0 CTAs: usage, exit 2" '[ $rc -eq 2 ] && grep -q "^usage: " "$TMP/nmodel0.txt"'
else
	skip "tests/gpu/contention_model not built"
	skip "tests/gpu/contention_model not built"
fi
done_testing
