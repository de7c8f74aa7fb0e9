"""A tiny sd_notify(3) client: tell systemd we are ready, what we are doing, and that we live.

systemd passes ``$NOTIFY_SOCKET`` to a ``Type=notify`` service: a unix datagram socket, a path or
(leading ``@``) a name in the abstract namespace. Each message is newline-separated
``KEY=VALUE`` lines: ``READY=1`` ends start-up, ``STATUS=...`` is shown by ``systemctl status``,
``WATCHDOG=1`` resets the ``WatchdogSec=`` timer, ``STOPPING=1`` announces a clean shutdown.
Without ``$NOTIFY_SOCKET`` (a shell, the tests, the demo) every call is a no-op, and a failed
send is logged, never raised: the table must not stop because systemd is not listening.
"""

from __future__ import annotations

import logging
import os
import socket
import threading

log = logging.getLogger(__name__)


class Notifier:
    """Sends sd_notify messages to ``$NOTIFY_SOCKET`` (read once, when built)."""

    def __init__(self, address: str | None = None, watchdog_usec: str | None = None,
                 watchdog_pid: str | None = None) -> None:
        env = os.environ
        raw = env.get("NOTIFY_SOCKET") if address is None else address
        self.address: str | None = None
        if raw:
            # "@name" is the abstract namespace: the address starts with a NUL byte
            self.address = "\0" + raw[1:] if raw.startswith("@") else raw
        self._watchdog = _watchdog_seconds(
            env.get("WATCHDOG_USEC") if watchdog_usec is None else watchdog_usec,
            env.get("WATCHDOG_PID") if watchdog_pid is None else watchdog_pid)
        self._lock = threading.Lock()
        self._socket: socket.socket | None = None

    @property
    def enabled(self) -> bool:
        return self.address is not None

    @property
    def watchdog_interval(self) -> float | None:
        """Seconds between WATCHDOG=1 pings (half the timeout, as sd_watchdog_enabled(3)
        advises), or None when systemd set no watchdog for this process."""
        return self._watchdog / 2 if self._watchdog else None

    def notify(self, **fields: str | int) -> bool:
        """Send ``KEY=value`` lines (``notify(READY=1, STATUS="Ready")``); True if sent."""
        if self.address is None or not fields:
            return False
        message = "\n".join(f"{key}={value}" for key, value in fields.items())
        with self._lock:
            try:
                if self._socket is None:
                    self._socket = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
                    self._socket.setblocking(False)
                self._socket.sendto(message.encode(), self.address)
            except OSError as exc:
                log.warning("sd_notify %r failed: %s", message, exc)
                return False
        return True

    def ready(self, status: str | None = None) -> bool:
        return self.notify(READY=1, **({"STATUS": status} if status else {}))

    def status(self, text: str) -> bool:
        return self.notify(STATUS=text.replace("\n", " "))

    def watchdog(self) -> bool:
        return self.notify(WATCHDOG=1)

    def stopping(self, status: str = "Stopping") -> bool:
        return self.notify(STOPPING=1, STATUS=status)

    def close(self) -> None:
        with self._lock:
            if self._socket is not None:
                self._socket.close()
                self._socket = None


def _watchdog_seconds(usec: str | None, pid: str | None) -> float | None:
    """WATCHDOG_USEC in seconds, if it is meant for this process (WATCHDOG_PID, when set)."""
    if not usec:
        return None
    if pid and pid.isdigit() and int(pid) != os.getpid():
        return None
    try:
        value = int(usec)
    except ValueError:
        return None
    return value / 1_000_000 if value > 0 else None
