"""Push buttons on GPIO pins (gpiozero) turned into ``ButtonEvent``s for the current prompt.

Roles: OK and NEXT fire when pressed; BACK fires when released, because holding it
(``hold_seconds``) means UNDO instead, and then the release fires nothing. An optional fourth
button with the UNDO role fires UNDO when pressed.

Debounce is done twice on purpose: gpiozero's ``bounce_time`` lets the pin library (lgpio in
the kernel) drop contact chatter, and on every edge we wait ``bounce_time`` and then read the
pin's level, so a missed or reordered edge can never leave a button stuck "down" (gpiozero's
MockPin has no bounce filter at all, so this layer is what the tests exercise).

A button already down when the buttons are built (held through a restart of the daemon) is
"disarmed": it fires nothing until it has been released and pressed again.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from hardware.base import ButtonEvent, Buttons, HardwareError

log = logging.getLogger(__name__)

REQUIRED_ROLES = (ButtonEvent.OK, ButtonEvent.NEXT, ButtonEvent.BACK)
OPTIONAL_ROLES = (ButtonEvent.UNDO,)


def parse_roles(pins: Mapping[ButtonEvent | str, int]) -> dict[ButtonEvent, int]:
    """Check a role -> BCM pin map from the config ("ok", "next", "back", optional "undo").

    :raises ValueError: a role is unknown or missing, or two roles share a pin.
    """
    roles: dict[ButtonEvent, int] = {}
    for key, pin in pins.items():
        try:
            role = key if isinstance(key, ButtonEvent) else ButtonEvent(str(key).lower())
        except ValueError:
            names = [r.value for r in (*REQUIRED_ROLES, *OPTIONAL_ROLES)]
            raise ValueError(f"unknown button role {key!r}; expected one of {names}") from None
        if role in roles:
            raise ValueError(f"button role {role.value!r} given twice")
        roles[role] = int(pin)
    missing = [r.value for r in REQUIRED_ROLES if r not in roles]
    if missing:
        raise ValueError(f"no pin for button roles {missing}")
    if len(set(roles.values())) != len(roles):
        raise ValueError(f"two buttons share a pin: {roles}")
    return roles


@dataclass
class _Key:
    """One button and what we believe about it after debouncing."""

    role: ButtonEvent
    button: Any  # gpiozero.Button
    down: bool  # debounced level
    armed: bool  # False while it is still down from before we started
    held: bool = False  # BACK was held long enough to mean UNDO
    timer: threading.Timer | None = field(default=None, repr=False)


class GpioButtons:
    """Three or four buttons wired from a GPIO pin to ground (internal pull-ups)."""

    def __init__(
        self,
        pins: Mapping[ButtonEvent | str, int],
        *,
        hold_seconds: float = 1.0,
        bounce_time: float = 0.05,
        pin_factory: Any = None,
    ) -> None:
        """Claim the pins; ``pin_factory`` is gpiozero's (``MockFactory()`` in tests, else the
        default from ``GPIOZERO_PIN_FACTORY``).

        :raises ValueError: bad roles, or ``hold_seconds`` not longer than ``bounce_time``.
        :raises HardwareError: gpiozero is missing, or a pin cannot be claimed.
        """
        roles = parse_roles(pins)
        if bounce_time < 0 or hold_seconds <= bounce_time:
            raise ValueError("need 0 <= bounce_time < hold_seconds")
        try:
            from gpiozero import Button, GPIOZeroError
        except ImportError as e:
            raise HardwareError(
                f"buttons need gpiozero: pip install 'mlem-companion[pi]' ({e})"
            ) from e
        self._bounce = bounce_time
        self._lock = threading.Lock()
        self._callbacks: list[Callable[[ButtonEvent], None]] = []
        self._keys: list[_Key] = []
        self._closed = False
        try:
            for role, pin in roles.items():
                button = Button(pin, pull_up=True, bounce_time=bounce_time or None,
                                hold_time=hold_seconds, pin_factory=pin_factory)
                down = bool(button.is_pressed)
                key = _Key(role, button, down=down, armed=not down)
                self._keys.append(key)
                button.when_pressed = self._edge_handler(key)
                button.when_released = self._edge_handler(key)
                if role is ButtonEvent.BACK:
                    button.when_held = self._hold_handler(key)
        except (GPIOZeroError, OSError) as e:
            self.close()
            raise HardwareError(f"cannot claim button pins {roles}: {e}") from e

    def on_event(self, callback: Callable[[ButtonEvent], None]) -> None:
        """Call ``callback`` for every event, from a driver thread (several may be added)."""
        with self._lock:
            self._callbacks.append(callback)

    def close(self) -> None:
        """Release the pins and stop all timers; a second call does nothing."""
        with self._lock:
            if self._closed:
                return
            self._closed = True
            keys, self._keys = self._keys, []
            for key in keys:
                if key.timer is not None:
                    key.timer.cancel()
        for key in keys:
            key.button.close()

    # -- from gpiozero's threads ------------------------------------------------------------

    def _edge_handler(self, key: _Key) -> Callable[[], None]:
        def edge() -> None:
            if self._bounce <= 0:
                self._settle(key)
                return
            with self._lock:
                if self._closed:
                    return
                if key.timer is not None:
                    key.timer.cancel()
                key.timer = threading.Timer(self._bounce, self._settle, (key,))
                key.timer.daemon = True
                key.timer.start()

        return edge

    def _hold_handler(self, key: _Key) -> Callable[[], None]:
        def held() -> None:
            with self._lock:
                if self._closed or not (key.down and key.armed) or key.held:
                    return
                if not key.button.is_pressed:
                    return  # released while the hold thread was waking
                key.held = True
            self._emit(ButtonEvent.UNDO)

        return held

    def _settle(self, key: _Key) -> None:
        """The pin has been quiet for ``bounce_time``: act on its level if it changed."""
        event: ButtonEvent | None = None
        with self._lock:
            if self._closed:
                return
            key.timer = None
            down = bool(key.button.is_pressed)
            if down == key.down:
                return  # a glitch shorter than the bounce time
            key.down = down
            if down:
                key.held = False
                if key.armed and key.role is not ButtonEvent.BACK:
                    event = key.role
            elif not key.armed:
                key.armed = True  # released after a restart: the next press counts
            elif key.role is ButtonEvent.BACK and not key.held:
                event = ButtonEvent.BACK
        if event is not None:
            self._emit(event)

    def _emit(self, event: ButtonEvent) -> None:
        with self._lock:
            callbacks = list(self._callbacks)
        for callback in callbacks:
            try:
                callback(event)
            except Exception:  # one bad listener must not silence the buttons
                log.exception("button callback failed on %s", event)


if TYPE_CHECKING:  # mypy proves that the adapter meets the protocol

    def _is_buttons(buttons: GpioButtons) -> Buttons:
        return buttons
