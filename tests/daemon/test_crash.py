"""Crash safety: `kill -9` an autoplay daemon at random points, restart it on the same store.

The child prints every action the table acknowledged (after it returned ok, i.e. after the
commit). After each kill the parent checks that every acknowledged action is in the store, in
order, and that the state a restarted table resumes equals replaying the stored record.
"""

from __future__ import annotations

import json
import os
import queue
import random
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from companion.store import Store
from companion.table import TableService

from .conftest import replay

ROOT = Path(__file__).resolve().parents[2]


class Child:
    """One autoplay process and the record it acknowledged."""

    def __init__(self, store: Path, seed: int) -> None:
        env = {**os.environ, "PYTHONUNBUFFERED": "1", "MLEM_LOG_LEVEL": "error"}
        self.stderr = (store.parent / "child.err").open("a")
        self.process = subprocess.Popen(
            [sys.executable, "-m", "companion.commands.run", "demo", "--autoplay",
             "--players", "3", "--seed", str(seed), "--store", str(store), "--print-acks",
             "--json", "--fps", "60"],
            cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=self.stderr, text=True)
        self.lines: queue.Queue[str | None] = queue.Queue()
        threading.Thread(target=self._pump, daemon=True).start()

    def _pump(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            self.lines.put(line.rstrip("\n"))
        self.lines.put(None)


class Record:
    """The acknowledged record rebuilt from GAME / ACK / CUT lines."""

    def __init__(self) -> None:
        self.game_id: int | None = None
        self.actions: list[str] = []
        self.summary: dict[str, object] | None = None

    def feed(self, line: str) -> None:
        word, _, rest = line.partition(" ")
        if word == "GAME":
            if int(rest) != self.game_id:
                self.game_id, self.actions = int(rest), []
        elif word == "ACK":
            index, _, text = rest.partition(" ")
            del self.actions[int(index):]
            self.actions.append(text)
        elif word == "CUT":
            del self.actions[int(rest):]
        elif line.startswith("{"):
            self.summary = json.loads(line)


def run_until(child: Child, record: Record, deadline: float) -> bool:
    """Read lines until `deadline`; True if the child ended by itself."""
    while True:
        timeout = deadline - time.monotonic()
        if timeout <= 0:
            return False
        try:
            line = child.lines.get(timeout=timeout)
        except queue.Empty:
            return False
        if line is None:
            child.process.wait(10)
            return True
        record.feed(line)


def wait_until_playing(child: Child, record: Record, timeout: float = 60) -> None:
    """Start the kill clock once the game is under way (start-up calibrates the dice first)."""
    deadline = time.monotonic() + timeout
    while True:
        line = child.lines.get(timeout=max(0.0, deadline - time.monotonic()))
        assert line is not None, "the child ended before its game started"
        record.feed(line)
        if line.startswith("GAME"):
            return


def check_store(path: Path, record: Record) -> None:
    store = Store(path)
    try:
        if record.game_id is None:
            return
        stored = store.game(record.game_id)
        assert stored is not None
        assert stored.actions[:len(record.actions)] == record.actions, (
            f"acknowledged {len(record.actions)} actions, the store has {len(stored.actions)}")
        table = TableService(store)  # what a restart does: resume by replay
        resumed = table.state_copy()
        if stored.finished is None:
            assert resumed is not None and resumed == replay(stored.setup, stored.actions)
        else:
            assert replay(stored.setup, stored.actions).is_terminal()
    finally:
        store.close()


def kill_and_restart(tmp_path: Path, kills: int, seed: int, finish: bool) -> Record:
    rng = random.Random(seed)
    path = tmp_path / "crash.db"
    record = Record()
    for _ in range(kills):
        child = Child(path, seed)
        wait_until_playing(child, record)
        ended = run_until(child, record, time.monotonic() + rng.uniform(1.5, 4.5))
        if ended:
            break
        child.process.send_signal(signal.SIGKILL)
        child.process.wait(10)
        while (line := child.lines.get(timeout=10)) is not None:
            record.feed(line)  # lines already written before the kill count as acknowledged
        check_store(path, record)
    if finish:
        child = Child(path, seed)
        assert run_until(child, record, time.monotonic() + 240), "the resumed game did not end"
        assert child.process.returncode == 0
        check_store(path, record)
        assert record.summary is not None
    return record


def test_a_few_kills_lose_nothing_acknowledged(tmp_path: Path) -> None:
    record = kill_and_restart(tmp_path, kills=2, seed=11, finish=False)
    assert record.game_id is not None and record.actions


@pytest.mark.slow
def test_many_kills_then_the_game_finishes(tmp_path: Path) -> None:
    record = kill_and_restart(tmp_path, kills=15, seed=7, finish=True)
    assert record.summary is not None
    store = Store(tmp_path / "crash.db")
    try:
        assert record.game_id is not None
        stored = store.game(record.game_id)
        assert stored is not None and stored.finished is not None
        final = replay(stored.setup, stored.actions)
        assert final.is_terminal()
        scores = dict(zip(final.game.config.players, final.returns(), strict=True))
        assert record.summary["scores"] == scores
        assert record.actions == stored.actions
    finally:
        store.close()
