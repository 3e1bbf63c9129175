#!/bin/sh
# bench/gpu_check.sh - lagom's first checks on a real GPU, run from the
# folder bench/gpu_pack.sh made (not part of `make check`):
#
#   OUT=/some/dir sh PACK/gpu_check.sh
#
#  1. nvidia-smi: the GPUs and the driver;
#  2. the CUDA runtime, cuBLAS and NCCL: found in the PyTorch wheels
#     (nvidia/*/lib under site-packages) or CUDA_HOME, put on LD_LIBRARY_PATH;
#  3. lagom-prolog --dry-run --print --force -v, with its default budget and
#     with --budget 40 (the whole contention curve): profiles and timings;
#  4. nccl_pair: two ranks of one NCCL job (all-reduce, all-gather, 64 KiB ..
#     64 MiB) with lagom's tuner and profiler plugins and NCCL_DEBUG=INFO.
#     On one GPU the ranks get different NCCL_HOSTID values, so NCCL sees two
#     hosts joined by sockets on lo instead of refusing a duplicate GPU
#     (NCCL 2.28 src/misc/utils.cc getHostHash: NCCL_HOSTID replaces the host
#     name in the host hash; src/init.cc refuses two ranks only with equal
#     host hash and bus id).  If the pair fails, one rank alone still shows
#     the plugins loading;
#  5. lagom runs on the records the profiler plugin wrote;
#  6. nccl_contention: the slowdown of the bf16 8192^3 GEMM, a skinny
#     bf16 8192x1024x8192 GEMM and a memory-bound triad (3 x 1 GiB) beside
#     real NCCL kernels holding k = 1 .. 32 channels (two ranks on the GPU
#     as in 4, no lagom plugins); with LAGOM_CONTENTION_MPS=1 and
#     nvidia-cuda-mps-control found, once more under a private MPS daemon
#     (pipe and log folders in the scratch folder; told to quit after).
#
#   OUT=/some/dir sh PACK/gpu_check.sh --only-contention
#
# runs steps 1, 2 and 6 only (under a minute; at most 100 s, 80 s more
# with MPS).  Every step runs under
# `timeout`; a failed step is reported and the next runs.  Without a GPU
# every step still runs and fails cleanly.  Results in $OUT (8 files):
# summary.txt (read this first), prolog.log, profile.json,
# profile_long.json, nccl_pair.log (step 6's logs too), runs.json,
# records.tar.gz, contention_nccl.csv; with --only-contention the first,
# nccl_pair.log and the last.  Exit status 0 when the script itself could
# run (the summary says what passed), 2 on an unknown option.
set -u
only=no
case ${1:-} in
--only-contention) only=yes ;;
'') ;;
*)
	echo "usage: OUT=DIR sh gpu_check.sh [--only-contention]" >&2
	exit 2
	;;
esac
here=$(cd "$(dirname "$0")" && pwd)
out=${OUT:?set OUT to the results folder}
mkdir -p "$out" || exit 1
out=$(cd "$out" && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/lagom-gpu.XXXXXX") || exit 1
mps=
trap '[ -z "$mps" ] || echo quit | timeout 10 nvidia-cuda-mps-control; rm -rf "$work"' EXIT
sum=$out/summary.txt
# The spool is USER/JOB.STEP; a uid without a passwd entry cannot use
# `lagom runs` (it looks the user up): the records still come back.
user=$(id -un 2>/dev/null || id -u)
spool=$work/spool
mkdir -p "$spool/$user" && chmod 700 "$spool" "$spool/$user"
: >"$sum"
[ "$only" = yes ] || : >"$out/prolog.log"
: >"$out/nccl_pair.log"

say() { printf '%s\n' "$*" | tee -a "$sum"; }
now() { date +%s.%N; }
since() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.2f", b - a }'; }

# step NAME SECONDS STDOUT STDERR CMD...: run CMD bounded, say how it went.
step() {
	name=$1 limit=$2 so=$3 se=$4
	shift 4
	t0=$(now)
	timeout -k 5 "$limit" "$@" >>"$so" 2>>"$se"
	rc=$?
	case $rc in
	0) verdict=ok ;;
	124 | 137) verdict="TIMED OUT after $limit s" ;;
	*) verdict="FAILED (exit $rc)" ;;
	esac
	say "-- $name: $verdict, $(since "$t0") s"
	return $rc
}

