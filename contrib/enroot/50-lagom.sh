#!/bin/sh
# 50-lagom.sh - lagom's enroot pre-start hook (doc/containers.md).
#
# enroot runs every executable *.sh of /etc/enroot/hooks.d before the
# container switches to its root, with ENROOT_ROOTFS, ENROOT_ENVIRON (the
# file the container's environment is read from) and ENROOT_MOUNTS (a
# fstab-like file enroot mounts after the hooks) in the environment, plus
# the host environment (under pyxis: the job's).  A non-zero exit stops the
# container, so this hook always exits 0.
#
# When the step carries lagom's plan (LAGOM_PLAN_ID, in ENROOT_ENVIRON or
# in the hook's environment), the container gets the whole plan or none:
#   applied   the tuner and profiler lagom names (ro) and the step's own
#             spool directory (rw) are mounted at the same paths, and every
#             variable of the plan is in ENROOT_ENVIRON;
#   withheld  no variable of the plan is left in ENROOT_ENVIRON, and one
#             "lagom:" line on stderr says why.
# Every value is checked against the admin's settings, read from the file
# beside this hook (NAME.conf for NAME.sh: tuner=, profiler=,
# measure_dir=); no value the user controls reaches ENROOT_MOUNTS unless
# it is one of those paths, or the spool directory below measure_dir that
# the checks accept.  Mounts run in the user's own namespaces, with the
# user's rights: the hook grants nothing the user could not reach.

PLAN_VARS='LAGOM_PLAN_ID LAGOM_PLAN LAGOM_PREDICTED_SPEEDUP NCCL_TUNER_PLUGIN
NCCL_PROFILER_PLUGIN LAGOM_MEASURE_DIR NCCL_MIN_CTAS NCCL_MAX_CTAS
NCCL_BUFFSIZE NCCL_NTHREADS NCCL_CTA_POLICY NCCL_ALGO NCCL_PROTO
TORCH_NCCL_HIGH_PRIORITY CUDA_DEVICE_MAX_CONNECTIONS'
VALUE_MAX=4096		# bytes, any value but LAGOM_PLAN
PLAN_MAX=65536		# bytes, LAGOM_PLAN (the tuner reads at most 64 KiB)
PATH_MAX_LEN=1024	# bytes, a path the hook mounts
CONF_MAX=8192		# bytes, the settings file
LIB_OPTS=x-create=file,bind,ro,nosuid,nodev,private
SPOOL_OPTS=x-create=dir,bind,rw,nosuid,nodev,noexec,private

# Byte ranges in patterns, the system's tools (not the user's PATH).
LC_ALL=C
PATH=/usr/bin:/bin:/usr/sbin:/sbin
export LC_ALL PATH

nl='
'
conf="${0%.sh}.conf"
tuner=''
profiler=''
measure_dir=''

say() {
	printf 'lagom: enroot hook: %s\n' "$*" >&2
}

# A path the hook may write into a mount line: absolute, short, made of
# [A-Za-z0-9._+-] components, none empty, "." or "..".
clean_path() {
	case $1 in
	/*) ;;
	*) return 1 ;;
	esac
	[ "${#1}" -le "$PATH_MAX_LEN" ] || return 1
	case $1 in
	*[!A-Za-z0-9._/+-]* | *//* | */ | */./* | */../* | */. | */..)
		return 1
		;;
	esac
	return 0
}

# No component of the (clean) path is a symbolic link.
no_link_on_way() {
	rest=${1#/}
	way=''
	while [ -n "$rest" ]; do
		comp=${rest%%/*}
		if [ "$comp" = "$rest" ]; then
			rest=''
		else
			rest=${rest#*/}
		fi
		way="$way/$comp"
		[ -L "$way" ] && return 1
	done
	return 0
}

# The admin's settings: NAME=VALUE lines, "#" comments, nothing else.
read_conf() {
	if [ ! -f "$conf" ] || [ -L "$conf" ] || [ ! -r "$conf" ]; then
		why="no readable settings file beside the hook ($conf)"
		return 1
	fi
	size=$(wc -c <"$conf") || size=$((CONF_MAX + 1))
	[ "$size" -le "$CONF_MAX" ] || {
		why="the settings file is larger than $CONF_MAX bytes"
		return 1
	}
	while IFS= read -r line || [ -n "$line" ]; do
		case $line in
		'' | '#'*) continue ;;
		tuner=*) tuner=${line#tuner=} ;;
		profiler=*) profiler=${line#profiler=} ;;
		measure_dir=*) measure_dir=${line#measure_dir=} ;;
		*)
			why="the settings file has a line it does not know"
			return 1
			;;
		esac
	done <"$conf"
	for v in "$tuner" "$profiler" "$measure_dir"; do
		[ -z "$v" ] || clean_path "$v" || {
			why="the settings file names a path that is not clean"
			return 1
		}
	done
	return 0
}

