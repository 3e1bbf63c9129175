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
# it is one of those paths.  The step's spool directory is the one the node
# made for this step: measure_dir/USER/JOB.STEP, JOB.STEP read from the
# title of the slurmstepd (a root process) the hook runs under, never from
# the user's SLURM_JOB_ID/SLURM_STEP_ID; it is opened once and mounted from
# that descriptor by enroot-mount (no second lookup: a link swapped in
# after the checks is not followed).  Mounts run in the user's own
# namespaces, with the user's rights: the hook grants nothing the user
# could not reach.  Each refusal is one "lagom:" line; the hook's own
# writes fail whole (a partial mount line is taken back).

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

# Byte ranges in patterns, the system's tools (not the user's PATH; it
# only finds enroot-mount, which runs as the user like the hook).
LC_ALL=C
user_path=${PATH-}
PATH=/usr/bin:/bin:/usr/sbin:/sbin
export LC_ALL PATH
# A write over the file size limit fails (EFBIG) instead of killing us.
trap '' XFSZ

nl='
'
conf="${0%.sh}.conf"
ANCESTORS_MAX=64	# processes looked at for the step's slurmstepd
spool_fd=''		# 3 while the step's spool directory is open
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
	grep -a -q "^$1=" "$ENROOT_ENVIRON" 2>/dev/null
}

# The last NAME= line of ENROOT_ENVIRON holds a byte that is not printable
# ASCII (a NUL, a control character, a byte over 0x7e), which the shell
# would drop or the container misread.
file_not_text() {
	bad=$(grep -a "^$1=" "$ENROOT_ENVIRON" 2>/dev/null | tail -n 1 |
		tr -d '\040-\176\n' | wc -c)
	[ "${bad:-1}" -ne 0 ]
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
	*"$nl"* | *[[:cntrl:]]* | *[!\ -~]* | *\"* | *\'* | *\\*)
		why="$name holds a newline, a byte that is not printable text,"
		why="$why a quote or a backslash"
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

# The step this hook runs for, JOB.STEP, from the nearest parent that is
# slurmstepd running as root: its title, "slurmstepd: [JOB.STEP]", is
# written by the node, not by the user (a user's process named so is not
# root's).  Prints it, or fails.
node_step() {
	pid=$PPID
	n=0
	while [ "${pid:-0}" -gt 1 ] && [ "$n" -lt "$ANCESTORS_MAX" ]; do
		n=$((n + 1))
		comm=$(head -c 64 "/proc/$pid/comm" 2>/dev/null) || return 1
		ruid=$(sed -n 's/^Uid:[[:space:]]*\([0-9]*\).*/\1/p' \
			"/proc/$pid/status" 2>/dev/null)
		if [ "$comm" = slurmstepd ] && [ "$ruid" = 0 ]; then
			title=$(head -c 256 "/proc/$pid/cmdline" 2>/dev/null |
				tr '\0' ' ')
			case $title in
			'slurmstepd: ['*']'*) ;;
			*) return 1 ;;
			esac
			title=${title#'slurmstepd: ['}
			title=${title%%']'*}
			case $title in
			*[!0-9.]* | .* | *. | *.*.*) return 1 ;;
			?*.?*) printf '%s' "$title" ;;
			*) return 1 ;;
			esac
			return 0
		fi
		pid=$(sed -n 's/^PPid:[[:space:]]*\([0-9]*\).*/\1/p' \
			"/proc/$pid/status" 2>/dev/null)
	done
	return 1
}

