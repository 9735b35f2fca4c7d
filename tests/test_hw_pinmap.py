"""The [gpio] pin map: defaults, pin names, and one-line errors."""

from __future__ import annotations

from typing import Any

import pytest

from controller.daemon.config import load_config
from engine.colour import Colour
from hardware.errors import ConfigError
from hardware.pinmap import DEFAULT_7, PinMap


def seven(**changes: Any) -> dict[str, Any]:
    table = dict(DEFAULT_7)
    table.update(changes)
    return {k: v for k, v in table.items() if v is not None}


def test_the_default_fits_a_7_column_grid_on_26_distinct_header_gpios() -> None:
    pins = PinMap.default()
    used = list(pins.inputs().values()) + list(pins.outputs().values())
    assert len(used) == len(set(used)) == 26
    assert "GPIO0" not in used and "GPIO1" not in used
    assert pins.slider == "GPIO2" and pins.button == "GPIO3"
    assert len(pins.entry) == len(pins.exit) == len(pins.column_lights) == 7
    assert pins.pin_factory == "lgpio"


@pytest.mark.parametrize("name", [17, "17", "GPIO17", "BCM17", "BOARD11", "J8:11"])
def test_pin_names_are_accepted_as_gpiozero_accepts_them(name: object) -> None:
    assert PinMap.parse(seven(slider=name, entry=[4, 2, 27, 22, 5, 6, 13]), 7).slider == "GPIO17"


def test_settings_without_pins_keep_the_default_pins() -> None:
    pins = PinMap.parse({"exit_active": "high", "colour_high": "yellow", "hold_s": 3}, 7)
    assert pins.entry == PinMap.default().entry
    assert pins.exit_active == "high"
    assert pins.colour_high is Colour.YELLOW
    assert pins.switch.hold == 3.0


def test_a_table_with_pins_is_the_whole_map() -> None:
    pins = PinMap.parse(
        {"entry": [4, 5, 6, 7], "exit": [8, 9, 10, 11], "slider": 12, "button": 13}, 4
    )
    assert pins.column_lights == () and pins.turn_red is None and pins.buzzer is None


def test_rgb_bars_and_servos_are_parsed() -> None:
    table = {
        "entry": [4, 5, 6, 7],
        "exit": [8, 9, 10, 11],
        "slider": 2,
        "button": 3,
        "column_rgb": [[12, 13, 14], [15, 16, 17], [18, 19, 20], [21, 22, 23]],
        "score_red_bar": [24, 25, 26, 27, "BOARD40", "BOARD38", "BOARD35", "BOARD12", 4, 5],
    }
    with pytest.raises(ConfigError, match="already used"):
        PinMap.parse(table, 4)  # BOARD40 is GPIO21, BOARD38 GPIO20: taken by column_rgb
    table["score_red_bar"] = [24, 25, 26, 27, 4, 5]
    with pytest.raises(ConfigError, match=r"^\[gpio\] score_red_bar: 6 pins; .* exactly 10"):
        PinMap.parse(table, 4)
    del table["score_red_bar"]
    table["score_red_servo"] = 24
    pins = PinMap.parse(table, 4)
    assert pins.column_rgb[1] == ("GPIO15", "GPIO16", "GPIO17")
    assert pins.score_red_servo == "GPIO24"


