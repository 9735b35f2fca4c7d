"""The configuration file: whatever is in it (or in its place), the answer is
a checked configuration or one line that names the file, exit status 2, never
a traceback and never a hang."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from controller.cli import main
from controller.daemon.config import Config, load_config
from hardware.errors import ConfigError


def one_line_error(path: Path) -> str:
    with pytest.raises(ConfigError) as caught:
        load_config(path)
    message = str(caught.value)
    assert message.startswith(f"{path}: ") and "\n" not in message, message
    return message


@pytest.mark.parametrize(
    ("content", "says"),
    [
        (b'[game]\nrules = "pop\xe910"\n', "line 2 is not UTF-8 text"),
        (b'\xef\xbb\xbf[game]\nrules = "pop10"\n', "byte-order mark"),
        (b"x = " + b"[" * 5000 + b"]" * 5000 + b"\n", "nested too deeply"),
        (b'[daemon]\nstate_dir = "/var/lib/pop\\u0000ref"\n', "[daemon] state_dir: contains a NUL"),
        (b'[board]\nbackend = "serial"\n[serial]\nport = "/dev/tty\\u0000"\n', "[serial] port"),
        (b"[board]\nbackend = 'gpio'\n[gpio]\nhold_s = 99\n", "[gpio] hold_s: 99 is out of range"),
        (b'[board]\nbackend = "serial"\n[serial]\nport = "x"\nbaud = 7\n', "[serial] baud"),
        (b"[board]\nrows = 40\n", "[board] rows: 40 is out of range; use 4 to 16"),
    ],
)
def test_bad_files_are_one_line_naming_the_file(tmp_path: Path, content: bytes, says: str) -> None:
    path = tmp_path / "config.toml"
    path.write_bytes(content)
    assert says in one_line_error(path)


def test_a_board_of_sixteen_by_sixteen_is_a_board(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    path.write_text("[board]\ncolumns = 16\nrows = 16\n")
    assert (load_config(path).board.columns, load_config(path).board.rows) == (16, 16)


def test_a_fifo_in_place_of_the_file_does_not_hang(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    os.mkfifo(path)  # nobody writes: reading it would wait for ever
    assert "not a regular file" in one_line_error(path)


@pytest.mark.parametrize("device", ["/dev/zero", "/dev/null"])
def test_a_device_in_place_of_the_file(device: str) -> None:
    assert "not a regular file" in one_line_error(Path(device))


def test_a_directory_or_a_nul_in_the_path(tmp_path: Path) -> None:
    assert "Is a directory" in one_line_error(tmp_path)
    assert "cannot be read" in one_line_error(Path("/etc/popref\0.toml"))


@pytest.mark.parametrize("command", ["run", "games", "check-wiring", "simulate"])
def test_every_command_prints_one_line_and_exits_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], command: str
) -> None:
    path = tmp_path / "config.toml"
    path.write_bytes(b"\xef\xbb\xbf[board]\n")
    extra = ["--state-dir", str(tmp_path / "state")] if command in ("run", "simulate") else []
    assert main([command, "--config", str(path), *extra]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"popref {command}: {path}: ") and err.count("\n") == 1, err


def test_popref_run_with_a_fifo_or_dev_zero_as_its_config(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    fifo = tmp_path / "config.toml"
    os.mkfifo(fifo)
    for path in (str(fifo), "/dev/zero"):
        assert main(["run", "--config", path, "--state-dir", str(tmp_path / "state")]) == 2
        err = capsys.readouterr().err
        assert err == f"popref run: {path}: cannot be read: not a regular file; " + (
            "give the path of a TOML file\n"
        )


# -- any bytes at all --------------------------------------------------------------

_TABLES = ["game", "board", "gpio", "serial", "daemon", "sim", "other"]
_KEYS = [
    "rules", "repetition", "both_lines", "simultaneous_ms", "backend", "columns", "rows",
    "colour_sensing", "state_dir", "seed", "link", "port", "baud", "timeout", "keepalive",
    "entry", "exit", "slider", "button", "pin_factory", "servo_range", "hold_s", "x",
]  # fmt: skip
_VALUES = [
    '"pop10"', '"gpio"', '"serial"', '"sim"', '"loop://"', '"GPIO4"', '"BOARD11"', "7", "0",
    "-1", "16", "99", "1e400", "nan", "true", "[4, 5, 6, 7]", "[[1]]", "{a = 1}", '""',
    '"\\u0000"', "1979-05-27", "[-90, 90]", "2", "0.5",
]  # fmt: skip
_line = st.one_of(
    st.sampled_from(_TABLES).map(lambda t: f"[{t}]"),
    st.tuples(st.sampled_from(_KEYS), st.sampled_from(_VALUES)).map(lambda kv: " = ".join(kv)),
)
_tomlish = st.lists(_line, max_size=12).map(lambda lines: "\n".join(lines).encode())
_mangled = st.tuples(_tomlish, st.binary(max_size=8), st.integers(0, 200)).map(
    lambda t: t[0][: t[2]] + t[1] + t[0][t[2] :]
)


@settings(
    max_examples=300,
    derandomize=True,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(st.one_of(st.binary(max_size=200), _tomlish, _mangled))
def test_any_bytes_give_a_config_or_one_line_naming_the_file(
    tmp_path: Path, content: bytes
) -> None:
    path = tmp_path / "config.toml"
    path.write_bytes(content)
    try:
        config = load_config(path, env={"HOME": str(tmp_path)})
    except ConfigError as error:
        message = str(error)
        assert message.startswith(f"{path}: ") and "\n" not in message, message
    else:
        assert isinstance(config, Config) and config.source == str(path)


def test_deep_nesting_does_not_leave_the_recursion_limit_changed(tmp_path: Path) -> None:
    limit = sys.getrecursionlimit()
    path = tmp_path / "config.toml"
    path.write_bytes(b"x = " + b"[" * 100_000 + b"]" * 100_000)
    one_line_error(path)
    assert sys.getrecursionlimit() == limit


# -- what the file asks of the board -----------------------------------------------

_GPIO_7 = (
    '[gpio]\npin_factory = "mock"\nentry = [4, 17, 27, 22, 5, 6, 13]\n'
    "exit = [19, 26, 18, 23, 24, 25, 12]\nslider = 2\nbutton = 3\n"
)


@pytest.mark.parametrize(
    ("content", "says"),
    [
        (
            '[board]\nbackend = "gpio"\ncolour_sensing = true\n' + _GPIO_7,
            "[board] colour_sensing: [gpio] has no colour pins, so no disc's colour would ever "
            "be known; add colour = [one pin per column] to [gpio] (docs/wiring.md), "
            "or set colour_sensing = false",
        ),
        (
            '[board]\nbackend = "gpio"\ncolour_sensing = true\n[gpio]\n',  # the default map
            "[board] colour_sensing: [gpio] has no colour pins",
        ),
        (
            '[board]\nbackend = "serial"\ncolour_sensing = true\n[serial]\nport = "/dev/ttyACM0"\n',
            '[board] colour_sensing: the sensor board (backend = "serial") does not sense '
            "colour; set colour_sensing = false",
        ),
    ],
)
def test_colour_sensing_without_anything_that_senses_colour_is_refused(
    tmp_path: Path, content: str, says: str
) -> None:
    """A walk found it accepted, and then no move could ever be played ("A
    disc of unknown colour went into column 1, but it is Red's turn.")."""
    path = tmp_path / "config.toml"
    path.write_text(content)
    assert one_line_error(path).startswith(f"{path}: {says}")


def test_colour_sensing_with_colour_pins_or_on_the_simulated_grid_is_taken(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    colour = "colour = [7, 8, 9, 10, 11, 14, 15]\n"
    path.write_text('[board]\nbackend = "gpio"\ncolour_sensing = true\n' + _GPIO_7 + colour)
    assert load_config(path).board.colour_sensing
    path.write_text("[board]\ncolour_sensing = true\n")
    assert load_config(path).board.colour_sensing


def test_a_state_dir_under_the_home_directory_is_there(tmp_path: Path) -> None:
    """A walk's state_dir = "~/popref-state" made a directory named ~ in the
    current one."""
    path = tmp_path / "config.toml"
    home = tmp_path / "home"
    path.write_text('[daemon]\nstate_dir = "~/popref-state"\n')
    assert load_config(path, env={"HOME": str(home)}).state_dir == home / "popref-state"
    path.write_text('[daemon]\nstate_dir = "~"\n')
    assert load_config(path, env={"HOME": str(home)}).state_dir == home
    path.write_text('[daemon]\nstate_dir = "~no-such-user-of-popref/state"\n')
    assert one_line_error(path) == (
        f"{path}: [daemon] state_dir: cannot tell which home directory "
        "'~no-such-user-of-popref' is; write the whole path, e.g. \"/home/pi/popref-state\""
    )


@pytest.mark.parametrize(
    ("content", "says"),
    [
        (
            '[game]\nrules = "pop10"\nrules = "classic"\n',
            "not valid TOML: [game] rules is set twice, at lines 2 and 3; keep one",
        ),
        (
            '# mine\n[game]\nrules = "pop10"\n\n[board]\ncolumns = 7\n[ game ]\nrules = "x"\n',
            "not valid TOML: the table [game] is declared twice, at lines 2 and 7; "
            "merge the two into one",
        ),
        ("seed = 1\nseed = 2\n", "not valid TOML: seed is set twice, at lines 1 and 2; keep one"),
        (
            '[web]\nhosts = ["a"]\ntoken = """\nhosts = 1\n"""\nhosts = ["b"]\n',
            "not valid TOML: [web] hosts is set twice, at lines 2 and 6; keep one",
        ),
    ],
)
def test_a_key_or_a_table_given_twice_is_named_with_both_lines(
    tmp_path: Path, content: str, says: str
) -> None:
    """A walk read "Cannot overwrite a value (at line 4, column 18)" and
    "Cannot declare ('game',) twice", neither naming the key."""
    path = tmp_path / "config.toml"
    path.write_text(content)
    assert one_line_error(path).startswith(f"{path}: {says}")
