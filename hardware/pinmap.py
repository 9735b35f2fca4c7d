"""The pin map: which header pin every sensor and light is wired to.

Parsed from the ``[gpio]`` table of the configuration (as ``tomllib`` returns
it) into a frozen :class:`PinMap`. Pin names are accepted as gpiozero accepts
them (``17``, ``"17"``, ``"GPIO17"``, ``"BCM17"``, ``"BOARD11"``, ``"J8:11"``)
and checked against gpiozero's own description of the board's header, then
stored by their GPIO name. See docs/wiring.md for the default and the table.

A table that names no pin takes the default pin map for a 7-column grid; one
that names any pin is the whole map (no default is mixed in):

>>> PinMap.parse({"exit_active": "high"}, columns=7).entry[0]
'GPIO4'
>>> pins = PinMap.parse({"entry": [4, 5], "exit": [6, 7], "slider": "BOARD11",
...                      "button": "GPIO27"}, columns=2)
>>> pins.slider, pins.column_lights
('GPIO17', ())
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import cache
from typing import Any, Literal, cast, get_args

from engine.colour import Colour
from hardware import timing
from hardware.configtable import ConfigTable
from hardware.debounce import BeamTiming, SwitchTiming
from hardware.errors import ConfigError

# A Raspberry Pi 4B: its J8 is the 40-pin header every current model shares.
HEADER_40_REVISION = 0xC03111
# A Compute Module 3: 46 GPIOs, used only by the simulated grid so that big
# simulated boards keep their lights (a real 40-pin header cannot fit them).
SIM_BOARD_REVISION = 0xA020A0

# The default pin map for a 7-column grid: every GPIO from 2 to 27. GPIO0/1
# are left alone (the HAT ID EEPROM). GPIO2/3 have fixed pull-ups, which suit
# the active-low slider and button; GPIO3 also wakes a halted Pi.
DEFAULT_7: dict[str, Any] = {
    "entry": [4, 17, 27, 22, 5, 6, 13],
    "exit": [19, 26, 18, 23, 24, 25, 12],
    "slider": 2,
    "button": 3,
    "column_lights": [16, 20, 21, 7, 8, 9, 10],
    "turn_red": 14,
    "turn_yellow": 15,
    "buzzer": 11,
}

# GPIO0/1 carry a HAT's ID EEPROM (ID_SD, ID_SC): the firmware reads it at
# boot, and docs/wiring.md keeps them free
RESERVED = {"GPIO0": "ID_SD", "GPIO1": "ID_SC"}

LEVELS = ("low", "high")
# A hobby servo's travel in gpiozero's AngularServo terms: -90 degrees at a
# 1 ms pulse, +90 at 2 ms (the firmware's SERVO_MIN_US..SERVO_MAX_US too).
# servo_range picks the part of it a dial sweeps.
SERVO_TRAVEL = (-90.0, 90.0)
FactoryName = Literal["lgpio", "mock"]  # [gpio] pin_factory: hardware.factory makes them
FACTORIES: tuple[str, ...] = get_args(FactoryName)

_PIN_LISTS = ("entry", "exit", "colour", "column_lights", "score_red_bar", "score_yellow_bar")
_PIN_KEYS = (
    "slider",
    "button",
    "turn_red",
    "turn_yellow",
    "score_red_servo",
    "score_yellow_servo",
    "buzzer",
)
_OTHER_KEYS = (
    "column_rgb",
    "entry_active",
    "exit_active",
    "slider_active",
    "button_active",
    "colour_high",
    "pin_factory",
    "servo_range",
    "beam_settle_ms",
    "beam_stuck_s",
    "switch_settle_ms",
    "hold_s",
)
KNOWN_KEYS = frozenset(_PIN_LISTS + _PIN_KEYS + _OTHER_KEYS)


@cache
def board_info(revision: int = HEADER_40_REVISION) -> Any:
    """gpiozero's description of a board (headers, pins, pulls)."""
    from gpiozero.pins.pi import PiBoardInfo

    return PiBoardInfo.from_revision(revision)


