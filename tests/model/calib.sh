#!/bin/sh
# lagom calibrate's fit on the published multi-node sweeps turned into
# profiler records (tests/model/calib_report.c says how): per system, fit
# on three sizes per collective and node count, predict the rest; over all
# systems the median error per size band within tolerance and below the
# uncalibrated model left out by system and the line rate; no prediction
# below the line rate.
. "${top_srcdir:-.}/tests/lib/tap.sh"

report="${top_builddir:-.}/tests/model/calib_report"
dir="${LAGOM_FIXTURES:-$top_srcdir/tests/fixtures}/measurements"
plan 1
out=$("$report" --check "$dir")
rc=$?
printf '%s\n' "$out" | sed 's/^/# /'
summary=$(printf '%s\n' "$out" | grep '^all ' | sed 's/ | /:/g' | tr '\n' ';')
if [ $rc -eq 0 ]; then
	ok "calibrate: left out by size within tolerance, better than uncalibrated: $summary"
else
	not_ok "calibrate: a band over tolerance, or a prediction below the line rate: $summary"
fi
done_testing
