#!/bin/sh
# The busbw check of issue 3: predicted all-reduce figures against every row
# of tests/fixtures/measurements/nccl-busbw.csv (spec-sheet hardware, no
# per-row fitting).  Fails when the median absolute error exceeds 25 % or
# any row is off by more than 2x.
. "${top_srcdir:-.}/tests/lib/tap.sh"

report="${top_builddir:-.}/tests/model/busbw_report"
csv="${LAGOM_FIXTURES:-$top_srcdir/tests/fixtures}/measurements/nccl-busbw.csv"
plan 1
out=$("$report" --check "$csv")
rc=$?
printf '%s\n' "$out" | sed 's/^/# /'
summary=$(printf '%s\n' "$out" | grep '^rows ')
if [ $rc -eq 0 ]; then
	ok "busbw within tolerance (median <= 25 %, every row within 2x): $summary"
else
	not_ok "busbw out of tolerance (median <= 25 %, every row within 2x): $summary"
fi
done_testing
