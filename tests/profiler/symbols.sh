#!/bin/sh
# libnccl-profiler-lagom.so exports exactly the profiler symbols NCCL
# dlsym()s, needs nothing but libc, and covers what the installed NCCL's own
# binary looks up (GPU-free: NCCL loads profiler plugins only inside
# communicator creation, which needs a GPU; see doc/profiler.md).
. "$top_srcdir/tests/lib/tap.sh"

so="$top_builddir/.libs/libnccl-profiler-lagom.so"
[ -f "$so" ] || plan_skip_all "$so not built"
command -v readelf >/dev/null 2>&1 || plan_skip_all "readelf not installed (binutils)"
nm=${NM:-nm}
want="ncclProfiler_v4 ncclProfiler_v5 ncclProfiler_v6"

plan 4

got=$($nm -D --defined-only "$so" | awk '{print $NF}' | sort | tr '\n' ' ')
if [ "$got" = "$want " ]; then
	ok "exports exactly: $want"
else
	not_ok "exports '$got', want '$want'"
fi

needed=$(readelf -d "$so" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' | tr '\n' ' ')
allowed='^libc\.so\.'
[ -n "$LAGOM_SANITIZED" ] && allowed='^libc\.so\.|san\.so|^lib(m|dl|pthread|rt)\.so\.'
extra=$(echo "$needed" | tr ' ' '\n' | grep -v '^$' | grep -Ev "$allowed")
if [ -z "$extra" ]; then
	ok "links only libc${LAGOM_SANITIZED:+ and sanitizer runtime deps} (NEEDED: $needed)"
else
	not_ok "NEEDED has more than libc: $needed"
fi

nccl=${LAGOM_NCCL_LIB:-}
for d in /usr/local/cuda/lib64 /usr/local/cuda/lib /usr/lib/x86_64-linux-gnu; do
	[ -n "$nccl" ] && break
	[ -f "$d/libnccl.so.2" ] && nccl="$d/libnccl.so.2"
done
if [ -z "$nccl" ]; then
	skip "libnccl.so.2 not found (set LAGOM_NCCL_LIB)"
	skip "libnccl.so.2 not found (set LAGOM_NCCL_LIB)"
	done_testing
	exit
fi
looked_up=$(strings -a "$nccl" | grep -x 'ncclProfiler_v[0-9]*' | sort -u | tr '\n' ' ')
newest=$(echo "$looked_up" | tr ' ' '\n' | grep -v '^$' | sort -V | tail -n 1)
case " $want " in
*" $newest "*) ok "$nccl looks up $looked_up- its newest, $newest, is exported" ;;
*) not_ok "$nccl looks up '$looked_up'; newest '$newest' not exported" ;;
esac
check "$nccl builds plugin names with the libnccl-profiler prefix" \
	sh -c "strings -a '$nccl' | grep -q 'libnccl-profiler'"
done_testing
