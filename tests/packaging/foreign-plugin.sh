#!/usr/bin/env bash
# tests/packaging/foreign-plugin.sh - a lagom.so built for ANOTHER Slurm
# release (LAGOM_FOREIGN_PLUGIN, e.g. the 22.05 build of the host), loaded
# with the documented "optional" line (contrib/lagom.conf) into this
# release's real cluster: Slurm refuses it ("Incompatible Slurm plugin"),
# and every step must still run, untuned, with that one line to the user.
# Slurm has loaded only plugins of its own release since 24.11 (and checked
# the version before), so a site that upgrades Slurm before rebuilding lagom
# is in exactly this state.
#
# Run by contrib/slurm-release.sh's "foreign" action (.ci/run gives the
# host's 22.05 build to the 26.05 chroot); top_srcdir = the source tree.
# shellcheck disable=SC2154 # top_srcdir is the caller's
. "$top_srcdir/tests/lib/tap.sh"
. "$top_srcdir/tests/lib/cluster.sh"

foreign=${LAGOM_FOREIGN_PLUGIN:-}
[ -n "$foreign" ] || plan_skip_all "LAGOM_FOREIGN_PLUGIN not set (a lagom.so built for another Slurm release)"
[ -f "$foreign" ] || plan_skip_all "LAGOM_FOREIGN_PLUGIN=$foreign does not exist"
if reason=$(cluster_skip_reason); then
	plan_skip_all "$reason"
fi
here=$(slurmctld -V | awk '{print $2}')
plan 6
diag "cluster runs Slurm $here; plugin $foreign"

cluster_unexport
trap cluster_stop EXIT
if ! cluster_start; then
	echo "Bail out! the local cluster did not start"
	exit 1
fi
line=$(sed -n 's/^optional [^ ]*lagom\.so //p' "$top_srcdir/contrib/lagom.conf")
echo "optional $foreign ${line/profile_dir=\/var\/lib\/lagom/profile_dir=$CLUSTER_DIR/profiles}" \
	>"$CLUSTER_DIR/etc/plugstack.conf"
diag "plugstack.conf: $(cat "$CLUSTER_DIR/etc/plugstack.conf")"
cd "$CLUSTER_DIR/work" || exit 1
out=$CLUSTER_DIR/out err=$CLUSTER_DIR/err

show='echo "$(hostname) tuned=$(env | grep -cE "^(NCCL_|LAGOM_)")"'
rc=0
timeout 60 srun -N3 --gres=gpu:4 bash -c "$show" >"$out" 2>"$err" || rc=$?
sed 's/^/#   srun: /' "$err"
check "srun -N3 runs with the refused plugin (exit $rc)" [ "$rc" -eq 0 ]
check "... on n1 n2 n3, untuned (no NCCL_ or LAGOM_ variable)" \
	[ "$(sort "$out" | tr '\n' ' ')" = "n1 tuned=0 n2 tuned=0 n3 tuned=0 " ]
check_that "... srun says so in one line: Slurm's 'Incompatible Slurm plugin' naming lagom.so and its release" \
	'[ "$(grep -c "Incompatible Slurm plugin" "$err")" -eq 1 ] && grep "Incompatible Slurm plugin" "$err" | grep -qF "$foreign"'

# A batch job: slurmstepd refuses the plugin on the node as srun did.
rc=0
job=$(timeout 30 sbatch --parsable -N1 -o "$CLUSTER_DIR/work/batch.out" \
	--wrap 'echo batch-ran; srun -N1 hostname' 2>"$err") || rc=$?
state=
for _ in $(seq 1 60); do
	state=$(timeout 5 sacct -X -n -j "$job" -o State 2>/dev/null | tr -d ' ')
	case "$state" in COMPLETED* | FAILED* | CANCELLED* | TIMEOUT*) break ;; esac
	sleep 0.5
done
sed 's/^/#   batch: /' "$CLUSTER_DIR/work/batch.out" 2>/dev/null
check_that "a batch job with a step completes (sbatch exit $rc, state ${state:-none})" \
	'[ "$rc" -eq 0 ] && [ "$state" = COMPLETED ] && grep -q "^batch-ran\$" "$CLUSTER_DIR/work/batch.out"'

# --lagom= is lagom's option: with the plugin refused, srun does not know it
# and refuses the step at once, saying which option (a script that asks for
# lagom by name fails loudly rather than running untuned unnoticed).
rc=0
timeout 60 srun -N1 --lagom=auto true >"$out" 2>"$err" || rc=$?
sed 's/^/#   srun --lagom=auto: /' "$err" | head -5
check_that "srun --lagom=auto is refused at once, naming the option (exit $rc)" \
	'[ "$rc" -ne 0 ] && grep -q -- lagom "$err"'
check "no daemon died: the 3 nodes are still idle" \
	[ "$(timeout 5 sinfo -h -N -t idle -o %N | sort -u | wc -l)" -eq 3 ]
done_testing
