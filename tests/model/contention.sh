#!/bin/sh
# The contention term against the slowdowns measured in the fixture traces
# (tests/model/contention_report.c says how): every trace with kernel
# activity yields plausible rows and finite figures; the report (model vs
# the trivial "no slowdown" predictor, leave-one-trace-out) is printed.
. "${top_srcdir:-.}/tests/lib/tap.sh"

report="${top_builddir:-.}/tests/model/contention_report"
dir="${LAGOM_FIXTURES:-$top_srcdir/tests/fixtures}/traces"
plan 1
set --
for t in "$dir"/hta-a100-2rank-nccl_data.json.gz \
	"$dir"/hta-v100-2rank-trace_diff_test.json.gz; do
	[ -f "$t" ] && set -- "$@" "$t"
done
if [ $# -eq 0 ]; then
	skip "contention: no fixture trace under $dir"
	done_testing
	exit 0
fi
out=$("$report" --check "$@")
rc=$?
printf '%s\n' "$out" | sed 's/^/# /'
all=$(printf '%s\n' "$out" | grep '^all ' | tr -s ' ')
if [ $rc -eq 0 ]; then
	ok "contention: $# trace(s), rows/measured/none/built-in/LOTO/in: $all"
else
	not_ok "contention: report failed: $all"
fi
done_testing
