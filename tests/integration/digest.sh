#!/usr/bin/env bash
# tests/integration/digest.sh - the cluster digest on a real Slurm
# (doc/consistency.md "Cluster digest"): lagom-prolog, as the cluster's
# Prolog, writes each node's profile and the digest; srun plans a 3-node step
# from the digest (srun -v says how many nodes' hardware it gave), and the
# plan is the one the profiles alone give.  A digest that is not trusted is
# refused with one lagom: line, a profile replaced after the digest was
# written is read from the profile: every task of every step has the same
# LAGOM_PLAN_ID as without a digest.
. "$top_srcdir/tests/lib/tap.sh"
. "$top_srcdir/tests/lib/cluster.sh"

cluster_need_plugin
LAGOM_CLI=$top_builddir/lagom
prolog_bin=$top_builddir/lagom-prolog
[ -x "$LAGOM_CLI" ] || plan_skip_all "lagom not built ($LAGOM_CLI)"
[ -x "$prolog_bin" ] || plan_skip_all "lagom-prolog not built ($prolog_bin)"
profile_fixture=$top_srcdir/tests/profile/valid/a100-full.json
[ -f "$profile_fixture" ] || plan_skip_all "no profile fixture ($profile_fixture)"
id nobody >/dev/null 2>&1 || plan_skip_all "no user nobody to own a digest"

cluster_unexport SLURM_

# The Prolog is a wrapper that runs lagom-prolog with the arguments in
# $hook/args (none: the Prolog does nothing), so the test can change what
# the nodes' prologs do between steps.
hook=$(mktemp -d /tmp/lagom-digest-hook.XXXXXX)
chmod 0755 "$hook"
abs_prolog=$(cd "$(dirname "$prolog_bin")" && pwd)/$(basename "$prolog_bin")
cat >"$hook/prolog" <<EOF
#!/bin/sh
args=\$(cat "$hook/args" 2>/dev/null)
[ "\$args" = none ] && exit 0
exec "$abs_prolog" \$args
EOF
chmod 0755 "$hook/prolog"
echo none >"$hook/args"
prologs() { echo "$*" >"$hook/args"; }

cleanup() {
	cluster_stop
	rm -rf "$hook"
}
LAGOM_PROLOG=$hook/prolog LAGOM_PROLOG_ARGS= cluster_setup "$profile_fixture" cleanup
grep -q "^Prolog=" "$SLURM_CONF" || {
	echo "Bail out! the demo cluster has no Prolog= line"
	exit 1
}
prof=$CLUSTER_DIR/profiles
digest=$prof/lagom-cluster.digest.d/digest
wl=phi-2:fsdp
show_env='echo $(hostname) $(env | grep -E "^(NCCL_|LAGOM_)" | sort | tr "\n" " ")'
run_timeout=90
# the step on 3 nodes, planned by srun -v
step() { run srun -v -N3 --gres=gpu:4 --lagom=auto --lagom-workload=$wl bash -c "$show_env"; }
tasks() { grep -c '^n[0-9]' "$out"; }
ids() { grep -o 'LAGOM_PLAN_ID=[0-9a-f]*' "$out" | sort -u | wc -l; }
plan_id() { grep -o 'LAGOM_PLAN_ID=[0-9a-f]*' "$out" | head -1 | cut -d= -f2; }
# from_digest: N from srun -v's "hardware of N of 3 nodes from the cluster digest"
from_digest() { sed -n 's/.*lagom: .*hardware of \([0-9]*\) of 3 nodes from the cluster digest.*/\1/p' "$err" | head -1; }
# planned DESC [ID]: 3 tasks, one plan id on all of them (and it is ID)
planned() {
	if [ "$rc" -eq 0 ] && [ "$(tasks)" -eq 3 ] && [ "$(ids)" -eq 1 ] &&
		[ "$(grep -c 'LAGOM_PLAN_ID=' "$out")" -eq 3 ] &&
		{ [ -z "${2:-}" ] || [ "$(plan_id)" = "$2" ]; }; then
		ok "$1"
	else
		not_ok "$1"
		dump
	fi
}
entries() { grep -c '^node ' "$1" 2>/dev/null || echo 0; }

