"""The remote page's vendored libraries are their packages' own files, at
the versions pinned in ``controller/web/static/vendor/vendor.json``: fetched
with npm into a cache outside the repository (``~/.cache/popref-npm``),
checked against the registry's integrity, and compared byte for byte. Where
npm is missing or the registry unreachable, the test skips with one line."""

from __future__ import annotations

import base64
import hashlib
import json
import os
import shutil
import subprocess
import tarfile
from pathlib import Path

import pytest

VENDOR = Path(__file__).resolve().parent.parent / "controller" / "web" / "static" / "vendor"
PINNED: dict[str, dict[str, object]] = json.loads((VENDOR / "vendor.json").read_text())
CACHE = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "popref-npm"


def tarball(name: str, version: str) -> Path:
    """The package's tarball, packed by npm into the cache (once)."""
    npm = shutil.which("npm")
    if npm is None:
        pytest.skip("npm is not installed: the vendored files are not checked against the registry")
    CACHE.mkdir(parents=True, exist_ok=True)
    packed = CACHE / f"{name.lstrip('@').replace('/', '-')}-{version}.tgz"
    if not packed.exists():
        done = subprocess.run(
            [npm, "pack", f"{name}@{version}", "--silent"],
            cwd=CACHE,
            capture_output=True,
            text=True,
            timeout=120,
        )
        if done.returncode != 0 or not packed.exists():
            pytest.skip(
                f"npm pack {name}@{version} failed (no registry here?): the check is skipped"
            )
    return packed


@pytest.mark.parametrize("name", sorted(PINNED))
def test_each_vendored_file_is_the_pinned_packages_own(name: str) -> None:
    pinned = PINNED[name]
    packed = tarball(name, str(pinned["version"]))
    algorithm, _, digest = str(pinned["integrity"]).partition("-")
    assert base64.b64encode(hashlib.new(algorithm, packed.read_bytes()).digest()).decode() == digest
    files = pinned["files"]
    assert isinstance(files, dict)
    with tarfile.open(packed) as archive:
        for ours, theirs in files.items():
            member = archive.extractfile(f"package/{theirs}")
            assert member is not None, theirs
            assert (VENDOR / ours).read_bytes() == member.read(), ours
    # nothing vendored that the pin does not name
    named = {VENDOR / ours for ours in files}
    under = {path for path in (VENDOR / next(iter(files)).split("/")[0]).iterdir()}
    assert under <= named
