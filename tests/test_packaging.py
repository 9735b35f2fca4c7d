"""The release archive (``python3 -m build --sdist``) carries everything the
package needs to build and run: the C sources and their header, the opening
book, the catalogs, the page's files, what ``popref install`` writes, and
the licence as an SPDX expression."""

from __future__ import annotations

import shutil
import subprocess
import sys
import tarfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
# the tree without what a checkout accumulates (venv, builds, caches)
LEFT_OUT = shutil.ignore_patterns(
    ".git", ".venv", "build", "dist", "*.egg-info", "__pycache__", ".*_cache", ".hypothesis", "*.so"
)
BUILD = "from setuptools import build_meta; print(build_meta.build_sdist('dist'))"


def build_sdist(tmp_path: Path) -> tarfile.TarFile:
    source = tmp_path / "popref"
    shutil.copytree(REPO, source, ignore=LEFT_OUT)
    done = subprocess.run(
        [sys.executable, "-c", BUILD], cwd=source, capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stderr[-3000:]
    # e.g. `project.license` as a TOML table: an error from February 2027
    assert "Deprecat" not in done.stderr, done.stderr[-3000:]
    name = done.stdout.strip().splitlines()[-1]
    return tarfile.open(source / "dist" / name)


def test_the_sdist_carries_what_the_package_needs(tmp_path: Path) -> None:
    with build_sdist(tmp_path) as sdist:
        names = {name.split("/", 1)[1] for name in sdist.getnames() if "/" in name}
        info = sdist.extractfile(sdist.getmember("popref-0.1.0/PKG-INFO"))
        assert info is not None
        metadata = info.read().decode()
    needed = {
        "LICENSE",
        "engine/solver/_core.c",
        "engine/solver/_search.c",
        "engine/solver/_poll.h",
        "engine/solver/book-7x6.bin",
        "controller/system/popref.service",
        "controller/system/popref.conf",
        "controller/system/config.toml",
        "controller/web/static/index.html",
        "controller/web/static/remote.html",
        "controller/web/static/vendor/vendor.json",
        "controller/web/static/vendor/mqtt/mqtt.min.js",
        "controller/web/static/vendor/mqtt/LICENSE.md",
        "controller/web/static/vendor/noble-hashes/hmac.js",
        "controller/web/static/vendor/noble-hashes/LICENSE",
        *(
            f"controller/i18n/locale/{lang}/LC_MESSAGES/popref.mo"
            for lang in ("fi", "it", "el", "cs")
        ),
    }
    assert needed - names == set()
    assert "License-Expression: MIT" in metadata and "License-File: LICENSE" in metadata
