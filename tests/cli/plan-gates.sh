#!/bin/sh
# tests/cli/plan-gates.sh - `lagom plan`: NCCL_CTA_POLICY is a candidate
# only when every profile of the step recorded NCCL 2.28 or newer (the
# oldest counts) and --registered-buffers says the application registers
# its buffers; the plan never sets it otherwise (doc/search.md).
. "$top_srcdir/tests/lib/tap.sh"
. "$top_srcdir/tests/cli/lib.sh"

PROF=$top_srcdir/tests/profile/valid/a100-full.json
grep -q '"nccl_version": "2.28.9"' "$PROF" || plan_skip_all "$PROF records no NCCL 2.28.9"
name=$(sed -n 's/.*"name": *"\([^"]*\)".*/\1/p' "$PROF" | head -1)
# a profile directory of two nodes, n1 and n2, with NCCL versions $1 and $2
# ("" : the profile records none)
two() {
	rm -rf "$TMP/d"
	mkdir "$TMP/d"
	node n1 "$1"
	node n2 "$2"
}
node() {
	if [ -n "$2" ]; then
		sed -e "s/\"name\": *\"$name\"/\"name\": \"$1\"/" \
			-e "s/\"nccl_version\": \"2.28.9\"/\"nccl_version\": \"$2\"/" "$PROF" >"$TMP/d/$1.json"
	else
		sed -e "s/\"name\": *\"$name\"/\"name\": \"$1\"/" \
			-e '/"nccl_version"/d' "$PROF" >"$TMP/d/$1.json"
	fi
}
# gates DESC WANT_LINE [OPTIONS]: the plan of n1+n2 says WANT_LINE and
# sets NCCL_CTA_POLICY only where WANT_LINE says it is a candidate
gates() {
	desc=$1 want=$2
	shift 2
	for wl in phi-2:fsdp,mb2 llama-3.1-8b:fsdp,mb1 phi-2:tp8,mb8; do
		run_lagom "$TMP/out" "$TMP/err" plan --profile "$TMP/d" --nodes 2 --no-trust \
			--workload "$wl" --tuner none "$@"
		if [ "$rc" -ne 0 ] || ! grep -qxF "$want" "$TMP/out"; then
			not_ok "$desc ($wl)"
			sed 's/^/#   /' "$TMP/out" "$TMP/err" | head -5
			return
		fi
		case $want in
		*"is not a candidate")
			if grep -q 'NCCL_CTA_POLICY=' "$TMP/out"; then
				not_ok "$desc ($wl): NCCL_CTA_POLICY set"
				return
			fi
			;;
		esac
	done
	ok "$desc"
}

two 2.28.9 2.28.9
gates "NCCL 2.28.9 on both nodes, buffers registered: a candidate" \
	"NCCL: 2.28.9, buffers registered: NCCL_CTA_POLICY is a candidate" --registered-buffers
gates "NCCL 2.28.9 on both nodes, not said registered: never" \
	"NCCL: 2.28.9, buffers not said registered: NCCL_CTA_POLICY is not a candidate"
two 2.28.9 2.27.3
gates "NCCL 2.27.3 on one node (the oldest counts): never" \
	"NCCL: 2.27.3, buffers registered: NCCL_CTA_POLICY is not a candidate" --registered-buffers
two 2.28.9 ""
gates "one profile records no NCCL version: never" \
	"NCCL: unknown (a profile does not record it), buffers registered: NCCL_CTA_POLICY is not a candidate" \
	--registered-buffers
two 3.0.1 2.29.0
gates "NCCL 3.0.1 and 2.29.0: the oldest, a candidate" \
	"NCCL: 2.29.0, buffers registered: NCCL_CTA_POLICY is a candidate" --registered-buffers
run_lagom "$TMP/out" "$TMP/err" plan --help
check "--help names --registered-buffers" grep -q -- '--registered-buffers' "$TMP/out"
plan "$tap_n"
done_testing
