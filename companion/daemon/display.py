"""The OLED: one thread draws the current screen after every table snapshot and dims it when idle.

Screens, in order of precedence: a result for a few seconds ("CRASH 4/11"), the roll as read, a
hardware message (camera lost), the prompt with its highlighted option, the join QR code at idle.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from companion.config import Config
from companion.events import Event
from companion.prompts import Prompt
from companion.table import Snapshot
from hardware.base import Display

from .navigator import Navigator
from .status import Backoff, HardwareStatus, close_quietly

if TYPE_CHECKING:
    from PIL import Image

log = logging.getLogger(__name__)

RESULT_EVENTS = ("game_over", "crashed", "landed", "goal_claimed", "reward", "moved",
                 "expedition_over", "corrected", "undone", "redone")
"""Events shown as a result screen for a few seconds, the first one found in this order."""


@dataclass
class Screen:
    """What the panel should show now, kept as data so that tests can read it."""

    kind: str  # idle | prompt | roll | result | message
    lines: tuple[str, ...] = ()
    image: Image.Image | None = field(default=None, repr=False)


class DisplayController:
    """Draws the current screen on the OLED from its own thread; dims it when idle.

    The table's listener only records the snapshot and wakes this thread: I2C writes never slow
    the table's single writer.
    """

    def __init__(self, open_display: Callable[[], Display] | None, config: Config,
                 status: HardwareStatus, navigator: Navigator,
                 idle_info: Callable[[], tuple[str, str, str]]) -> None:
        self.open_display = open_display
        self.config = config.display
        self.status = status
        self.navigator = navigator
        self.idle_info = idle_info
        self.display: Display | None = None
        self.backoff = Backoff()
        self.screen: Screen | None = None
        self.frames = 0
        self._snapshot: Snapshot | None = None
        self._result: tuple[str, float] | None = None
        self._last_activity = time.monotonic()
        self._dimmed = False
        self._dirty = True
        self._wake = threading.Condition()
        self._stop = False
        self._thread: threading.Thread | None = None
        self.heartbeat = time.monotonic()
        navigator.listeners.append(self.poke)
        status.subscribe(self.poke)

    # -------------------------------------------------------------- inputs (any thread)

    def on_snapshot(self, snapshot: Snapshot) -> None:
        result = next((e for name in RESULT_EVENTS for e in snapshot.events if e.name == name),
                      None)
        with self._wake:
            self._snapshot = snapshot
            if result is not None and self.config.result_seconds > 0:
                self._result = (result_text(result),
                                time.monotonic() + self.config.result_seconds)
            self._last_activity = time.monotonic()
            self._dirty = True
            self._wake.notify()

    def poke(self) -> None:
        with self._wake:
            self._last_activity = time.monotonic()
            self._dirty = True
            self._wake.notify()

    # -------------------------------------------------------------- thread

    def start(self) -> None:
        if self.open_display is None:
            return
        self._thread = threading.Thread(target=self._run, name="display", daemon=True)
        self._thread.start()

    def stop(self, farewell: str | None = None) -> None:
        with self._wake:
            self._stop = True
            self._wake.notify()
        if self._thread is not None:
            self._thread.join(5)
            self._thread = None
        if self.display is not None:
            if farewell:
                self._show(self._render_message(farewell))
            close_quietly(self.display, "display")
            self.display = None

    def _run(self) -> None:
        while True:
            with self._wake:
                self._wake.wait_for(lambda: self._dirty or self._stop, timeout=0.25)
                if self._stop:
                    return
                dirty, self._dirty = self._dirty, False
            self.heartbeat = now = time.monotonic()
            try:
                self.tick(now, dirty)
            except Exception:  # a drawing bug must not end the display for the evening
                log.exception("display update failed")

    def tick(self, now: float, dirty: bool = True) -> None:
        """One step: reconnect if due, expire a result, dim, and draw when something changed."""
        if self.display is None:
            if not self.backoff.ready(now) or self.open_display is None:
                return
            try:
                self.display = self.open_display()
            except Exception as exc:
                self._failed(now, f"cannot open: {exc}")
                return
            self.status.set("display", True, self.config.driver)
            self.backoff.reset()
            self._dimmed = False
            self._set_contrast(self.config.contrast)
            dirty = True
        with self._wake:
            result = self._result
            if result is not None and now >= result[1]:
                self._result, dirty = None, True
            idle = now - self._last_activity
        dim_after = self.config.dim_after
        if dim_after and idle >= dim_after and not self._dimmed:
            self._dimmed = True
            self._set_contrast(self.config.dim_contrast)
        elif self._dimmed and idle < (dim_after or float("inf")):
            self._dimmed = False
            self._set_contrast(self.config.contrast)
        if dirty and self.display is not None:
            self.screen = self.compose()
            if self.screen.image is not None:
                self._show(self.screen.image)

    def _set_contrast(self, level: int) -> None:
        if self.display is None:
            return
        try:
            self.display.set_contrast(level)
        except Exception as exc:
            self._failed(time.monotonic(), f"contrast: {exc}")

    def _show(self, image: Image.Image) -> None:
        if self.display is None:
            return
        try:
            self.display.show(image)
            self.frames += 1
        except Exception as exc:  # HardwareError, or OSError from the I2C bus
            self._failed(time.monotonic(), f"write failed: {exc}")

    def _failed(self, now: float, detail: str) -> None:
        self.status.set("display", False, detail)
        if self.display is not None:
            close_quietly(self.display, "display")
        self.display = None
        self.backoff.failed(now)

    # -------------------------------------------------------------- composing

    def compose(self) -> Screen:
        """The screen for the current snapshot (result > hardware message > prompt > idle)."""
        with self._wake:
            snapshot, result = self._snapshot, self._result
        if result is not None:
            return self._screen("result", (result[0],))
        prompt = snapshot.prompt if snapshot else None
        failures = self.status.failures()
        camera_down = "camera" in failures
        if prompt is None:
            url, ip, code = self.idle_info()
            return self._screen("idle", (url, ip, code))
        if prompt.kind == "confirm_roll" and snapshot is not None and snapshot.reading:
            return self._screen("roll", (prompt.title,), prompt)
        if prompt.kind == "roll" and camera_down:
            return self._screen("message", ("Camera lost", "enter the dice on the phone"))
        return self._screen("prompt", (prompt.title,), prompt)

    def _screen(self, kind: str, lines: tuple[str, ...], prompt: Prompt | None = None) -> Screen:
        image: Image.Image | None = None
        try:
            image = self._draw(kind, lines, prompt)
        except Exception:
            log.exception("drawing the %s screen failed", kind)
        return Screen(kind, lines, image)

    def _draw(self, kind: str, lines: tuple[str, ...], prompt: Prompt | None) -> Image.Image:
        from hardware import screens

        if kind == "idle":
            url, ip, code = lines
            return screens.idle_screen(url, ip, code)
        if kind == "result":
            return screens.result_screen(lines[0])
        if kind == "message":
            return screens.message_screen(": ".join(lines))
        assert prompt is not None
        with self.navigator._lock:
            highlight = self.navigator.highlight
        if kind == "roll" and highlight == 0:
            snapshot = self._snapshot
            reading = snapshot.reading if snapshot else None
            faces = list(reading.faces) if reading else []
            available = int(((snapshot.state if snapshot else None) or {}).get("available", 0))
            faces += ["?"] * max(0, available - len(faces))
            unclear = reading is not None and reading.uncertain > 0
            return screens.roll_screen(faces, "Unclear: use phone" if unclear else "OK?")
        labels = [o.label for o in prompt.options]
        return screens.prompt_screen(prompt.title, labels, min(highlight, max(0, len(labels) - 1)))

    def _render_message(self, text: str) -> Image.Image:
        from hardware import screens

        return screens.message_screen(text, alert=False)


def result_text(event: Event) -> str:
    """The short result line: "CRASH 4/11", "Rocket -> 12", "Anna lands on M9a +5"."""
    if event.name == "moved":
        return f"Rocket -> {event.data.get('to')}"
    if event.name == "game_over":
        return "Game over"
    return event.text