# The value the container would see: the last NAME= line of ENROOT_ENVIRON,
# else the hook's own environment (under pyxis, the job's).
file_has() {
	grep -q "^$1=" "$ENROOT_ENVIRON" 2>/dev/null
}

effective() {
	if file_has "$1"; then
		last=$(sed -n "s/^$1=//p" "$ENROOT_ENVIRON" | tail -n 1)
		printf '%s' "$last"
	else
		eval "printf '%s' \"\${$1-}\""
	fi
}

# Any value of the plan: one line, printable, no quote or backslash (enroot
# strips surrounding quotes from ENROOT_ENVIRON), bounded.
check_value() {
	name=$1
	value=$2
	max=$VALUE_MAX
	[ "$name" = LAGOM_PLAN ] && max=$PLAN_MAX
	[ "${#value}" -le "$max" ] || {
		why="$name is longer than $max bytes"
		return 1
	}
	case $value in
	*"$nl"* | *[[:cntrl:]]* | *\"* | *\'* | *\\*)
		why="$name holds a newline, a control character, a quote"
		why="$why or a backslash"
		return 1
		;;
	esac
	return 0
}

# A plugin lagom names: exactly the admin's, a regular file, not a link.
check_library() {
	name=$1
	value=$2
	want=$3
	[ -n "$want" ] || {
		why="$name is set but the settings file names no ${4}="
		return 1
	}
	[ "$value" = "$want" ] || {
		why="$name is not the admin's ${4}= ($want)"
		return 1
	}
	if [ ! -f "$want" ] || [ -L "$want" ] || [ ! -r "$want" ]; then
		why="$want is not a readable regular file on this node"
		return 1
	fi
	mounts="$mounts$want $want none $LIB_OPTS$nl"
	return 0
}

# The step's own spool directory: measure_dir/USER/JOB.STEP, this step's
# (SLURM_JOB_ID, SLURM_STEP_ID when set), a directory of this user reached
# through no link.
check_spool() {
	value=$1
	[ -n "$measure_dir" ] || {
		why="LAGOM_MEASURE_DIR is set but the settings file names"
		why="$why no measure_dir="
		return 1
	}
	clean_path "$value" || {
		why="LAGOM_MEASURE_DIR is not a clean absolute path"
		return 1
	}
	case $value in
	"$measure_dir"/*/*) ;;
	*)
		why="LAGOM_MEASURE_DIR is not below measure_dir= ($measure_dir)"
		return 1
		;;
	esac
	tail=${value#"$measure_dir"/}
	user=${tail%%/*}
	step=${tail#*/}
	case $user in
	. | .. | *[!A-Za-z0-9._-]*) user='' ;;
	esac
	case $step in
	*[!0-9.]* | .* | *. | *.*.*) step='' ;;
	*.*) ;;
	*) step='' ;;
	esac
	if [ -z "$user" ] || [ -z "$step" ]; then
		why="LAGOM_MEASURE_DIR is not measure_dir/USER/JOB.STEP"
		return 1
	fi
	if [ -n "${SLURM_JOB_ID-}" ] && [ -n "${SLURM_STEP_ID-}" ] &&
		[ "$step" != "$SLURM_JOB_ID.$SLURM_STEP_ID" ]; then
		why="LAGOM_MEASURE_DIR is not this step's spool directory"
		return 1
	fi
	if ! no_link_on_way "$value" || [ ! -d "$value" ]; then
		why="LAGOM_MEASURE_DIR is missing or reached through a link"
		return 1
	fi
	owner=$(stat -c %u -- "$value" 2>/dev/null) || owner=''
	[ "$owner" = "$(id -u)" ] || {
		why="LAGOM_MEASURE_DIR does not belong to the user"
		return 1
	}
	mounts="$mounts$value $value none $SPOOL_OPTS$nl"
	return 0
}

