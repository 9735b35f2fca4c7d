"""Where things are: check-wiring reads the file popref run reads, and
popref games points to the games popref simulate keeps."""

from __future__ import annotations

import argparse
import io
from pathlib import Path

import pytest

from controller.cli import main
from controller.cli import wiring as wiring_cmd


def wiring_args(*argv: str) -> argparse.Namespace:
    parser = argparse.ArgumentParser()
    wiring_cmd.add_arguments(parser)
    return parser.parse_args(argv)


def test_check_wiring_reads_the_default_configuration(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    default = tmp_path / "config.toml"
    default.write_text(
        "[board]\ncolumns = 4\nrows = 4\n[gpio]\nentry = [4, 5, 6, 7]\n"
        "exit = [8, 9, 10, 11]\nslider = 2\nbutton = 3\n"
        "column_rgb = [[20, 21, 22], [23, 24, 25], [26, 27, 12], [13, 14, 15]]\n"
    )
    monkeypatch.setattr("controller.daemon.config.DEFAULT_PATH", default)
    out = io.StringIO()
    assert wiring_cmd.run(wiring_args("--sim"), stdout=out) == 0
    text = out.getvalue()
    assert "entry 4" in text and "entry 5" not in text


def test_check_wiring_names_the_default_file_in_an_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    default = tmp_path / "config.toml"
    default.write_text("[board]\ncolumns = 99\n")
    monkeypatch.setattr("controller.daemon.config.DEFAULT_PATH", default)
    assert wiring_cmd.run(wiring_args("--sim")) == 2
    err = capsys.readouterr().err
    assert (
        err.startswith(f"popref check-wiring: {default}: [board] columns") and err.count("\n") == 1
    )


def test_games_points_to_where_simulate_keeps_its_games(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "xdg"))
    monkeypatch.setattr("controller.daemon.config.DEFAULT_PATH", tmp_path / "none.toml")
    monkeypatch.setenv("STATE_DIRECTORY", str(tmp_path / "daemon"))
    kept = tmp_path / "xdg" / "popref-simulate"
    script = tmp_path / "win.txt"
    script.write_text("drop 1\ndrop 2\n" * 3 + "drop 1\n")
    assert main(["simulate", "--script", str(script), "--json", "--state-dir", str(kept)]) == 0
    capsys.readouterr()
    assert main(["games"]) == 0
    out, err = capsys.readouterr()
    assert out == f"No finished games in {tmp_path / 'daemon' / 'games'} yet.\n"
    assert err == (
        f"popref simulate keeps 1 finished game in {kept}: popref games --state-dir {kept}\n"
    )
    assert main(["games", "--state-dir", str(kept)]) == 0
    out, err = capsys.readouterr()
    assert "classic" in out and err == ""


def test_the_docs_name_the_configuration_file_popref_reads() -> None:
    from controller.daemon.config import DEFAULT_PATH

    root = Path(__file__).resolve().parent.parent
    for doc in [root / "README.md", *sorted((root / "docs").glob("*.md"))]:
        for number, line in enumerate(doc.read_text().splitlines(), start=1):
            for word in line.replace("`", " ").split():
                if word.startswith("/etc/popref") and word.rstrip(".,:;)") not in (
                    str(DEFAULT_PATH),
                    "/etc/popref",
                ):
                    raise AssertionError(f"{doc.name}:{number} names {word}")
            assert "popref.toml" not in line, f"{doc.name}:{number}"


def test_a_state_dir_that_is_a_file_is_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    taken = tmp_path / "a-file"
    taken.write_text("")
    script = tmp_path / "s.txt"
    script.write_text("drop 1\n")
    assert main(["simulate", "--script", str(script), "--json", "--state-dir", str(taken)]) == 2
    assert capsys.readouterr().err == (
        f"popref simulate: {taken}: not a directory; "
        "pass --state-dir with a directory for the game\n"
    )
