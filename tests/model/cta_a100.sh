#!/bin/sh
# What one CTA carries, against the A100 CTA sweep (doc/model.md 2.8,
# tests/model/cta_a100.c says how): the left-out median error within
# 2 x the sweep's noise and below the CTAs-ignored baseline, the 64 MiB
# curves within 10 % at every CTA count.  The check can fail: with one
# channel at 45 GB/s (Blackwell's ceiling) or 10 GB/s (the fabric shared
# by NCCL's 24 channels) it does.
. "${top_srcdir:-.}/tests/lib/tap.sh"

prog="${top_builddir:-.}/tests/model/cta_a100"
csv="${LAGOM_FIXTURES:-$top_srcdir/tests/fixtures}/measurements/overlap-cta-sweep-a100.csv"
plan 3
out=$("$prog" --check "$csv")
rc=$?
printf '%s\n' "$out" | sed 's/^/# /'
line=$(printf '%s\n' "$out" | grep '^median')
if [ $rc -eq 0 ]; then
	ok "A100 CTA sweep: $line"
else
	not_ok "A100 CTA sweep: exit $rc: $line"
fi
for c in 45 10; do
	out=$("$prog" --check --ch-GBps $c "$csv")
	rc=$?
	if [ $rc -eq 1 ] && printf '%s\n' "$out" | grep -q '^check: .*: FAILED$'; then
		ok "A100 CTA sweep: the check fails with one channel at $c GB/s"
	else
		not_ok "A100 CTA sweep: the check holds with one channel at $c GB/s (exit $rc)"
	fi
done
done_testing
