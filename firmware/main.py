"""Boot entry point on the Pico: build the real pins and run the board."""

import micropython

# First of all: Ctrl-C is live from reset until this line, and the host's
# frames carry 0x03 bytes (HOST_HELLO with sequence 3), so a host that starts
# first could throw the board to the REPL before any watchdog runs.
micropython.kbd_intr(-1)
# Room for the traceback of an exception in a hard IRQ handler (the RP2040
# port has it; the unix port the tests run on has no such buffer).
if hasattr(micropython, "alloc_emergency_exception_buf"):
    micropython.alloc_emergency_exception_buf(100)

import random

import machine
import neopixel
import pinmap
import timing
from board import SensorBoard
from lights import Lights
from link import Link, UsbStream
from outputs import Buzzer, Dial
from sensors import Beam, Button, Input

Pin = machine.Pin


def _input(number, active_high, settle_ms=timing.SWITCH_SETTLE_MS):
    return Input(Pin(number, Pin.IN, Pin.PULL_UP), active_high, settle_ms)


def build(stream, boot_id):
    settle = timing.BEAM_SETTLE_MS
    entries = [Beam(_input(n, pinmap.BEAM_BLOCKED_HIGH, settle)) for n in pinmap.ENTRY_PINS]
    exits = [Beam(_input(n, pinmap.BEAM_BLOCKED_HIGH, settle)) for n in pinmap.EXIT_PINS]
    slider = _input(pinmap.SLIDER_PIN, pinmap.SLIDER_OPEN_HIGH)
    button = Button(_input(pinmap.BUTTON_PIN, False))
    leds = pinmap.COLUMNS * pinmap.CELLS + 2 + 2 * pinmap.SCORE_LEDS
    strip = neopixel.NeoPixel(Pin(pinmap.STRIP_PIN, Pin.OUT), leds)
    lights = Lights(strip, pinmap.COLUMNS, pinmap.CELLS, pinmap.SCORE_LEDS)
    dials = [
        Dial(machine.PWM(Pin(n)), pinmap.SERVO_MIN_US, pinmap.SERVO_MAX_US, pinmap.SERVO_REST_US)
        for n in pinmap.DIAL_PINS
    ]
    buzzer = None
    if pinmap.BUZZER_PIN is not None:
        buzzer = Buzzer(machine.PWM(Pin(pinmap.BUZZER_PIN)))
    wdt = machine.WDT(timeout=pinmap.WDT_MS)
    return SensorBoard(Link(stream), entries, exits, slider, button, lights, dials,
                       buzzer, wdt, boot_id)


def maintenance():
    """The mode button held at power-up: stay at the REPL, so that mpremote
    can update the files (otherwise Ctrl-C is off on the USB line)."""
    return Pin(pinmap.BUTTON_PIN, Pin.IN, Pin.PULL_UP).value() == 0


def start():
    """Run the board, or with the button held, give Ctrl-C back and return
    to the REPL (maintenance mode)."""
    if maintenance():
        micropython.kbd_intr(3)
        print("popref sensor board: maintenance mode (button held at power-up)")
        return
    build(UsbStream(), random.getrandbits(32)).run()


if __name__ == "__main__":
    start()
