#!/usr/bin/env bash
# setup.sh - install what ctorch needs (Debian packages, only those missing), build it in build/
# (Release) and run the quickstart demo. Safe to run again.
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=scripts/lib.sh
source scripts/lib.sh

ctorch_install_deps
ctorch_configure build Release
ctorch_build build
ctorch_log "demo: build/examples/quickstart (examples/c/quickstart.c)"
build/examples/quickstart
