"""A sentence's wording decides nothing: with every English sentence
reworded (as a translation, or an editor, may reword it), the daemon, the
simulator and the prompt do exactly what they did."""

from __future__ import annotations

import gettext
from collections.abc import Iterator
from pathlib import Path

import pytest

from controller.daemon.config import parse_config
from controller.i18n import text as i18n
from controller.simulator.script import ScriptError, parse_command, parse_line
from controller.simulator.simulation import Simulation

MARK = "~ "


class Reworded(gettext.NullTranslations):
    """English, each sentence begun with :data:`MARK`."""

    def gettext(self, message: str) -> str:
        return MARK + message

    def ngettext(self, msgid1: str, msgid2: str, n: int) -> str:
        return MARK + (msgid1 if n == 1 else msgid2)

    def pgettext(self, context: str, message: str) -> str:
        return MARK + message


@pytest.fixture
def reworded(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    english = Reworded()
    real = i18n.translations
    monkeypatch.setattr(
        i18n,
        "translations",
        lambda language: english if language == i18n.ENGLISH else real(language),
    )
    assert i18n._t("Red to move.") == MARK + "Red to move."
    yield


def test_a_lit_hint_is_in_the_state_whatever_it_says(reworded: None, tmp_path: Path) -> None:
    simulation = Simulation(parse_config({}, "test.toml"), tmp_path / "state")
    try:
        for text in ("drop 4", "drop 5", "drop 4", "drop 5", "drop 4", "double"):
            action = parse_line(text, 1, "test")
            assert action is not None
            simulation.act(action)
        state = simulation.state("hint")
        assert state["status"].startswith(MARK)
        assert state["hint"] == "4" and state["lights"][3] == "hint-drop"
    finally:
        simulation.close()


def test_an_unknown_word_at_the_prompt_whatever_the_sentences_say(reworded: None) -> None:
    with pytest.raises(ScriptError) as caught:
        parse_command("jump", 7)
    assert str(caught.value) == MARK + "'jump' is not an action; type ? for help"
