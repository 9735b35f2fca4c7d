"""docs/recovery.md points to the code and the tests of every recovery: each
file it names exists, each name it gives in brackets is in that file, and
each test it names is there, so the page cannot point to what is gone."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PAGE = (ROOT / "docs" / "recovery.md").read_text(encoding="utf-8")
# `path/to/file.py` optionally followed by (`name`, `name`) or ::name
REFERENCE = re.compile(
    r"`([\w./-]+\.(?:py|service|md))(?:::(\w+))?`(?: \(((?:`[\w.]+`(?:, )?)+)\))?"
)
REFERENCES = REFERENCE.findall(PAGE)


def test_the_page_names_code_and_tests() -> None:
    assert len(REFERENCES) >= 30
    assert any(path.startswith("tests/") and name for path, name, _ in REFERENCES)


@pytest.mark.parametrize(("path", "test", "names"), REFERENCES)
def test_every_reference_is_there(path: str, test: str, names: str) -> None:
    where = ROOT / path
    assert where.is_file(), path
    text = where.read_text(encoding="utf-8")
    if test:
        assert re.search(rf"^def {test}\(", text, re.M), f"{path}::{test}"
    for name in re.findall(r"`([\w.]+)`", names):
        assert re.search(rf"\b{re.escape(name.split('.')[-1])}\b", text), f"{name} in {path}"
