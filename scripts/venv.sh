# Shared by scripts/setup.sh, scripts/test.sh and .ci/run (sourced, not run): the project virtualenv
# (.venv), the extras installed into it, and Java for PySpark.  Nothing is installed outside .venv except
# Java, and that only through apt as root when no Java 17+ is on PATH.
#
# Each step prints one short line on stderr saying what it does, because pip and apt are silent (or noisy)
# for minutes and a person watching should know which.

VENV=.venv
VENV_PY="$VENV/bin/python"
export PIP_DISABLE_PIP_VERSION_CHECK=1 PIP_ROOT_USER_ACTION=ignore

say() { echo "${SCRIPT_NAME:-kadmin}: $*" >&2; }

java_major() {
    java -version 2>&1 | sed -n 's/.*version "\([0-9]*\).*/\1/p' | head -n 1
}

apt_install() {
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq >/dev/null
    apt-get install -y -qq --no-install-recommends "$@" >/dev/null
}

# PySpark needs Java 17+; fetch one only where none (or an older one) exists: apt is slow.
ensure_java() {
    local major
    major="$(command -v java >/dev/null 2>&1 && java_major || true)"
    if [ -n "$major" ] && [ "$major" -ge 17 ] 2>/dev/null; then
        say "Java $major found (PySpark needs 17+)"
        return 0
    fi
    if [ "$(id -u)" -eq 0 ] && command -v apt-get >/dev/null 2>&1; then
        say "no Java 17+ found: installing default-jre-headless with apt (a minute or two)"
        apt_install default-jre-headless
        say "Java $(java_major) installed"
    else
        say "PySpark needs Java 17+: install default-jre-headless (or any JDK 17+) and run this again"
        return 1
    fi
}

# The GSSAPI tests run a throwaway MIT Kerberos realm (k5test drives krb5kdc and kadmin.local), and python-gssapi
# builds against the system's Kerberos headers (krb5-config) with a C compiler and Python's headers.  Installed
# with apt as root where missing; elsewhere this says what to install, returns 1, and those tests skip.
ensure_kerberos() {
    local has_headers
    has_headers="$("$VENV_PY" -c 'import os, sysconfig; print(os.path.exists(os.path.join(sysconfig.get_paths()["include"], "Python.h")))' 2>/dev/null || echo False)"
    if { command -v krb5kdc >/dev/null 2>&1 || [ -x /usr/sbin/krb5kdc ]; } && command -v krb5-config >/dev/null 2>&1 \
            && command -v cc >/dev/null 2>&1 && [ "$has_headers" = True ]; then
        say "MIT Kerberos (KDC, headers) found for the GSSAPI tests"
        return 0
    fi
    if [ "$(id -u)" -eq 0 ] && command -v apt-get >/dev/null 2>&1; then
        say "installing MIT Kerberos (krb5-kdc, krb5-admin-server, libkrb5-dev, gcc) with apt for the GSSAPI tests"
        local pkgs=(krb5-kdc krb5-admin-server krb5-user libkrb5-dev gcc)
        [ "$has_headers" = True ] || pkgs+=(python3-dev)
        apt_install "${pkgs[@]}"
        say "MIT Kerberos installed"
    else
        say "the GSSAPI tests will be skipped: install krb5-kdc krb5-admin-server libkrb5-dev gcc (as root) to run them"
        return 1
    fi
}

# The interpreter that makes the venv: $PYTHON, else python3.  Python 3.10+.
base_python() {
    local py="${PYTHON:-python3}"
    if ! "$py" -c 'import sys; sys.exit(sys.version_info < (3, 10))' 2>/dev/null; then
        say "kadmin needs Python 3.10+; '$py' is $("$py" --version 2>&1 || echo missing) (set PYTHON=...)"
        return 1
    fi
    echo "$py"
}

# .venv with a working pip: reused when it has one, (re)made in place otherwise (never deleted).
ensure_venv() {
    if [ -x "$VENV_PY" ] && "$VENV_PY" -m pip --version >/dev/null 2>&1; then
        say "using the project virtualenv $VENV ($("$VENV_PY" --version 2>&1))"
        return 0
    fi
    local py
    py="$(base_python)" || return 1
    say "creating the project virtualenv $VENV with $("$py" --version 2>&1)"
    if ! "$py" -m venv "$VENV" >/dev/null 2>&1; then
        # Debian's Python ships venv's pip bootstrap separately (python3-venv).
        if [ "$(id -u)" -eq 0 ] && command -v apt-get >/dev/null 2>&1; then
            local pkg
            pkg="python$("$py" -c 'import sys; print(f"{sys.version_info[0]}.{sys.version_info[1]}")')-venv"
            say "$py cannot make a virtualenv (no ensurepip): installing $pkg with apt"
            apt_install "$pkg" || apt_install python3-venv
            "$py" -m venv "$VENV" >/dev/null
        else
            say "$py cannot make a virtualenv; install python3-venv (Debian/Ubuntu) and run this again"
            return 1
        fi
    fi
}

# Install kadmin (editable) with the given extras into .venv, unless everything they need is there already.
ensure_extras() {
    local extras="$1" missing
    if missing="$("$VENV_PY" scripts/missing_requirements.py "$extras")"; then
        say "kadmin with [$extras] is installed in $VENV"
        return 0
    fi
    local old
    old="$("$VENV_PY" scripts/missing_requirements.py --conflicting)"
    if [ -n "$old" ]; then
        # The project's old distribution name (or the index's unrelated `kadmin`) owns the import name too.
        say "uninstalling $old from $VENV: kadmin is the distribution kafka-kadmin now"
        "$VENV_PY" -m pip uninstall --quiet -y $old
    fi
    say "installing kadmin with [$extras] into $VENV (missing: $missing)"
    case "$missing" in
        *pyspark*) say "pip is quiet meanwhile; PySpark alone is a ~300 MB download" ;;
        *) say "pip is quiet meanwhile" ;;
    esac
    "$VENV_PY" -m pip install --quiet --progress-bar off -e ".[$extras]"
    say "installed"
}
