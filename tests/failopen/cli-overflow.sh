#!/bin/sh
# tests/failopen/cli-overflow.sh - a workload whose times overflow a double
# is an input error of `lagom plan` (one "lagom:" line, exit 1), in JSON and
# in text, instead of a JSON document without its "predicted" object or a
# "speedup -nanx" line.  And an error about someone else's file (a JSON key
# with a newline and an escape sequence) is one escaped line.
. "$top_srcdir/tests/lib/tap.sh"
. "$top_srcdir/tests/cli/lib.sh"

plan 8

P=$TMP/n001.json
"$LAGOM" profile synth --gpu H100-SXM --gpus-per-node 8 --node n001 \
	-o "$P" >/dev/null || { not_ok "profile synth"; exit 1; }

# 1e308 s per kernel, 1e6 times per iteration: the sum is +inf.
cat >"$TMP/huge.json" <<'JSON'
{
  "lagom_workload": 1,
  "name": "overflow",
  "regions": [
    { "name": "big", "repeat": 1000000,
      "kernels": [ { "time_s": 1e308 } ],
      "collectives": [ { "op": "allreduce", "bytes": 1048576, "ranks": 16, "nodes": 2 } ] }
  ]
}
JSON
expect_status 1 "plan --format json: overflowing workload is an input error" \
	plan --profile "$P" --nodes 2 --workload "$TMP/huge.json" --format json
check "... nothing on stdout" [ ! -s "$TMP/out" ]
check "... the line says the times overflow" grep -q 'overflow' "$TMP/err"
expect_status 1 "plan (text): overflowing workload is an input error" \
	plan --profile "$P" --nodes 2 --workload "$TMP/huge.json"
check_nan() { ! grep -qi 'nan\|inf' "$TMP/out"; }
check "... no nan or inf printed" check_nan

# a large but finite workload still plans, with every predicted figure
sed 's/1e308/1e3/' "$TMP/huge.json" >"$TMP/fine.json"
run_lagom "$TMP/ok.json" "$TMP/err" plan --profile "$P" --nodes 2 \
	--workload "$TMP/fine.json" --format json
check "a finite (if slow) workload plans with the predicted object" \
	jtrue "$TMP/ok.json" 'all(k in d["predicted"] for k in ("iteration_ms", "speedup_vs_nccl"))'
printf '{ "lagom_workload": 1, "x\\n[2026] forged \\u001b[31m": 1, "regions": [] }\n' \
	>"$TMP/hostile.json"
expect_status 1 "a hostile JSON key: one lagom: line" \
	plan --profile "$P" --nodes 2 --workload "$TMP/hostile.json"
check_escaped() { ! grep -q "$(printf '\033')" "$TMP/err" && grep -q 'x\\x0a\[2026\] forged \\x1b' "$TMP/err"; }
check "... with the newline and the escape character written as \\xNN" check_escaped
done_testing
