"""The table service: one writer, durable acknowledgements, undo/redo, corrections, resume."""

from __future__ import annotations

import random
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from companion.games.mlem import Game, GameConfig, Phase, Roll, State, normalize
from companion.store import Store
from companion.table import Reading, Snapshot, TableService

SIDES = ("1", "2", "2", "3", "4", "fuel")
CONFIG = GameConfig(players=("Anna", "Ben", "Chi"), variants=frozenset({"ufo", "exploration"}))


@pytest.fixture
def table(tmp_path: Path) -> Iterator[TableService]:
    service = TableService(Store(tmp_path / "table.db"))
    service.start()
    yield service
    service.stop()


def next_action(state: State, rng: random.Random) -> str:
    """A random legal action; rolls are thrown like real dice."""
    if state.phase is Phase.ROLL:
        return str(normalize(Roll(tuple(rng.choice(SIDES) for _ in range(state.available)))))
    return str(rng.choice(state.legal_actions()))


def play(table: TableService, steps: int, seed: int = 1) -> list[str]:
    rng = random.Random(seed)
    played = []
    for _ in range(steps):
        state = table.state_copy()
        assert state is not None
        if state.is_terminal():
            break
        action = next_action(state, rng)
        result = table.act(action, "test")
        assert result.ok, result.error
        played.append(action)
    return played


def replay(texts: list[str], config: GameConfig = CONFIG) -> State:
    state = Game(config).new_initial_state()
    for text in texts:
        state.apply_action(text)
    return state


def test_a_whole_game_is_recorded_and_equals_its_replay(table: TableService) -> None:
    assert table.new_game(CONFIG).ok
    played = play(table, 10_000)
    state = table.state_copy()
    assert state is not None and state.is_terminal()
    stored = table.store.finished_games()[0]
    assert stored.actions == played
    assert replay(stored.actions) == state
    assert stored.result is not None and stored.result["winners"] == state.winners()


def test_an_illegal_action_is_refused_with_the_reason_and_changes_nothing(
    table: TableService,
) -> None:
    table.new_game(CONFIG)
    before = table.snapshot()
    result = table.act("land M6a")
    assert not result.ok
    assert "not possible now" in (result.error or "")
    malformed = table.act("roll 1 2 6")
    assert not malformed.ok and "does not exist" in (malformed.error or "")
    assert table.snapshot() is before
    assert table.store.game(before.game_id or 0).actions == []  # type: ignore[union-attr]


def test_undo_and_redo_any_number_of_steps(table: TableService) -> None:
    table.new_game(CONFIG)
    play(table, 40)
    full = table.state_copy()
    assert table.undo(15).ok
    undone = table.state_copy()
    assert full is not None and undone is not None
    assert undone == replay([str(a) for a in full.history[:-15]])
    assert table.snapshot().can_redo
    assert table.redo(15).ok
    assert table.state_copy() == full
    assert not table.redo(1).ok


def test_undo_to_the_start_gives_the_initial_state(table: TableService) -> None:
    table.new_game(CONFIG)
    played = play(table, 25)
    assert table.undo(len(played)).ok
    assert table.state_copy() == Game(CONFIG).new_initial_state()
    assert not table.undo(1).ok


def _rolled(table: TableService) -> None:
    """A new two-player game at its first roll, 1 1 2 3 4 fuel."""
    table.new_game(GameConfig(players=("Anna", "Ben")))
    for kind in ("dice_x", "moon_x2"):
        assert table.act(f"place {kind}").ok
    assert table.act("roll 1 1 2 3 4 fuel").ok


def test_a_misread_roll_is_replaced(table: TableService) -> None:
    _rolled(table)
    result = table.correct_roll(["2", "2", "2", "3", "4", "fuel"])
    assert result.ok, result.error
    state = table.state_copy()
    assert state is not None
    assert state.roll == ("2", "2", "2", "3", "4", "fuel")
    game_id = table.snapshot().game_id or 0
    assert table.store.game(game_id).actions[-1] == "roll 2 2 2 3 4 fuel"  # type: ignore[union-attr]
    assert not table.correct_roll(["2", "6"]).ok


