#!/usr/bin/env bash
# Install popref with its test extra into .venv (tests/run.sh's first step):
# the first time, and again whenever pyproject.toml or the solver's C sources
# change (the stamp holds the hash they were installed for: an editable install
# compiles the C cores once, and a stale core fails every search test). pip's own lines say what it is doing while
# it works, a minute or two the first time; its noise about what is already
# there is left out.
set -euo pipefail
cd "$(dirname "$0")/.."

PYTHON=${PYTHON:-python3}

if [ ! -x .venv/bin/python ]; then
    echo "== creating .venv with $("$PYTHON" --version)"
    "$PYTHON" -m venv .venv
fi
wanted=$(.venv/bin/python -c '
import glob, hashlib
digest = hashlib.sha256()
for name in ["pyproject.toml", *sorted(glob.glob("engine/solver/*.[ch]"))]:
    digest.update(open(name, "rb").read())
print(digest.hexdigest())')
if [ "$(cat .venv/.popref-installed 2>/dev/null || true)" = "$wanted" ]; then
    exit 0
fi
echo "== installing popref and its test tools into .venv (pip; a minute or two the first time)"
# line by line as pip writes them (grep would hold them back in its buffer);
# the status is checked by importing what was installed, below
.venv/bin/python -m pip install --disable-pip-version-check --progress-bar off -e '.[test]' 2>&1 \
    | while IFS= read -r line; do
        case $line in
            "Requirement already satisfied"* | *"is ignored: it is neither a file nor a directory"*) ;;
            *) echo "   $line" ;;
        esac
    done || true
if .venv/bin/python -c 'import controller, pytest, hypothesis, mypy' 2>/dev/null; then
    echo "$wanted" > .venv/.popref-installed
else
    echo "tests/install.sh: pip could not install popref's test tools (see above)" >&2
    exit 1
fi
