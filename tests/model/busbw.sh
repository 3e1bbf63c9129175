#!/bin/sh
# The collective model against published nccl-tests figures
# (tests/fixtures/measurements/nccl-busbw*.csv): leave-one-system-out error
# per size band within its tolerance and below two trivial baselines, the
# committed network calibration equal to a re-fit, the single-node file
# in-sample within 25 % median and 2x per row.  busbw_report.c says how.
. "${top_srcdir:-.}/tests/lib/tap.sh"

report="${top_builddir:-.}/tests/model/busbw_report"
dir="${LAGOM_FIXTURES:-$top_srcdir/tests/fixtures}/measurements"
plan 1
out=$("$report" --check "$dir")
rc=$?
printf '%s\n' "$out" | sed 's/^/# /'
summary=$(printf '%s\n' "$out" | grep '^band [<>1]' | sed 's/ (.*)//' | tr '\n' ';')
if [ $rc -eq 0 ]; then
	ok "busbw: LOSO bands within tolerance, calibration = re-fit: $summary"
else
	not_ok "busbw: LOSO or calibration check failed: $summary"
fi
done_testing
