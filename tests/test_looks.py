"""The one lamp table (hardware/looks.py) lines up with the wire codes the
sensor board receives and the lamps the host's display names."""

from __future__ import annotations

import pytest

from hardware import looks, wire
from hardware.display import ColumnLight, Lamp
from hardware.outputs import look


def test_rows_follow_the_wire_lamp_codes_and_the_display_lamps() -> None:
    codes = {name[len("LAMP_") :].lower().replace("_", "-"): getattr(wire, name)
             for name in dir(wire) if name.startswith("LAMP_")}  # fmt: skip
    assert codes == looks.CODES
    assert [lamp.value for lamp in Lamp] == sorted(looks.CODES, key=looks.CODES.__getitem__)
    assert looks.DISC_NAMES[wire.COLOUR_RED] == "red"
    assert looks.DISC_NAMES[wire.COLOUR_YELLOW] == "yellow"
    assert looks.DISC_NAMES[wire.COLOUR_NONE] is None


@pytest.mark.parametrize("lamp", list(Lamp))
def test_gpio_rgb_light_and_strip_agree_on_every_lamp(lamp: Lamp) -> None:
    firmware_colour = None  # the strip's view: colour by wire code
    name, blink = looks.rgb_look(looks.CODES[lamp.value], firmware_colour)
    gpio = look(ColumnLight(lamp), rgb=True)
    assert (gpio.colour, gpio.blink) == (name, blink)
    assert name is None or name in looks.PALETTE


def test_an_error_is_the_only_blue_and_blinks_fast_everywhere() -> None:
    error = looks.CODES["error"]
    assert looks.rgb_look(error, "red") == ("blue", looks.FAST)
    assert looks.plain_look(error) == (True, looks.FAST)
    others = [looks.rgb_look(code, disc)[0] for code in range(len(looks.LOOKS)) if code != error
              for disc in looks.DISC_NAMES]  # fmt: skip
    assert "blue" not in others
