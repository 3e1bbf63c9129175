#!/bin/sh
# A bounded libFuzzer run (about 10 s each) of topology/'s string parsers
# from their seed corpora: no crash, no sanitizer report, no broken
# invariant.  Skips with the reason when clang/libFuzzer (or, for the
# topology.conf target, libslurm) is not there.
. "$top_srcdir/tests/lib/tap.sh"

clang=
for c in ${CLANG:-} clang clang-14; do
	command -v "$c" >/dev/null 2>&1 && { clang=$c; break; }
done
[ -n "$clang" ] || plan_skip_all "clang not installed: libFuzzer unavailable"

tmp=$(mktemp -d "${TMPDIR:-/tmp}/lagom-topofuzz.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
s=$top_srcdir
flags="-g -O1 -fsanitize=fuzzer,address,undefined -I$s -I$top_builddir -D_GNU_SOURCE"

# build NAME SOURCES... [-- LIBS]: 0 when the target builds.
build() {
	name=$1
	shift
	# shellcheck disable=SC2086
	"$clang" $flags -o "$tmp/$name" "$@" >"$tmp/$name.build" 2>&1
}

# run NAME SECONDS CORPUS...: one TAP line.
run() {
	name=$1 secs=$2
	shift 2
	mkdir -p "$tmp/new-$name"
	if "$tmp/$name" -max_total_time="$secs" -timeout=5 -rss_limit_mb=1024 \
		-print_final_stats=1 "$tmp/new-$name" "$@" \
		>"$tmp/$name.log" 2>&1; then
		n=$(grep -m1 'stat::number_of_executed_units' "$tmp/$name.log" |
			awk '{print $2}')
		ok "$name: $secs s of fuzzing, $n inputs, no finding"
	else
		grep -v '^#[0-9]' "$tmp/$name.log" | tail -n 40 | sed 's/^/# /'
		not_ok "$name found a problem (log above)"
	fi
}

if ! build fuzz_nccl_topo "$s/tests/fuzz/fuzz_nccl_topo.c" \
	"$s/topology/nccl_topo.c" "$s/topology/topo_core.c" \
	"$s/topology/xml_lite.c" \
	"$s/common/error.c"; then
	plan_skip_all "libFuzzer unavailable: $(head -c 200 "$tmp/fuzz_nccl_topo.build" | tr '\n' ' ')"
fi
plan 3
run fuzz_nccl_topo 10 "$s/tests/fuzz/corpus/nccl_topo" \
	"$s/tests/fixtures/nccl-topo"

if build fuzz_step_strings "$s/tests/fuzz/fuzz_step_strings.c" \
	"$s/topology/tasks.c" "$s/common/error.c"; then
	run fuzz_step_strings 10 "$s/tests/fuzz/corpus/step_strings"
else
	not_ok "fuzz_step_strings does not build: $(head -c 200 "$tmp/fuzz_step_strings.build" | tr '\n' ' ')"
fi

if build fuzz_switchtree "$s/tests/fuzz/fuzz_switchtree.c" \
	"$s/topology/switchtree.c" "$s/topology/placement.c" \
	"$s/topology/tasks.c" "$s/common/error.c" -lslurm; then
	run fuzz_switchtree 10 "$s/tests/fuzz/corpus/switchtree"
else
	skip "fuzz_switchtree needs libslurm: $(head -c 200 "$tmp/fuzz_switchtree.build" | tr '\n' ' ')"
fi
done_testing
