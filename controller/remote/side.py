"""What the daemon's loop asks of a side of the broker: the inviting board's
(:class:`~controller.remote.host.RemoteHost`) or a linked grid's that joined
(:class:`~controller.remote.guest.LinkedGuest`)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any, Protocol

from controller.referee.commands import RemoteCommand
from controller.referee.core import Referee
from controller.referee.verdict import Verdict


class Side(Protocol):
    def open(self, wake: Callable[[], None], referee: Referee) -> None: ...

    def inputs(self, referee: Referee, now: float) -> Iterator[RemoteCommand]: ...

    def answered(self, command: RemoteCommand, verdict: Verdict) -> None: ...

    def fed(self, verdict: Verdict, referee: Referee) -> None: ...

    def publish_state(self, state: dict[str, Any], referee: Referee) -> None: ...

    def deadline(self, now: float) -> float | None: ...

    def link_state(self) -> str: ...

    def close(self) -> None: ...
