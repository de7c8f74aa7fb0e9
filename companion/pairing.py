"""Trust on the LAN: which phones may act, and which seat each one plays.

Anyone may watch; to act a phone pairs with the 6-digit code the OLED shows (or scans the QR code
that carries it). The code rotates after every successful pairing and after a few wrong guesses, so
a guessed code is worth one attempt window at most. A paired phone gets a bearer token (kept as an
HttpOnly cookie by the web layer) and a CSRF token it must echo on every state-changing request.
The first phone paired, or one pairing with the host code, is the host: it may set up games, list
and revoke phones. Pairings live in memory: a restart makes everyone pair again, which is cheap.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, replace

CODE_DIGITS = 6
HOST_CODE_DIGITS = 8
MAX_FAILURES = 5
"""Wrong codes tolerated before the code rotates and pairing pauses."""
LOCKOUT_SECONDS = 30.0
MAX_DEVICES = 32
NAME_LENGTH = 24


class PairingError(ValueError):
    """A pairing or seat request refused; the message says why (safe to show the user)."""


class PairingLocked(PairingError):
    """Too many wrong codes: pairing pauses for a while (the OLED shows a new code)."""


@dataclass(frozen=True)
class Device:
    """A paired phone. `token` and `csrf` are secrets: only ever sent to that phone."""

    id: str
    token: str
    csrf: str
    is_host: bool
    name: str = ""
    seat: int | None = None
    paired_at: float = 0.0

    def public(self) -> dict[str, object]:
        """What other phones (the host's device list) may see: no secrets."""
        return {"id": self.id, "name": self.name, "is_host": self.is_host, "seat": self.seat}


def _digits(n: int) -> str:
    return "".join(secrets.choice("0123456789") for _ in range(n))


def _digest(token: str) -> str:
    """Tokens are looked up by hash, so a dict lookup leaks nothing about stored tokens."""
    return hashlib.sha256(token.encode()).hexdigest()


class Pairing:
    """The paired phones (thread-safe; one instance shared by the web app and the daemon)."""

    def __init__(
        self,
        clock: Callable[[], float] = time.monotonic,
        *,
        host_code: str | None = None,
    ) -> None:
        self._clock = clock
        self._lock = threading.Lock()
        self._code = _digits(CODE_DIGITS)
        self._host_code = host_code or _digits(HOST_CODE_DIGITS)
        self._devices: dict[str, Device] = {}  # by token digest
        self._failures = 0
        self._locked_until = 0.0
        self._listeners: list[Callable[[], None]] = []

    # ------------------------------------------------------------------ codes

    def code(self) -> str:
        """The code the OLED shows now (changes after each pairing and after repeated misses)."""
        with self._lock:
            return self._code

    def host_code(self) -> str:
        """The code that makes a phone the host (shown in the daemon's log and config)."""
        return self._host_code

    def locked(self) -> bool:
        with self._lock:
            return self._clock() < self._locked_until

    # ------------------------------------------------------------------ devices

    def pair(self, code: str, name: str) -> Device:
        """Pair a phone that shows the current code (or the host code).

        :raises PairingLocked: too many wrong codes recently.
        :raises PairingError: wrong code, bad name, or too many phones.
        """
        name = " ".join(str(name).split())[:NAME_LENGTH]
        with self._lock:
            now = self._clock()
            if now < self._locked_until:
                raise PairingLocked(
                    f"too many wrong codes: try again in {int(self._locked_until - now) + 1} s")
            code = str(code).strip()
            as_host = hmac.compare_digest(code.encode(), self._host_code.encode())
            if not as_host and not hmac.compare_digest(code.encode(), self._code.encode()):
                self._failures += 1
                if self._failures >= MAX_FAILURES:
                    self._failures = 0
                    self._locked_until = now + LOCKOUT_SECONDS
                    self._code = _digits(CODE_DIGITS)
                raise PairingError("wrong code")
            if len(self._devices) >= MAX_DEVICES:
                raise PairingError(f"already {MAX_DEVICES} phones paired: revoke one first")
            is_host = as_host or not any(d.is_host for d in self._devices.values())
            device = Device(
                id=secrets.token_hex(4), token=secrets.token_urlsafe(32),
                csrf=secrets.token_urlsafe(24), is_host=is_host,
                name=name or f"Phone {len(self._devices) + 1}", paired_at=now)
            self._devices[_digest(device.token)] = device
            self._failures = 0
            if not as_host:
                self._code = _digits(CODE_DIGITS)
        self._changed()
        return device

    def verify(self, token: str | None) -> Device | None:
        """The device holding `token`, or None (unknown, revoked or missing)."""
        if not token:
            return None
        with self._lock:
            return self._devices.get(_digest(token))

    def devices(self) -> list[Device]:
        with self._lock:
            return sorted(self._devices.values(), key=lambda d: d.paired_at)

    def device(self, device_id: str) -> Device | None:
        with self._lock:
            return next((d for d in self._devices.values() if d.id == device_id), None)

    def revoke(self, device_id: str) -> None:
        """Forget a phone: its token stops working at once.

        :raises PairingError: no such device.
        """
        with self._lock:
            key = next((k for k, d in self._devices.items() if d.id == device_id), None)
            if key is None:
                raise PairingError(f"no paired device {device_id!r}")
            del self._devices[key]
        self._changed()

    def claim_seat(self, device_id: str, seat: int | None) -> Device:
        """Let a phone play a seat (None gives it up); one phone per seat.

        :raises PairingError: no such device, or another phone holds the seat.
        """
        with self._lock:
            key = next((k for k, d in self._devices.items() if d.id == device_id), None)
            if key is None:
                raise PairingError(f"no paired device {device_id!r}")
            if seat is not None:
                holder = next((d for d in self._devices.values()
                               if d.seat == seat and d.id != device_id), None)
                if holder is not None:
                    raise PairingError(f"seat {seat} is already claimed by {holder.name}")
            device = self._devices[key] = replace(self._devices[key], seat=seat)
        self._changed()
        return device

    def release_seats(self) -> None:
        """A new game: every phone chooses its seat again."""
        with self._lock:
            for key, device in self._devices.items():
                self._devices[key] = replace(device, seat=None)
        self._changed()

    def seat_holders(self) -> dict[int, Device]:
        with self._lock:
            return {d.seat: d for d in self._devices.values() if d.seat is not None}

    # ------------------------------------------------------------------ change listeners

    def subscribe(self, listener: Callable[[], None]) -> Callable[[], None]:
        """Call `listener()` after pairings or seats change (the web page shows who plays)."""
        with self._lock:
            self._listeners.append(listener)

        def unsubscribe() -> None:
            with self._lock:
                if listener in self._listeners:
                    self._listeners.remove(listener)

        return unsubscribe

    def _changed(self) -> None:
        with self._lock:
            listeners = list(self._listeners)
        for listener in listeners:
            listener()
