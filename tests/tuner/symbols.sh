#!/bin/sh
# libnccl-tuner-lagom.so exports exactly the tuner symbols NCCL dlsym()s,
# needs nothing but libc, and matches all the installed NCCL's own binary
# looks up (GPU-free: NCCL's loader itself runs only inside communicator
# creation, which needs a GPU; see doc/tuner.md).
. "$top_srcdir/tests/lib/tap.sh"
. "$top_srcdir/tests/lib/plugin_symbols.sh"

plugin_symbols tuner \
	"ncclTunerPlugin_v2 ncclTunerPlugin_v3 ncclTunerPlugin_v4 ncclTunerPlugin_v5 ncclTunerPlugin_v6" \
	all -qx 1
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
