#!/bin/sh
# bench/gpu_pack.sh - gather, from a built tree, everything one run of
# bench/gpu_check.sh on a GPU machine needs into DEST, self-contained: that
# machine has CUDA, NCCL and PyTorch but no jansson, hwloc, yajl or Slurm.
#
#   top_builddir=BUILD CUDA_HOME=/usr/local/cuda sh bench/gpu_pack.sh DEST
#
# DEST gets: gpu_check.sh; bin/ lagom, lagom-prolog, nccl_pair and
# nccl_contention (compiled here with the C compiler from bench/nccl_pair.c
# and bench/nccl_contention.c, with bench/gpu_common.h and, for the second,
# its PTX kernels in bench/gpu_kernels.h, against CUDA_HOME's nccl.h,
# cuda_runtime_api.h and, for the second, cublas_v2.h; no nvcc: the driver
# compiles the PTX at load time; without them the pack says so and has no
# such program);
# lib/ the two NCCL plugins and every shared library the binaries need
# that is neither glibc's nor CUDA's (ldd); glibc/ this machine's loader
# and glibc, which gpu_check.sh uses only when the device's own glibc is
# too old for the binaries; pair.plan, the LAGOM_PLAN the pair runs under
# (ids computed as plan/ does: FNV-1a 64 of the records after the header);
# MANIFEST.  Exit status 0, 1 when something needed is missing or DEST
# would exceed 40 MiB.
#
#   gpu_pack.sh --plan-id < RECORDS   prints the plan id of RECORDS (the
#                                     plan text after its header's ';')
set -eu

die() {
	echo "gpu_pack: $*" >&2
	exit 1
}

# FNV-1a 64 of standard input, as 16 lowercase hex digits (common/hash.h).
plan_id() {
	python3 -c '
import sys
h = 0xcbf29ce484222325
for b in sys.stdin.buffer.read():
    h = ((h ^ b) * 0x100000001b3) & (2**64 - 1)
print("%016x" % h)'
}

