# Checks that span the tree: purity of the core, formatting.
UNIT_TESTS += tests/purity.sh tests/purity-selftest.sh
SCRIPT_TESTS += tests/format.sh
EXTRA_DIST += tests/purity.sh tests/purity-selftest.sh tests/format.sh \
	tests/lib/tap.sh tests/lib/lagom_test.h tests/fixtures \
	tests/lib/plugin_symbols.sh tests/lib/golden.sh

# contrib/enroot/50-lagom.sh against a stand-in of enroot's hook contract,
# and under a real `enroot start` where enroot is installed.
SCRIPT_TESTS += tests/contrib/enroot_hook.sh tests/contrib/enroot_real.sh
EXTRA_DIST += tests/contrib/enroot_hook.sh tests/contrib/enroot_real.sh
