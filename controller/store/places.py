"""Where ``popref simulate`` keeps its game between runs, for ``simulate``
itself and for ``popref games``, which points there.

>>> simulate_state_dir({"XDG_STATE_HOME": "/home/ann/.state"})
PosixPath('/home/ann/.state/popref-simulate')
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path


def simulate_state_dir(env: Mapping[str, str] = os.environ) -> Path:
    """``$XDG_STATE_HOME/popref-simulate``, else ``~/.local/state/popref-simulate``."""
    base = env.get("XDG_STATE_HOME") or str(Path.home() / ".local" / "state")
    return Path(base) / "popref-simulate"
