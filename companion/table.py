"""One game in progress: takes actions from every input in order, persists, undoes, announces.

One writer: camera, buttons and web requests call the methods below from their own threads; each
call becomes a command on a queue that a single worker applies through the rules core, commits to
the store and announces to the listeners. Readers only ever see immutable snapshots.
"""

from __future__ import annotations

import logging
import queue
import threading
from collections.abc import Callable
from concurrent.futures import Future
from dataclasses import dataclass, field
from typing import Any, TypeVar

from companion.events import Event, events_between
from companion.games.mlem import (
    Game,
    GameConfig,
    InvalidActionError,
    Phase,
    Roll,
    RulesError,
    State,
    parse_action,
)
from companion.games.mlem.observation import PUBLIC, observation
from companion.prompts import Option, Prompt, prompt_for
from companion.store import Store

log = logging.getLogger(__name__)
T = TypeVar("T")
Listener = Callable[["Snapshot"], None]


@dataclass(frozen=True)
class Reading:
    """A roll the camera read, waiting for a person to confirm it (or enter it by hand)."""

    faces: tuple[str, ...]
    uncertain: int = 0
    proof: bytes | None = field(default=None, repr=False)


@dataclass(frozen=True)
class Result:
    """What one command did: refused with a reason, or applied with its events."""

    ok: bool
    error: str | None = None
    events: tuple[Event, ...] = ()

    def to_json(self) -> dict[str, Any]:
        return {"ok": self.ok, "error": self.error, "events": [e.to_json() for e in self.events]}


@dataclass(frozen=True)
class Snapshot:
    """An immutable picture of the table for every reader: what the whole table may see.

    `state` and `prompt` are the PUBLIC view (no secret mission in them but a sealed prompt's
    action texts); a seat's own view is built from `TableService.state_copy()`.
    """

    version: int
    game_id: int | None
    state: dict[str, Any] | None
    prompt: Prompt | None
    events: tuple[Event, ...]
    reading: Reading | None
    can_undo: bool
    can_redo: bool
    setup: dict[str, Any] | None

    def to_json(self) -> dict[str, Any]:
        return {
            "version": self.version,
            "game_id": self.game_id,
            "setup": self.setup,
            "state": self.state,
            "prompt": self.prompt.to_json() if self.prompt else None,
            "events": [e.to_json() for e in self.events],
            "reading": {"faces": list(self.reading.faces), "uncertain": self.reading.uncertain}
            if self.reading else None,
            "can_undo": self.can_undo,
            "can_redo": self.can_redo,
        }


class TableError(RulesError):
    """A command the table refuses (no game, nothing to undo, no roll to correct...)."""


def _parse_roll(faces: list[str]) -> Roll:
    """The roll `faces` name, read by the parser of typed and recorded rolls so that the record
    holds the one canonical text of it.

    :raises TableError: a face that is not one word naming an MLEM face.
    """
    if not all(len(face.split()) == 1 for face in faces):  # "2 2" must not become two dice
        raise TableError(f"cannot correct the roll: each face must be one word, got {faces!r}")
    try:
        action = parse_action(" ".join(("roll", *faces)))
    except InvalidActionError as exc:
        raise TableError(f"cannot correct the roll: {exc}") from exc
    assert isinstance(action, Roll)
    return action


