EXTRA_DIST += contrib/install-deps.sh autogen.sh
