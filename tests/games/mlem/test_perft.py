"""Perft for MLEM: legal-action counts of fixed positions, from data files (python-chess's idea).

Each entry in perft/*.txt is a position given as a record prefix (setup plus actions) and the
number of legal actions there; the file's header documents the format. A change in the rules'
move generation shows up as a count that no longer matches.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from companion.games.mlem import Move, State
from companion.games.mlem.record import dump_record, replay
from companion.games.mlem.state import Phase

PERFT_DIR = Path(__file__).parent / "perft"


@dataclass
class Entry:
    """One position and what must hold there."""

    file: str
    line: int
    id: str
    setup: dict[str, Any]
    actions: list[str] = field(default_factory=list)
    phase: str | None = None
    legal: int | None = None
    distances: int | None = None
    expect: list[str] | None = None


def parse_perft(path: Path) -> list[Entry]:
    """Read a perft file; `setup` applies to every later entry until the next `setup` line."""
    entries: list[Entry] = []
    setup: dict[str, Any] = {}
    for number, raw in enumerate(path.read_text("utf-8").splitlines(), start=1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        key, _, value = line.partition(" ")
        value = value.strip()
        if key == "setup":
            setup = json.loads(value)
        elif key == "id":
            entries.append(Entry(path.name, number, value, setup))
        elif not entries:
            raise ValueError(f"{path.name}:{number}: {key!r} before the first id")
        elif key == "actions":
            entries[-1].actions = [a.strip() for a in value.split(";") if a.strip()]
        elif key == "phase":
            entries[-1].phase = value
        elif key in ("legal", "distances"):
            setattr(entries[-1], key, int(value))
        elif key == "expect":
            entries[-1].expect = [a.strip() for a in value.split("|")]
        else:
            raise ValueError(f"{path.name}:{number}: unknown field {key!r}")
    return entries


def position(entry: Entry) -> State:
    """Replay the entry's setup and actions through the record reader (as the table would)."""
    text = json.dumps({"format": "mlem-game-record", "version": 1, "setup": entry.setup,
                       "actions": entry.actions}, indent=1)
    return replay(text)


def distinct_distances(state: State) -> int:
    context = state.travel_context()
    return len({context.distance(a) for a in state.legal_actions() if isinstance(a, Move)})


ENTRIES = [entry for path in sorted(PERFT_DIR.glob("*.txt")) for entry in parse_perft(path)]


def test_enough_entries() -> None:
    assert len(ENTRIES) >= 30
    ids = [entry.id for entry in ENTRIES]
    assert len(set(ids)) == len(ids), "perft ids must be unique"
    assert all(entry.legal is not None for entry in ENTRIES)


@pytest.mark.parametrize("entry", ENTRIES, ids=[entry.id for entry in ENTRIES])
def test_perft(entry: Entry) -> None:
    state = position(entry)
    where = f"{entry.file}:{entry.line} {entry.id}"
    if entry.phase is not None:
        assert state.phase.value == entry.phase, f"{where}: {state}"
    legal = state.legal_actions()
    assert len(legal) == entry.legal, f"{where}: {[str(a) for a in legal]}"
    if entry.distances is not None:
        assert state.phase is Phase.CHOOSE
        assert distinct_distances(state) == entry.distances, where
    if entry.expect is not None:
        assert [str(a) for a in legal] == entry.expect, where
    # the position itself round-trips through the canonical record
    assert replay(dump_record(state.game, state.history)) == state
