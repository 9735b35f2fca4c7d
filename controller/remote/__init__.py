"""The remote seat: a friend anywhere plays one colour through an MQTT broker
(docs/remote.md). The protocol is pure (:mod:`~controller.remote.link`,
:mod:`~controller.remote.message`, :mod:`~controller.remote.address`); the
broker connection runs on paho's network thread
(:mod:`~controller.remote.connection`); :mod:`~controller.remote.host` is the
daemon's side, :mod:`~controller.remote.client` the remote player's."""
