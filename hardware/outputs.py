"""The output side of the GPIO backend: one :class:`Display` → gpiozero devices.

Only the outputs the pin map lists are built; the display degrades to them.
Blinking, servo detaching and buzzer beeps are timed by :meth:`GpioOutputs.poll`
and :meth:`GpioOutputs.next_deadline` on the daemon's thread, not by
gpiozero's background threads, so tests step them with a fake clock.

Column lights look as the one table in :mod:`hardware.looks` says (see
docs/wiring.md), the same table the sensor board's strip uses.

>>> from hardware.factory import make_pin_factory
>>> from hardware.clock import FakeClock
>>> from hardware.display import ColumnLight, Display, Lamp
>>> from hardware.pinmap import PinMap
>>> clock = FakeClock()
>>> factory = make_pin_factory("mock")
>>> outputs = GpioOutputs(PinMap.default(), factory, clock)
>>> outputs.open()
>>> lit = Display(columns=(ColumnLight(Lamp.DROP),) + (ColumnLight(),) * 6)
>>> outputs.show(lit)
>>> bool(factory.pin("GPIO16").state), bool(factory.pin("GPIO20").state)
(True, False)
>>> outputs.close()
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from engine.colour import Colour
from hardware import looks
from hardware.clock import Clock
from hardware.display import Alert, ColumnLight, Display
from hardware.pinmap import SERVO_TRAVEL, PinMap

TICK = looks.STEP_MS / 1000  # blink clock: every blink pattern moves on each tick
SERVO_SETTLE = 0.6  # seconds a servo is driven before it is detached
BEEP = 0.1  # one beep, and the gap after it
BEEPS = {Alert.NONE: 0, Alert.ERROR: 1, Alert.DRAW: 2, Alert.WIN: 3}


@dataclass(frozen=True, slots=True)
class Look:
    """How one column light looks: a colour name (``"on"`` for a plain LED)
    or ``None`` for dark, and a blink (an index of :data:`hardware.looks.PATTERNS`;
    0 is steady)."""

    colour: str | None
    blink: int = 0


def look(light: ColumnLight, rgb: bool) -> Look:
    """The look of a lamp state on a plain (``rgb=False``) or an RGB light.

    >>> from hardware.display import Lamp
    >>> look(ColumnLight(Lamp.POP, Colour.RED), rgb=True)
    Look(colour='red', blink=1)
    >>> look(ColumnLight(Lamp.CHOSEN), rgb=False)
    Look(colour='on', blink=1)
    """
    code = looks.CODES[light.lamp.value]
    if not rgb:
        lit, blink = looks.plain_look(code)
        return Look("on", blink) if lit else Look(None)
    disc = light.colour.value if light.colour is not None else None
    colour, blink = looks.rgb_look(code, disc)
    return Look(colour, blink)


def on_off(colour: str) -> tuple[int, int, int]:
    """An on/off RGB LED lights every channel the strip's colour uses."""
    r, g, b = looks.PALETTE[colour]
    return int(r > 0), int(g > 0), int(b > 0)


def score_angle(score: int, servo_range: tuple[float, float]) -> float:
    """The dial angle for a Pop 10 score (0 at the first end, 10 at the other).

    >>> score_angle(5, (-90.0, 90.0))
    0.0
    """
    low, high = servo_range
    return low + (high - low) * max(0, min(10, score)) / 10


