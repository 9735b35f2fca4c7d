"""Boot entry point on the Pico: build the real pins and run the board."""

import random

import machine
import neopixel
import pinmap
from board import SensorBoard
from lights import Lights
from link import Link, UsbStream
from outputs import Buzzer, Dial
from sensors import Beam, Button, Input

Pin = machine.Pin


def _input(number, active_high, settle_ms):
    return Input(Pin(number, Pin.IN, Pin.PULL_UP), active_high, settle_ms)


def build(stream, boot_id):
    entries = [Beam(_input(n, pinmap.BEAM_BLOCKED_HIGH, 6)) for n in pinmap.ENTRY_PINS]
    exits = [Beam(_input(n, pinmap.BEAM_BLOCKED_HIGH, 6)) for n in pinmap.EXIT_PINS]
    slider = _input(pinmap.SLIDER_PIN, pinmap.SLIDER_OPEN_HIGH, 10)
    button = Button(_input(pinmap.BUTTON_PIN, False, 10))
    leds = pinmap.COLUMNS * pinmap.CELLS + 2 + 2 * pinmap.SCORE_LEDS
    strip = neopixel.NeoPixel(Pin(pinmap.STRIP_PIN, Pin.OUT), leds)
    lights = Lights(strip, pinmap.COLUMNS, pinmap.CELLS, pinmap.SCORE_LEDS)
    dials = [Dial(machine.PWM(Pin(n))) for n in pinmap.DIAL_PINS]
    buzzer = None
    if pinmap.BUZZER_PIN is not None:
        buzzer = Buzzer(machine.PWM(Pin(pinmap.BUZZER_PIN)))
    wdt = machine.WDT(timeout=pinmap.WDT_MS)
    return SensorBoard(Link(stream), entries, exits, slider, button, lights, dials,
                       buzzer, wdt, boot_id)


def maintenance():
    """The mode button held at power-up: stay at the REPL, so that mpremote
    can update the files (once running, Ctrl-C is off on the USB line)."""
    return Pin(pinmap.BUTTON_PIN, Pin.IN, Pin.PULL_UP).value() == 0


if __name__ == "__main__":
    if maintenance():
        print("popref sensor board: maintenance mode (button held at power-up)")
    else:
        build(UsbStream(), random.getrandbits(32)).run()
