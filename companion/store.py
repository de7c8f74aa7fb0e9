"""SQLite store: game records (durable before acknowledged), undo/redo, proofs of roll, history.

The game record is the truth: a game's setup plus its ordered action texts. WAL mode with
synchronous=FULL makes every commit survive a power cut; the table acknowledges an action only
after `append` returns. Undone actions are kept (state 'undone') so that redo can bring them back
until a new action replaces them.
"""

from __future__ import annotations

import json
import sqlite3
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

SCHEMA = """
CREATE TABLE IF NOT EXISTS games (
    id INTEGER PRIMARY KEY,
    created REAL NOT NULL,
    setup TEXT NOT NULL,
    finished REAL,
    result TEXT
);
CREATE TABLE IF NOT EXISTS actions (
    game_id INTEGER NOT NULL REFERENCES games(id),
    seq INTEGER NOT NULL,
    text TEXT NOT NULL,
    source TEXT NOT NULL,
    created REAL NOT NULL,
    undone INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (game_id, seq)
);
CREATE TABLE IF NOT EXISTS proofs (
    game_id INTEGER NOT NULL,
    seq INTEGER NOT NULL,
    jpeg BLOB NOT NULL,
    created REAL NOT NULL,
    PRIMARY KEY (game_id, seq)
);
"""


@dataclass(frozen=True)
class StoredGame:
    id: int
    created: float
    setup: dict[str, Any]
    actions: list[str]
    finished: float | None
    result: dict[str, Any] | None


