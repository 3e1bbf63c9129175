#!/bin/sh
# Generate ./configure from a git checkout (tarballs ship it ready).
set -e
cd "$(dirname "$0")"
autoreconf --force --install --warnings=all
