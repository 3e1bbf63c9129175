#!/usr/bin/env bash
# tests/spank/symbols.sh - lagom.so loads into srun/slurmstepd: it exports
# only what Slurm looks up, is not linked to libslurm, and every symbol it
# needs comes from its own libraries or from the host (spank_*, slurm_*).
# slurmstepd loads plugins lazily, so a missing symbol would otherwise show
# up only as a "symbol lookup error" in a running job step.
. "$top_srcdir/tests/lib/tap.sh"

[ -z "${LAGOM_SANITIZED:-}" ] || plan_skip_all "sanitizer build: lagom.so leaves the ASan runtime to the host"
so=$top_builddir/spank/.libs/lagom.so
[ -f "$so" ] || plan_skip_all "lagom.so not built"
command -v ldd >/dev/null || plan_skip_all "ldd not installed"
plan 5

exported=$($NM -D --defined-only "$so" | awk '{print $3}' | sort)
bad=$(grep -Ev '^(plugin_name|plugin_type|plugin_version|spank_plugin_version|slurm_spank_[a-z_]+)$' <<<"$exported" || true)
check "exports only plugin_* and slurm_spank_* (extra: ${bad:-none})" [ -z "$bad" ]
for s in plugin_name plugin_type plugin_version slurm_spank_init slurm_spank_task_init_privileged slurm_spank_task_init; do
	grep -qx "$s" <<<"$exported" || missing="${missing:-} $s"
done
check "exports the SPANK_PLUGIN symbols and the callbacks (missing:${missing:- none})" [ -z "${missing:-}" ]

needed=$(ldd "$so" | awk '/=>/ {print $3}')
check "not linked to libslurm" bash -c "! grep -q libslurm <<<'$needed'"

provided=$(for lib in $needed; do $NM -D --defined-only "$lib" 2>/dev/null | awk '{print $3}'; done | sed 's/@.*//' | sort -u)
undefined=$($NM -D --undefined-only "$so" | awk '$1 == "U" {print $2}' | sed 's/@.*//' | sort -u)
unresolved=$(comm -23 <(echo "$undefined") <(echo "$provided") | grep -Ev '^(spank|slurm)_' || true)
check "every other symbol comes from a linked library (unresolved: $(echo ${unresolved:-none}))" [ -z "$unresolved" ]

host=$(grep -E '^(spank|slurm)_' <<<"$undefined" | grep -v '^slurm_spank_' || true)
libslurmfull=$(ls /usr/lib/*/slurm-wlm/libslurmfull.so /usr/lib*/slurm/libslurmfull.so 2>/dev/null | head -1)
if [ -n "$libslurmfull" ]; then
	fromhost=$($NM -D --defined-only "$libslurmfull" | awk '{print $3}' | sort -u)
	notinhost=$(comm -23 <(echo "$host") <(echo "$fromhost") | grep -v '^slurm_spank_log$' || true)
	# slurm_spank_log is defined by srun/slurmstepd themselves
	check "spank_*/slurm_* it needs are exported by libslurmfull (missing: $(echo ${notinhost:-none}))" [ -z "$notinhost" ]
else
	skip "libslurmfull.so not found: cannot check the host's exports"
fi
done_testing