@pytest.mark.parametrize(
    ("table", "columns", "message"),
    [
        (
            seven(exit=[19, 26, 18, 23, 24, 25, 4]),
            7,
            r"^\[gpio\] exit\[7\]: GPIO4 is already used by entry\[1\]; give every",
        ),
        (seven(buzzer=40), 7, r"^\[gpio\] buzzer: 40 is not a pin on the 40-pin header"),
        (seven(buzzer="BOARD1"), 7, r"^\[gpio\] buzzer: 'BOARD1' is the 3V3 pin, not a GPIO"),
        (seven(buzzer="GPIO99"), 7, r"^\[gpio\] buzzer: 'GPIO99' is not a pin"),
        (
            seven(buzzer=0),
            7,
            r"^\[gpio\] buzzer: 0 is GPIO0 \(ID_SD\), kept for a HAT's ID EEPROM; pick another "
            r"pin marked GPIO in docs/wiring.md$",
        ),
        (seven(turn_red="BOARD28"), 7, r"^\[gpio\] turn_red: 'BOARD28' is GPIO1 \(ID_SC\), kept"),
        (seven(entry=[4, 17, 27, 22, 5, 6, "GPIO1"]), 7, r"^\[gpio\] entry\[7\]: 'GPIO1' is GPIO1"),
        (
            seven(entry=[4, 17, 27]),
            7,
            r"^\[gpio\] entry: 3 pins for 7 columns; every column needs its own sensor",
        ),
        (seven(slider=None), 7, r"^\[gpio\] slider: required sensor pin is missing"),
        (seven(button=1.5), 7, r"^\[gpio\] button: 1.5 is not a pin"),
        (seven(button=True), 7, r"^\[gpio\] button: True is not a pin"),
        (seven(entry="4,17"), 7, r"^\[gpio\] entry: expected a list of pins"),
        ({"entry_active": "LOW"}, 7, r"^\[gpio\] entry_active: 'LOW' is not a level"),
        ({"slider_active": "high"}, 7, r"^\[gpio\] slider: GPIO2 has a fixed pull-up"),
        ({"colum_lights": [1]}, 7, r"^\[gpio\] colum_lights: unknown key"),
        ({"pin_factory": "rpigpio"}, 7, r"^\[gpio\] pin_factory: 'rpigpio' is not a pin factory"),
        ({"hold_s": 0}, 7, r"^\[gpio\] hold_s: 0 is out of range"),
        ({"servo_range": [0, "x"]}, 7, r"^\[gpio\] servo_range: "),
        ({"servo_range": [0, 270]}, 7, r"^\[gpio\] servo_range: \[0, 270\] leaves a hobby"),
        ({}, 9, r"^\[gpio\] entry: required: the default pin map is for 7 columns"),
    ],
)
def test_bad_tables_give_one_line_naming_the_key(
    table: dict[str, Any], columns: int, message: str
) -> None:
    with pytest.raises(ConfigError, match=message) as error:
        PinMap.parse(table, columns)
    assert "\n" not in str(error.value)


def test_the_simulated_map_fits_twelve_columns_with_every_output() -> None:
    pins = PinMap.simulated(12)
    assert len(pins.entry) == 12 and len(pins.column_lights) == 12
    assert pins.score_red_servo and pins.buzzer and pins.pin_factory == "mock"


def test_the_config_module_reads_board_and_gpio_tables(tmp_path: Any) -> None:
    path = tmp_path / "popref.toml"
    path.write_text(
        "[board]\ncolumns = 4\nrows = 4\n[gpio]\nentry = [4, 5, 6, 7]\n"
        "exit = [8, 9, 10, 11]\nslider = 2\nbutton = 3\n"
    )
    config = load_config(path)
    assert (config.board.columns, config.board.rows, config.pin_map().exit[0]) == (4, 4, "GPIO8")


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("[board\n", "not valid TOML"),
        ("[board]\ncolumns = 2\n", r"\[board\] columns: 2 is out of range; use 4 to 16"),
        ("gpio = 3\n", r"\[gpio\]: must be a table"),
        ("[board]\nbackend = 'gpio'\n[gpio]\nbutton = 'GPIO99'\n", r"\[gpio\] entry: required"),
    ],
)
def test_board_config_errors_name_the_file(tmp_path: Any, text: str, message: str) -> None:
    path = tmp_path / "bad.toml"
    path.write_text(text)
    with pytest.raises(ConfigError, match=message) as error:
        load_config(path)
    assert str(error.value).startswith(f"{path}: ")


def test_a_missing_config_file_is_a_config_error(tmp_path: Any) -> None:
    with pytest.raises(ConfigError, match="no such file"):
        load_config(tmp_path / "nope.toml")
