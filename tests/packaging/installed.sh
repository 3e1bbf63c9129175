#!/usr/bin/env bash
# tests/packaging/installed.sh - lagom as the packages installed it, on a
# real local Slurm (contrib/demo-cluster.sh through tests/lib/cluster.sh):
# the plugin from Slurm's plugin directory, enabled with the line of the
# plugstack.conf.d snippet the package ships, the tuner from the library
# directory, /usr/bin/lagom and /usr/sbin/lagom-prolog.  Nothing from a
# build tree.  Run by tests/packaging/packages.sh (.ci/run) after
# installing the .deb packages; top_srcdir = the source tree (for the
# cluster script and the profile fixture only).
. "$top_srcdir/tests/lib/tap.sh"
. "$top_srcdir/tests/lib/cluster.sh"

if reason=$(cluster_skip_reason); then
	plan_skip_all "$reason"
fi
command -v dpkg-query >/dev/null 2>&1 || plan_skip_all "not a Debian system (dpkg-query)"
multiarch=$(dpkg-architecture -qDEB_HOST_MULTIARCH 2>/dev/null || gcc -print-multiarch)
LAGOM_PLUGIN=/usr/lib/$multiarch/slurm-wlm/lagom.so
tuner=/usr/lib/$multiarch/libnccl-tuner-lagom.so
snippet=/etc/slurm/plugstack.conf.d/lagom.conf
[ -f "$LAGOM_PLUGIN" ] || plan_skip_all "lagom-slurm-plugin is not installed ($LAGOM_PLUGIN)"
V=${LAGOM_EXPECT_VERSION:-$(dpkg-query -W -f '${Version}' lagom-slurm-plugin | sed 's/-[^-]*$//')}
profile_fixture=$top_srcdir/tests/profile/valid/a100-full.json
plan 15

owner() { dpkg -S "$1" 2>/dev/null | cut -d: -f1; }
check_that() { if eval "$2"; then ok "$1"; else not_ok "$1"; fi; }
check_that "installed files belong to their packages" \
	'[ "$(owner "$LAGOM_PLUGIN")" = lagom-slurm-plugin ] && [ "$(owner "$tuner")" = lagom-nccl-plugins ] && [ "$(owner /usr/bin/lagom)" = lagom ] && [ "$(owner /usr/sbin/lagom-prolog)" = lagom-prolog ]'
check "lagom --version is the package's ($V)" [ "$(/usr/bin/lagom --version)" = "lagom $V" ]
check "lagom-prolog --version is the package's" [ "$(/usr/sbin/lagom-prolog --version)" = "lagom-prolog $V" ]

# The installed prolog writes a (topology-only) profile the CLI accepts.
pdir=$(mktemp -d /tmp/lagom-installed.XXXXXX) && chmod 0755 "$pdir"
/usr/sbin/lagom-prolog --profile-dir "$pdir" --node n9 --force --plugstack /dev/null >/dev/null 2>"$pdir.err"
check_that "lagom-prolog writes a profile that 'lagom profile check' accepts" \
	'[ -f "$pdir/n9.json" ] && /usr/bin/lagom profile check "$pdir/n9.json" >/dev/null 2>&1'
rm -rf "$pdir" "$pdir.err"

# The snippet's line, as an admin enables it.
line=$(sed -n 's/^#optional //p' "$snippet")
check "the snippet's (commented) line names the installed lagom.so" \
	[ "${line%% *}" = "$LAGOM_PLUGIN" ]

# The enroot hook (doc/containers.md): installed, off, naming the tuner.
ehook=/usr/share/lagom/enroot/50-lagom.sh
check_that "the enroot hook is installed off and its settings name the tuner" \
	'[ -x "$ehook" ] && [ "$(owner "$ehook")" = lagom-nccl-plugins ] && ! ls /etc/enroot/hooks.d/*lagom* >/dev/null 2>&1 && grep -qx "tuner=$tuner" "${ehook%.sh}.conf"'

# Slurm's oci.conf and the bundles' mounts (doc/containers.md): installed
# as examples, the mounts naming the installed tuner.
odir=/usr/share/lagom/oci
check_that "oci.conf and lagom-mounts.json are installed, the mounts name the tuner" \
	'[ "$(owner "$odir/oci.conf")" = lagom-nccl-plugins ] && [ "$(owner "$odir/lagom-mounts.json")" = lagom-nccl-plugins ] && python3 -c "import json,sys; m=json.load(open(sys.argv[1])); sys.exit(0 if any(e[\"source\"] == sys.argv[2] == e[\"destination\"] for e in m) else 1)" "$odir/lagom-mounts.json" "$tuner" && ! [ -e /etc/slurm/oci.conf ]'

