#!/bin/sh
# tests/cli/cli-errors.sh - bad arguments give exit status 2 and one clear
# "lagom: ..." line on stderr, runtime failures exit 1, nothing crashes.
. "$top_srcdir/tests/lib/tap.sh"
. "$top_srcdir/tests/cli/lib.sh"

plan 51

P=$TMP/n001.json
"$LAGOM" profile synth --gpu H100-SXM --gpus-per-node 8 --node n001 \
	-o "$P" >/dev/null || { not_ok "profile synth"; exit 1; }
PRED="predict --profile $P --nodes 2 --collective allreduce"

expect_status 2 "no command" 
expect_status 2 "unknown command" frobnicate
expect_status 2 "unknown option" workloads --bogus
expect_status 2 "stray argument" workloads extra
expect_status 2 "bad --format" workloads --format yaml
expect_status 2 "missing option value" predict --nodes
# shellcheck disable=SC2086
{
expect_status 2 "negative bytes" $PRED --bytes -5
expect_status 2 "zero bytes" $PRED --bytes 0
expect_status 2 "bytes with an unknown suffix" $PRED --bytes 12Q
expect_status 2 "bytes beyond 1 TiB" $PRED --bytes 2TiB
expect_status 2 "bytes overflowing 64 bits" $PRED --bytes 99999999999999999999999
expect_status 2 "unknown collective" predict --profile "$P" --nodes 2 \
	--collective allfoo --bytes 1M
expect_status 2 "unknown algorithm" $PRED --bytes 1M --algo spiral
expect_status 2 "unknown protocol" $PRED --bytes 1M --proto ll256
expect_status 2 "channels above 64" $PRED --bytes 1M --channels 65
expect_status 2 "threads not a multiple of 32" $PRED --bytes 1M --threads 100
expect_status 2 "more ranks per node than GPUs" $PRED --bytes 1M \
	--ranks-per-node 9
}
expect_status 2 "zero nodes" predict --profile "$P" --nodes 0 \
	--collective allreduce --bytes 1M
expect_status 2 "absurd node count" predict --profile "$P" \
	--nodes 100000000000 --collective allreduce --bytes 1M
expect_status 2 "predict without hardware" predict --nodes 2 \
	--collective allreduce --bytes 1M
expect_status 2 "missing profile file" predict --profile "$TMP/none.json" \
	--nodes 2 --collective allreduce --bytes 1M
expect_status 2 "unknown GPU model" profile synth --gpu Voodoo5 \
	--gpus-per-node 8
expect_status 2 "NVSwitch on a GPU without NVLink" profile synth --gpu L40S \
	--gpus-per-node 8 --intra nvswitch
expect_status 2 "--intra none (a profile's word, not a fabric)" profile \
	synth --gpu H100-SXM --gpus-per-node 8 --intra none
check "--intra none: the clear usage line" \
	grep -q "expected nvswitch, nvlink or pcie" "$TMP/err"
expect_status 2 "predict --intra default" predict --gpu H100-SXM \
	--nodes 2 --intra default --collective allreduce --bytes 1M
expect_status 2 "bad --nic" profile synth --gpu H100-SXM --gpus-per-node 8 \
	--nic 4y400
expect_status 2 "unknown workload" plan --profile "$P" --nodes 2 \
	--workload no-such-model
expect_status 2 "workload that does not fit the GPUs" plan --profile "$P" \
	--nodes 2 --workload llama-3.1-8b:tp3
expect_status 2 "missing workload file" plan --profile "$P" --nodes 2 \
	--workload "$TMP/none.json"
expect_status 2 "absurd node count for plan" plan --profile "$P" \
	--nodes 4294967297
expect_status 2 "missing profile for plan" plan --profile "$TMP/none" \
	--nodes 2
expect_status 2 "missing profile to check" profile check "$TMP/none.json"
mkdir "$TMP/dir"
cp "$P" "$TMP/dir/"
expect_status 2 "empty --nodelist with a profile directory" plan \
	--profile "$TMP/dir" --nodelist ''
expect_status 2 "empty --nodelist with a profile file" plan --profile "$P" \
	--nodelist ''
expect_status 2 "missing topology file" topo --xml "$TMP/none.xml"
expect_status 2 "--nodelist ending in ','" plan --profile "$P" \
	--nodelist 'n001,'
expect_status 2 "--nodelist naming a node twice" plan --profile "$P" \
	--nodelist 'n001,n002,n001'
expect_status 2 "--nodelist whose expansion names a node twice" plan \
	--profile "$P" --nodelist 'n[001-002],n002'
expect_status 2 "--nodelist that is no hostlist" plan --profile "$P" \
	--nodelist 'n[002-001]'

# Output that cannot be written is a runtime failure (exit 1, one line),
# never a 0 behind a truncated file.
full_status() {
	local what=$1 n
	shift
	if [ ! -w /dev/full ]; then
		skip "$what: no writable /dev/full"
		return
	fi
	"$LAGOM" "$@" >/dev/full 2>"$TMP/err"
	rc=$?
	n=$(wc -l <"$TMP/err")
	if [ "$rc" -eq 1 ] && [ "$n" -eq 1 ] && grep -q '^lagom: ' "$TMP/err"
	then
		ok "$what"
	else
		not_ok "$what: exit $rc with $n stderr lines, want 1 and 1"
		sed 's/^/# /' "$TMP/err"
	fi
}
full_status "stdout full: profile synth" profile synth --gpu H100-SXM \
	--gpus-per-node 8 --node n001
full_status "stdout full: workloads" workloads
full_status "stdout full: predict" $PRED --bytes 1M
full_status "stdout full: topo" topo --xml "$FIX/hwloc/nvidiaDGX2.xml"
full_status "stdout full: profile check" profile check --no-trust "$P"
full_status "stdout full: --help" --help

printf 'not xml at all\n' >"$TMP/bad.xml"
expect_status 1 "a topology file that does not parse is a runtime error" \
	topo --nccl-topo "$TMP/bad.xml"

printf '{ "lagom_workload": 1, "regions": [' >"$TMP/bad.json"
expect_status 1 "a workload file that does not parse is a runtime error" \
	plan --profile "$P" --nodes 2 --workload "$TMP/bad.json"
# The plugin's bound (workload/workload.h): 1 MiB, as in a job.
{ printf '{ "lagom_workload": 1, "name": "w", "regions": [ { "name": "r", "kernels": [ { "time_s": 0.001 } ] } ] }'
  head -c 1048576 /dev/zero | tr '\0' ' '; } >"$TMP/big.json"
expect_status 1 "a workload file over 1 MiB is refused as in a job" \
	plan --profile "$P" --nodes 2 --workload "$TMP/big.json"

# Files are replaced atomically (cli_write_atomic): a missing folder is one
# line naming the file asked for, and nothing is left behind.
expect_status 1 "profile synth -o into a missing folder" profile synth \
	--gpu H100-SXM --gpus-per-node 8 --node n001 -o "$TMP/nodir/p.json"
check "... the line names the file asked for" \
	grep -qx "lagom: $TMP/nodir/p.json: No such file or directory" "$TMP/err"

done_testing