class GpioOutputs:
    """The lights, score bars, dials and buzzer of a :class:`PinMap`."""

    def __init__(self, pins: PinMap, factory: Any, clock: Clock) -> None:
        self.pins = pins
        self._factory = factory
        self._clock = clock
        self._columns: list[Any] = []
        self._turn: dict[Colour, Any] = {}
        self._bars: dict[Colour, Any] = {}
        self._servos: dict[Colour, Any] = {}
        self._buzzer: Any = None
        self._looks: tuple[Look, ...] = ()
        self._epoch: float | None = None  # blink clock start, while anything blinks
        self._tick = 0
        self._scores: dict[Colour, int | None] = {Colour.RED: None, Colour.YELLOW: None}
        self._detach_at: dict[Colour, float] = {}
        self._alert = Alert.NONE
        self._beeps: list[tuple[float, bool]] = []  # buzzer changes still to make
        self._devices: list[Any] = []

    @property
    def rgb(self) -> bool:
        return bool(self.pins.column_rgb)

    def open(self) -> None:
        """Claim the output pins, everything off."""
        from gpiozero import LED, RGBLED, AngularServo, Buzzer, LEDBarGraph

        p, f = self.pins, self._factory
        try:
            if p.column_rgb:
                # pwm=False: on/off colours are all the lamp table needs and
                # they work on every pin backend
                self._columns = [RGBLED(*rgb, pwm=False, pin_factory=f) for rgb in p.column_rgb]
            else:
                self._columns = [LED(pin, pin_factory=f) for pin in p.column_lights]
            self._devices += self._columns
            for colour, pin in ((Colour.RED, p.turn_red), (Colour.YELLOW, p.turn_yellow)):
                if pin is not None:
                    self._turn[colour] = self._add(LED(pin, pin_factory=f))
            for colour, bar in ((Colour.RED, p.score_red_bar), (Colour.YELLOW, p.score_yellow_bar)):
                if bar:
                    self._bars[colour] = self._add(LEDBarGraph(*bar, pwm=False, pin_factory=f))
            least, most = SERVO_TRAVEL  # the servo's own travel; the dial sweeps servo_range
            for colour, pin in (
                (Colour.RED, p.score_red_servo),
                (Colour.YELLOW, p.score_yellow_servo),
            ):
                if pin is not None:
                    self._servos[colour] = self._add(
                        AngularServo(
                            pin, initial_angle=None, min_angle=least, max_angle=most, pin_factory=f
                        )
                    )
            if p.buzzer is not None:
                self._buzzer = self._add(Buzzer(p.buzzer, pin_factory=f))
        except Exception:
            self.close()
            raise
        self._looks = tuple(Look(None) for _ in self._columns)

    def _add(self, device: Any) -> Any:
        self._devices.append(device)
        return device

    def show(self, display: Display) -> None:
        """Make the outputs show ``display``; showing it twice changes nothing."""
        now = self._clock()
        looks = tuple(look(light, self.rgb) for light in display.columns[: len(self._columns)])
        looks += tuple(Look(None) for _ in range(len(self._columns) - len(looks)))
        if looks != self._looks:
            self._looks = looks
            if any(lk.blink for lk in looks) and self._epoch is None:
                self._epoch, self._tick = now, 0
            elif not any(lk.blink for lk in looks):
                self._epoch = None
            self._paint()
        for colour, led in self._turn.items():
            led.value = display.turn is colour
        self._show_scores(display.scores, now)
        if display.alert is not self._alert:
            self._alert = display.alert
            self._beeps = []
            for i in range(BEEPS[display.alert] if self._buzzer is not None else 0):
                self._beeps += [(now + 2 * i * BEEP, True), (now + (2 * i + 1) * BEEP, False)]
            if self._buzzer is not None and not self._beeps:
                self._buzzer.off()
        self.poll(now)

    def _show_scores(self, scores: tuple[int, int] | None, now: float) -> None:
        for colour, bar in self._bars.items():
            score = 0 if scores is None else scores[colour is Colour.YELLOW]
            bar.value = max(0, min(10, score)) / 10
        if scores is None:
            return
        for colour, servo in self._servos.items():
            score = scores[colour is Colour.YELLOW]
            if score != self._scores[colour]:
                self._scores[colour] = score
                servo.angle = score_angle(score, self.pins.servo_range)
                self._detach_at[colour] = now + SERVO_SETTLE

    def _paint(self) -> None:
        for device, lk in zip(self._columns, self._looks, strict=True):
            lit = lk.colour is not None and looks.lit(lk.blink, self._tick)
            if self.rgb:
                device.value = on_off(lk.colour) if lit and lk.colour else (0, 0, 0)
            else:
                device.value = lit

    def poll(self, now: float) -> None:
        """Run blink phases, servo detaches and beeps due by ``now``."""
        if self._epoch is not None:
            tick = self._tick
            while self._epoch + (tick + 1) * TICK <= now:
                tick += 1
            if tick != self._tick:
                self._tick = tick
                self._paint()
        for colour, at in list(self._detach_at.items()):
            if now >= at:
                # a detached servo holds its dial still; a driven one jitters
                self._servos[colour].detach()
                del self._detach_at[colour]
        while self._beeps and self._beeps[0][0] <= now:
            _, on = self._beeps.pop(0)
            if self._buzzer is not None:
                self._buzzer.value = on

    def next_deadline(self) -> float | None:
        times = list(self._detach_at.values())
        if self._epoch is not None:
            times.append(self._epoch + (self._tick + 1) * TICK)
        if self._beeps:
            times.append(self._beeps[0][0])
        return min(times) if times else None

    def close(self) -> None:
        """Everything off, pins released."""
        for device in self._devices:
            try:
                device.off() if hasattr(device, "off") else device.detach()
            finally:
                device.close()
        self._devices.clear()
        self._columns.clear()
        self._turn.clear()
        self._bars.clear()
        self._servos.clear()
        self._buzzer = None
        self._epoch = None
        self._detach_at.clear()
        self._beeps.clear()