for v in $(compgen -e | grep -E '^(LAGOM_|NCCL_|TORCH_NCCL|CUDA_DEVICE_MAX)'); do
	export -n "$v"
done
trap cluster_stop EXIT
if ! cluster_start; then
	echo "Bail out! the local cluster did not start"
	exit 1
fi
cluster_profiles "$profile_fixture"
line=$(echo "$line" | sed "s|profile_dir=[^ ]*|profile_dir=$CLUSTER_DIR/profiles|")
echo "optional $line topology_conf=$CLUSTER_DIR/etc/topology.conf tuner=$tuner" \
	>"$CLUSTER_DIR/etc/plugstack.conf"
diag "plugstack.conf: $(cat "$CLUSTER_DIR/etc/plugstack.conf")"
cd "$CLUSTER_DIR/work" || exit 1
out=$CLUSTER_DIR/out err=$CLUSTER_DIR/err
show='echo $(hostname) SLURM_JOB_ID=$SLURM_JOB_ID $(env | grep -E "^(NCCL_|LAGOM_)" | sort | tr "\n" " ")'
rc=0
timeout 60 srun -N3 --gres=gpu:4 --lagom=auto --lagom-workload=phi-2:fsdp \
	bash -c "$show" >"$out" 2>"$err" || rc=$?
check "srun -N3 --lagom=auto with the installed plugin succeeds" [ "$rc" -eq 0 ]
[ "$rc" -eq 0 ] || sed 's/^/#   /' "$err" | head -20
ids=$(grep -o 'LAGOM_PLAN_ID=[0-9a-f]*' "$out" | sort -u)
check_that "every task on n1 n2 n3 has the same LAGOM_PLAN_ID" \
	'[ "$(awk "{print \$1}" "$out" | sort -u | tr "\n" " ")" = "n1 n2 n3 " ] && [ "$(grep -c LAGOM_PLAN_ID= "$out")" -eq 3 ] && [ "$(echo "$ids" | wc -l)" -eq 1 ]'
plan_id=${ids#LAGOM_PLAN_ID=}
check "NCCL_TUNER_PLUGIN is the installed tuner" \
	[ "$(grep -cE "NCCL_TUNER_PLUGIN=$tuner( |\$)" "$out")" -eq 3 ]
check "the LAGOM_PLAN header carries the package version" \
	[ "$(grep -c "LAGOM_PLAN=lagom-plan 1 $V $plan_id " "$out")" -eq 3 ]
job=$(grep -o 'SLURM_JOB_ID=[0-9]*' "$out" | head -1 | cut -d= -f2)

rc=0
timeout 60 srun -N3 --gres=gpu:4 --lagom=explain --lagom-workload=phi-2:fsdp \
	true >"$out" 2>"$err" || rc=$?
check "the plugin's log line (explain) carries the package version and the plan id" \
	grep -q "lagom: explain (nothing set): lagom $V plan=$plan_id " "$err"
comment=$(cluster_sacct "$job" Comment "" 30)
diag "job $job comment: $comment"
check "the job comment (sacct) carries the package version and the plan id" \
	grep -qF "lagom $V plan=$plan_id " <<<"$comment"

# The installed CLI plans the same step to the same plan.
/usr/bin/lagom plan --profile "$CLUSTER_DIR/profiles" --nodelist 'n[1-3]' \
	--nodes 3 --gpus-per-node 4 --workload phi-2:fsdp --tuner "$tuner" \
	--topology-conf "$CLUSTER_DIR/etc/topology.conf" --format json \
	>"$CLUSTER_DIR/plan.json" 2>"$err"
cli_id=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["plan_id"])' "$CLUSTER_DIR/plan.json" 2>/dev/null)
check "/usr/bin/lagom plan gives the plugin's plan id ($cli_id)" [ "$cli_id" = "$plan_id" ]
/usr/bin/lagom plan --profile "$CLUSTER_DIR/profiles" --nodelist 'n[1-3]' \
	--nodes 3 --gpus-per-node 4 --workload phi-2:fsdp \
	--svg "$CLUSTER_DIR/plan.svg" >/dev/null 2>"$err"
check_that "/usr/bin/lagom plan --svg draws it (one panel per class)" \
	'[ "$(grep -c "class=\"panel\"" "$CLUSTER_DIR/plan.svg")" -eq "$(python3 -c "import json,sys; print(len(json.load(open(sys.argv[1]))[\"collectives\"]))" "$CLUSTER_DIR/plan.json")" ]'
done_testing