def test_a_correction_is_recorded_in_canonical_form(table: TableService) -> None:
    _rolled(table)
    result = table.correct_roll(["fuel", "4", "2", "3", "2", "2"])
    assert result.ok, result.error
    assert result.events[0].data["faces"] == ["2", "2", "2", "3", "4", "fuel"]
    game_id = table.snapshot().game_id or 0
    stored = table.store.game(game_id)
    assert stored is not None
    assert stored.actions[-1] == "roll 2 2 2 3 4 fuel"
    assert replay(stored.actions, GameConfig(players=("Anna", "Ben"))) == table.state_copy()


@pytest.mark.parametrize("faces", [["2", "2", "2", "3", "4", "6"], ["2 2", "2", "3", "4", "fuel"],
                                   ["", "1", "2", "3", "4", "fuel"]])
def test_an_unparseable_correction_changes_nothing(table: TableService, faces: list[str]) -> None:
    _rolled(table)
    before, version = table.state_copy(), table.snapshot().version
    result = table.correct_roll(faces)
    assert not result.ok
    assert result.error is not None and "cannot correct the roll" in result.error
    assert table.state_copy() == before
    assert table.snapshot().version == version
    stored = table.store.game(table.snapshot().game_id or 0)
    assert stored is not None and stored.actions[-1] == "roll 1 1 2 3 4 fuel"


def test_the_daemon_resumes_exactly_where_it_was(tmp_path: Path) -> None:
    first = TableService(Store(tmp_path / "t.db"))
    first.start()
    first.new_game(CONFIG)
    play(first, 60, seed=7)
    before = first.state_copy()
    first.stop()
    second = TableService(Store(tmp_path / "t.db"))
    assert second.state_copy() == before
    assert second.snapshot().prompt == first.snapshot().prompt


def test_submissions_from_many_threads_are_applied_one_at_a_time(table: TableService) -> None:
    table.new_game(GameConfig(players=("Anna", "Ben")))
    results = []

    def press(kind: str) -> None:
        results.append(table.act(f"place {kind}", "button"))

    threads = [threading.Thread(target=press, args=(kind,)) for kind in ("dice_1", "dice_1")]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert all(r.ok for r in results)  # both players had a dice_1 in supply
    state = table.state_copy()
    assert state is not None and [k for _, k in state.rocket] == ["dice_1", "dice_1"]


def test_a_camera_reading_waits_for_confirmation(table: TableService) -> None:
    table.new_game(GameConfig(players=("Anna", "Ben")))
    seen: list[Snapshot] = []
    table.subscribe(seen.append)
    table.act("place dice_x")
    table.act("place moon_x2")
    assert table.propose_reading(Reading(("1", "1", "2", "4", "fuel", "fuel"))).ok
    prompt = table.snapshot().prompt
    assert prompt is not None and prompt.title == "Roll read: 1 1 2 4 fuel fuel. OK?"
    assert table.confirm_reading().ok
    state = table.state_copy()
    assert state is not None and state.roll == ("1", "1", "2", "4", "fuel", "fuel")
    assert [e.name for e in seen[-1].events] == ["roll_read"]
    assert not table.confirm_reading().ok  # nothing pending any more


def test_an_unclear_reading_asks_for_manual_entry(table: TableService) -> None:
    table.new_game(GameConfig(players=("Anna", "Ben")))
    table.act("place dice_x")
    table.act("place moon_x2")
    table.propose_reading(Reading(("1", "2", "2", "3", "4", "fuel"), uncertain=1))
    refused = table.confirm_reading()
    assert not refused.ok and "by hand" in (refused.error or "")


def test_a_failing_listener_does_not_stop_the_game(table: TableService) -> None:
    table.new_game(GameConfig(players=("Anna", "Ben")))

    def broken(_snapshot: Snapshot) -> None:
        raise OSError("I2C bus error")

    table.subscribe(broken)
    assert table.act("place dice_x").ok
    assert table.snapshot().state is not None
