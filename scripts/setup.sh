#!/usr/bin/env bash
# The README's first command runs this, then the main job with the venv's Python:
#
#     bash scripts/setup.sh && .venv/bin/python examples/provision_tenants.py
#
# It makes (or reuses) the project virtualenv .venv, installs kadmin with only what the main job needs (the
# [spark] extra: PySpark), and Java 17+ for PySpark when none is installed (apt, as root).  Nothing goes into
# the system Python.  The tests' tools come with the second command (scripts/test.sh), lint tools with .ci/run.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
SCRIPT_NAME=setup
. scripts/venv.sh

ensure_java
ensure_venv
ensure_extras spark
say "ready: the main job runs with $VENV_PY"
