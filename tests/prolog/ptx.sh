#!/bin/sh
# The contention probe's embedded PTX assembles for Turing, Ampere and
# Hopper (the driver JIT-compiles the same text at run time).
. "${top_srcdir:-.}/tests/lib/tap.sh"

ptxas=$(command -v ptxas 2>/dev/null)
[ -n "$ptxas" ] || [ ! -x /usr/local/cuda/bin/ptxas ] || ptxas=/usr/local/cuda/bin/ptxas
[ -n "$ptxas" ] || plan_skip_all "ptxas not found (CUDA toolkit not installed)"
dump="$top_builddir/tests/prolog/print_ptx"
[ -x "$dump" ] || plan_skip_all "print_ptx not built"

plan 3
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
"$dump" > "$tmp/hold.ptx"
for arch in sm_75 sm_80 sm_90; do
	check "PTX assembles for $arch" \
		"$ptxas" -arch=$arch "$tmp/hold.ptx" -o "$tmp/hold-$arch.cubin"
done
done_testing
