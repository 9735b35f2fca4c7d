#!/usr/bin/env bash
# The Raspberry Pi install, rehearsed without a Pi: a fresh arm64 Debian
# bookworm root run under qemu-user-static, in which docs/install-pi.md's
# commands run exactly as written (taken from the blocks it marks with
# `<!-- rehearsal: NAME -->`), then `popref run` on mock pins serves the page
# and the engine tests run against the installed package.
#
# Usage: sudo tests/pi_rehearsal.sh [--prepare]
#   --prepare  only build the cached arm64 root (minutes; the first run does it too)
# Exit status: 0 rehearsed, 1 a step failed, 77 skipped (one line says why).
#
# Slow, so not in the default test run: tests/test_pi_rehearsal.py runs it with
# POPREF_REHEARSAL=1. The root is cached in $POPREF_REHEARSAL_CACHE
# (default /var/cache/popref-rehearsal) and copied for each run, so a rerun
# starts from a fresh system in seconds. It rehearses the committed HEAD, as the
# documented `git archive` does.
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$PWD

cache=${POPREF_REHEARSAL_CACHE:-/var/cache/popref-rehearsal}
mirror=${POPREF_REHEARSAL_MIRROR:-http://deb.debian.org/debian}
# A fresh Raspberry Pi OS Lite has these; a debootstrap root does not.
base_packages=sudo,python3,ca-certificates,curl
base=$cache/bookworm-arm64
work=$cache/run
doc=$repo/docs/install-pi.md

skip() { echo "pi_rehearsal: skipped: $*"; exit 77; }
# Unmount everything under a root before it is removed: rm -rf through a bind
# mount of /dev would empty the host's /dev.
unmount_under() {
    local target
    for target in $(awk -v top="$1" 'index($2, top "/") == 1 { print $2 }' /proc/mounts | sort -r); do
        umount -l "$target" || true
    done
    if awk -v top="$1" 'index($2, top "/") == 1 { found = 1 } END { exit !found }' /proc/mounts; then
        echo "pi_rehearsal: FAILED: cannot unmount everything under $1" >&2
        exit 1
    fi
}
remove_root() {
    unmount_under "$1"
    rm -rf --one-file-system "$1"
}
fail() { echo "pi_rehearsal: FAILED: $*" >&2; exit 1; }
step_started=$SECONDS
step() {
    echo "== $* (at $((SECONDS - step_started)) s)"
}

[ "$(uname -s)" = Linux ] || skip "needs Linux (debootstrap, chroot, binfmt_misc)"
[ "$(id -u)" = 0 ] || skip "needs root (debootstrap, chroot, mounts): sudo $0"

# --- the tools and the emulator -------------------------------------------------
native=no
[ "$(uname -m)" = aarch64 ] && native=yes
missing=()
command -v debootstrap >/dev/null || missing+=(debootstrap)
if [ $native = no ]; then
    [ -x /usr/bin/qemu-aarch64-static ] || missing+=(qemu-user-static)
    command -v update-binfmts >/dev/null || missing+=(binfmt-support)
fi
if [ ${#missing[@]} -gt 0 ]; then
    command -v apt-get >/dev/null || skip "needs ${missing[*]} and there is no apt-get to install them"
    step "installing ${missing[*]} with apt-get"
    { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}"; } \
        >/dev/null || skip "apt-get could not install ${missing[*]}"
fi
if [ $native = no ]; then
    if ! mountpoint -q /proc/sys/fs/binfmt_misc; then
        mount -t binfmt_misc binfmt_misc /proc/sys/fs/binfmt_misc 2>/dev/null \
            || skip "cannot mount binfmt_misc (a container without the privilege?)"
    fi
    update-binfmts --enable qemu-aarch64 >/dev/null 2>&1 || true
    grep -qx enabled /proc/sys/fs/binfmt_misc/qemu-aarch64 2>/dev/null \
        || skip "qemu-aarch64 is not registered with binfmt_misc (update-binfmts --enable qemu-aarch64 failed)"
fi

# --- the cached arm64 root ------------------------------------------------------
runs_arm64() { chroot "$1" /bin/true 2>/dev/null; }
stamp=$base/.popref-rehearsal-base
if [ "$(cat "$stamp" 2>/dev/null)" != "$base_packages $mirror" ]; then
    # One pass: debootstrap unpacks with this machine's own tools and only the
    # packages' scripts run under qemu. (--foreign and a second stage run all of
    # it under qemu: over an hour on a loaded 2-core machine.)
    step "debootstrap --arch=arm64 bookworm (downloads, then configures under qemu)"
    remove_root "$base"
    remove_root "$base.tmp"
    mkdir -p "$cache/debs"
    if ! debootstrap --arch=arm64 --include="$base_packages" --cache-dir="$cache/debs" \
        bookworm "$base.tmp" "$mirror" > "$cache/debootstrap.log" 2>&1; then
        runs_arm64 "$base.tmp" || { remove_root "$base.tmp"; skip "qemu-user-static cannot run arm64 programs here"; }
        unmount_under "$base.tmp"
        fail "debootstrap: see $cache/debootstrap.log"
    fi
    unmount_under "$base.tmp"
    mv "$base.tmp" "$base"
    echo "$base_packages $mirror" > "$stamp"
fi
runs_arm64 "$base" || skip "qemu-user-static cannot run arm64 programs here"
[ "${1:-}" = --prepare ] && { step "the arm64 root is ready in $base"; exit 0; }

# --- a fresh copy of it, for this run -------------------------------------------
daemon_pid=
release() {
    if [ -n "$daemon_pid" ]; then kill "$daemon_pid" 2>/dev/null; wait "$daemon_pid" 2>/dev/null; fi
    daemon_pid=
    unmount_under "$work"
}
trap release EXIT
bind() {  # bind DIR-ON-HOST PATH-IN-ROOT
    mkdir -p "$1" "$work$2"
    mount --bind "$1" "$work$2"
}
step "a fresh copy of the arm64 root"
remove_root "$work"
cp -a "$base" "$work"
mount -t proc proc "$work/proc"
bind /dev /dev
bind /dev/pts /dev/pts
# apt's and pip's downloads are kept between runs; what they install is not
bind "$cache/apt-archives" /var/cache/apt/archives
bind "$cache/pip" /root/.cache/pip
cp /etc/resolv.conf "$work/etc/resolv.conf"
# The host's certificate authorities (a proxy's, on some networks) for pip,
# which otherwise trusts only its own bundle; /etc/pip.conf, as on Raspberry Pi OS.
cp /etc/ssl/certs/ca-certificates.crt "$work/etc/ssl/certs/ca-certificates.crt"
printf '[global]\ncert = /etc/ssl/certs/ca-certificates.crt\n' > "$work/etc/pip.conf"
in_root() {  # run a shell command in the root as root, in root's home
    chroot "$work" /usr/bin/env -i HOME=/root PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
        LANG=C.UTF-8 /bin/bash -c "cd ~ && $1"
}
documented() {  # the shell block docs/install-pi.md marks with <!-- rehearsal: NAME -->
    local block
    block=$(awk -v mark="<!-- rehearsal: $1 -->" '
        $0 == mark { found = 1; next }
        found && /^```/ { if (inside) exit; inside = 1; next }
        inside { print }' "$doc")
    [ -n "$block" ] || fail "$doc has no block marked <!-- rehearsal: $1 -->"
    printf '%s\n' "$block"
}

# --- the documented install -----------------------------------------------------
step "step 0, on this checkout: $(documented archive)"
commit=$(git rev-parse --short HEAD)
# into root's home in the arm64 root, where step 1 finds it as $HOME/popref.tar.gz
(cd "$work/root" && GIT_DIR=$(git -C "$repo" rev-parse --absolute-git-dir) bash -euc "$(documented archive)")
[ -f "$work/root/popref.tar.gz" ] || fail "step 0 made no popref.tar.gz"
echo "   the archive of $commit ($(du -h "$work/root/popref.tar.gz" | cut -f1))"

step "step 1 in the arm64 root, as written"
install_log=$cache/install.log
status=0
in_root "$(documented install)" > "$install_log" 2>&1 || status=$?
refusal=$(tail -n 1 "$install_log")
echo "   exit status $status; its last line: $refusal"
[ "$status" = 2 ] && [[ "$refusal" == "popref install: systemd is not running here"* ]] \
    || fail "step 1 did not end in popref install's refusal to run without systemd: see $install_log"
grep -q "^Successfully installed .*popref-0" "$install_log" || fail "pip did not install popref: see $install_log"
grep -E "^Successfully installed" "$install_log" | sed 's/^/   /'
leftovers=$(cd "$work/root" && ls -d build popref popref.egg-info 2>/dev/null || true)
[ -z "$leftovers" ] || fail "pip left $leftovers beside the archive"
echo "   nothing left beside the archive: pip built it in a temporary directory"

step "the update, as written"
status=0
in_root "$(documented update)" > "$cache/update.log" 2>&1 || status=$?
[ "$status" = 2 ] && grep -q "^Successfully installed popref-0" "$cache/update.log" \
    || fail "the update did not reinstall popref and end in the same refusal: see $cache/update.log"
echo "   pip reinstalled popref; popref install refused again, as it must here"

step "popref install --root / (what a booted Pi does, without starting)"
in_root "/opt/popref/venv/bin/popref install --root /" | sed 's/^/   /'
in_root "/opt/popref/venv/bin/popref install --root /" | grep -q "^unchanged /etc/systemd/system/popref.service" \
    || fail "a second popref install changed the unit"

step "step 5 in the arm64 root, as written: Mosquitto for friends"
status=0
in_root "$(documented broker)" > "$cache/broker.log" 2>&1 || status=$?
[ "$status" = 2 ] && grep -q "^popref install: systemd is not running here" "$cache/broker.log" \
    || fail "step 5 did not install Mosquitto and end in the same refusal: see $cache/broker.log"
in_root "/opt/popref/venv/bin/popref install --root / --broker" | sed 's/^/   /'
in_root "stat -c '%a %U:%G %n' /etc/mosquitto/popref.passwd /etc/mosquitto/popref.acl /etc/mosquitto/conf.d/popref.conf" \
    | sed 's/^/   /'

step "what it made: the user, the groups, the unit"
in_root "id popref" | sed 's/^/   /'
for group in gpio dialout; do
    in_root "id -nG popref" | tr ' ' '\n' | grep -qx "$group" || fail "popref is not in the group $group"
done
[ -L "$work/etc/systemd/system/multi-user.target.wants/popref.service" ] || fail "popref.service is not enabled"
in_root "stat -c '%a %U:%G %n' /etc/popref/config.toml /etc/systemd/system/popref.service /etc/sysusers.d/popref.conf" \
    | sed 's/^/   /'
in_root "systemd-analyze verify /etc/systemd/system/popref.service 2>&1 | grep popref.service" \
    && fail "systemd-analyze verify complains about the installed unit" || echo "   systemd-analyze verify: ok"

step "the installed package: compiled cores, lgpio, book, catalogs, page files"
in_root "cd /tmp && LG_WD=/tmp /opt/popref/venv/bin/python -c '
import importlib.resources as r, lgpio, engine.solver._core, engine.solver._search
files = [r.files(\"engine.solver\") / \"book-7x6.bin\", r.files(\"controller.web\") / \"static\",
         r.files(\"controller.i18n\") / \"locale/fi/LC_MESSAGES/popref.mo\",
         r.files(\"controller\") / \"system/popref.service\"]
assert all(f.is_file() or f.is_dir() for f in files), files
print(\"   C cores:\", engine.solver._core.__file__.rsplit(\"/\", 1)[1], engine.solver._search.__file__.rsplit(\"/\", 1)[1])
print(\"   lgpio:\", lgpio.__file__)'"

step "popref run on mock pins, serving the page"
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
cat > "$work/tmp/rehearsal.toml" <<TOML
[board]
backend = "gpio"
[gpio]
pin_factory = "mock"
[web]
host = "127.0.0.1"
port = $port
[daemon]
state_dir = "/tmp/popref-state"
TOML
chroot "$work" /usr/bin/env -i PATH=/usr/bin:/bin LANG=C.UTF-8 \
    /opt/popref/venv/bin/popref run --config /tmp/rehearsal.toml > "$cache/run.log" 2>&1 &
daemon_pid=$!
# curl in the root, over loopback; it waits for the daemon to listen (slow under qemu)
page=$(in_root "curl -fs --retry-connrefused --retry 300 --retry-delay 1 http://127.0.0.1:$port/") \
    || fail "the page did not answer on port $port: see $cache/run.log"
grep -q "<title>" <<<"$page" || fail "/ is not the page"
in_root "curl -fsS http://127.0.0.1:$port/api/state" | python3 -c \
    'import json, sys; s = json.load(sys.stdin); print("   /api/state:", s["rules"], s["to_move"], s["phase"])'
echo "   / answered: $(grep -o '<title>[^<]*</title>' <<<"$page")"
kill "$daemon_pid"; wait "$daemon_pid" || true; daemon_pid=

step "Mosquitto as its unit starts it, and popref inviting a friend through it"
# as Debian's mosquitto.service: its runtime and log directories first, then
# root, which gives itself the user mosquitto before it reads popref's password file
in_root "mkdir -m 740 -p /run/mosquitto /var/log/mosquitto && chown mosquitto /run/mosquitto /var/log/mosquitto"
chroot "$work" /usr/sbin/mosquitto -c /etc/mosquitto/mosquitto.conf > "$cache/mosquitto.log" 2>&1 &
broker_pid=$!
# popref run's configuration of the earlier step, with the [remote] step 5 wrote
cat > "$work/tmp/remote_keys.py" <<'PY'
import tomllib
remote = tomllib.load(open("/etc/popref/config.toml", "rb"))["remote"]
print("[remote]")
for key in ("broker", "user", "password", "web_broker", "guest_user", "guest_password"):
    print(f'{key} = "{remote[key]}"')
print('plays = "yellow"')
PY
in_root "/opt/popref/venv/bin/python /tmp/remote_keys.py" >> "$work/tmp/rehearsal.toml"
# the friend's side: the guest account of the link, with the paho-mqtt popref has
cat > "$work/tmp/guest_reads.py" <<'PY'
import sys, threading, tomllib
import paho.mqtt.client as mqtt
from paho.mqtt.enums import CallbackAPIVersion
remote = tomllib.load(open("/etc/popref/config.toml", "rb"))["remote"]
got = threading.Event()
said = []
def connected(client, userdata, flags, reason, properties):
    client.subscribe("popref/1/+/state", qos=1)
def message(client, userdata, msg):
    said.append(msg.payload.decode())
    got.set()
guest = mqtt.Client(CallbackAPIVersion.VERSION2)
guest.username_pw_set(remote["guest_user"], remote["guest_password"])
guest.on_connect, guest.on_message = connected, message
for _ in range(300):  # the daemon under qemu takes its time
    try:
        guest.connect("127.0.0.1", 1883)
        break
    except OSError:
        threading.Event().wait(1)
guest.loop_start()
if not got.wait(300):
    sys.exit("no state within 300 s")
print(said[0])
PY
chroot "$work" /usr/bin/env -i PATH=/usr/bin:/bin LANG=C.UTF-8 \
    /opt/popref/venv/bin/popref run --config /tmp/rehearsal.toml > "$cache/run-remote.log" 2>&1 &
daemon_pid=$!
# the friend's account reads the board's retained state, as the friend's page does
state=$(in_root "/opt/popref/venv/bin/python /tmp/guest_reads.py") \
    || { kill "$broker_pid"; fail "no state for the guest from popref through Mosquitto: see $cache/run-remote.log, $work/var/log/mosquitto/mosquitto.log"; }
grep -q '"kind": *"state"' <<<"$state" || { kill "$broker_pid"; fail "the guest read no state: $state"; }
echo "   the guest account read the board's state ($(wc -c <<<"$state") bytes)"
grep -o "Invitation to play Yellow: http[^ ]*#v=1" "$cache/run-remote.log" | sed 's/^/   /' \
    || { kill "$broker_pid"; fail "popref logged no invitation: see $cache/run-remote.log"; }
kill "$daemon_pid"; wait "$daemon_pid" || true; daemon_pid=
kill "$broker_pid"; wait "$broker_pid" || true

step "the engine tests against the installed package"
mkdir -p "$work/tmp/rehearsal"
cp -r tests pyproject.toml "$work/tmp/rehearsal/"
rm -rf "$work/tmp/rehearsal/tests/__pycache__"
in_root "/opt/popref/venv/bin/pip install -q pytest hypothesis" > /dev/null
in_root "cd /tmp/rehearsal && /opt/popref/venv/bin/python -c 'import engine; print(\"   engine from\", engine.__file__)'"
in_root "cd /tmp/rehearsal && /opt/popref/venv/bin/python -m pytest -rs -p no:cacheprovider \
    tests/test_engine_*.py tests/test_solver.py tests/test_fastsearch.py" > "$cache/tests.log" 2>&1 \
    || { tail -n 20 "$cache/tests.log"; fail "the engine tests failed: see $cache/tests.log"; }
grep -E "^SKIPPED|^[0-9]+ passed" "$cache/tests.log" | sed 's/^/   /'

release
remove_root "$work"
step "rehearsed: the install of $commit works as docs/install-pi.md says"
