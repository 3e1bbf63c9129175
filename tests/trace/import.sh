#!/bin/sh
# tests/trace/import.sh - `lagom workload import` on the three real
# HolisticTraceAnalysis traces (tests/fixtures/traces): the exact expected
# workload and report (golden files), the replay against the trace's own
# step time, the contention table checked row by row against the raw trace
# by an independent reading (contention_check.py), and `workload show`.
# LAGOM_REGEN=1 rewrites the golden files instead of comparing.
. "$top_srcdir/tests/lib/tap.sh"

lagom=$top_builddir/lagom
traces=$top_srcdir/tests/fixtures/traces
golden=$top_srcdir/tests/trace/golden
[ -x "$lagom" ] || plan_skip_all "lagom not built"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/lagom-trace.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
plan 16

# same NAME ACTUAL: compare with golden/NAME (or write it under LAGOM_REGEN)
same() {
	if [ -n "${LAGOM_REGEN:-}" ]; then
		cp "$2" "$golden/$1"
		skip "regenerated golden/$1"
	elif diff -u "$golden/$1" "$2" >"$tmp/diff" 2>&1; then
		ok "$1 is exactly the golden output"
	else
		sed 's/^/# /' "$tmp/diff" | head -40
		not_ok "$1 differs from the golden output"
	fi
}

for t in a100 v100; do
	case $t in
	a100) f=hta-a100-2rank-nccl_data.json.gz ;;
	v100) f=hta-v100-2rank-trace_diff_test.json.gz ;;
	esac
	# relative names keep the outputs free of this checkout's path
	(cd "$traces" && "$lagom" workload import "$f" -o "$tmp/$t.json") \
		>"$tmp/$t.report" 2>"$tmp/$t.err"
	rc=$?
	sed "s|$tmp/||" "$tmp/$t.report" >"$tmp/$t.report.txt"
	check "$t: import exits 0 with nothing on stderr" \
		[ "$rc" -eq 0 -a ! -s "$tmp/$t.err" ]
	same "$t.workload.json" "$tmp/$t.json"
	same "$t.report.txt" "$tmp/$t.report.txt"

	(cd "$traces" && "$lagom" workload import "$f" --format json) >"$tmp/$t.report.json"
	python3 - "$tmp/$t.report.json" "$t" >"$tmp/$t.replay" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))["replay"]
print("%s replay: predicted %.3f ms, measured step %.3f ms, error %+.1f%% (%s)" % (
    sys.argv[2], r["predicted_s"] * 1e3, r["measured_s"] * 1e3, r["error"] * 100, r["gpu"]))
sys.exit(0 if abs(r["error"]) <= 0.15 else 1)
PY
	rc=$?
	diag "$(cat "$tmp/$t.replay")"
	check "$t: replay of the imported workload within 15% of the measured step" [ "$rc" -eq 0 ]

	"$lagom" workload import "$traces/$f" --contention | sed -n '/^contention/,$p' |
		sed 's/^/# /'
	if python3 "$top_srcdir/tests/trace/contention_check.py" "$traces/$f" \
		"$tmp/$t.report.json" >"$tmp/$t.cc" 2>&1; then
		n=$(python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["contention"]["rows"]))' "$tmp/$t.report.json")
		check "$t: all $n contention rows follow the selection rules and their blocks_per_sm agree with Kineto's occupancy (recomputed from the raw trace)" [ "$n" -gt 0 ]
	else
		sed 's/^/# /' "$tmp/$t.cc" | head -20
		not_ok "$t: contention rows disagree with the raw trace"
	fi
done

# The CUPTI range-profiler trace has counters but no kernel activity and no
# NCCL: one clear line, exit 1, and no file.
(cd "$traces" && "$lagom" workload import hta-a100-cupti_profiler.json.gz \
	-o "$tmp/cupti.json") >"$tmp/cupti.out" 2>"$tmp/cupti.err"
rc=$?
check "cupti: import fails with exit 1 and writes nothing" \
	[ "$rc" -eq 1 -a ! -e "$tmp/cupti.json" -a ! -s "$tmp/cupti.out" ]
same cupti.error.txt "$tmp/cupti.err"

# workload show reads what import wrote, and plan accepts it
"$lagom" workload show "$tmp/a100.json" >"$tmp/show" 2>&1
check "workload show summarises the imported file" \
	grep -q 'collectives per iteration: 7 (allreduce 5, broadcast 2)' "$tmp/show"
"$lagom" profile synth --gpu A100-SXM --gpus-per-node 8 --node n1 >"$tmp/a100-profile.json" 2>/dev/null
if "$lagom" plan --profile "$tmp/a100-profile.json" --nodes 1 --gpus-per-node 2 \
	--workload "$tmp/a100.json" >"$tmp/plan" 2>&1; then
	ok "lagom plan --workload accepts the imported workload"
else
	sed 's/^/# /' "$tmp/plan" | head
	not_ok "lagom plan --workload refuses the imported workload"
fi

# Two ranks of one run (built from the seed trace): rank 1's NCCL kernels
# took half as long; the workload keeps the fastest instance (rank skew).
python3 - "$top_srcdir/tests/fuzz/corpus/trace/mini.json" "$tmp" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
json.dump(d, open(sys.argv[2] + "/r0.json", "w"))
d["distributedInfo"]["rank"] = 1
for e in d["traceEvents"]:
    if e["name"].startswith("ncclKernel"):
        e["dur"] /= 2
json.dump(d, open(sys.argv[2] + "/r1.json", "w"))
PY
"$lagom" workload import "$tmp/r0.json" "$tmp/r1.json" -o "$tmp/two.json" >"$tmp/two.report" 2>&1
check "two ranks: the report says the fastest instance is used" \
	grep -q 'rank skew: fastest instance of each collective over the ranks' "$tmp/two.report"
t=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["regions"][0]["collectives"][0]["trace_time_s"])' "$tmp/two.json")
check "two ranks: trace_time_s is rank 1's shorter kernel (150 us, got $t)" [ "$t" = "0.00015" ]