class TableService:
    """The single writer of the game in progress."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self._queue: queue.Queue[tuple[Callable[[], Any], Future[Any]] | None] = queue.Queue()
        self._listeners: list[Listener] = []
        self._listeners_lock = threading.Lock()
        self._worker: threading.Thread | None = None
        self._game_id: int | None = None
        self._state: State | None = None
        self._reading: Reading | None = None
        self._version = 0
        self._snapshot = self._make_snapshot(())
        self._resume()

    # ------------------------------------------------------------------ lifecycle

    def start(self) -> None:
        if self._worker is None:
            self._worker = threading.Thread(target=self._run, name="table", daemon=True)
            self._worker.start()

    def stop(self) -> None:
        """Finish the queued commands, then stop the worker."""
        if self._worker is not None:
            self._queue.put(None)
            self._worker.join()
            self._worker = None

    def _run(self) -> None:
        while (item := self._queue.get()) is not None:
            command, future = item
            try:
                future.set_result(command())
            except BaseException as exc:  # handed to the caller, never lost in the thread
                future.set_exception(exc)

    def _call(self, command: Callable[[], T]) -> T:
        """Run `command` on the worker (or inline when no worker runs) and wait for it."""
        if self._worker is None or threading.current_thread() is self._worker:
            return command()
        future: Future[T] = Future()
        self._queue.put((command, future))
        return future.result()

    def _resume(self) -> None:
        stored = self.store.unfinished_game()
        if stored is None:
            return
        state = Game(GameConfig.from_json(stored.setup)).new_initial_state()
        for text in stored.actions:
            state.apply_action(text)
        self._game_id, self._state = stored.id, state
        self._publish(())
        log.info("resumed game %d after %d actions", stored.id, len(stored.actions))

    # ------------------------------------------------------------------ reading

    def snapshot(self) -> Snapshot:
        return self._snapshot

    def state_copy(self) -> State | None:
        """A private copy of the rules state (for odds, bots and tests)."""
        return self._call(lambda: self._state.clone() if self._state else None)

    def subscribe(self, listener: Listener) -> Callable[[], None]:
        """Call `listener(snapshot)` after every change; returns the unsubscribe function."""
        with self._listeners_lock:
            self._listeners.append(listener)

        def unsubscribe() -> None:
            with self._listeners_lock:
                if listener in self._listeners:
                    self._listeners.remove(listener)

        return unsubscribe

    # ------------------------------------------------------------------ commands

    def new_game(self, config: GameConfig) -> Result:
        """Start a game; an unfinished one is abandoned (it stays in the store)."""
        return self._call(lambda: self._new_game(config))

    def act(self, action: str, source: str = "api", proof: bytes | None = None) -> Result:
        """Apply one action; acknowledged only once committed."""
        return self._call(lambda: self._act(action, source, proof))

    def undo(self, steps: int = 1) -> Result:
        return self._call(lambda: self._undo(steps))

    def redo(self, steps: int = 1) -> Result:
        return self._call(lambda: self._redo(steps))

    def correct_roll(self, faces: list[str], source: str = "api") -> Result:
        """Replace the latest roll; later actions are kept while they stay legal."""
        return self._call(lambda: self._correct_roll(faces, source))

    def propose_reading(self, reading: Reading) -> Result:
        """A settled camera reading: shown for confirmation when the table waits for a roll."""
        return self._call(lambda: self._propose(reading))

    def confirm_reading(self, source: str = "button") -> Result:
        return self._call(lambda: self._confirm(source))

    def reject_reading(self) -> Result:
        def reject() -> Result:
            self._reading = None
            self._publish(())
            return Result(True)
        return self._call(reject)

    # ------------------------------------------------------------------ worker side

    def _require_state(self) -> tuple[int, State]:
        if self._state is None or self._game_id is None:
            raise TableError("no game in progress: set one up first")
        return self._game_id, self._state

    def _new_game(self, config: GameConfig) -> Result:
        try:
            state = Game(config).new_initial_state()
        except RulesError as exc:
            return Result(False, str(exc))
        self._game_id = self.store.create_game(config.to_json())
        self._state, self._reading = state, None
        events = (Event("game_started", f"New game: {', '.join(config.players)}"),)
        self._publish(events)
        return Result(True, events=events)

    def _act(self, text: str, source: str, proof: bytes | None) -> Result:
        try:
            game_id, state = self._require_state()
            action = parse_action(text)
            before = state.clone()
            state.apply_action(action)  # raises, state unchanged, on an illegal action
        except RulesError as exc:
            return Result(False, str(exc))
        try:
            seq = self.store.append(game_id, str(action), source)
        except Exception:
            self._state = before  # not committed: not acknowledged, not applied
            raise
        if proof is not None:
            self.store.save_proof(game_id, seq, proof)
        self._reading = None
        events = tuple(events_between(before, action, state))
        self._after_change(state, events)
        return Result(True, events=events)

    def _after_change(self, state: State, events: tuple[Event, ...]) -> None:
        assert self._game_id is not None
        if state.is_terminal():
            self.store.finish_game(self._game_id, {
                "scores": [s.to_json() for s in state.scores()],
                "winners": state.winners(), "end_reason": state.end_reason,
                "players": list(state.game.config.players)})
        self._publish(events)

    def _rebuild(self, texts: list[str]) -> State:
        _, state = self._require_state()
        fresh = state.game.new_initial_state()
        for text in texts:
            fresh.apply_action(text)
        return fresh

    def _undo(self, steps: int) -> Result:
        try:
            game_id, state = self._require_state()
            if not 1 <= steps <= len(state.history):
                raise TableError(f"cannot undo {steps} of {len(state.history)} actions")
        except TableError as exc:
            return Result(False, str(exc))
        was_over = state.is_terminal()
        self.store.undo(game_id, steps)
        state.undo(steps)
        if was_over:
            self.store.reopen_game(game_id)
        self._reading = None
        events = (Event("undone", f"Undone: {steps} step(s)", {"steps": steps}),)
        self._publish(events)
        return Result(True, events=events)

    def _redo(self, steps: int) -> Result:
        try:
            game_id, state = self._require_state()
            available = self.store.redoable(game_id)
            if not 1 <= steps <= len(available):
                raise TableError(f"cannot redo {steps} of {len(available)} undone actions")
        except TableError as exc:
            return Result(False, str(exc))
        for text in self.store.redo(game_id, steps):
            state.apply_action(text)
        events = (Event("redone", f"Redone: {steps} step(s)", {"steps": steps}),)
        self._after_change(state, events)
        return Result(True, events=events)

    def _correct_roll(self, faces: list[str], source: str) -> Result:
        try:
            game_id, state = self._require_state()
            roll = _parse_roll(faces)
            history = [str(a) for a in state.history]
            index = max((i for i, a in enumerate(state.history) if isinstance(a, Roll)),
                        default=None)
            if index is None:
                raise TableError("there is no roll to correct yet")
            fresh = self._rebuild(history[:index])
            fresh.apply_action(roll)
        except RulesError as exc:
            return Result(False, str(exc))
        kept = [str(roll)]
        for text in history[index + 1:]:
            try:
                fresh.apply_action(text)
            except RulesError:
                break  # what followed the misread roll no longer applies
            kept.append(text)
        self.store.replace_from(game_id, index, kept, source)
        dropped = len(history) - index - len(kept)
        self._state, self._reading = fresh, None
        events = (Event("corrected", f"Roll corrected to {' '.join(roll.faces)}"
                        + (f"; {dropped} later step(s) dropped" if dropped else ""),
                        {"faces": list(roll.faces), "dropped": dropped}),)
        self._after_change(fresh, events)
        return Result(True, events=events)

    def _propose(self, reading: Reading) -> Result:
        try:
            _, state = self._require_state()
        except TableError as exc:
            return Result(False, str(exc))
        if state.phase is not Phase.ROLL:
            return Result(False, f"not waiting for a roll: {state.expecting()}")
        self._reading = reading
        self._publish((Event("roll_seen", "Roll seen: " + " ".join(reading.faces),
                             {"faces": list(reading.faces), "uncertain": reading.uncertain}),))
        return Result(True)

    def _confirm(self, source: str) -> Result:
        if self._reading is None:
            return Result(False, "no camera reading to confirm")
        if self._reading.uncertain:
            return Result(False, "some dice are unclear: enter the roll by hand")
        reading = self._reading
        return self._act(str(Roll(reading.faces)), source, reading.proof)

    # ------------------------------------------------------------------ announcing

    def _make_snapshot(self, events: tuple[Event, ...]) -> Snapshot:
        state = self._state
        return Snapshot(
            version=self._version,
            game_id=self._game_id,
            state=observation(state, PUBLIC) if state else None,
            prompt=self._prompt(state) if state else None,
            events=events,
            reading=self._reading,
            can_undo=bool(state and state.history),
            can_redo=bool(self._game_id and self.store.redoable(self._game_id)),
            setup=state.game.config.to_json() if state else None,
        )

    def _prompt(self, state: State) -> Prompt:
        prompt = prompt_for(state, PUBLIC)
        reading = self._reading
        if reading is None or prompt.kind != "roll":
            return prompt
        faces = " ".join(reading.faces)
        again = Option("Read again", "reject", "option.read_again")
        read = {"faces": list(reading.faces)}
        if reading.uncertain:
            return Prompt(f"Roll read: {faces}. {reading.uncertain} unclear: enter it",
                          prompt.seat, (again,), "confirm_roll", "ask.confirm_roll_unclear",
                          {**read, "unclear": reading.uncertain})
        return Prompt(f"Roll read: {faces}. OK?", prompt.seat,
                      (Option("OK", "confirm", "option.confirm"), again), "confirm_roll",
                      "ask.confirm_roll", read)

    def _publish(self, events: tuple[Event, ...]) -> None:
        self._version += 1
        self._snapshot = self._make_snapshot(events)
        for event in events:
            log.info("event %s: %s", event.name, event.text)
        with self._listeners_lock:
            listeners = list(self._listeners)
        for listener in listeners:
            try:
                listener(self._snapshot)
            except Exception:  # a broken display must not stop the game
                log.exception("listener %r failed", listener)
