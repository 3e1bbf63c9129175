# Checks that span the tree: purity of the core, formatting.
UNIT_TESTS += tests/purity.sh tests/purity-selftest.sh
SCRIPT_TESTS += tests/format.sh
EXTRA_DIST += tests/purity.sh tests/purity-selftest.sh tests/format.sh \
	tests/lib/tap.sh tests/lib/lagom_test.h tests/lib/write_profile.h \
	tests/lib/model_fixture.h \
	tests/fixtures \
	tests/lib/plugin_symbols.sh tests/lib/golden.sh

# contrib/enroot/50-lagom.sh against a stand-in of enroot's hook contract,
# and under a real `enroot start` where enroot is installed.
SCRIPT_TESTS += tests/contrib/enroot_hook.sh tests/contrib/enroot_real.sh \
	tests/contrib/calibration_run.sh
EXTRA_DIST += tests/contrib/enroot_hook.sh tests/contrib/enroot_real.sh \
	tests/contrib/calibration_run.sh

# Slurm's OCI containers (srun --container): the whole plan or none, on a
# real cluster with runc (doc/containers.md).  oci_tuner_load loads the
# tuner from NCCL_TUNER_PLUGIN inside the container, as NCCL does.
INTEGRATION_TESTS += tests/integration/oci.sh
# A tuned step in a real pyxis + enroot container (built from the vendored
# sources by contrib/build-pyxis-enroot.sh; skips, saying so, without them).
INTEGRATION_TESTS += tests/integration/pyxis.sh
EXTRA_DIST += tests/integration/pyxis.sh contrib/build-pyxis-enroot.sh
EXTRA_DIST += tests/integration/oci.sh doc/containers.md
check_PROGRAMS += tests/integration/oci_tuner_load
# A container plugin's own mount namespace (pyxis): lagom's task_init
# withholds the whole plan where the task cannot reach the tuner.
INTEGRATION_TESTS += tests/integration/container_ns.sh
EXTRA_DIST += tests/integration/container_ns.sh
tests_integration_oci_tuner_load_SOURCES = \
	tests/integration/oci_tuner_load.c tuner/nccl_tuner_abi.h
tests_integration_oci_tuner_load_LDADD = -ldl
