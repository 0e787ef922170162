#!/usr/bin/env bash
# The README's second command: the test suite, with the project virtualenv's Python.
#
#     bash scripts/test.sh            # the whole suite, in two worker processes
#     bash scripts/test.sh tests/cli/test_cli.py -x   # with arguments: exactly those, given to pytest
#
# Installs what the tests need into .venv when it is missing (the [test] extra, plus [spark] for the Spark
# tests and Java 17+ for them, [docs] for the documentation site's build and the release checks that
# tests/docs and tests/cli/test_distribution.py run, and [gssapi] with MIT Kerberos for the GSSAPI tests), then
# runs `python -m pytest -q` with .venv's Python.  The tests that compare against Kafka's reference schemas need
# $KADMIN_KAFKA_SPECS or ../shared/kafka-message-specs; without it they are skipped, with one line saying why.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
SCRIPT_NAME=test
. scripts/venv.sh

ensure_java
ensure_venv
if ensure_kerberos; then
    ensure_extras spark,test,docs,gssapi  # python-gssapi builds against the Kerberos headers just checked
else
    ensure_extras spark,test,docs
fi
if [ "$#" -eq 0 ]; then
    # The whole suite: two worker processes (pytest-xdist), the Spark tests first and the quick tests shared
    # out as the workers free up (tests/conftest.py says why in that order).  About 20 minutes in one process
    # on two cores; well under 15 in two.  With arguments, pytest runs exactly what they say, in one process.
    set -- -n 2 --dist worksteal
fi
say "running: $VENV_PY -m pytest -q $*"
exec "$VENV_PY" -m pytest -q "$@"
