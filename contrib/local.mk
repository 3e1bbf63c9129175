# contrib: the dependency installer, the local demo cluster, plugstack.conf
# snippet.  contrib/demo-cluster.sh is also the integration tests' cluster
# (through tests/lib/cluster.sh).
EXTRA_DIST += contrib/install-deps.sh autogen.sh contrib/demo-cluster.sh \
	contrib/lagom.conf contrib/slurm-release.sh \
	contrib/slurm-release-actions.sh doc/slurm-releases.md
