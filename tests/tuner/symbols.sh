#!/bin/sh
# libnccl-tuner-lagom.so exports exactly the tuner symbols NCCL dlsym()s,
# needs nothing but libc, and matches what the installed NCCL's own binary
# looks up (GPU-free: NCCL's loader itself runs only inside communicator
# creation, which needs a GPU; see doc/tuner.md).
. "$top_srcdir/tests/lib/tap.sh"

so="$top_builddir/.libs/libnccl-tuner-lagom.so"
[ -f "$so" ] || plan_skip_all "$so not built"
command -v readelf >/dev/null 2>&1 || plan_skip_all "readelf not installed (binutils)"
nm=${NM:-nm}
want="ncclTunerPlugin_v2 ncclTunerPlugin_v3 ncclTunerPlugin_v4 ncclTunerPlugin_v5 ncclTunerPlugin_v6"

plan 5

got=$($nm -D --defined-only "$so" | awk '{print $NF}' | sort | tr '\n' ' ')
if [ "$got" = "$want " ]; then
	ok "exports exactly: $want"
else
	not_ok "exports '$got', want '$want'"
fi

needed=$(readelf -d "$so" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' | tr '\n' ' ')
# A sanitizer link adds its runtime's deps (clang: --no-as-needed -lm -ldl...).
allowed='^libc\.so\.'
[ -n "$LAGOM_SANITIZED" ] && allowed='^libc\.so\.|san\.so|^lib(m|dl|pthread|rt)\.so\.'
extra=$(echo "$needed" | tr ' ' '\n' | grep -v '^$' | grep -Ev "$allowed")
if [ -z "$extra" ]; then
	ok "links only libc${LAGOM_SANITIZED:+ and sanitizer runtime deps} (NEEDED: $needed)"
else
	not_ok "NEEDED has more than libc: $needed"
fi

# The NCCL this machine has (no GPU needed to read its binary).
nccl=${LAGOM_NCCL_LIB:-}
for d in /usr/local/cuda/lib64 /usr/local/cuda/lib /usr/lib/x86_64-linux-gnu; do
	[ -n "$nccl" ] && break
	[ -f "$d/libnccl.so.2" ] && nccl="$d/libnccl.so.2"
done
if [ -z "$nccl" ]; then
	skip "libnccl.so.2 not found (set LAGOM_NCCL_LIB)"
	skip "libnccl.so.2 not found (set LAGOM_NCCL_LIB)"
	skip "libnccl.so.2 not found (set LAGOM_NCCL_LIB)"
	done_testing
	exit
fi
looked_up=$(strings -a "$nccl" | grep -x 'ncclTunerPlugin_v[0-9]*' | sort -u | tr '\n' ' ')
missing=
for s in $looked_up; do
	case " $want " in *" $s "*) ;; *) missing="$missing $s" ;; esac
done
if [ -n "$looked_up" ] && [ -z "$missing" ]; then
	ok "$nccl looks up $looked_up- all exported"
else
	not_ok "$nccl looks up '$looked_up', not exported:$missing"
fi
# NCCL_TUNER_PLUGIN=lagom -> dlopen("lagom") fails -> "libnccl-tuner-lagom.so".
check "$nccl builds plugin names with the libnccl-tuner prefix" \
	sh -c "strings -a '$nccl' | grep -qx 'libnccl-tuner'"
# NCCL's step: dlopen("libnccl-tuner-lagom.so") through the loader path, then
# dlsym the newest ABI.  Emulated with python3's ctypes (NCCL's own loader
# runs only inside communicator creation, which needs a GPU).
if [ -n "$LAGOM_SANITIZED" ]; then
	skip "sanitizer build: an ASan module cannot be dlopen()ed by python3"
elif ! command -v python3 >/dev/null 2>&1; then
	skip "python3 not installed: cannot emulate NCCL's dlopen by name"
else
	check "dlopen(\"libnccl-tuner-lagom.so\") by name finds ncclTunerPlugin_v5" \
		env LD_LIBRARY_PATH="$top_builddir/.libs" python3 -c '
import ctypes, os
lib = ctypes.CDLL("libnccl-tuner-lagom.so", mode=os.RTLD_NOW | os.RTLD_LOCAL)
name = ctypes.c_char_p.in_dll(lib, "ncclTunerPlugin_v5").value
assert name == b"lagom", name
'
fi
done_testing
