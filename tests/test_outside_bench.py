"""bench/outside.py's options: a helper measured on CPU time would be
measured wrongly, so it is refused in one line before anything runs."""

from __future__ import annotations

import pytest

from bench import outside


def test_the_helper_without_the_wall_clock_is_refused(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr("sys.argv", ["outside.py", "--helper"])
    with pytest.raises(SystemExit) as stopped:
        outside.main()
    assert stopped.value.code == 2
    err = capsys.readouterr().err.splitlines()
    assert err[-1] == (
        "outside.py: error: --helper needs --clock wall: its second thread spends CPU time twice"
    )
