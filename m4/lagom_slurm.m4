# LAGOM_WITH_SLURM
# Find Slurm's headers (Debian ships no pkg-config file for Slurm), record
# its version, and choose where the SPANK plugin is installed.  The plugin
# is never linked with -lslurm: slurmstepd, srun and friends export the API.
AC_DEFUN([LAGOM_WITH_SLURM], [
  AC_ARG_WITH([slurm],
    [AS_HELP_STRING([--with-slurm=PREFIX], [Slurm installation prefix (headers in PREFIX/include)])],
    [], [with_slurm=check])
  SLURM_CPPFLAGS=
  AS_CASE(["$with_slurm"],
    [no], [AC_MSG_ERROR([lagom is a Slurm plugin: --without-slurm is not supported])],
    [yes|check|""], [],
    [# -isystem: warnings in Slurm's own headers (26.05 declares
     # "void f()") are not lagom's, as with /usr/include
     SLURM_CPPFLAGS="-isystem $with_slurm/include"
     # libslurm beside those headers (programs and tests link -lslurm):
     # PREFIX/lib/MULTIARCH (Debian), PREFIX/lib64, PREFIX/lib
     lagom_multiarch=$($CC -print-multiarch 2>/dev/null)
     for lagom_d in "$with_slurm/lib/$lagom_multiarch" "$with_slurm/lib64" \
		    "$with_slurm/lib"; do
       AS_IF([test -e "$lagom_d/libslurm.so"],
	 [LDFLAGS="$LDFLAGS -L$lagom_d"; break])
     done])
  lagom_save_CPPFLAGS=$CPPFLAGS
  CPPFLAGS="$SLURM_CPPFLAGS $CPPFLAGS"
  AC_CHECK_HEADER([slurm/spank.h], [],
    [AC_MSG_ERROR([slurm/spank.h not found: install libslurm-dev or pass --with-slurm=PREFIX])])
  AC_COMPUTE_INT([SLURM_VERSION_NUMBER_VALUE], [SLURM_VERSION_NUMBER],
    [#include <slurm/slurm_version.h>],
    [AC_MSG_ERROR([cannot read SLURM_VERSION_NUMBER from slurm/slurm_version.h])])
  CPPFLAGS=$lagom_save_CPPFLAGS
  SLURM_VERSION_STRING=$(printf "%d.%02d.%d" $(( SLURM_VERSION_NUMBER_VALUE >> 16 )) $(( (SLURM_VERSION_NUMBER_VALUE >> 8) & 255 )) $(( SLURM_VERSION_NUMBER_VALUE & 255 )))
  AS_IF([test "$SLURM_VERSION_NUMBER_VALUE" -lt $(( (22 << 16) | (5 << 8) ))],
    [AC_MSG_ERROR([Slurm $SLURM_VERSION_STRING is too old: lagom needs 22.05 or newer])])
  AC_DEFINE_UNQUOTED([LAGOM_SLURM_VERSION_BUILT], ["$SLURM_VERSION_STRING"],
    [Slurm version lagom was built against])
  AC_SUBST([SLURM_CPPFLAGS])
  AC_SUBST([SLURM_VERSION_STRING])

  AC_ARG_WITH([slurm-plugindir],
    [AS_HELP_STRING([--with-slurm-plugindir=DIR], [where lagom.so goes @<:@LIBDIR/slurm@:>@])],
    [slurm_plugindir=$withval], [slurm_plugindir='${libdir}/slurm'])
  AC_SUBST([slurm_plugindir])

  AC_PATH_PROGS([SLURMCTLD], [slurmctld], [], [$PATH:/usr/sbin:/sbin])
  AC_PATH_PROGS([SLURMD], [slurmd], [], [$PATH:/usr/sbin:/sbin])
  AC_PATH_PROGS([SLURMDBD], [slurmdbd], [], [$PATH:/usr/sbin:/sbin])
  AC_PATH_PROGS([MUNGED], [munged], [], [$PATH:/usr/sbin:/sbin])
])
