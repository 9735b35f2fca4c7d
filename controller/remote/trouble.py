"""Why a broker connection failed or ended, in words a person can act on.

paho says only "Connection failed, retrying" (its callback is given no
exception), and a TLS listener reached without TLS looks like any lost
connection. A certificate nobody trusts, a name that does not resolve and
a port where nothing listens each want a different fix, so each is said.

>>> import ssl
>>> failed(ConnectionRefusedError(111, "Connection refused"), None)
'nothing answers on its port (connection refused)'
>>> error = ssl.SSLCertVerificationError(1, "certificate verify failed")
>>> error.verify_message = "self-signed certificate"
>>> failed(error, None)
"its certificate is not trusted by this machine's certificate authorities (self-signed certificate)"
>>> failed(error, "/etc/popref/ca.pem")
'its certificate is not trusted by /etc/popref/ca.pem (self-signed certificate)'
"""

from __future__ import annotations

import socket
import ssl
from typing import Any

# MQTT's reason codes that say nothing a person can use: "Success" (0), and
# "Unspecified error" (128), paho's for a connection that was just lost
SAYS_NOTHING = (0, 128)
UNANSWERED = (
    "it closed the connection before answering (is it a TLS listener, for an "
    "mqtts:// or wss:// address? or not an MQTT port at all?)"
)


def failed(error: BaseException | None, ca_file: str | None) -> str:
    """Why a connection could not be made: ``error`` is what the attempt
    raised (None when it is not known), ``ca_file`` the authorities trusted
    instead of the machine's own (``[remote] ca_file``)."""
    if isinstance(error, ssl.SSLCertVerificationError):
        trusted = ca_file or "this machine's certificate authorities"
        why = error.verify_message or error.reason or "verify failed"
        return f"its certificate is not trusted by {trusted} ({why})"
    if isinstance(error, ssl.SSLError):
        return (
            f"TLS failed ({error.reason or error}); is it a TLS listener, for an "
            "mqtts:// or wss:// address?"
        )
    if isinstance(error, socket.gaierror):
        return f"its name cannot be found ({error.strerror})"
    if isinstance(error, ConnectionResetError):
        # what Mosquitto does to a TLS hello on a listener without TLS
        return (
            "it reset the connection (is it a listener without TLS, given as mqtts:// or wss://?)"
        )
    if isinstance(error, ConnectionRefusedError):
        return "nothing answers on its port (connection refused)"
    if isinstance(error, TimeoutError):
        return "it does not answer (timed out)"
    if isinstance(error, OSError) and error.strerror:
        return f"it cannot be reached ({error.strerror.lower()})"
    return "it cannot be reached"


def ended(reason: Any, answered: bool) -> str:
    """Why a connection ended: the reason the broker (or paho) gave, unless
    its code says nothing a person can use; ``answered`` says whether the
    broker had accepted it (else it hung up on the attempt).

    >>> from paho.mqtt.packettypes import PacketTypes
    >>> from paho.mqtt.reasoncodes import ReasonCode
    >>> ended(ReasonCode(PacketTypes.DISCONNECT, "Unspecified error"), True)
    'the connection ended'
    >>> ended(ReasonCode(PacketTypes.DISCONNECT, "Keep alive timeout"), True)
    'the connection ended (Keep alive timeout)'
    >>> ended(ReasonCode(PacketTypes.DISCONNECT, "Unspecified error"), False).split(" (")[0]
    'it closed the connection before answering'
    """
    if getattr(reason, "value", None) in SAYS_NOTHING:
        return "the connection ended" if answered else UNANSWERED
    return f"the connection ended ({reason})"
