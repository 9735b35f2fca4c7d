"""Which Pico GPIO does what (see docs/sensor-board.md for the wiring).

Edit here for a different build; everything else takes built pins.
"""

COLUMNS = 7
ENTRY_PINS = (2, 3, 4, 5, 6, 7, 8)  # top beams, column 1 at the left
EXIT_PINS = (9, 10, 11, 12, 13, 18, 19)  # bottom beams
# Levels, the same as the Pi's GPIO defaults (docs/wiring.md, "Which level
# means blocked, open, pressed"): a pin low = beam blocked, as most
# break-beam receivers (Adafruit's and their clones) pull their output low
# when the beam is broken; True for a receiver whose output goes high.
BEAM_BLOCKED_HIGH = False
SLIDER_PIN = 20  # switch to ground, closed when the slider opens
SLIDER_OPEN_HIGH = False  # pin low = slider open
BUTTON_PIN = 21  # switch to ground
STRIP_PIN = 22  # WS2812 data in, through a 3.3 V -> 5 V level shifter
CELLS = 1  # LEDs per column: 1, or the row count for a light per cell
SCORE_LEDS = 10  # per player, 0 for none
DIAL_PINS = (14, 15)  # servo dials for Red's and Yellow's scores; () for none
# Servo pulses: a score of 0 at SERVO_MIN_US, the winning score at SERVO_MAX_US,
# and SERVO_REST_US at boot and whenever the host falls silent. 1000-2000 us
# is within the travel of every hobby servo; widen towards 500-2500 only for
# a servo whose data sheet allows it, or it strains against its end stops.
SERVO_MIN_US = 1000
SERVO_MAX_US = 2000
SERVO_REST_US = 1500  # mid-travel, away from both end stops
BUZZER_PIN = 26  # None for none
WDT_MS = 5000
