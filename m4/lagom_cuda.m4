# LAGOM_WITH_CUDA
# CUDA and NCCL headers are optional: lagom's GPU probes dlopen the runtime
# libraries, so one binary runs on GPU and GPU-less nodes.  The headers, when
# present, let tests check lagom's own declarations against NCCL's.
AC_DEFUN([LAGOM_WITH_CUDA], [
  AC_ARG_WITH([cuda],
    [AS_HELP_STRING([--with-cuda=PREFIX], [CUDA/NCCL prefix @<:@/usr/local/cuda when present@:>@])],
    [], [with_cuda=check])
  have_cuda=no
  CUDA_CPPFLAGS=
  CUDA_LIBDIR=
  AS_CASE(["$with_cuda"],
    [no], [],
    [check], [AS_IF([test -d /usr/local/cuda/include], [lagom_cuda_prefix=/usr/local/cuda])],
    [yes], [lagom_cuda_prefix=/usr/local/cuda],
    [lagom_cuda_prefix=$with_cuda])
  AS_IF([test -n "$lagom_cuda_prefix"], [
    lagom_save_CPPFLAGS=$CPPFLAGS
    CPPFLAGS="-I$lagom_cuda_prefix/include $CPPFLAGS"
    AC_CHECK_HEADERS([nccl.h cuda_runtime_api.h], [have_cuda=yes], [have_cuda=no; break])
    CPPFLAGS=$lagom_save_CPPFLAGS
    AS_IF([test "x$have_cuda" = xyes], [
      CUDA_CPPFLAGS="-I$lagom_cuda_prefix/include"
      for d in lib64 lib; do
        AS_IF([test -e "$lagom_cuda_prefix/$d/libnccl.so"], [CUDA_LIBDIR="$lagom_cuda_prefix/$d"; break])
      done
      AC_DEFINE([HAVE_CUDA_HEADERS], [1], [CUDA and NCCL headers are available])
    ], [AS_IF([test "x$with_cuda" != xcheck],
          [AC_MSG_ERROR([--with-cuda given but nccl.h or cuda_runtime_api.h not found under $lagom_cuda_prefix/include])])])
  ])
  AC_SUBST([CUDA_CPPFLAGS])
  AC_SUBST([CUDA_LIBDIR])
  AM_CONDITIONAL([HAVE_CUDA], [test "x$have_cuda" = xyes])
])