# The step's own spool directory: measure_dir/USER/JOB.STEP, the one the
# node made for the step the hook runs in, a directory of this user reached
# through no link, opened once on fd 3 (mount_spool() mounts that).
check_spool() {
	value=$1
	[ -n "$measure_dir" ] || {
		why="LAGOM_MEASURE_DIR is set but the settings file names"
		why="$why no measure_dir="
		return 1
	}
	step=$(node_step) || {
		why="LAGOM_MEASURE_DIR is set but the hook runs under no"
		why="$why slurmstepd of a job step"
		return 1
	}
	me=$(id -un 2>/dev/null) || me=''
	want="$measure_dir/$me/$step"
	case $me in
	'' | . | .. | *[!A-Za-z0-9._-]*) want='' ;;
	esac
	if ! clean_path "$want" || [ "$value" != "$want" ]; then
		why="LAGOM_MEASURE_DIR is not this step's spool directory"
		return 1
	fi
	# "/." opens a directory only (a FIFO put there cannot block)
	{ command exec 3<"$want/."; } 2>/dev/null || {
		why="LAGOM_MEASURE_DIR is missing or not a directory"
		return 1
	}
	spool_fd=3
	real=$(readlink "/proc/$$/fd/3" 2>/dev/null) || real=''
	[ "$real" = "$want" ] || {
		why="LAGOM_MEASURE_DIR is reached through a link"
		return 1
	}
	owner=$(stat -L -c %u "/proc/$$/fd/3" 2>/dev/null) || owner=''
	[ "$owner" = "$(id -u)" ] || {
		why="LAGOM_MEASURE_DIR does not belong to the user"
		return 1
	}
	return 0
}

# The spool directory open on fd 3 mounted at its path in the container
# by enroot-mount (enroot's own, found on the PATH enroot ran with): the
# source is the descriptor, never the path again.
mount_spool() {
	em=$(PATH=$user_path command -v enroot-mount 2>/dev/null) || em=''
	[ -n "$em" ] || {
		why="enroot-mount is not on the PATH enroot runs with"
		return 1
	}
	printf '/proc/self/fd/3 %s none %s\n' "$want" "$SPOOL_OPTS" |
		"$em" --root "$ENROOT_ROOTFS" - >/dev/null 2>&1 || {
		why="enroot-mount could not mount the spool directory"
		return 1
	}
	return 0
}

# Every check before anything is written.
decide() {
	read_conf || return 1
	for name in $PLAN_VARS; do
		file_not_text "$name" && {
			why="$name in ENROOT_ENVIRON holds a byte that is not"
			why="$why printable text"
			return 1
		}
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
	tmp=$(mktemp "$ENROOT_ENVIRON.lagom.XXXXXX" 2>/dev/null) || return 1
	if [ "$mode" = withheld ]; then
		# -a: every line judged alone, a NUL in one empties nothing
		set --
		for name in $PLAN_VARS; do
			set -- "$@" -e "^$name="
		done
		{ grep -a -v "$@" "$ENROOT_ENVIRON" >"$tmp"; } 2>/dev/null
		rc=$?
		[ "$rc" -ne 1 ] || rc=0 # 1: no line left, 2: an error
	else
		{ cat "$ENROOT_ENVIRON" >"$tmp"; } 2>/dev/null
		rc=$?
		for name in $PLAN_VARS; do
			[ "$rc" -eq 0 ] || break
			eval "v=\$plan_$name"
			if [ -z "$v" ] || file_has "$name"; then
				continue
			fi
			{ printf '%s=%s\n' "$name" "$v" >>"$tmp"; } \
				2>/dev/null || rc=1
		done
	fi
	if [ "$rc" -ne 0 ] || ! mv -f "$tmp" "$ENROOT_ENVIRON" 2>/dev/null; then
		rm -f "$tmp"
		return 1
	fi
	return 0
}

# The library mount lines appended to ENROOT_MOUNTS whole, or taken back
# (a write cut short by a full disk or a file size limit).
append_mounts() {
	[ -n "$mounts" ] || return 0
	before=$({ wc -c <"$ENROOT_MOUNTS"; } 2>/dev/null) || return 1
	{ printf '%s' "$mounts" >>"$ENROOT_MOUNTS"; } 2>/dev/null && return 0
	truncate -s "$before" "$ENROOT_MOUNTS" 2>/dev/null
	return 1
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
	before=''
	if ! decide; then
		withhold
		return 0
	fi
	if ! append_mounts; then
		why="cannot write $ENROOT_MOUNTS"
		withhold
		return 0
	fi
	if ! rewrite_environ applied; then
		why="cannot write $ENROOT_ENVIRON"
		[ -z "$mounts" ] ||
			truncate -s "$before" "$ENROOT_MOUNTS" 2>/dev/null
		withhold
		return 0
	fi
	if [ -n "$spool_fd" ] && ! mount_spool; then
		[ -z "$mounts" ] ||
			truncate -s "$before" "$ENROOT_MOUNTS" 2>/dev/null
		withhold
	fi
	return 0
}

main
exit 0
