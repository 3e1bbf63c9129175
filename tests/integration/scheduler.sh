#!/usr/bin/env bash
# tests/integration/scheduler.sh - lagom's scheduler side on a real Slurm
# 22.05: JobSubmitPlugins=lua loading contrib/slurm/lagom_submit.lua,
# TopologyPlugin=topology/tree (leaf1 = n[1-2], leaf2 = n3, spine), a policy
# written by `lagom policy`, and `lagom place` against what Slurm then does.
# One cluster (no accounting: scontrol shows what is checked), always
# stopped; every command bounded.
. "$top_srcdir/tests/lib/tap.sh"
. "$top_srcdir/tests/lib/cluster.sh"

cluster_need_plugin
[ -f /usr/lib/x86_64-linux-gnu/slurm-wlm/job_submit_lua.so ] ||
	plan_skip_all "job_submit_lua.so not installed (slurm-wlm-basic-plugins)"
lagom=$top_builddir/lagom
[ -x "$lagom" ] || plan_skip_all "lagom not built"
fixture=$top_srcdir/tests/profile/valid/a100-full.json

# The site's job_submit.lua: the module, the policy next to slurm.conf,
# checked at every submission (reload_s = 0) so each case below is seen.
site=$(cluster_site_lua)

cleanup() {
	cluster_stop
	rm -f "$site"
}
cluster_unexport
LAGOM_CLUSTER_ACCT=0 LAGOM_JOB_SUBMIT_LUA=$site cluster_setup "$fixture" cleanup
etc=$CLUSTER_DIR/etc
policy=$etc/lagom-policy
ctld_log=$CLUSTER_DIR/log/slurmctld.log
heavy=llama-3-70b:tp8,fsdp
light=gpt2-xl:dp

# submit ARGS...: a held batch job; its id in $job
submit() {
	job=
	run sbatch --parsable -H -o /dev/null "$@" --wrap=true
	job=$(cut -d';' -f1 "$out")
}
show() { timeout 10 scontrol show job "$1" 2>/dev/null; }
policy_lines() { grep -c 'lua: lagom: policy' "$ctld_log"; }
ctld_alive() { timeout 10 scontrol ping 2>/dev/null | grep -q UP; }

# --- the policy ------------------------------------------------------------
# The demo's spine is declared 4:1 oversubscribed (--spine-taper 4): with a
# non-blocking spine the model sees only extra latency and rates every
# catalog workload insensitive.  The admin leaves jobs losing under 5 %
# alone (--min-loss 0.05): the light workload's predicted loss (2.8 % since
# the contention model's memory-traffic term, doc/model.md 4) sits near the
# 2 % default, the heavy one's far above either.
run "$lagom" policy --profile "$CLUSTER_DIR/profiles" --topology-conf "$etc/topology.conf" \
	--spine-taper 4 --min-loss 0.05 --workload "$heavy" --workload "$light" --output "$policy"
check "lagom policy writes the policy from the cluster's profiles and topology.conf" [ "$rc" -eq 0 ]
check_that "... owned by root, mode 0644" '[ "$(stat -c "%u %a" "$policy")" = "0 644" ]'
check "... $heavy on 2 nodes: switches 1" grep -q "^entry $heavy 2 1 " "$policy"
check "... $light on 2 nodes: insensitive" grep -q "^entry $light 2 0 0 .* insensitive\$" "$policy"
wait_s=$(awk -v w="$heavy" '$1 == "entry" && $2 == w && $3 == 2 {print $5}' "$policy")
hms=$(printf '%02d:%02d:%02d' $((wait_s / 3600)) $((wait_s / 60 % 60)) $((wait_s % 60)))
diag "policy: $heavy on 2 nodes waits up to $wait_s s ($hms)"

