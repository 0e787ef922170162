#!/usr/bin/env bash
# Installs everything kadmin's main job, tests and benchmarks need, on a fresh Debian machine with Python 3.10+.
# Used by the README's first command and by .ci/run, so the two cannot drift apart.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

export PIP_DISABLE_PIP_VERSION_CHECK=1 PIP_ROOT_USER_ACTION=ignore
# Debian's own Python refuses root-wide installs (PEP 668); a throwaway machine wants them anyway.
export PIP_BREAK_SYSTEM_PACKAGES=1

java_major() {
    java -version 2>&1 | sed -n 's/.*version "\([0-9]*\).*/\1/p' | head -n 1
}

# PySpark needs Java 17+; fetch one only where none (or an older one) exists: apt is slow.
if ! command -v java >/dev/null 2>&1 || [ "$(java_major)" -lt 17 ] 2>/dev/null; then
    if [ "$(id -u)" -eq 0 ]; then
        export DEBIAN_FRONTEND=noninteractive
        apt-get update
        apt-get install -y --no-install-recommends default-jre-headless
    else
        echo "scripts/setup.sh: PySpark needs Java 17+; install default-jre-headless (or any JDK 17+)" >&2
        exit 1
    fi
fi

python -m pip install --quiet --progress-bar off -e ".[test,spark,dev]"
