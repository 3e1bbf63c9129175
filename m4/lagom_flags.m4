# LAGOM_SANITIZER: --enable-sanitizer=address,undefined
AC_DEFUN([LAGOM_SANITIZER], [
  AC_ARG_ENABLE([sanitizer],
    [AS_HELP_STRING([--enable-sanitizer=LIST], [build with -fsanitize=LIST (e.g. address,undefined)])],
    [], [enable_sanitizer=no])
  SAN_CFLAGS=
  SAN_LDFLAGS=
  AS_IF([test "x$enable_sanitizer" != xno && test "x$enable_sanitizer" != x], [
    AS_IF([test "x$enable_sanitizer" = xyes], [enable_sanitizer=address,undefined])
    SAN_CFLAGS="-fsanitize=$enable_sanitizer -fno-sanitize-recover=all -fno-omit-frame-pointer"
    SAN_LDFLAGS="-fsanitize=$enable_sanitizer"
    lagom_save_CFLAGS=$CFLAGS
    CFLAGS="$CFLAGS $SAN_CFLAGS"
    AC_MSG_CHECKING([whether $CC accepts -fsanitize=$enable_sanitizer])
    AC_LINK_IFELSE([AC_LANG_PROGRAM([], [])], [AC_MSG_RESULT([yes])],
      [AC_MSG_RESULT([no]); AC_MSG_ERROR([compiler does not support -fsanitize=$enable_sanitizer])])
    CFLAGS=$lagom_save_CFLAGS
  ])
  AC_SUBST([SAN_CFLAGS])
  AC_SUBST([SAN_LDFLAGS])
  AM_CONDITIONAL([SANITIZED], [test -n "$SAN_CFLAGS"])
])

# LAGOM_WERROR: --enable-werror adds -Werror after every probe has run.
AC_DEFUN([LAGOM_WERROR], [
  AC_ARG_ENABLE([werror],
    [AS_HELP_STRING([--enable-werror], [treat compiler warnings as errors])],
    [], [enable_werror=no])
  WERROR_CFLAGS=
  AS_IF([test "x$enable_werror" = xyes], [WERROR_CFLAGS=-Werror])
  AC_SUBST([WERROR_CFLAGS])
])