# --- the module's decisions ------------------------------------------------
submit -N2 --lagom=auto --lagom-workload="$heavy"
s=$(show "$job")
check "sbatch -N2 --lagom=auto --lagom-workload=$heavy is accepted" [ "$rc" -eq 0 ]
check "... and gets Switches=1@$hms" grep -q "Switches=1@$hms" <<<"$s"
check "... with the decision in the admin comment" grep -q "AdminComment=lagom: --switches=1@$wait_s for $heavy on 2 nodes" <<<"$s"
submit -N2
s=$(show "$job")
check_that "a job without --lagom: no Switches, no admin comment" \
	'[ "$rc" -eq 0 ] && ! grep -q "Switches=" <<<"$s" && ! grep -q "AdminComment=lagom" <<<"$s"'
submit -N2 --lagom=auto --lagom-workload="$heavy" --switches=2@1:00
s=$(show "$job")
check_that "a job with the user's --switches=2@1:00 keeps it, no lagom comment" \
	'[ "$rc" -eq 0 ] && grep -q "Switches=2@00:01:00" <<<"$s" && ! grep -q "AdminComment=lagom" <<<"$s"'
submit -N2 --lagom=auto --lagom-workload="$light"
s=$(show "$job")
check_that "an insensitive workload ($light): unchanged" \
	'[ "$rc" -eq 0 ] && ! grep -q "Switches=" <<<"$s" && ! grep -q "AdminComment=lagom" <<<"$s"'
submit -N2 --lagom=auto --lagom-workload="$heavy" -t 10
s=$(show "$job")
expect=$(awk -v w="$heavy" '$1 == "entry" && $2 == w && $3 == 2 {w = int($6 * 600 + 1e-6); if (w > 300) w = 300; if (w < 1) w = 1; printf "00:%02d:%02d", w / 60, w % 60}' "$policy")
check "a 10-minute limit waits the loss over 10 minutes (Switches=1@$expect)" grep -q "Switches=1@$expect" <<<"$s"
run runuser -u nobody -- env SLURM_CONF="$SLURM_CONF" sbatch --parsable -H -D /tmp -o /dev/null \
	-N2 --lagom=auto --lagom-workload="$heavy" --wrap=true
job=$(cut -d';' -f1 "$out")
s=$(show "$job")
check_that "an unprivileged user's job gets Switches=1 and the admin comment" \
	'[ "$rc" -eq 0 ] && grep -q "Switches=1@" <<<"$s" && grep -q "AdminComment=lagom:" <<<"$s"'

# --- a bad policy changes nothing --------------------------------------------
cp "$policy" "$CLUSTER_DIR/policy.good"
bad_case() { # WHAT: three jobs accepted unchanged, one log line
	local what=$1 before all=1 i s
	before=$(policy_lines)
	for i in 1 2 3; do
		submit -N2 --lagom=auto --lagom-workload="$heavy"
		s=$(show "$job")
		if [ "$rc" -ne 0 ] || grep -q "Switches=" <<<"$s" || grep -q "AdminComment=lagom" <<<"$s"; then
			all=0
		fi
	done
	check "$what policy: three jobs accepted unchanged" [ "$all" -eq 1 ]
	check "$what policy: slurmctld keeps running" ctld_alive
	check "$what policy: one log line" [ "$(($(policy_lines) - before))" -eq 1 ]
	install -m 0644 "$CLUSTER_DIR/policy.good" "$policy"
}
rm -f "$policy"
bad_case missing
head -c 300 "$CLUSTER_DIR/policy.good" >"$policy"
bad_case corrupt
{ cat "$CLUSTER_DIR/policy.good"; head -c 2000000 /dev/zero | tr '\0' '#'; } >"$policy"
bad_case huge
chmod 0666 "$policy"
bad_case world-writable
# a number tonumber() takes but lagom never writes (issue 25: a loss of nan
# gave Switches=1@00:00:00)
awk -v w="$heavy" '$1 == "entry" && $2 == w { $6 = "nan" } { print }' \
	"$CLUSTER_DIR/policy.good" >"$policy"
bad_case "a loss of nan in the"
check "... the line says why" \
	grep -q "lua: lagom: policy .* is corrupt (line [0-9]*: loss is not a finite number" "$ctld_log"
grep "lua: lagom: policy" "$ctld_log" | sed 's/^/#   /' | tail -5
submit -N2 --lagom=auto --lagom-workload="$heavy"
check "the policy restored: Switches=1 again" grep -q "Switches=1@" <<<"$(show "$job")"
timeout 10 scancel --user=root >/dev/null 2>&1
timeout 10 scancel --user=nobody >/dev/null 2>&1
sleep 1

