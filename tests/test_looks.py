"""The one lamp table (hardware/looks.py) lines up with the wire codes the
sensor board receives and the lamps the host's display names."""

from __future__ import annotations

from pathlib import Path

from engine.colour import Colour
from hardware import looks, wire
from hardware.display import ColumnLight, Lamp
from hardware.outputs import look
from hardware.sim.board import Firmware


def test_rows_follow_the_wire_lamp_codes_and_the_display_lamps() -> None:
    codes = {name[len("LAMP_") :].lower().replace("_", "-"): getattr(wire, name)
             for name in dir(wire) if name.startswith("LAMP_")}  # fmt: skip
    assert codes == looks.CODES
    assert [lamp.value for lamp in Lamp] == sorted(looks.CODES, key=looks.CODES.__getitem__)
    assert looks.DISC_NAMES[wire.COLOUR_RED] == "red"
    assert looks.DISC_NAMES[wire.COLOUR_YELLOW] == "yellow"
    assert looks.DISC_NAMES[wire.COLOUR_NONE] is None


def test_the_gpio_lights_and_the_firmware_strip_show_every_lamp_alike(tmp_path: Path) -> None:
    with Firmware(tmp_path) as fw:
        strip_look = fw.module("lights").lamp_look
        for lamp in Lamp:
            for colour, code in ((None, wire.COLOUR_NONE), (Colour.RED, wire.COLOUR_RED)):
                gpio = look(ColumnLight(lamp, colour), rgb=True)
                rgb = looks.PALETTE[gpio.colour] if gpio.colour else (0, 0, 0)
                assert strip_look(looks.CODES[lamp.value], code) == (rgb, gpio.blink), lamp


def test_an_error_is_the_only_blue_and_blinks_fast_everywhere() -> None:
    error = looks.CODES["error"]
    assert looks.rgb_look(error, "red") == ("blue", looks.FAST)
    assert looks.plain_look(error) == (True, looks.FAST)
    others = [looks.rgb_look(code, disc)[0] for code in range(len(looks.LOOKS)) if code != error
              for disc in looks.DISC_NAMES]  # fmt: skip
    assert "blue" not in others
