#!/bin/sh
# contrib/prolog/lagom-prolog.sh - Slurm Prolog wrapper for lagom-prolog.
#
# Install as /etc/slurm/prolog.d/50-lagom.sh (mode 0755, owned by root) with
# Prolog=/etc/slurm/prolog.d/* in slurm.conf (see slurm.conf.lagom).
#
# slurmd runs the Prolog as root with no PATH and drains the node when it
# exits non-zero or outlives PrologEpilogTimeout.  So this wrapper:
#  - only profiles when the job has GPUs (GPU-less jobs pay nothing);
#  - caps the run with timeout(1), far below PrologEpilogTimeout and
#    MessageTimeout (10 s by default);
#  - always exits 0: a missing binary or any failure is logged, never fatal.
# lagom-prolog itself keeps the profile for its TTL, so most jobs start
# with a cache hit that costs well under a second.

PATH=/usr/sbin:/usr/bin:/sbin:/bin
export PATH

LAGOM_PROLOG=${LAGOM_PROLOG:-$(command -v lagom-prolog || echo /usr/local/sbin/lagom-prolog)}
LAGOM_PROLOG_TIMEOUT=${LAGOM_PROLOG_TIMEOUT:-8}

log() { logger -t lagom-prolog -- "$*" 2>/dev/null || echo "lagom-prolog: $*" >&2; }

case ${SLURM_JOB_GPUS:-${CUDA_VISIBLE_DEVICES:-}} in
"" | NoDevFiles) exit 0 ;;
esac
if [ ! -x "$LAGOM_PROLOG" ]; then
	log "$LAGOM_PROLOG not installed; skipping"
	exit 0
fi

out=$(timeout -k 1 "$LAGOM_PROLOG_TIMEOUT" "$LAGOM_PROLOG" 2>&1)
st=$?
[ -n "$out" ] && log "job ${SLURM_JOB_ID:-?}: $out"
[ $st -eq 0 ] || log "job ${SLURM_JOB_ID:-?}: exit status $st (ignored)"
exit 0