# --- lagom-prolog as the Prolog writes the profiles and the digest -------
# (this host has no GPU: the measured profiles list none, so they go to a
# directory of their own; the steps below plan from the fixture profiles)
measured=$CLUSTER_DIR/profiles-measured
install -d -m 0755 "$measured"
prologs --profile-dir "$measured"
run srun -N3 true
check "the prologs measured every node (n1 n2 n3)" \
	test -s "$measured/n1.json" -a -s "$measured/n2.json" -a -s "$measured/n3.json"
check "... and wrote the cluster digest with their 3 entries" \
	[ "$(entries "$measured/lagom-cluster.digest.d/digest")" -eq 3 ]
check_mode() { [ "$(stat -c '%a %u' "$1" 2>/dev/null)" = "644 0" ]; }
check "... mode 0644, owned by root" check_mode "$measured/lagom-cluster.digest.d/digest"
diag "$(head -c 200 "$measured/lagom-cluster.digest.d/digest" | head -2 | tail -1 | cut -c1-120)"

# --- the plan from the profiles alone (no digest) -------------------------
cluster_profiles "$profile_fixture"
prologs none
rm -f "$digest"
step
planned "without a digest: one plan on the 3 nodes"
base=$(plan_id)
check "... srun -v: hardware of 0 of 3 nodes from the cluster digest" [ "$(from_digest)" = 0 ]

# --- the prologs keep the digest; srun plans from it ----------------------
prologs --digest
run srun -N3 true # an allocation: every node's prolog runs
prologs none
check "the prologs wrote the digest of the 3 profiles" [ "$(entries "$digest")" -eq 3 ]
step
planned "with the digest: one plan on the 3 nodes, the same as without" "$base"
check "... srun -v: hardware of 3 of 3 nodes from the cluster digest" [ "$(from_digest)" = 3 ]
check "... and no lagom: line about the digest" [ "$(grep -c 'lagom: .*cluster digest .*lagom-cluster.digest' "$err")" -eq 0 ]

# --- an untrusted digest: refused with one line, plan from the profiles --
cp -p "$digest" "$CLUSTER_DIR/good.digest"
chmod 0666 "$digest"
step
planned "a digest writable by others: the same plan, from the profiles" "$base"
check "... srun -v says so in one lagom: line" [ "$(grep -c 'lagom: .*cluster digest .*reading each node.s profile instead' "$err")" -eq 1 ]
check "... hardware of 0 of 3 nodes from it" [ "$(from_digest)" = 0 ]
diag "$(grep -o 'lagom: .*cluster digest.*' "$err" | head -1)"
chmod 0644 "$digest"
chown nobody "$digest"
step
planned "a digest owned by a user: the same plan, from the profiles" "$base"
check "... srun -v says so in one lagom: line" [ "$(grep -c 'lagom: .*cluster digest .*reading each node.s profile instead' "$err")" -eq 1 ]
printf 'lagom-digest 4 seal=-\nnode n1 garbage\nend 1\n' >"$digest"
chown root "$digest"
chmod 0644 "$digest"
step
planned "a corrupt digest: the same plan, from the profiles" "$base"
check "... srun -v says so in one lagom: line" [ "$(grep -c 'lagom: .*cluster digest .*reading each node.s profile instead' "$err")" -eq 1 ]
cp -p "$CLUSTER_DIR/good.digest" "$digest"

# --- a profile replaced after the digest was written ----------------------
"$LAGOM_CLI" profile synth --gpu A100 --gpus-per-node 4 --nic 1x100 --node n2 \
	-o "$CLUSTER_DIR/weak-n2.json" >/dev/null 2>&1
if [ -s "$CLUSTER_DIR/weak-n2.json" ]; then
	install -m 0644 "$CLUSTER_DIR/weak-n2.json" "$prof/.n2.tmp"
	mv -f "$prof/.n2.tmp" "$prof/n2.json"
	step
	planned "n2's profile replaced after the digest: one plan on the 3 nodes"
	with=$(plan_id)
	check "... n2 read from its profile: hardware of 2 of 3 nodes from the digest" [ "$(from_digest)" = 2 ]
	mv "$digest" "$CLUSTER_DIR/stale.digest"
	step
	planned "... the same plan as from the profiles alone" "$with"
	check "... which differs from the plan before (n2 is weaker)" [ "$with" != "$base" ]
else
	skip "lagom profile synth failed: no second profile"
	skip "lagom profile synth failed: no second profile"
	skip "lagom profile synth failed: no second profile"
	skip "lagom profile synth failed: no second profile"
fi

plan "$tap_n"
done_testing
