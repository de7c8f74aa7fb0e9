"""Device health (camera, display, buttons, web) and the retry schedule for a device that fails.

A failed device never stops the game: its status is shown on the remaining outputs (the OLED, the
web page, systemd's STATUS=) and it is probed again with a growing delay.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

log = logging.getLogger(__name__)

BACKOFF_START, BACKOFF_MAX = 1.0, 30.0


@dataclass
class DeviceStatus:
    ok: bool
    detail: str
    since: float


class HardwareStatus:
    """Health of each device for the OLED, the web page and ``systemctl status``."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._devices: dict[str, DeviceStatus] = {}
        self._listeners: list[Callable[[], None]] = []

    def set(self, name: str, ok: bool, detail: str = "") -> None:
        with self._lock:
            old = self._devices.get(name)
            if old is not None and old.ok == ok and old.detail == detail:
                return
            self._devices[name] = DeviceStatus(ok, detail, time.time())
            listeners = list(self._listeners)
        (log.info if ok else log.warning)("%s: %s", name, detail or ("ok" if ok else "failed"))
        for listener in listeners:
            listener()

    def subscribe(self, listener: Callable[[], None]) -> None:
        with self._lock:
            self._listeners.append(listener)

    def ok(self, name: str) -> bool:
        with self._lock:
            device = self._devices.get(name)
        return device is None or device.ok

    def failures(self) -> dict[str, str]:
        with self._lock:
            return {n: d.detail for n, d in self._devices.items() if not d.ok}

    def as_dict(self) -> dict[str, dict[str, Any]]:
        """``{"camera": {"ok": false, "detail": "...", "since": 1700000000.0}, ...}``"""
        with self._lock:
            return {n: {"ok": d.ok, "detail": d.detail, "since": d.since}
                    for n, d in self._devices.items()}

    def __call__(self) -> dict[str, dict[str, Any]]:
        return self.as_dict()


def close_quietly(device: Any, name: str) -> None:
    """Close a device that may already be broken: a failure here changes nothing, so it is only
    worth a debug line."""
    try:
        device.close()
    except Exception:
        log.debug("%s close failed", name, exc_info=True)


class Backoff:
    """Retry delays 1, 2, 4 ... 30 s: a missing device is probed, not hammered."""

    def __init__(self, start: float = BACKOFF_START, limit: float = BACKOFF_MAX) -> None:
        self.start, self.limit = start, limit
        self.delay = start
        self.next_try = 0.0

    def ready(self, now: float) -> bool:
        return now >= self.next_try

    def failed(self, now: float) -> None:
        self.next_try = now + self.delay
        self.delay = min(self.delay * 2, self.limit)

    def reset(self) -> None:
        self.delay, self.next_try = self.start, 0.0