# Every check before anything is written.
decide() {
	read_conf || return 1
	for name in $PLAN_VARS; do
		v=$(effective "$name"; printf x)
		v=${v%x}
		check_value "$name" "$v" || return 1
		eval "plan_$name=\$v"
	done
	[ -n "$plan_LAGOM_PLAN" ] || [ -z "$plan_NCCL_TUNER_PLUGIN" ] || {
		why="NCCL_TUNER_PLUGIN is set without LAGOM_PLAN"
		return 1
	}
	if [ -n "$plan_NCCL_TUNER_PLUGIN" ]; then
		check_library NCCL_TUNER_PLUGIN "$plan_NCCL_TUNER_PLUGIN" \
			"$tuner" tuner || return 1
	fi
	if [ -n "$plan_NCCL_PROFILER_PLUGIN" ]; then
		[ -n "$plan_LAGOM_MEASURE_DIR" ] || {
			why="NCCL_PROFILER_PLUGIN is set"
			why="$why without LAGOM_MEASURE_DIR"
			return 1
		}
		check_library NCCL_PROFILER_PLUGIN \
			"$plan_NCCL_PROFILER_PLUGIN" "$profiler" profiler ||
			return 1
	fi
	if [ -n "$plan_LAGOM_MEASURE_DIR" ]; then
		check_spool "$plan_LAGOM_MEASURE_DIR" || return 1
	fi
	return 0
}

# ENROOT_ENVIRON rewritten through a temporary file renamed into place:
# without any variable of the plan (withheld), or with each one the file
# lacks (applied).
rewrite_environ() {
	mode=$1
	tmp=$(mktemp "$ENROOT_ENVIRON.lagom.XXXXXX") || return 1
	if [ "$mode" = withheld ]; then
		for name in $PLAN_VARS; do
			printf '^%s=\n' "$name"
		done >"$tmp.pat"
		grep -v -f "$tmp.pat" "$ENROOT_ENVIRON" >"$tmp"
		rc=$?
		[ "$rc" -ne 1 ] || rc=0 # 1: no line left, 2: an error
		rm -f "$tmp.pat"
	else
		cat "$ENROOT_ENVIRON" >"$tmp"
		rc=$?
		for name in $PLAN_VARS; do
			[ "$rc" -eq 0 ] || break
			eval "v=\$plan_$name"
			if [ -z "$v" ] || file_has "$name"; then
				continue
			fi
			printf '%s=%s\n' "$name" "$v" >>"$tmp" || rc=1
		done
	fi
	if [ "$rc" -ne 0 ] || ! mv -f "$tmp" "$ENROOT_ENVIRON"; then
		rm -f "$tmp"
		return 1
	fi
	return 0
}

withhold() {
	if rewrite_environ withheld; then
		say "lagom's plan withheld in this container: $why"
	else
		say "cannot remove lagom's plan from $ENROOT_ENVIRON ($why)"
	fi
}

main() {
	if [ -z "${ENROOT_ENVIRON-}" ] || [ -z "${ENROOT_MOUNTS-}" ] ||
		[ ! -f "$ENROOT_ENVIRON" ]; then
		say "not run by enroot (no ENROOT_ENVIRON or ENROOT_MOUNTS):" \
			"nothing done"
		return 0
	fi
	id=$(effective LAGOM_PLAN_ID; printf x)
	[ "$id" != x ] || return 0	# no plan: nothing to do
	why=''
	mounts=''
	if ! decide; then
		withhold
		return 0
	fi
	if [ -n "$mounts" ] && ! printf '%s' "$mounts" >>"$ENROOT_MOUNTS"; then
		why="cannot write $ENROOT_MOUNTS"
		withhold
		return 0
	fi
	if ! rewrite_environ applied; then
		why="cannot write $ENROOT_ENVIRON"
		withhold
	fi
	return 0
}

main
exit 0
