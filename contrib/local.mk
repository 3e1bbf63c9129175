# contrib: the dependency installer, the local demo cluster, plugstack.conf
# snippet.  contrib/demo-cluster.sh is also the integration tests' cluster
# (through tests/lib/cluster.sh).
EXTRA_DIST += contrib/install-deps.sh autogen.sh contrib/demo-cluster.sh \
	contrib/lagom.conf contrib/slurm-release.sh \
	contrib/slurm-release-actions.sh doc/slurm-releases.md

# The site's dense calibration run (doc/calibration-run.md), installed for
# the admin to submit as the calibration account.
lagomcontribdir = $(datadir)/lagom
dist_lagomcontrib_SCRIPTS = contrib/calibration-run.sh
EXTRA_DIST += doc/calibration-run.md

# contrib/enroot: lagom's enroot pre-start hook and its settings, installed
# where enroot does not look (doc/containers.md: the admin links or copies
# them into /etc/enroot/hooks.d to enable them).
lagomenrootdir = $(datadir)/lagom/enroot
dist_lagomenroot_SCRIPTS = contrib/enroot/50-lagom.sh
lagomenroot_DATA = contrib/enroot/50-lagom.conf
CLEANFILES += contrib/enroot/50-lagom.conf
EXTRA_DIST += contrib/enroot/50-lagom.conf.in doc/containers.md
contrib/enroot/50-lagom.conf: $(srcdir)/contrib/enroot/50-lagom.conf.in Makefile
	$(MKDIR_P) contrib/enroot
	sed -e 's|@libdir[@]|$(libdir)|g' \
		$(srcdir)/contrib/enroot/50-lagom.conf.in >$@.tmp
	mv -f $@.tmp $@

# contrib/oci: Slurm's oci.conf as lagom is tested with it, and the
# config.json mounts of lagom's files (the installed paths), for the
# admin's bundles (doc/containers.md); examples, used by nothing as
# installed.
lagomocidir = $(datadir)/lagom/oci
dist_lagomoci_DATA = contrib/oci/oci.conf
lagomoci_DATA = contrib/oci/lagom-mounts.json
CLEANFILES += contrib/oci/lagom-mounts.json
EXTRA_DIST += contrib/oci/lagom-mounts.json.in
contrib/oci/lagom-mounts.json: $(srcdir)/contrib/oci/lagom-mounts.json.in Makefile
	$(MKDIR_P) contrib/oci
	sed -e 's|@libdir[@]|$(libdir)|g' \
		$(srcdir)/contrib/oci/lagom-mounts.json.in >$@.tmp
	mv -f $@.tmp $@