# --- lagom place against what Slurm does -------------------------------------
# place_json: the options as "kind possible recommended sbatch..." lines
place() {
	run "$lagom" place --nodes 2 --workload "$heavy" --profile "$CLUSTER_DIR/profiles" \
		--spine-taper 4 --format json
	python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
for o in d["options"]:
    print(o["kind"], int(o["possible"]), int(o["recommended"]), o["sbatch"])
' "$out" >"$CLUSTER_DIR/place" 2>/dev/null
}
opt() { awk -v k="$1" '$1 == k' "$CLUSTER_DIR/place"; }
sbatch_of() { opt "$1" | cut -d' ' -f4-; }
# start OPTIONS: a running job (no --lagom: the module leaves it alone)
start() {
	run sbatch --parsable -o /dev/null $1 --wrap='sleep 60'
	job=$(cut -d';' -f1 "$out")
}
nodes_of() { show "$1" | sed -n 's/^ *NodeList=//p' | head -1; }
state_of() { show "$1" | sed -n 's/.*JobState=\([A-Z]*\).*/\1/p'; }
wait_state() { # JOB STATE
	local i
	for i in $(seq 1 40); do
		[ "$(state_of "$1")" = "$2" ] && return 0
		sleep 0.25
	done
	return 1
}

place
check "lagom place reads Slurm's nodes and tree" [ "$rc" -eq 0 ]
check "all idle: pack-now into one leaf is recommended" grep -q '^pack-now 1 1 ' "$CLUSTER_DIR/place"
start "$(sbatch_of pack-now)"
wait_state "$job" RUNNING
check "... and sbatch $(sbatch_of pack-now) runs on leaf1's n[1-2]" [ "$(nodes_of "$job")" = "n[1-2]" ]
timeout 10 scancel "$job"
wait_state "$job" CANCELLED

timeout 10 scontrol update nodename=n1 state=drain reason=lagom-test
place
check_that "n1 drained: no leaf can hold 2 nodes, spread-now is recommended" \
	'grep -q "^pack-now 0 " "$CLUSTER_DIR/place" && grep -q "^wait-for-leaf 0 " "$CLUSTER_DIR/place" && grep -q "^spread-now 1 1 " "$CLUSTER_DIR/place"'
start "$(sbatch_of spread-now)"
wait_state "$job" RUNNING
check "... and sbatch $(sbatch_of spread-now) runs spread on n[2-3]" [ "$(nodes_of "$job")" = "n[2-3]" ]
timeout 10 scancel "$job"
wait_state "$job" CANCELLED
timeout 10 scontrol update nodename=n1 state=resume

start "-N1 -w n1 --exclusive"
busy=$job
wait_state "$busy" RUNNING
place
check_that "n1 busy: wait-for-leaf is recommended, spread-now possible" \
	'grep -q "^pack-now 0 " "$CLUSTER_DIR/place" && grep -q "^wait-for-leaf 1 1 " "$CLUSTER_DIR/place" && grep -q "^spread-now 1 0 " "$CLUSTER_DIR/place"'
start "$(sbatch_of spread-now)"
wait_state "$job" RUNNING
check "... spread-now ($(sbatch_of spread-now)) starts at once on n[2-3]" [ "$(nodes_of "$job")" = "n[2-3]" ]
timeout 10 scancel "$job"
wait_state "$job" CANCELLED
start "$(sbatch_of wait-for-leaf)"
waiter=$job
sleep 2
check "... wait-for-leaf ($(sbatch_of wait-for-leaf)) pends while leaf1 is busy" [ "$(state_of "$waiter")" = PENDING ]
timeout 10 scancel "$busy"
wait_state "$waiter" RUNNING
check "... and runs on leaf1's n[1-2] once it is free" [ "$(nodes_of "$waiter")" = "n[1-2]" ]
timeout 10 scancel --user=root >/dev/null 2>&1

check "slurmctld ran throughout" ctld_alive
plan "$tap_n"
done_testing
