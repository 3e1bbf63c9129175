#!/bin/bash
# tests/trace/errors.sh - `lagom workload import` on hostile and wrong input,
# each built here: one "lagom:" line, exit 1 (bad content) or 2 (usage, a
# missing file), no output file; 10 GB of nesting or of one string are
# refused after the first chunk, under a 512 MiB address-space limit.
. "$top_srcdir/tests/lib/tap.sh"

lagom=$top_builddir/lagom
traces=$top_srcdir/tests/fixtures/traces
[ -x "$lagom" ] || plan_skip_all "lagom not built"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/lagom-trace-err.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
plan 15

# refused STATUS NEEDLE DESC FILE...: import fails as described
refused() {
	local want=$1 needle=$2 what=$3 rc=0
	shift 3
	(ulimit -v 524288; "$lagom" workload import "$@" -o "$tmp/out.json") \
		>"$tmp/stdout" 2>"$tmp/stderr" || rc=$?
	if [ "$rc" -eq "$want" ] && [ "$(wc -l <"$tmp/stderr")" -eq 1 ] &&
		grep -q "^lagom: .*$needle" "$tmp/stderr" &&
		[ ! -s "$tmp/stdout" ] && [ ! -e "$tmp/out.json" ] &&
		[ -z "$(ls "$tmp" | grep "out\.json\.")" ]; then
		ok "$what: exit $rc, $(cat "$tmp/stderr")"
	else
		sed 's/^/# /' "$tmp/stderr" | head -5
		not_ok "$what: exit $rc (want $want and one line with '$needle')"
	fi
}

ev() { # one Kineto event: ev CAT NAME TS DUR [ARGS-JSON]
	printf '{"ph":"X","cat":"%s","name":"%s","pid":1,"tid":1,"ts":%s,"dur":%s,"args":%s}' \
		"$1" "$2" "$3" "$4" "${5:-{\}}"
}
trace() { # trace FILE EVENT...: a Kineto document with these events
	local f=$1 sep=
	shift
	{
		printf '{"schemaVersion":1,"deviceProperties":[{"id":0,"name":"NVIDIA A100-SXM4-80GB","numSms":108}],"traceEvents":['
		for e in "$@"; do printf '%s%s' "$sep" "$e"; sep=,; done
		printf ']}'
	} >"$f"
}
kargs='{"device":0,"stream":7,"correlation":5,"grid":[64,1,1],"block":[256,1,1]}'

head -c 20000 "$traces/hta-a100-2rank-nccl_data.json.gz" >"$tmp/trunc.json.gz"
refused 1 "truncated gzip" "a truncated gzip trace" "$tmp/trunc.json.gz"

printf 'PK\003\004 this is not json' >"$tmp/notjson.json"
refused 1 "not JSON" "a file that is not JSON" "$tmp/notjson.json"

printf '{"traceEvents": [1, 2' >"$tmp/early.json"
refused 1 "not JSON" "JSON that ends early" "$tmp/early.json"

printf '{"lagom_workload": 1, "regions": []}' >"$tmp/wl.json"
refused 1 "not a profiler trace" "JSON that is not a trace" "$tmp/wl.json"

trace "$tmp/cpu.json" "$(ev cpu_op aten::mm 1 5)" "$(ev user_annotation ProfilerStep#1 0 10)"
refused 1 "CPU-only trace" "a CPU-only trace" "$tmp/cpu.json"

trace "$tmp/nonccl.json" "$(ev kernel volta_sgemm_128x64_nn 10 5 "$kargs")" \
	"$(ev cuda_runtime cudaLaunchKernel 2 1 '{"correlation":5}')"
refused 1 "no NCCL kernels" "a trace without NCCL kernels" "$tmp/nonccl.json"

trace "$tmp/hip.json" "$(ev kernel 'ncclDevKernel_Generic(ncclDevKernelArgsStorage<4096ul>)' 10 5 "$kargs")" \
	"$(ev cuda_runtime hipExtLaunchKernel 2 1 '{"correlation":5}')"
refused 1 "AMD/HIP" "an AMD/HIP (RCCL) trace" "$tmp/hip.json"

refused 1 "ranks of different runs mixed" "ranks of two different runs" \
	"$traces/hta-a100-2rank-nccl_data.json.gz" "$traces/hta-v100-2rank-trace_diff_test.json.gz"

refused 1 "ranks of different runs mixed" "the same rank twice" \
	"$traces/hta-a100-2rank-nccl_data.json.gz" "$traces/hta-a100-2rank-nccl_data.json.gz"

# 10 GB of '[' (and of one string) through a pipe: refused at once; the
# 512 MiB address-space limit proves nothing is buffered.
refused 1 "nesting deeper than 64" "10 GB of nesting" \
	<(head -c 10000000000 /dev/zero | tr '\0' '[')
refused 1 "string longer than 1 MiB" "a 10 GB string" \
	<({ printf '{"traceEvents":[{"name":"'; head -c 10000000000 /dev/zero | tr '\0' 'a'; })

refused 2 "No such file" "a trace that does not exist" "$tmp/missing.json.gz"

rc=0
"$lagom" workload import >/dev/null 2>"$tmp/stderr" || rc=$?
check "no trace given: usage error (exit 2)" [ "$rc" -eq 2 ]

# gzip of a valid document, concatenated from two gzip members, is read.
(cd "$tmp" && zcat "$traces/hta-a100-2rank-nccl_data.json.gz" >a100.json &&
	head -c 5000000 a100.json | gzip -1 >two.json.gz &&
	tail -c +5000001 a100.json | gzip -1 >>two.json.gz)
if "$lagom" workload import "$tmp/two.json.gz" -o "$tmp/two.out" >/dev/null 2>"$tmp/stderr"; then
	ok "a gzip file of two members is read whole"
else
	sed 's/^/# /' "$tmp/stderr"
	not_ok "a gzip file of two members is refused"
fi

# Found by fuzz_trace: an NCCL kernel whose grid/block CUDA could not
# launch (over 1024) made import write trace_channels/trace_threads that
# the workload reader refuses ("internal error: the workload written is
# not valid").  Imported, the file now reads back.
rc=0
"$lagom" workload import "$top_srcdir/tests/fuzz/corpus/trace/grid-over-1024.json" \
	-o "$tmp/grid.json" >"$tmp/stdout" 2>"$tmp/stderr" || rc=$?
if [ "$rc" -eq 0 ] && "$lagom" workload show "$tmp/grid.json" >/dev/null 2>>"$tmp/stderr"; then
	ok "a kernel grid over 1024: imported, and the workload reads back"
else
	sed 's/^/# /' "$tmp/stderr" | head -5
	not_ok "a kernel grid over 1024: import or read-back failed (exit $rc)"
fi
