"""``python -m controller.cli``: the ``popref`` command without its script."""

import sys

from controller.cli import main

sys.exit(main())