@dataclass(frozen=True, slots=True)
class PinMap:
    """Every pin the board uses, by GPIO name (``"GPIO17"``); optional outputs
    are ``None`` or empty when the board does not have them.

    ``*_active`` is the level (``"low"``/``"high"``) at which a beam is
    blocked, the slider open, the button pressed. ``colour`` holds one colour
    bit per entry sensor (or is empty) and ``colour_high`` says which colour a
    high bit means. ``column_rgb`` holds ``(red, green, blue)`` pins per column
    for RGB column lights, instead of ``column_lights``.

    >>> PinMap.default().exit[6]
    'GPIO12'
    """

    columns: int
    entry: tuple[str, ...]
    exit: tuple[str, ...]
    slider: str
    button: str
    colour: tuple[str, ...] = ()
    column_lights: tuple[str, ...] = ()
    column_rgb: tuple[tuple[str, str, str], ...] = ()
    turn_red: str | None = None
    turn_yellow: str | None = None
    score_red_bar: tuple[str, ...] = ()
    score_yellow_bar: tuple[str, ...] = ()
    score_red_servo: str | None = None
    score_yellow_servo: str | None = None
    buzzer: str | None = None
    entry_active: str = "low"
    exit_active: str = "low"
    slider_active: str = "low"
    button_active: str = "low"
    colour_high: Colour = Colour.RED
    pin_factory: FactoryName = "lgpio"
    servo_range: tuple[float, float] = SERVO_TRAVEL
    beam: BeamTiming = field(default_factory=BeamTiming)
    switch: SwitchTiming = field(default_factory=SwitchTiming)
    board_revision: int = HEADER_40_REVISION

    @classmethod
    def default(cls) -> PinMap:
        """The documented default for a 7-column grid on the 40-pin header."""
        return cls.parse({}, columns=7)

    @classmethod
    def parse(
        cls, table: Mapping[str, object], columns: int, board_revision: int = HEADER_40_REVISION
    ) -> PinMap:
        """Build a pin map from a ``[gpio]`` table; a table without pin keys
        takes the default pins of a 7-column grid. Raises :class:`ConfigError` (one line that
        starts with the key)."""
        return _Parser(table, columns, board_revision).build()

    @classmethod
    def simulated(cls, columns: int, colour_sensing: bool = False) -> PinMap:
        """A pin map for the simulated grid of any size, on a Compute Module's
        46 GPIOs: every sensor (and colour bits if asked), then as many of
        column lights, turn lights, a buzzer and a servo dial per player as
        fit, in that order."""
        pins = iter(range(2, 46))
        left = 44

        def take(n: int) -> list[int]:
            nonlocal left
            left -= n
            return [next(pins) for _ in range(n)]

        table: dict[str, object] = {
            "entry": take(columns),
            "exit": take(columns),
            "slider": take(1)[0],
            "button": take(1)[0],
            "pin_factory": "mock",
        }
        if colour_sensing:
            table["colour"] = take(columns)
        if left >= columns:
            table["column_lights"] = take(columns)
        for key in ("turn_red", "turn_yellow", "buzzer", "score_red_servo", "score_yellow_servo"):
            if left >= 1:
                table[key] = take(1)[0]
        return cls.parse(table, columns, SIM_BOARD_REVISION)

    def inputs(self) -> dict[str, str]:
        """Every input by a readable name (``"entry 3"``, ``"slider"``) → pin."""
        named = {f"entry {c}": p for c, p in enumerate(self.entry, 1)}
        named |= {f"exit {c}": p for c, p in enumerate(self.exit, 1)}
        named |= {"slider": self.slider, "button": self.button}
        named |= {f"colour {c}": p for c, p in enumerate(self.colour, 1)}
        return named

    def outputs(self) -> dict[str, str]:
        """Every output pin by a readable name."""
        named = {f"light {c}": p for c, p in enumerate(self.column_lights, 1)}
        for c, rgb in enumerate(self.column_rgb, 1):
            named |= {f"light {c} {part}": p for part, p in zip("rgb", rgb, strict=True)}
        for name in ("turn_red", "turn_yellow", "score_red_servo", "score_yellow_servo", "buzzer"):
            pin = getattr(self, name)
            if pin is not None:
                named[name.replace("_", " ")] = pin
        named |= {f"score red bar {i}": p for i, p in enumerate(self.score_red_bar, 1)}
        named |= {f"score yellow bar {i}": p for i, p in enumerate(self.score_yellow_bar, 1)}
        return named


