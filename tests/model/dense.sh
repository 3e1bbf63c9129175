#!/bin/sh
# The dense calibration form on data it did not fit (tests/model/
# dense_report.c says how): the published node-count sweeps of
# nccl-busbw-algo-nodes.csv, fitted on one node count per system,
# collective and algorithm, predicting the other node counts: median
# error per size band within 15 %.  The figures are printed (commented).
. "${top_srcdir:-.}/tests/lib/tap.sh"

report="${top_builddir:-.}/tests/model/dense_report"
csv="${LAGOM_FIXTURES:-$top_srcdir/tests/fixtures}/measurements/nccl-busbw-algo-nodes.csv"
[ -f "$csv" ] || plan_skip_all "no fixture $csv"
plan 1
out=$("$report" --check 0.15 "$csv")
rc=$?
printf '%s\n' "$out" | sed 's/^/# /'
bands=$(printf '%s\n' "$out" | grep -E '^  [<>0-9]' | tr -s ' ' | tr '\n' ';')
if [ $rc -eq 0 ]; then
	ok "dense form, other node counts within 15 % per size band:$bands"
else
	not_ok "dense form, other node counts: a band over 15 % (rc $rc):$bands"
fi
done_testing
