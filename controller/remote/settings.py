"""What the daemon needs to know to host a remote seat: the ``[remote]``
table as :mod:`controller.daemon.config` checked it."""

from __future__ import annotations

from dataclasses import dataclass, field

from controller.remote.address import BrokerAddress


@dataclass(frozen=True, slots=True)
class Account:
    """A user name and password on the broker, and the CA file for TLS."""

    user: str | None = None
    password: str | None = field(default=None, repr=False)
    ca_file: str | None = None


@dataclass(frozen=True, slots=True)
class RemoteSettings:
    """``broker`` and ``account``: where the daemon connects, as whom;
    ``web_broker`` (a ``ws://`` or ``wss://`` URL) and ``guest`` (an account
    for the link, never the daemon's own): what the link tells a remote
    player; ``page``: the remote page's address for links."""

    broker: BrokerAddress
    account: Account = field(default_factory=Account)
    web_broker: str | None = None
    guest: Account = field(default_factory=Account)
    page: str = ""