say "== lagom GPU check, $(date -u +%Y-%m-%dT%H:%M:%SZ), $(uname -n), kernel $(uname -r)"
say "host: $(ldd --version 2>&1 | head -n 1)"
sed 's/^/pack: /' "$here/MANIFEST" 2>/dev/null | head -n 6 | tee -a "$sum"

# 1. GPUs
say "== 1. GPUs"
gpus=0
if command -v nvidia-smi >/dev/null 2>&1; then
	timeout 15 nvidia-smi -L >"$work/smi" 2>&1
	tee -a "$sum" <"$work/smi"
	gpus=$(grep -c '^GPU ' "$work/smi")
	timeout 15 nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm,power.limit,compute_mode \
		--format=csv 2>&1 | tee -a "$sum"
else
	say "nvidia-smi: not found"
fi
say "CUDA_VISIBLE_DEVICES=${CUDA_VISIBLE_DEVICES-(unset)}; PCI in sysfs (what hwloc sees): $(cat /sys/bus/pci/devices/*/vendor 2>/dev/null | grep -c 0x10de) NVIDIA PCI functions, $(grep -l '^0x030[02]' /sys/bus/pci/devices/*/class 2>/dev/null | wc -l) display controllers"
[ "$gpus" -gt 0 ] || say "no GPU: every GPU step below is expected to fail cleanly"

# 2. Libraries: the wheels first (the NCCL PyTorch uses), then CUDA_HOME.
say "== 2. CUDA runtime, cuBLAS, NCCL"
roots=
for d in /opt/torch/.venv/lib/python3*/site-packages/nvidia \
	"${CUDA_HOME:-/usr/local/cuda}/lib64" "${CUDA_HOME:-/usr/local/cuda}/lib" \
	"${CUDA_HOME:-/usr/local/cuda}/targets/x86_64-linux/lib"; do
	[ -d "$d" ] && roots="$roots $d"
done
libpath=
for lib in 'libcudart.so.1[0-9]*' 'libcublas.so.1[0-9]*' 'libcublasLt.so.1[0-9]*' 'libnccl.so.2*'; do
	# shellcheck disable=SC2086
	f=$(find $roots -maxdepth 3 -name "$lib" 2>/dev/null | sort | head -n 1)
	if [ -z "$f" ]; then
		say "$lib: not found under$roots"
		continue
	fi
	say "$lib: $f"
	d=$(dirname "$f")
	case ":$libpath:" in
	*":$d:"*) ;;
	*) libpath=${libpath:+$libpath:}$d ;;
	esac
