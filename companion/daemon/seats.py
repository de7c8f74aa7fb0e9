"""Bots in some seats, playing through the real inputs (tray, camera, buttons) like people."""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from typing import TYPE_CHECKING

from companion.games.mlem.dice import canonical
from companion.prompts import Prompt
from companion.table import Result, Snapshot, TableService
from hardware.base import ButtonEvent

if TYPE_CHECKING:
    from .app import Daemon

log = logging.getLogger(__name__)


class BotSeats:
    """Plays some seats the way a person at the table would, through the real inputs.

    The bot throws the captain's dice into the (simulated) tray, lets the camera read them,
    presses the buttons to move the highlight to its choice and press OK, and, knowing what it
    threw, fixes a misread as a person would on the phone: a confident misread is confirmed and
    then corrected (``table.correct_roll``), an unclear or missing reading is entered by hand.
    It also reveals tokens (draw prompts) when ``draws`` is set. Used by the demo and the tests.
    """

    def __init__(self, daemon: Daemon, press: Callable[[ButtonEvent], None], *,
                 seats: set[int] | None = None, bots: tuple[str, ...] = ("greedy",),
                 seed: int = 1, throw: Callable[[list[str]], None] | None = None,
                 throw_for_all: bool = False, throw_delay: float = 0.0, draws: bool = True,
                 read_timeout: float = 4.0) -> None:
        import random

        from companion.games.mlem.bots import make_bot

        self.daemon = daemon
        self.table = daemon.table
        self.press_button = press
        self.seats = seats
        self.bots = [make_bot(name) for name in bots]
        self.rng = random.Random(seed)
        self.throw = throw
        self.throw_for_all = throw_for_all
        self.throw_delay = throw_delay
        self.draws = draws
        self.read_timeout = read_timeout
        self.presses = 0
        self.misreads = 0
        self.corrections = 0
        self.manual_rolls = 0
        self.read_ok = 0
        self.acks: list[Callable[[str, Result], None]] = []
        self.finished = threading.Event()
        self.error: BaseException | None = None
        self._thrown: dict[tuple[int | None, int], tuple[list[str], float, int]] = {}
        self._changed = threading.Condition()
        self._version = -1
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._unsubscribe = self.table.subscribe(self._on_snapshot)

    def _on_snapshot(self, snapshot: Snapshot) -> None:
        with self._changed:
            self._version = snapshot.version
            self._changed.notify_all()

    def plays(self, seat: int | None) -> bool:
        return seat is not None and (self.seats is None or seat in self.seats)

    def set_seats(self, seats: set[int] | None) -> None:
        self.seats = seats

    def start(self) -> None:
        self._thread = threading.Thread(target=self._run, name="bots", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        with self._changed:
            self._changed.notify_all()
        if self._thread is not None:
            self._thread.join(10)
            self._thread = None
        self._unsubscribe()

    def _run(self) -> None:
        try:
            while not self._stop.is_set():
                snapshot = self.table.snapshot()
                acted = self.step(snapshot)
                if self.finished.is_set():
                    return
                if not acted:
                    self._wait_change(snapshot.version, 0.05)
        except BaseException as exc:  # reported by the demo, not lost in the thread
            log.exception("bot seats failed")
            self.error = exc
            self.finished.set()

    # ---------------------------------------------------------------- one decision

    def step(self, snapshot: Snapshot) -> bool:
        """Act on the snapshot if it is a bot's turn; True if something was done."""
        prompt = snapshot.prompt
        if prompt is None:
            return False
        if prompt.kind == "game_over":
            self.finished.set()
            return False
        if prompt.kind == "roll":
            return self._roll(snapshot, prompt)
        if prompt.kind == "confirm_roll":
            return self._confirm(snapshot, prompt)
        if prompt.kind == "draw":
            if not self.draws:
                return False
            from companion.games.mlem.simulate import sample_draw

            state = self.table.state_copy()
            if state is None or not state.is_chance_node():
                return False
            action = str(sample_draw(state, self.rng))
            if prompt.sealed:  # the missions deal: unseen, so drawn like a phone's Draw
                result = self.table.act(action, "phone:draw")
                self._ack(action, result)
                return result.ok
            return self._choose(snapshot, prompt, action)
        if not self.plays(prompt.seat):
            return False
        state = self.table.state_copy()
        if state is None or state.is_terminal() or state.current_player() != prompt.seat:
            return False
        bot = self.bots[prompt.seat % len(self.bots)] if prompt.seat is not None else self.bots[0]
        return self._choose(snapshot, prompt, str(bot.choose(state, self.rng)))

    def _roll_key(self, snapshot: Snapshot) -> tuple[int | None, int]:
        state = snapshot.state or {}
        return snapshot.game_id, len(state.get("history", ())) or _history_length(self.table)

    def _roll(self, snapshot: Snapshot, prompt: Prompt) -> bool:
        if not (self.plays(prompt.seat) or self.throw_for_all):
            return False
        key = self._roll_key(snapshot)
        available = int((snapshot.state or {}).get("available", 0))
        thrown = self._thrown.get(key)
        if thrown is None:
            from companion.games.mlem.simulate import DIE_SIDES

            camera = self.daemon.camera
            if camera is not None and camera.frames == 0 and self.daemon.status.ok("camera"):
                self._stop.wait(0.05)
                return False  # the camera is still opening: throw when it watches the tray
            faces = [self.rng.choice(DIE_SIDES) for _ in range(available)]
            if self.throw_delay:
                self._stop.wait(self.throw_delay)
            if self.throw is None or camera is None or not self.daemon.status.ok("camera"):
                return self._enter_by_hand(faces, "no camera")
            self._thrown[key] = (faces, time.monotonic(), camera.reads)
            self.throw(faces)
            return True
        faces, since, reads = thrown
        camera = self.daemon.camera
        stable = self.daemon.config.vision.stable_readings
        stuck = camera is not None and camera.reads - reads > stable and (
            camera.failed_reads > stable or camera.reads - reads > 4 * stable + 4)
        if time.monotonic() - since > self.read_timeout or stuck or camera is None:
            self.misreads += 1
            return self._enter_by_hand(faces, "the camera did not read the roll")
        return False

    def _enter_by_hand(self, faces: list[str], why: str) -> bool:
        from companion.games.mlem import Roll

        log.info("bot enters the roll by hand (%s)", why)
        text = str(Roll(canonical(faces)))
        result = self.table.act(text, "phone")
        self.manual_rolls += 1
        self._ack(text, result)
        return True

    def _confirm(self, snapshot: Snapshot, prompt: Prompt) -> bool:
        if not self.plays(prompt.seat):
            return False  # a person confirms their own roll on the phone or with OK
        reading = snapshot.reading
        key = self._roll_key(snapshot)
        thrown = self._thrown.get(key)
        if reading is None:
            return False
        if thrown is None:  # dice we did not throw (left from before a restart): read again
            return self._choose(snapshot, prompt, "reject")
        faces = list(canonical(thrown[0]))
        if list(reading.faces) == faces and not reading.uncertain:
            self.read_ok += 1
            return self._choose(snapshot, prompt, "confirm")
        self.misreads += 1
        if reading.uncertain:
            return self._enter_by_hand(faces, "unclear dice")
        if not self._choose(snapshot, prompt, "confirm"):
            return False
        if not self._wait_version(snapshot.version):
            return True
        result = self.table.correct_roll(faces, "phone")
        self.corrections += 1
        self._ack(f"correct {' '.join(faces)}", result)
        return True

    def _choose(self, snapshot: Snapshot, prompt: Prompt, action: str) -> bool:
        """Move the highlight to `action`'s option with NEXT/BACK, then press OK."""
        index = next((i for i, o in enumerate(prompt.options) if o.action == action), None)
        if index is None:
            log.warning("bot choice %r is not an option of %r", action, prompt.title)
            return False
        navigator = self.daemon.navigator
        n = len(prompt.options)
        current = navigator.highlight
        forward = (index - current) % n
        backward = (current - index) % n
        event = ButtonEvent.NEXT if forward <= backward else ButtonEvent.BACK
        for _ in range(min(forward, backward)):
            if self.table.snapshot().version != snapshot.version:
                return False  # the prompt changed under us (a phone acted): look again
            self._press(event)
        if navigator.highlight != index:
            log.info("highlight is %d, wanted %d: looking again", navigator.highlight, index)
            return False
        self._press(ButtonEvent.OK)
        self._wait_version(snapshot.version)
        return True

    def _press(self, event: ButtonEvent) -> None:
        navigator = self.daemon.navigator
        before = navigator.handled
        self.press_button(event)
        self.presses += 1
        navigator.wait_handled(before + 1, timeout=5.0)

    def _wait_change(self, version: int, timeout: float) -> None:
        with self._changed:
            self._changed.wait_for(lambda: self._version != version or self._stop.is_set(),
                                   timeout)

    def _wait_version(self, version: int, timeout: float = 5.0) -> bool:
        with self._changed:
            return self._changed.wait_for(lambda: self.table.snapshot().version != version,
                                          timeout)

    def _ack(self, what: str, result: Result) -> None:
        if not result.ok:
            log.warning("bot %s refused: %s", what, result.error)
        for listener in list(self.acks):
            listener(what, result)


def _history_length(table: TableService) -> int:
    state = table.state_copy()
    return len(state.history) if state is not None else 0
