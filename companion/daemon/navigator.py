"""Button events -> the current prompt: NEXT/BACK move a highlight, OK submits, BACK held undoes.

Runs on gpiozero's callback threads; like every input it only submits to the table, never touches
the game itself.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Hashable

from companion.prompts import Prompt
from companion.table import Result, Snapshot, TableService
from hardware.base import ButtonEvent

log = logging.getLogger(__name__)


class Navigator:
    """Maps button events onto the current prompt: a highlight that moves, OK that submits.

    The highlight resets whenever the prompt changes, so OK never picks an option of a prompt the
    person has not seen.
    """

    def __init__(self, table: TableService, on_new_game: Callable[[], Result | None],
                 on_reject: Callable[[], None] = lambda: None) -> None:
        self.table = table
        self.on_new_game = on_new_game
        self.on_reject = on_reject
        self.highlight = 0
        self.handled = 0
        self._key: tuple[Hashable, ...] | None = None
        self._lock = threading.Condition()
        self.listeners: list[Callable[[], None]] = []
        self.results: list[Callable[[str, Result], None]] = []

    @staticmethod
    def prompt_key(prompt: Prompt | None) -> tuple[Hashable, ...] | None:
        if prompt is None:
            return None
        return (prompt.kind, prompt.title, prompt.seat, prompt.options)

    def _sync(self, prompt: Prompt | None) -> None:
        key = self.prompt_key(prompt)
        if key != self._key:
            self._key, self.highlight = key, 0

    def on_snapshot(self, snapshot: Snapshot) -> None:
        with self._lock:
            self._sync(snapshot.prompt)

    def handle(self, event: ButtonEvent) -> None:
        """Called from the button driver's thread; never raises (a button must not kill it)."""
        try:
            self._handle(event)
        except Exception:
            log.exception("button %s failed", event.value)
        finally:
            with self._lock:
                self.handled += 1
                self._lock.notify_all()

    def wait_handled(self, count: int, timeout: float = 5.0) -> bool:
        """For the demo's bots: wait until `count` events have been handled."""
        with self._lock:
            return self._lock.wait_for(lambda: self.handled >= count, timeout)

    def _handle(self, event: ButtonEvent) -> None:
        snapshot = self.table.snapshot()
        prompt = snapshot.prompt
        if event is ButtonEvent.UNDO:
            if snapshot.can_undo:
                self._report("undo", self.table.undo(1))
            return
        with self._lock:
            self._sync(prompt)
            options = prompt.options if prompt else ()
            if event in (ButtonEvent.NEXT, ButtonEvent.BACK):
                if options:
                    step = 1 if event is ButtonEvent.NEXT else -1
                    self.highlight = (self.highlight + step) % len(options)
                changed = True
            else:
                changed = False
            chosen = options[self.highlight] if options and event is ButtonEvent.OK else None
        if changed:
            for listener in list(self.listeners):
                listener()
            return
        if prompt is None or prompt.kind == "game_over":
            result = self.on_new_game()
            if result is not None:
                self._report("new game", result)
            return
        if chosen is None:
            return  # a roll prompt: the dice are thrown into the tray, nothing to choose
        if prompt.kind == "confirm_roll":
            if chosen.action == "confirm":
                self._report("confirm", self.table.confirm_reading("button"))
            else:
                self._report("reject", self.table.reject_reading())
                self.on_reject()
            return
        self._report(chosen.action, self.table.act(chosen.action, "button"))

    def _report(self, what: str, result: Result) -> None:
        if not result.ok:
            log.info("button %s refused: %s", what, result.error)
        for listener in list(self.results):
            listener(what, result)