done
LD_LIBRARY_PATH=$here/lib${libpath:+:$libpath}${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export LD_LIBRARY_PATH
say "LD_LIBRARY_PATH=$LD_LIBRARY_PATH"

# The pack's binaries need glibc 2.34: else run them through its own loader.
run=
if ! "$here/bin/lagom" --version >/dev/null 2>"$work/ver"; then
	say "the host cannot run the pack's binaries: $(head -n 1 "$work/ver")"
	run="$here/glibc/ld-linux-x86-64.so.2 --library-path $here/glibc:$LD_LIBRARY_PATH"
	say "running them through the pack's loader and glibc"
fi

# 6. the GEMM beside real NCCL kernels (defined here, run last).
# contention MODE CSV SECONDS: nccl_contention's two ranks, rank 1 in the
# background; its table and NCCL's channel lines go to the summary, both
# ranks' output and rank 0's NCCL log to nccl_pair.log.
contention() {
	mode=$1 ccsv=$2 lim=$3 cdir=$work/contention.$1 t0=$(now)
	mkdir -p "$cdir"
	set -- env -u NCCL_TUNER_PLUGIN -u NCCL_PROFILER_PLUGIN -u LAGOM_PLAN \
		NCCL_SOCKET_IFNAME=lo NCCL_IB_DISABLE=1 NCCL_NET=Socket NCCL_MNNVL_ENABLE=0
	# shellcheck disable=SC2086
	timeout -k 5 "$lim" "$@" NCCL_HOSTID=lagom-contention-1 NCCL_DEBUG=WARN \
		$run "$here/bin/nccl_contention" 1 "$cdir" - >"$cdir/rank1.log" 2>&1 &
	p1=$!
	# shellcheck disable=SC2086
	timeout -k 5 "$lim" "$@" NCCL_HOSTID=lagom-contention-0 NCCL_DEBUG=INFO \
		NCCL_DEBUG_SUBSYS=INIT,ENV,TUNING \
		$run "$here/bin/nccl_contention" 0 "$cdir" "$ccsv" >"$cdir/rank0.log" 2>&1
	rc0=$?
	# A rank 0 that failed leaves rank 1 waiting (inside NCCL or for a
	# file): stop it rather than at the bound.
	if [ "$rc0" -ne 0 ]; then
		sleep 2
		kill "$p1" 2>/dev/null
	fi
	wait "$p1"
	rc1=$?
	say "-- nccl_contention, $mode: exit status rank 0 $rc0, rank 1 $rc1, $(since "$t0") s (bound $lim s)"
	grep -h '^nccl_contention: ' "$cdir/rank1.log" | tee -a "$sum"
	tee -a "$sum" <"$cdir/rank0.log"
	for f in rank0.log rank1.log nccl0.log; do
		echo "== nccl_contention, $mode: $f" >>"$out/nccl_pair.log"
		cat "$cdir/$f" >>"$out/nccl_pair.log" 2>/dev/null
	done
	[ "$rc0" -eq 0 ] && [ "$rc1" -eq 0 ]
}
contention_step() {
	say "== 6. GEMMs, triad and hog beside real NCCL kernels: 2 processes, $gpus GPU(s), k channels each"
	csv=$out/contention_nccl.csv
	contention_ok=no
	: >"$csv"
	if [ ! -x "$here/bin/nccl_contention" ]; then
		say "no nccl_contention in the pack (no CUDA or cuBLAS headers where it was made)"
		return
	fi
	contention plain "$work/plain.csv" 100 && contention_ok=yes
	modes=plain
	if [ "${LAGOM_CONTENTION_MPS:-0}" = 1 ]; then
		if command -v nvidia-cuda-mps-control >/dev/null 2>&1; then
			CUDA_MPS_PIPE_DIRECTORY=$work/mps CUDA_MPS_LOG_DIRECTORY=$work/mps-log
			export CUDA_MPS_PIPE_DIRECTORY CUDA_MPS_LOG_DIRECTORY
			mkdir -p "$work/mps" "$work/mps-log"
			if timeout 15 nvidia-cuda-mps-control -d >>"$sum" 2>&1; then
				mps=on
				say "MPS: a private daemon started (pipe $work/mps)"
				contention mps "$work/mps.csv" 80 || contention_ok=no
				echo quit | timeout 10 nvidia-cuda-mps-control >>"$sum" 2>&1
				mps=
				sleep 1
				modes="$modes mps"
			else
				say "MPS: nvidia-cuda-mps-control -d failed: no MPS pass"
			fi
			cat "$work/mps-log/control.log" >>"$out/nccl_pair.log" 2>/dev/null
			unset CUDA_MPS_PIPE_DIRECTORY CUDA_MPS_LOG_DIRECTORY
		else
			say "MPS: no nvidia-cuda-mps-control: no MPS pass"
		fi
	fi
	# One CSV: the mode first, the header once.
	for m in $modes; do
		[ -s "$work/$m.csv" ] || continue
		head=yes
		[ -s "$csv" ] && head=no
		awk -v m="$m" -v head="$head" \
			'NR == 1 { if (head == "yes") print "mode," $0; next } { print m "," $0 }' \
			"$work/$m.csv" >>"$csv"
	done
	say "contention_nccl.csv: $(awk 'NR > 1' "$csv" | wc -l) row(s)"
	# Per kernel and mode: the slowdowns over k (idle, moving, beside the
	# hog at its rate alone), the rates.
	awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
		c["kernel"] {
			key = $c["kernel"] " " $1
			if (!(key in seen)) { seen[key] = 1; order[++n] = key }
			ks[key] = ks[key] " " $c["k"]
			idle[key] = idle[key] " " $c["idle_slowdown"]
			mv[key] = mv[key] " " $c["moving_slowdown"]
			rate[key] = rate[key] " " $c["alone_rate"] "/" $c["idle_rate"] "/" $c["moving_rate"]
			hog[key] = hog[key] " " ($c["hog_slowdown"] == "" ? "-" : $c["hog_slowdown"] "@" $c["hog_alone_GBps"])
			unit[key] = $c["unit"] }
		END { for (i = 1; i <= n; i++) { key = order[i]
			print key ": k" ks[key]
			print "   idle_x  " idle[key]
			print "   move_x  " mv[key]
			print "   hog_x  " hog[key] " (slowdown@hog GB/s alone)"
			print "   " unit[key] " alone/idle/moving " rate[key] } }' "$csv" | tee -a "$sum"
}
if [ "$only" = yes ]; then
	contention_step
	say "== done: contention $contention_ok; files in $out: $(cd "$out" && echo *)"
	exit 0
fi

# 3. lagom-prolog
py=
for p in /opt/torch/.venv/bin/python3 python3; do
	if command -v "$p" >/dev/null 2>&1; then
		py=$p
		break
	fi
done
say "== 3. lagom-prolog (GPU probes; the NCCL grid needs 2 GPUs)"
mkdir -p "$work/profiles" && chmod 700 "$work/profiles"
prolog="$here/bin/lagom-prolog --dry-run --print --force -v --node gpu0"
prolog="$prolog --profile-dir $work/profiles"
show_profile() {
	[ -s "$1" ] || {
		say "   (no profile printed)"
		return
	}
	# shellcheck disable=SC2086
	$run "$here/bin/lagom" profile check --no-trust "$1" 2>&1 | sed 's/^/   /' | tee -a "$sum"
	grep -E '"(gpu_model|gpu_count|nccl_version|cuda_runtime_version|cuda_driver_version|note)"' "$1" |
		sed 's/^ */   /' | tee -a "$sum"
	if [ -n "$py" ]; then
		"$py" - "$1" <<'PY' 2>&1 | tee -a "$sum"
import json, sys
m = json.load(open(sys.argv[1])).get("measurements", {})
for k, q in sorted(m.get("gemm", {}).items()):
    print("   gemm %-4s %8.1f TFLOP/s (%s)" % (k, q["value"] / 1e12, q["source"]))
for k in ("hbm_bw", "intra_bw"):
    if k in m:
        print("   %-9s %8.1f GB/s (%s)" % (k, m[k]["value"] / 1e9, m[k]["source"]))
c = m.get("contention")
if c:
    print("   contention (%s, %s): slowdown per ctas" % (c["source"], c.get("precision")))
    rows = {}
    for p in c["points"]:
        rows.setdefault(p["chunk_bytes"], []).append("%d:%.3f" % (p["ctas"], p["slowdown"]))
    for chunk, pts in sorted(rows.items()):
        print("     chunk %7d B  %s" % (chunk, " ".join(pts)))
PY
	else
		awk '/"measurements"/ { p = 1 } p { print "   " $0 } p && /^  }/ { p = 0 }' "$1" |
			head -n 80 >>"$sum"
	fi
}
echo "== default budget" >>"$out/prolog.log"
# shellcheck disable=SC2086
step "lagom-prolog, default budget (5 s with a GPU)" 30 "$out/profile.json" "$out/prolog.log" $run $prolog
show_profile "$out/profile.json"
echo "== --budget 40" >>"$out/prolog.log"
# shellcheck disable=SC2086
step "lagom-prolog --budget 40" 60 "$out/profile_long.json" "$out/prolog.log" $run $prolog --budget 40
show_profile "$out/profile_long.json"
sed 's/^/   /' "$out/prolog.log" | head -n 20 >>"$sum"

# 4. the NCCL pair with both plugins
say "== 4. NCCL pair: 2 processes, $gpus GPU(s), tuner and profiler plugins"
LAGOM_PLAN=$(cat "$here/pair.plan" 2>/dev/null)
LAGOM_PLAN_ID=$(echo "$LAGOM_PLAN" | awk '{ print $4 }')
NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT,ENV,TUNING,NET
NCCL_SOCKET_IFNAME=lo NCCL_IB_DISABLE=1 NCCL_NET=Socket NCCL_MNNVL_ENABLE=0
NCCL_TUNER_PLUGIN=$here/lib/libnccl-tuner-lagom.so
NCCL_PROFILER_PLUGIN=$here/lib/libnccl-profiler-lagom.so
LAGOM_MEASURE_FLUSH_S=2 SLURM_JOB_ID=1
export LAGOM_PLAN LAGOM_PLAN_ID NCCL_DEBUG NCCL_DEBUG_SUBSYS NCCL_SOCKET_IFNAME \
	NCCL_IB_DISABLE NCCL_NET NCCL_MNNVL_ENABLE NCCL_TUNER_PLUGIN NCCL_PROFILER_PLUGIN \
	LAGOM_MEASURE_FLUSH_S SLURM_JOB_ID
say "LAGOM_PLAN=$LAGOM_PLAN"

# pair NRANKS STEP SECONDS: ranks 1.. in the background, rank 0 here, each
# with its own NCCL_HOSTID; records in the spool's STEP folder.
pair() {
	n=$1 dir=$spool/$user/$2 lim=$3
	mkdir -p "$dir" && chmod 700 "$spool" "$spool/$user" "$dir"
	rm -f "$work"/rank*.log
	t0=$(now) r=$n pids='' rcs=''
	while [ "$r" -gt 0 ]; do
		r=$((r - 1))
		# shellcheck disable=SC2086
		timeout -k 5 "$lim" env NCCL_HOSTID="lagom-pair-$r" SLURM_PROCID="$r" \
			SLURM_STEP_ID="${2##*.}" LAGOM_MEASURE_DIR="$dir" \
			$run "$here/bin/nccl_pair" "$r" "$n" "$work/id.$2" 20 \
			>"$work/rank$r.log" 2>&1 &
		pids="$! $pids"
	done
	# A rank that failed said so in one line: stop the others at once
	# rather than at the bound (they would wait for it inside NCCL).
	while :; do
		alive=0
		for p in $pids; do kill -0 "$p" 2>/dev/null && alive=1; done
		[ "$alive" -eq 1 ] || break
		if grep -q '^nccl_pair: ' "$work"/rank*.log 2>/dev/null; then
			sleep 2
			for p in $pids; do kill "$p" 2>/dev/null; done
			break
		fi
		sleep 1
	done
	all=0
	for p in $pids; do
		wait "$p"
		rc=$?
		rcs="$rcs $rc"
		[ "$rc" -eq 0 ] || all=1
	done
	say "-- $n rank(s), step $2: exit status per rank:$rcs, $(since "$t0") s (bound $lim s)"
	r=0
	while [ "$r" -lt "$n" ]; do
		echo "== step $2, rank $r of $n" >>"$out/nccl_pair.log"
		cat "$work/rank$r.log" >>"$out/nccl_pair.log"
		grep -h '^nccl_pair: ' "$work/rank$r.log" | tee -a "$sum"
		r=$((r + 1))
	done
	grep -E '^(#|coll |allreduce |allgather )' "$work/rank0.log" | tee -a "$sum"
	return $all
}
pair_ok=no
if [ ! -x "$here/bin/nccl_pair" ]; then
	say "no nccl_pair in the pack (no CUDA headers where it was made)"
elif pair 2 1.0 120; then
	pair_ok=yes
else
	say "the pair failed: one rank alone shows whether the plugins load (the plan has no entry for 1 rank)"
	pair 1 1.1 30
fi
if [ -s "$out/nccl_pair.log" ]; then
	say "NCCL's lines about plugins, hosts and transport (count, line without host:pid:tid):"
	grep -E 'PROFILER/Plugin|TUNER/Plugin|profiler plugin|tuner plugin|lagom (profiler|tuner)|NCCL_HOSTID|Duplicate GPU|NET/Socket|Using network|via NET|WARN' \
		"$out/nccl_pair.log" | sed 's/^[^ ]* //' | sort | uniq -c | sort -rn | head -n 40 | tee -a "$sum"
	say "NCCL's choice per collective (its TUNING lines, rank 0 logs them):"
	grep -oE '(AllReduce|AllGather): [0-9]+ Bytes -> Algo [A-Za-z_]+ proto [A-Za-z0-9]+ channel\{Lo\.\.Hi\}=\{[0-9]+\.\.[0-9]+\}' \
		"$out/nccl_pair.log" | sort | uniq -c | sort -k2,2 -k3,3n | tee -a "$sum"
fi

# 5. lagom runs on the records
say "== 5. records and lagom runs"
(cd "$spool" && find . -type f -exec ls -l {} +) | tee -a "$sum"
# shellcheck disable=SC2086
step "lagom runs" 20 "$sum" "$sum" $run "$here/bin/lagom" runs --spool "$spool" --user "$user"
# shellcheck disable=SC2086
step "lagom runs --format json" 20 "$out/runs.json" "$sum" $run "$here/bin/lagom" runs --spool "$spool" --user "$user" --format json
tar -C "$spool" -czf "$out/records.tar.gz" . 2>&1 | tee -a "$sum"
contention_step
say "== done: pair $pair_ok, contention $contention_ok; files in $out: $(cd "$out" && echo *)"
exit 0