class Store:
    """One SQLite database; safe to share between threads (one connection, one lock)."""

    def __init__(self, path: Path | str, *, proof_limit: int = 200) -> None:
        self.path = str(path)
        self.proof_limit = proof_limit
        self._lock = threading.Lock()
        self._db = sqlite3.connect(self.path, check_same_thread=False, isolation_level=None)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA synchronous=FULL")
        self._db.executescript(SCHEMA)

    def close(self) -> None:
        with self._lock:
            self._db.close()

    @contextmanager
    def _transaction(self) -> Iterator[sqlite3.Connection]:
        with self._lock:
            self._db.execute("BEGIN IMMEDIATE")
            try:
                yield self._db
            except BaseException:
                self._db.execute("ROLLBACK")
                raise
            self._db.execute("COMMIT")

    # ------------------------------------------------------------------------------ games

    def create_game(self, setup: dict[str, Any]) -> int:
        with self._transaction() as db:
            cursor = db.execute("INSERT INTO games (created, setup) VALUES (?, ?)",
                                (time.time(), json.dumps(setup, sort_keys=True)))
            assert cursor.lastrowid is not None
            return cursor.lastrowid

    def finish_game(self, game_id: int, result: dict[str, Any]) -> None:
        with self._transaction() as db:
            db.execute("UPDATE games SET finished = ?, result = ? WHERE id = ?",
                       (time.time(), json.dumps(result, sort_keys=True), game_id))

    def reopen_game(self, game_id: int) -> None:
        """An undo out of a finished game makes it unfinished again."""
        with self._transaction() as db:
            db.execute("UPDATE games SET finished = NULL, result = NULL WHERE id = ?", (game_id,))

    def unfinished_game(self) -> StoredGame | None:
        """The most recent game not yet finished: the one to resume after a restart."""
        with self._lock:
            row = self._db.execute(
                "SELECT id FROM games WHERE finished IS NULL ORDER BY id DESC LIMIT 1"
            ).fetchone()
        return self.game(row[0]) if row else None

    def game(self, game_id: int) -> StoredGame | None:
        with self._lock:
            row = self._db.execute(
                "SELECT id, created, setup, finished, result FROM games WHERE id = ?", (game_id,)
            ).fetchone()
            if row is None:
                return None
            actions = [text for (text,) in self._db.execute(
                "SELECT text FROM actions WHERE game_id = ? AND undone = 0 ORDER BY seq",
                (game_id,))]
        return StoredGame(row[0], row[1], json.loads(row[2]), actions, row[3],
                          json.loads(row[4]) if row[4] else None)

    def finished_games(self, limit: int = 100) -> list[StoredGame]:
        with self._lock:
            ids = [gid for (gid,) in self._db.execute(
                "SELECT id FROM games WHERE finished IS NOT NULL ORDER BY id DESC LIMIT ?",
                (limit,))]
        return [g for g in (self.game(gid) for gid in ids) if g is not None]

    # ---------------------------------------------------------------------------- actions

    def append(self, game_id: int, text: str, source: str) -> int:
        """Commit one action (dropping any undone ones it replaces); returns its seq."""
        with self._transaction() as db:
            db.execute("DELETE FROM actions WHERE game_id = ? AND undone = 1", (game_id,))
            seq = self._next_seq(db, game_id)
            db.execute(
                "INSERT INTO actions (game_id, seq, text, source, created) VALUES (?, ?, ?, ?, ?)",
                (game_id, seq, text, source, time.time()),
            )
        return seq

    def undo(self, game_id: int, steps: int) -> list[str]:
        """Mark the last `steps` actions undone; returns their texts, oldest first."""
        with self._transaction() as db:
            rows = db.execute(
                "SELECT seq, text FROM actions WHERE game_id = ? AND undone = 0 "
                "ORDER BY seq DESC LIMIT ?", (game_id, steps)).fetchall()
            db.executemany("UPDATE actions SET undone = 1 WHERE game_id = ? AND seq = ?",
                           [(game_id, seq) for seq, _ in rows])
        return [text for _, text in reversed(rows)]

    def redoable(self, game_id: int) -> list[str]:
        with self._lock:
            return [text for (text,) in self._db.execute(
                "SELECT text FROM actions WHERE game_id = ? AND undone = 1 ORDER BY seq",
                (game_id,))]

    def redo(self, game_id: int, steps: int) -> list[str]:
        """Bring back the first `steps` undone actions; returns their texts."""
        with self._transaction() as db:
            rows = db.execute(
                "SELECT seq, text FROM actions WHERE game_id = ? AND undone = 1 "
                "ORDER BY seq LIMIT ?", (game_id, steps)).fetchall()
            db.executemany("UPDATE actions SET undone = 0 WHERE game_id = ? AND seq = ?",
                           [(game_id, seq) for seq, _ in rows])
        return [text for _, text in rows]

    def replace_from(self, game_id: int, index: int, texts: list[str], source: str) -> None:
        """Replace the active actions from position `index` (0-based) on, in one transaction.

        Used to correct a misread roll: the roll and whatever followed it are rewritten at once,
        so a power cut leaves either the old record or the new one.
        """
        with self._transaction() as db:
            db.execute("DELETE FROM actions WHERE game_id = ? AND undone = 1", (game_id,))
            seqs = [seq for (seq,) in db.execute(
                "SELECT seq FROM actions WHERE game_id = ? ORDER BY seq", (game_id,))]
            cut = seqs[index] if index < len(seqs) else self._next_seq(db, game_id)
            db.execute("DELETE FROM actions WHERE game_id = ? AND seq >= ?", (game_id, cut))
            db.execute("DELETE FROM proofs WHERE game_id = ? AND seq > ?", (game_id, cut))
            now = time.time()
            db.executemany(
                "INSERT INTO actions (game_id, seq, text, source, created) VALUES (?, ?, ?, ?, ?)",
                [(game_id, cut + i, text, source, now) for i, text in enumerate(texts)],
            )

    @staticmethod
    def _next_seq(db: sqlite3.Connection, game_id: int) -> int:
        (last,) = db.execute("SELECT COALESCE(MAX(seq), 0) FROM actions WHERE game_id = ?",
                             (game_id,)).fetchone()
        return int(last) + 1

    def active_seqs(self, game_id: int) -> list[int]:
        with self._lock:
            return [seq for (seq,) in self._db.execute(
                "SELECT seq FROM actions WHERE game_id = ? AND undone = 0 ORDER BY seq",
                (game_id,))]

    # ----------------------------------------------------------------------------- proofs

    def save_proof(self, game_id: int, seq: int, jpeg: bytes) -> None:
        """Keep the frame a roll was read from; only the newest `proof_limit` are kept."""
        with self._transaction() as db:
            db.execute("INSERT OR REPLACE INTO proofs (game_id, seq, jpeg, created) "
                       "VALUES (?, ?, ?, ?)", (game_id, seq, jpeg, time.time()))
            db.execute("DELETE FROM proofs WHERE rowid NOT IN (SELECT rowid FROM proofs "
                       "ORDER BY created DESC, rowid DESC LIMIT ?)", (self.proof_limit,))

    def proof(self, game_id: int, seq: int) -> bytes | None:
        with self._lock:
            row = self._db.execute("SELECT jpeg FROM proofs WHERE game_id = ? AND seq = ?",
                                   (game_id, seq)).fetchone()
        return bytes(row[0]) if row else None
