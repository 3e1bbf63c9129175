# tests/packaging: how lagom ships (doc/packaging.md).  The Debian packaging
# (debian/, dpkg-buildpackage -b), the RPM spec (lagom.spec from
# lagom.spec.in, for rpmbuild -ta on the tarball), NEWS, and the check that
# every place carrying lagom's version agrees with configure.ac's AC_INIT.
# .ci/run builds and installs the .deb packages and runs
# tests/packaging/installed.sh against the installed files.
# doc/plan-format.md: installed by the packages, missing from the tarball.
EXTRA_DIST += NEWS lagom.spec.in lagom.spec doc/packaging.md \
	doc/plan-format.md \
	debian/changelog debian/control debian/copyright debian/rules \
	debian/source/format \
	debian/lagom.install debian/lagom.docs \
	debian/lagom-slurm-plugin.install \
	debian/lagom-nccl-plugins.install debian/lagom-nccl-plugins.docs \
	debian/lagom-nccl-plugins.lintian-overrides \
	debian/lagom-nccl-plugins.triggers \
	debian/lagom-prolog.install debian/lagom-prolog.examples \
	debian/lagom-prolog.dirs \
	tests/packaging/installed.sh tests/packaging/packages.sh \
	tests/packaging/foreign-plugin.sh

SCRIPT_TESTS += tests/packaging/version.sh
EXTRA_DIST += tests/packaging/version.sh