class _Parser:
    def __init__(self, table: Mapping[str, object], columns: int, revision: int) -> None:
        if not isinstance(columns, int) or columns < 1:
            raise ConfigError(f"[board] columns: {columns!r} is not a number of columns")
        self.table = ConfigTable("gpio", table)
        self.columns = columns
        self.board = board_info(revision)
        self.revision = revision
        self.used: dict[str, str] = {}  # GPIO name -> the key that took it
        self.custom = any(k in table for k in _PIN_LISTS + _PIN_KEYS + ("column_rgb",))

    def build(self) -> PinMap:
        self.table.only(sorted(KNOWN_KEYS))
        levels = {
            k: self._level(k)
            for k in ("entry_active", "exit_active", "slider_active", "button_active")
        }
        entry = self._column_pins("entry", required=True)
        exit_ = self._column_pins("exit", required=True)
        slider = self._pin("slider", required=True)
        button = self._pin("button", required=True)
        assert slider is not None and button is not None
        for key, pins in (
            ("entry", entry),
            ("exit", exit_),
            ("slider", (slider,)),
            ("button", (button,)),
        ):
            if levels[f"{key}_active"] == "high":
                self._no_fixed_pull_up(key, pins)
        colour = self._column_pins("colour", required=False)
        self._no_fixed_pull_up("colour", colour)
        has_rgb = "column_rgb" in self.table
        lights = () if has_rgb else self._column_pins("column_lights", required=False)
        rgb = self._rgb() if has_rgb else ()
        bars = {k: self._bar(k) for k in ("score_red_bar", "score_yellow_bar")}
        singles = {
            k: self._pin(k, required=False)
            for k in ("turn_red", "turn_yellow", "score_red_servo", "score_yellow_servo", "buzzer")
        }
        return PinMap(
            columns=self.columns,
            entry=entry,
            exit=exit_,
            slider=slider,
            button=button,
            colour=colour,
            column_lights=lights,
            column_rgb=rgb,
            score_red_bar=bars["score_red_bar"],
            score_yellow_bar=bars["score_yellow_bar"],
            turn_red=singles["turn_red"],
            turn_yellow=singles["turn_yellow"],
            score_red_servo=singles["score_red_servo"],
            score_yellow_servo=singles["score_yellow_servo"],
            buzzer=singles["buzzer"],
            colour_high=self._colour_high(),
            pin_factory=self._factory(),
            servo_range=self._servo_range(),
            beam=self._beam(),
            switch=self._switch(),
            board_revision=self.revision,
            **levels,
        )

    # -- values -----------------------------------------------------------

    def _value(self, key: str) -> object:
        if self.custom:
            return self.table.get(key)
        if self.columns != 7:
            raise self.table.error(
                key,
                f"required: the default pin map is for 7 columns; "
                f"list the pins of this {self.columns}-column board "
                "(see docs/wiring.md)",
            )
        return DEFAULT_7.get(key)

    def _resolve(self, key: str, value: object) -> str:
        if isinstance(value, bool) or not isinstance(value, int | str):
            raise self.table.error(
                key,
                f"{value!r} is not a pin; write a GPIO number "
                'such as 17 or a name such as "GPIO17" or "BOARD11"',
            )
        found = [pin for _header, pin in self.board.find_pin(value)]
        if not found:
            raise self.table.error(
                key,
                f"{value!r} is not a pin on the "
                f"{self._header_name()}; use a GPIO number such as 17, "
                'or "BOARD11" for physical pin 11',
            )
        pin = found[0]
        if "gpio" not in pin.interfaces:
            raise self.table.error(
                key,
                f"{value!r} is the {pin.name} pin, not a GPIO; "
                "pick a pin marked GPIO in docs/wiring.md",
            )
        name: str = pin.name
        if name in RESERVED:
            raise self.table.error(
                key,
                f"{value!r} is {name} ({RESERVED[name]}), kept for a HAT's ID EEPROM; "
                "pick another pin marked GPIO in docs/wiring.md",
            )
        if name in self.used:
            raise self.table.error(
                key,
                f"{name} is already used by {self.used[name]}; "
                "give every sensor and light its own pin",
            )
        self.used[name] = key
        return name

    def _header_name(self) -> str:
        if self.revision == HEADER_40_REVISION:
            return "40-pin header"
        return f"{self.board.model} board"

    def _pin(self, key: str, *, required: bool) -> str | None:
        value = self._value(key)
        if value is None:
            if required:
                raise self.table.error(
                    key, "required sensor pin is missing; add it (see docs/wiring.md)"
                )
            return None
        return self._resolve(key, value)

    def _pin_list(self, key: str, value: object) -> tuple[str, ...]:
        if not isinstance(value, list):
            raise self.table.error(key, f"expected a list of pins, got {value!r}")
        return tuple(self._resolve(f"{key}[{i}]", v) for i, v in enumerate(value, 1))

    def _column_pins(self, key: str, *, required: bool) -> tuple[str, ...]:
        value = self._value(key)
        if value is None and required:
            raise self.table.error(
                key, "required: list one sensor pin per column (see docs/wiring.md)"
            )
        if value is None:
            return ()
        if isinstance(value, list) and len(value) != self.columns:
            what = "sensor" if required or key == "colour" else "light"
            raise self.table.error(
                key,
                f"{len(value)} pins for {self.columns} columns; every column needs its own {what}",
            )
        return self._pin_list(key, value)

    def _rgb(self) -> tuple[tuple[str, str, str], ...]:
        value = self.table.get("column_rgb")
        if "column_lights" in self.table:
            raise self.table.error("column_rgb", "give column_lights or column_rgb, not both")
        if not isinstance(value, list) or len(value) != self.columns:
            raise self.table.error(
                "column_rgb",
                f"expected {self.columns} [red, green, blue] pin triples, one per column",
            )
        out = []
        for i, triple in enumerate(value, 1):
            if not isinstance(triple, list) or len(triple) != 3:
                raise self.table.error(
                    f"column_rgb[{i}]", f"expected [red, green, blue] pins, got {triple!r}"
                )
            r, g, b = self._pin_list(f"column_rgb[{i}]", triple)
            out.append((r, g, b))
        return tuple(out)

    def _bar(self, key: str) -> tuple[str, ...]:
        value = self._value(key)
        if value is None:
            return ()
        if isinstance(value, list) and len(value) != 10:
            raise self.table.error(
                key, f"{len(value)} pins; a Pop 10 score bar has exactly 10 LEDs"
            )
        return self._pin_list(key, value)

    def _no_fixed_pull_up(self, key: str, pins: Sequence[str]) -> None:
        for name in pins:
            for _header, pin in self.board.find_pin(name):
                if pin.pull == "up":
                    raise self.table.error(
                        key,
                        f"{name} has a fixed pull-up resistor, so "
                        "it cannot read an active-high sensor; use another pin",
                    )

    def _level(self, key: str) -> str:
        why = "the level at which the sensor is active"
        return self.table.choice(key, "low", LEVELS, "a level", why)

    def _colour_high(self) -> Colour:
        why = "the disc colour a high colour bit means"
        return Colour(self.table.choice("colour_high", "red", ("red", "yellow"), "a colour", why))

    def _factory(self) -> FactoryName:
        why = '"lgpio" on a Raspberry Pi, "mock" for a laptop'
        name = self.table.choice("pin_factory", "lgpio", FACTORIES, "a pin factory", why)
        return cast(FactoryName, name)  # one of FACTORIES: choice() checked it

    def _servo_range(self) -> tuple[float, float]:
        value = self.table.get("servo_range", [-90, 90])
        ok = (
            isinstance(value, list)
            and len(value) == 2
            and all(isinstance(v, int | float) and not isinstance(v, bool) for v in value)
        )
        if not ok:
            raise self.table.error(
                "servo_range", f"{value!r} is not [min, max] angles in degrees, such as [-90, 90]"
            )
        assert isinstance(value, list)
        low, high = float(value[0]), float(value[1])
        if low == high:
            raise self.table.error("servo_range", "the two angles must differ")
        least, most = SERVO_TRAVEL
        if not (least <= low <= most and least <= high <= most):
            raise self.table.error(
                "servo_range",
                f"{value!r} leaves a hobby servo's travel: give angles from {least:g} to "
                f"{most:g} (1 to 2 ms pulses), such as [-45, 45] for a quarter turn",
            )
        return low, high

    def _beam(self) -> BeamTiming:
        return BeamTiming(
            settle=self.table.number("beam_settle_ms", timing.BEAM_SETTLE_MS, low=1, high=40)
            / 1000,
            stuck=self.table.number("beam_stuck_s", timing.BEAM_STUCK_MS / 1000, low=0.5, high=60),
        )

    def _switch(self) -> SwitchTiming:
        return SwitchTiming(
            settle=self.table.number("switch_settle_ms", timing.SWITCH_SETTLE_MS, low=1, high=100)
            / 1000,
            hold=self.table.number("hold_s", timing.BUTTON_HOLD_MS / 1000, low=0.5, high=10),
        )
