#!/usr/bin/env bash
# Check systemd/popref.service with `systemd-analyze verify` and
# systemd/popref.conf with `systemd-sysusers --dry-run`, offline;
# fail on any complaint about either.
# Usage: tests/verify-unit.sh [UNIT [SYSUSERS]]  (the tests pass broken copies)
#
# systemd-analyze exits 0 for most mistakes (an unknown key, bad device rights)
# and only prints a warning, so the output is what decides.
set -euo pipefail
unit=${1:+$(realpath "$1")}
sysusers=${2:+$(realpath "$2")}
cd "$(dirname "$0")/.."
unit=${unit:-systemd/popref.service}
sysusers=${sysusers:-systemd/popref.conf}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# The unit runs /opt/popref/venv/bin/popref, which exists only on an installed
# Pi, and verify rejects an ExecStart= that is not executable. Verify a copy
# that runs this checkout's popref instead (or /bin/true before it is
# installed); every other line is checked exactly as shipped.
exe=$PWD/.venv/bin/popref
if [ ! -x "$exe" ] || [[ "$exe" =~ [[:space:]] ]]; then
    exe=/bin/true
fi
grep -q '^ExecStart=/opt/popref/venv/bin/popref ' "$unit" || {
    echo "$unit: ExecStart= no longer starts /opt/popref/venv/bin/popref; update $0 and the docs"
    exit 1
}
sed "s|^ExecStart=/opt/popref/venv/bin/popref |ExecStart=$exe |" "$unit" > "$work/popref.service"

status=0
out=$(systemd-analyze verify "$work/popref.service" 2>&1) || status=$?
# Other units pulled in by the check can warn on a container; only ours counts.
complaints=$(grep -F "popref.service" <<<"$out" || true)
if [ "$status" -ne 0 ] || [ -n "$complaints" ]; then
    echo "systemd-analyze verify $unit failed (status $status):"
    echo "${complaints:-$out}" | sed "s|$work/popref.service|$unit|g"
    exit 1
fi
echo "$unit: ok"

if command -v systemd-sysusers >/dev/null 2>&1; then
    # An empty root: check the file itself, not this machine's /etc/passwd.
    mkdir -p "$work/root/etc"
    if ! out=$(systemd-sysusers --root="$work/root" --dry-run "$(realpath "$sysusers")" 2>&1) \
        || grep -qF "$(basename "$sysusers")" <<<"$out"; then
        echo "systemd-sysusers --dry-run $sysusers failed:"
        echo "$out"
        exit 1
    fi
    echo "$sysusers: ok"
fi
