"""A joining grid (``popref simulate --join LINK``, ``[remote] join``) plays
the link's game: the link's rules, this grid's colour by the person at it,
the other by the other grid. Options and keys that would choose otherwise
are refused in one line naming them (exit 2), never silently followed: the
two grids would play two different games (docs/remote.md, "Linked
grids")."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from controller.cli import main
from controller.daemon.config import parse_config
from controller.simulator.simulation import Simulation
from engine.colour import Colour
from hardware.errors import ConfigError

SECRET = "AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8"
# a broker nobody listens on: a joining grid tries it in the background and
# the tests here need no answer from it
LINK = (
    f"http://pi.local:8080/remote#v=1&g=AAECAwQFBgcICQoLDA0ODw&k={SECRET}"
    "&c=yellow&r=classic&m=mqtt%3A%2F%2F127.0.0.1%3A1"
)
POP10_LINK = LINK.replace("r=classic", "r=pop10")


def refused(capsys: pytest.CaptureFixture[str], argv: list[str]) -> str:
    """What ``popref argv`` said on standard error, having refused to start."""
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err, err
    return err


def test_simulate_join_refuses_rules_the_link_carries(capsys: pytest.CaptureFixture[str]) -> None:
    err = refused(capsys, ["simulate", "--join", LINK, "--rules", "pop10", "--script", os.devnull])
    assert err == (
        "popref simulate: --rules: this grid joins another grid's game (--join), whose link "
        "carries the rules: the inviting grid chooses them; leave out --rules\n"
    )


@pytest.mark.parametrize("colour", ["yellow", "red"])
def test_simulate_join_refuses_a_computer_opponent(
    colour: str, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["simulate", "--join", LINK, "--opponent", colour, "--script", os.devnull]
    assert refused(capsys, argv) == (
        f"popref simulate: --opponent {colour}: this grid joins another grid's game (--join): "
        "the person here plays yellow, the other grid red, the computer neither; "
        "leave out --opponent\n"
    )


@pytest.mark.parametrize(
    ("toml", "key"),
    [
        ('[game]\nrules = "pop10"\n', "[game] rules"),
        ('[opponent]\nplays = "red"\n', "[opponent] plays"),
    ],
)
def test_simulate_join_refuses_a_configuration_that_chooses_the_game(
    toml: str, key: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = tmp_path / "b.toml"
    config.write_text(toml)
    argv = ["simulate", "--config", str(config), "--join", LINK, "--script", os.devnull]
    err = refused(capsys, argv)
    assert err.startswith(f"popref simulate: {config}: {key}: this grid joins another grid's game")
    assert "(--join)" in err


def test_simulate_refuses_rules_beside_a_configured_join(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = tmp_path / "b.toml"
    config.write_text(f'[remote]\njoin = "{LINK}"\n')
    err = refused(
        capsys, ["simulate", "--config", str(config), "--rules", "five", "--script", os.devnull]
    )
    assert err.startswith(
        f"popref simulate: --rules: this grid joins another grid's game ([remote] join in {config})"
    )


@pytest.mark.parametrize(
    ("table", "said"),
    [
        ({"game": {"rules": "classic"}}, "[game] rules: this grid joins another grid's game "
         "([remote] join), whose link carries the rules: the inviting grid chooses them; "
         "remove rules"),
        ({"opponent": {"plays": "yellow"}}, "[opponent] plays: this grid joins another grid's game "
         "([remote] join): the person here plays yellow, the other grid red, the computer "
         "neither; remove plays"),
    ],
)  # fmt: skip
def test_a_joining_configuration_that_chooses_the_game_is_one_line(
    table: dict[str, dict[str, str]], said: str
) -> None:
    with pytest.raises(ConfigError) as raised:
        parse_config({"remote": {"join": LINK}, **table}, "b.toml")
    assert str(raised.value) == f"b.toml: {said}"


def test_a_joining_configuration_plays_the_link_s_rules() -> None:
    config = parse_config({"remote": {"join": POP10_LINK}, "opponent": {"plays": "none"}}, "b.toml")
    assert config.game.rules == "pop10" and config.opponent.plays is None


def test_run_refuses_rules_beside_a_configured_join(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = tmp_path / "b.toml"
    config.write_text(f'[remote]\njoin = "{LINK}"\n')
    argv = ["run", "--config", str(config), "--state-dir", str(tmp_path / "s"), "--rules", "pop10"]
    assert refused(capsys, argv) == (
        f"popref run: --rules: this grid joins another grid's game ([remote] join in {config}), "
        "whose link carries the rules: the inviting grid chooses them; leave out --rules\n"
    )
    assert not (tmp_path / "s").exists()  # nothing started


def test_a_grid_that_played_other_rules_joins_with_the_link_s(tmp_path: Path) -> None:
    # [game] rules = "pop10" applied once, then Classic chosen for the next
    # game (on the command line here; the mode button likewise): the
    # configuration's marker still says pop10, the game is Classic
    Simulation(parse_config({"game": {"rules": "pop10"}}, "a.toml"), tmp_path).close()
    Simulation(parse_config({}, "defaults"), tmp_path, "classic").close()
    joined = Simulation(parse_config({"remote": {"join": POP10_LINK}}, "b.toml"), tmp_path)
    try:
        assert joined.daemon.referee.game.rules.name == "pop10"
    finally:
        joined.close()


def test_a_computer_seated_before_the_grid_joined_plays_neither_colour(tmp_path: Path) -> None:
    # seated by a page or --opponent: it stands until the configuration changes
    Simulation(parse_config({}, "defaults"), tmp_path, opponent="yellow").close()
    joined = Simulation(parse_config({"remote": {"join": LINK}}, "b.toml"), tmp_path)
    try:
        state = joined.daemon.state()
        assert state["opponent"] is None and state["next_opponent"] is None
        assert joined.daemon.guest is not None and joined.daemon.guest.mine is Colour.YELLOW
    finally:
        joined.close()


@pytest.mark.parametrize(
    ("options", "said"),
    [
        (["--broker", "mqtt://127.0.0.1:1883"], "--broker and --join: a joining grid uses the "
         "broker its link names; leave out --broker"),
        (["--web-broker", "ws://127.0.0.1:9001"], "--web-broker and --join: a joining grid uses "
         "the broker its link names; leave out --web-broker"),
        (["--remote", "yellow"], "--remote and --join: one grid either invites a friend or "
         "joins another grid's game, not both; to join, leave out --remote; to invite, leave "
         "out --join"),
        (["--remote", "red", "--broker", "mqtt://127.0.0.1:1883"], "--remote, --broker and "
         "--join: one grid either invites a friend or joins another grid's game, not both; to "
         "join, leave out --remote and --broker; to invite, leave out --join"),
    ],
)  # fmt: skip
def test_an_inviting_option_beside_join_names_the_options_given_and_the_way_out(
    options: list[str], said: str, capsys: pytest.CaptureFixture[str]
) -> None:
    err = refused(capsys, ["simulate", "--join", LINK, *options, "--script", os.devnull])
    assert err == f"popref simulate: {said}\n"


def test_an_inviting_option_beside_a_configured_join_names_the_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = tmp_path / "b.toml"
    config.write_text(f'[remote]\njoin = "{LINK}"\n')
    argv = ["simulate", "--config", str(config), "--remote", "red", "--script", os.devnull]
    assert refused(capsys, argv).startswith(
        f"popref simulate: --remote and [remote] join in {config}: one grid either invites"
    )


def test_a_link_carries_the_inviting_grid_s_house_rules_to_the_grid_that_joins() -> None:
    """Two grids with different house rules would end one game two ways (a
    draw by repetition on one, a win on the other): the link carries them."""
    from controller.remote.link import parse_link

    house = LINK + "&n=3&b=opponent"
    link = parse_link(house)
    assert (link.repetition, link.both_lines) == (3, "opponent")
    assert parse_link(link.url()) == link
    joined = parse_config({"remote": {"join": house}}, "b.toml")
    assert (joined.game.repetition, joined.game.both_lines) == (3, "opponent")
    plain = parse_config({"remote": {"join": LINK}}, "b.toml")
    assert (plain.game.repetition, plain.game.both_lines) == (None, "popper")


@pytest.mark.parametrize(("key", "value"), [("repetition", 3), ("both_lines", "opponent")])
def test_a_joining_file_may_not_choose_house_rules(key: str, value: object) -> None:
    with pytest.raises(ConfigError) as error:
        parse_config({"remote": {"join": LINK}, "game": {key: value}}, "b.toml")
    assert str(error.value) == (
        f"b.toml: [game] {key}: this grid joins another grid's game ([remote] join), "
        f"whose link carries its house rules; remove {key}"
    )


@pytest.mark.parametrize("bad", ["n=1", "n=101", "n=x", "b=both"])
def test_a_link_with_house_rules_popref_does_not_know_is_refused(bad: str) -> None:
    from controller.remote.link import LinkError, parse_link

    with pytest.raises(LinkError):
        parse_link(f"{LINK}&{bad}")


def test_a_file_s_own_broker_is_said_to_be_unused_when_the_grid_joins(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A grid whose file invites through its broker, joining another's game
    today: the file's [remote] is left aside, said in one line, not dropped
    without a word."""
    config = tmp_path / "grid.toml"
    config.write_text('[remote]\nbroker = "mqtt://127.0.0.1:1"\n')
    argv = ["simulate", "--config", str(config), "--join", LINK, "--script", os.devnull]
    assert main([*argv, "--state-dir", str(tmp_path / "state")]) == 0
    err = capsys.readouterr().err
    assert (
        f"popref simulate: [remote] in {config} is not used: this grid joins (--join) "
        "through the broker its link names.\n"
    ) in err
