#!/bin/sh
# Shows the purity check can fail: plant a violation in an object and make
# sure purity.sh reports it, and that a clean object passes.
. "${top_srcdir:-.}/tests/lib/tap.sh"

tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT

plan 14
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

# Private headers: a tree where each folder includes only its own, and
# tests/model/ its folder's (white-box test); then search/ reaches into
# model/'s private header, as it did before model.h published the fast path.
mkdir -p "$tmp/src/model" "$tmp/src/search" "$tmp/src/tests/model"
printf '#include "model/model.h"\n' >"$tmp/src/model/model_int.h"
printf '#include "model/model_int.h"\n' >"$tmp/src/model/coll.c"
printf '#include "model/model_int.h"\n' >"$tmp/src/tests/model/t.c"
printf '#include "model/model.h"\n' >"$tmp/src/search/plan.c"
check "own private headers pass" run --src "$tmp/src"
printf '/* x */\n  #  include "model/model_int.h"\n' >"$tmp/src/search/plan.c"
if run --src "$tmp/src"; then not_ok "planted private include is caught"; else ok "planted private include is caught"; fi
if grep -q "search/plan.c:2: model/model_int.h" "$tmp/out"; then ok "report names file, line and header"; else not_ok "report names file, line and header"; fi
printf '#include "model/model.h"\n' >"$tmp/src/search/plan.c"
printf '#include "search/search_int.h"\n' >"$tmp/src/model/coll.c"
if run --src "$tmp/src"; then not_ok "planted *_int.h include is caught"; else ok "planted *_int.h include is caught"; fi
printf '#include "model/model.h"\n' >"$tmp/src/model/coll.c"
check "the tree passes again" run --src "$tmp/src"
printf '#include "model/model.h"\n' >"$tmp/src/model/internal.h"
if run --src "$tmp/src" || ! grep -q "model/internal.h" "$tmp/out"; then not_ok "a private header named otherwise is caught"; else ok "a private header named otherwise is caught"; fi
rm "$tmp/src/model/internal.h"
printf '/*\n * model/fit.h - private to model/: the fit.\n */\n' >"$tmp/src/model/fit.h"
if run --src "$tmp/src" || ! grep -q "model/fit.h" "$tmp/out"; then not_ok "a header that says it is private, not named *_int.h, is caught"; else ok "a header that says it is private, not named *_int.h, is caught"; fi
rm "$tmp/src/model/fit.h"
# Audience headers: the search may take the fast path, the CLI may not.
printf '#include "model/model_fast.h"\n' >"$tmp/src/search/plan.c"
check "the fast path from search/ passes" run --src "$tmp/src"
mkdir -p "$tmp/src/cli"
printf '#include "model/model.h"\n#include "model/model_fast.h"\n' >"$tmp/src/cli/predict.c"
if run --src "$tmp/src"; then not_ok "the fast path from cli/ is caught"; else ok "the fast path from cli/ is caught"; fi
if grep -q "cli/predict.c:2: model/model_fast.h" "$tmp/out"; then ok "report names file, line and header"; else not_ok "report names file, line and header"; fi
done_testing
