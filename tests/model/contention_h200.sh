#!/bin/sh
# The built-in contention model within 5 % of the H200 curve beside real
# NCCL kernels at every CTA count measured (idle plain, idle MPS, moving
# MPS), its resident constant the least-squares fit to that curve
# (tests/model/contention_h200.c, doc/model.md 4).  The check can fail:
# without the resident constant (--resident 0) it does, and with the chunk
# L2 term not gated by the collective's traffic (--l2-ungated).  The H100 run
# (GEMM, skinny GEMM, triad, hog) is printed beside it, not checked.
. "${top_srcdir:-.}/tests/lib/tap.sh"

prog="${top_builddir:-.}/tests/model/contention_h200"
fix="$top_srcdir/tests/gpu/h200-2026-11-26"
plan 4
h100="$top_srcdir/tests/gpu/h100-2026-11-27/contention/contention_nccl.csv"
out=$("$prog" --check "$fix/contention/contention_nccl.csv" "$fix/profile_long.json" "$h100")
rc=$?
printf '%s\n' "$out" | sed 's/^/# /'
n=$(printf '%s\n' "$out" | grep -c '^check: .*: ok$')
if [ $rc -eq 0 ] && [ "$n" -eq 2 ]; then
	ok "H200: every NCCL point within 5 %, the resident constant is the fit"
else
	not_ok "H200: exit $rc, $n of 2 checks hold"
fi
rows=$(printf '%s\n' "$out" | grep -c '^\(idle\|moving\) ')
hogs=$(printf '%s\n' "$out" | grep -c '^hog \(plain\|mps\) ')
if [ "$rows" -eq 18 ] && [ "$hogs" -eq 12 ]; then
	ok "H200: 18 NCCL points compared; H100: 12 hog rows printed"
else
	not_ok "H200: $rows NCCL points compared (want 18), $hogs H100 hog rows (want 12)"
fi
out=$("$prog" --check --resident 0 "$fix/contention/contention_nccl.csv" "$fix/profile_long.json")
rc=$?
if [ $rc -eq 1 ] && printf '%s\n' "$out" | grep -q '^check: every NCCL point within 5 % .*: FAILED$'; then
	ok "H200: the check fails without the resident constant"
else
	not_ok "H200: the check does not fail without the resident constant (exit $rc)"
fi
out=$("$prog" --check --l2-ungated "$fix/contention/contention_nccl.csv" "$fix/profile_long.json")
rc=$?
if [ $rc -eq 1 ] && printf '%s\n' "$out" | grep -q '^check: every NCCL point within 5 % .*: FAILED$'; then
	ok "H200: the check fails with the chunk L2 term not gated by traffic"
else
	not_ok "H200: the check does not fail with the L2 term ungated (exit $rc)"
fi
done_testing