if [ "${1:-}" = --plan-id ] && [ $# -eq 1 ]; then
	plan_id
	exit
fi
[ $# -eq 1 ] || {
	echo "usage: gpu_pack.sh DEST | --plan-id" >&2
	exit 2
}
command -v python3 >/dev/null 2>&1 || die "python3 is needed (the plan id)"
dest=$1
src=$(cd "$(dirname "$0")/.." && pwd)
top=$(cd "${top_builddir:-.}" && pwd)
cuda=${CUDA_HOME:-/usr/local/cuda}
max_kib=40960

# The real ELF file of a program libtool may have wrapped.
elf_of() {
	if [ -f "$top/.libs/$1" ] && head -c 2 "$top/$1" | grep -q '#!'; then
		echo "$top/.libs/$1"
	else
		echo "$top/$1"
	fi
}

for f in lagom lagom-prolog .libs/libnccl-profiler-lagom.so \
	.libs/libnccl-tuner-lagom.so; do
	[ -f "$top/$f" ] || die "no $top/$f (build first)"
done
rm -rf "$dest"
mkdir -p "$dest/bin" "$dest/lib" "$dest/glibc"
cp "$(elf_of lagom)" "$(elf_of lagom-prolog)" "$dest/bin/"
cp "$top/.libs/libnccl-profiler-lagom.so" "$top/.libs/libnccl-tuner-lagom.so" \
	"$dest/lib/"
cp "$src/bench/gpu_check.sh" "$dest/"

pair=no contention=no
if [ -f "$cuda/include/nccl.h" ] && [ -f "$cuda/include/cuda_runtime_api.h" ]; then
	libdir=
	for d in "$cuda/lib64" "$cuda/lib" "$cuda/targets/x86_64-linux/lib"; do
		if [ -e "$d/libnccl.so" ] && [ -e "$d/libcudart.so" ]; then
			libdir=$d
			break
		fi
	done
	[ -n "$libdir" ] || die "$cuda has nccl.h but no libnccl.so and libcudart.so"
	${CC:-gcc} -O2 -std=gnu11 -Wall -Wextra -Werror -I"$cuda/include" \
		-o "$dest/bin/nccl_pair" "$src/bench/nccl_pair.c" \
		-L"$libdir" -lnccl -lcudart
	pair=yes
	if [ -f "$cuda/include/cublas_v2.h" ] && [ -e "$libdir/libcublas.so" ]; then
		${CC:-gcc} -O2 -std=gnu11 -Wall -Wextra -Werror -I"$cuda/include" \
			-o "$dest/bin/nccl_contention" "$src/bench/nccl_contention.c" \
			-L"$libdir" -lnccl -lcudart -lcublas
		contention=yes
	else
		echo "gpu_pack: no $cuda/include/cublas_v2.h or $libdir/libcublas.so: no nccl_contention in the pack" >&2
	fi
else
	echo "gpu_pack: no $cuda/include/nccl.h or cuda_runtime_api.h: no nccl_pair in the pack" >&2
fi

# Libraries the device provides (glibc, the C++ runtime, CUDA, NCCL).
provided='^(linux-vdso|ld-linux|libc|libm|libdl|libpthread|librt|libresolv|libutil|libstdc\+\+|libgcc_s|libcuda|libcudart|libnccl|libcublas|libcublasLt)[.-]'
for f in "$dest"/bin/* "$dest"/lib/*.so; do
	ldd "$f" | awk '$2 == "=>" && $3 ~ /^\// { print $1, $3 }'
done | sort -u | while read -r name path; do
	if echo "$name" | grep -Eq "$provided"; then
		continue
	fi
	[ -e "$dest/lib/$name" ] || cp -L "$path" "$dest/lib/$name"
done

# glibc for the loader fallback, from the libraries lagom-prolog runs with.
for name in ld-linux-x86-64.so.2 libc.so.6 libm.so.6 libresolv.so.2 \
	libpthread.so.0 libdl.so.2 librt.so.1; do
	path=$(ldd "$dest/bin/lagom" "$dest/bin/lagom-prolog" |
		awk -v n="$name" '$1 == n && $3 ~ /^\// { print $3; exit }
			$1 ~ /ld-linux-x86-64/ && n == "ld-linux-x86-64.so.2" { print $1; exit }')
	[ -z "$path" ] && path=$(ldconfig -p 2>/dev/null |
		awk -v n="$name" '$1 == n && $NF ~ /^\// { print $NF; exit }')
	if [ -z "$path" ] || [ ! -e "$path" ]; then die "no $name for glibc/"; fi
	cp -L "$path" "$dest/glibc/$name"
done

# The pair's plan: all-reduce up to 1 MiB on ring/simple over 2 channels,
# all-gather on ring over 1 channel, larger all-reduces left to NCCL; so the
# records and NCCL's TUNING lines show whether the tuner's choices applied.
version=$("$dest/bin/lagom" --version | awk '{ print $2 }')
body="env tuner=1 ctas=0-0 buffsize=0 nthreads=0 algo=any proto=any"
body="$body;coll allreduce 0 1048576 ranks=2 nodes=2 algo=ring proto=simple nc=2 chunk=0"
body="$body;coll allgather 0 67108864 ranks=2 nodes=2 algo=ring proto=any nc=1 chunk=0;end"
id=$(printf '%s' "$body" | plan_id)
printf 'lagom-plan 1 %s %s job=0 ranks=2 nodes=2;%s\n' "$version" "$id" "$body" \
	>"$dest/pair.plan"

{
	echo "lagom GPU check pack"
	echo "made: $(date -u +%Y-%m-%dT%H:%M:%SZ) on $(uname -n), $(ldd --version | head -n 1)"
	echo "tree: $(git -C "$src" describe --always --dirty 2>/dev/null || echo unknown)"
	echo "lagom: $version"
	echo "nccl_pair: $pair${pair:+ (nccl.h $(awk '/define NCCL_VERSION_CODE/ { print $3 }' "$cuda/include/nccl.h" 2>/dev/null))}"
	echo "nccl_contention: $contention"
	echo "files:"
	(cd "$dest" && find . -type f ! -name MANIFEST | sort | xargs ls -l | awk '{ print "  " $5, $9 }')
} >"$dest/MANIFEST"

kib=$(du -sk "$dest" | awk '{ print $1 }')
[ "$kib" -le "$max_kib" ] || die "$dest is $kib KiB, over $max_kib KiB"
echo "gpu_pack: $dest: $kib KiB, nccl_pair $pair, nccl_contention $contention"
