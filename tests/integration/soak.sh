#!/usr/bin/env bash
# tests/integration/soak.sh - no rare failure, the short soak (issue 34):
# bench/bench_soak.sh with LAGOM_SOAK_STEPS (default 100) steps without
# lagom and as many with --lagom=auto (comment=yes), true and 50 ms steps
# alternating, on the local 3-node cluster.  Every step must succeed; a
# failure shows with srun's message.  `make bench-soak` is the long one
# (1000 + 1000).
. "$top_srcdir/tests/lib/tap.sh"
. "$top_srcdir/tests/lib/cluster.sh"

cluster_need_plugin
steps=${LAGOM_SOAK_STEPS:-100}
log=$(mktemp /tmp/lagom-soak-test.XXXXXX)
trap 'rm -f "$log"' EXIT
t0=$SECONDS
rc=0
LAGOM_PLUGIN=$LAGOM_PLUGIN LAGOM_SOAK_STEPS=$steps LAGOM_SOAK_CHUNK=$steps top_srcdir=$top_srcdir top_builddir=$top_builddir \
	bash "$top_srcdir/bench/bench_soak.sh" >"$log" 2>&1 || rc=$?
sed 's/^/# /' "$log" | grep -v '^# bench: ' | head -80
diag "the soak took $((SECONDS - t0)) s, any wait for another test's cluster included"
row() { grep "^  $1" "$log"; }
check_that "$steps steps without lagom ran, none failed (rc $rc)" \
	'[[ "$(row "without lagom:")" =~ \ $steps\ steps,\ +0\ failed ]]'
check_that "$steps steps with --lagom=auto ran, none failed" \
	'[[ "$(row "with --lagom=auto:")" =~ \ $steps\ steps,\ +0\ failed ]]'
check_that "the soak reported no failure (rc $rc)" '[ "$rc" -eq 0 ]'
plan "$tap_n"
done_testing
