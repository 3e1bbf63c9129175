#!/bin/sh
# Shows the purity check can fail: plant a violation in an object and make
# sure purity.sh reports it, and that a clean object passes.
. "${top_srcdir:-.}/tests/lib/tap.sh"

tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT

plan 4
cat >"$tmp/clean.c" <<'C'
#include <math.h>
double lagom_clean(double x);
double lagom_clean(double x) { return sqrt(x) * 2.0; }
C
cat >"$tmp/dirty.c" <<'C'
#include <stdlib.h>
const char *lagom_dirty(void);
const char *lagom_dirty(void) { return getenv("NCCL_ALGO"); }
C
cat >"$tmp/slurmy.c" <<'C'
extern int slurm_load_jobs(void);
int lagom_slurmy(void);
int lagom_slurmy(void) { return slurm_load_jobs(); }
C
for f in clean dirty slurmy; do
	${CC:-cc} -c -o "$tmp/$f.o" "$tmp/$f.c" || exit 1
	ar rc "$tmp/lib$f.a" "$tmp/$f.o" || exit 1
done

run() { sh "$top_srcdir/tests/purity.sh" "$@" >"$tmp/out" 2>&1; }

check "clean archive passes" run "$tmp/libclean.a"
if run "$tmp/libdirty.a"; then not_ok "planted getenv is caught"; else ok "planted getenv is caught"; fi
if grep -q "getenv" "$tmp/out"; then ok "report names getenv"; else not_ok "report names getenv"; fi
if run "$tmp/libslurmy.a"; then not_ok "planted slurm_ call is caught"; else ok "planted slurm_ call is caught"; fi
done_testing
