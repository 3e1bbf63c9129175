#!/bin/sh
# Contention predictors against the slowdowns measured in the fixture traces
# (tests/model/contention_report.c says how): every trace yields plausible
# rows and finite figures, and on each trace the NCCL-rate driver with its
# constant fitted elsewhere (leave one trace out, leave one row group out)
# beats the trivial "no slowdown" predictor by 1 point of median error.
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
verdict=$(printf '%s\n' "$out" | grep '^trace ' | sed 's/ (needed.*//' |
	tr '\n' ';')
if [ $rc -eq 0 ]; then
	ok "contention: $# trace(s): $verdict"
else
	not_ok "contention: report failed: $verdict"
fi
done_testing
