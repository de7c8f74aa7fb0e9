"""The SQLite store: durable appends, undo/redo bookkeeping, atomic replacement, proofs."""

from __future__ import annotations

from pathlib import Path

from companion.store import Store


def test_actions_survive_reopening(tmp_path: Path) -> None:
    path = tmp_path / "games.db"
    store = Store(path)
    game = store.create_game({"players": ["A", "B"]})
    for text in ("place satellite", "place dice_1", "roll 1 2 2 3 4 fuel"):
        store.append(game, text, "test")
    store.close()
    reopened = Store(path).unfinished_game()
    assert reopened is not None
    assert reopened.id == game
    assert reopened.setup == {"players": ["A", "B"]}
    assert reopened.actions == ["place satellite", "place dice_1", "roll 1 2 2 3 4 fuel"]


def test_undo_redo_and_a_new_action_clears_redo(tmp_path: Path) -> None:
    store = Store(tmp_path / "g.db")
    game = store.create_game({})
    for text in ("a", "b", "c"):
        store.append(game, text, "test")
    assert store.undo(game, 2) == ["b", "c"]
    assert store.game(game).actions == ["a"]  # type: ignore[union-attr]
    assert store.redo(game, 1) == ["b"]
    assert store.redoable(game) == ["c"]
    store.append(game, "d", "test")
    assert store.redoable(game) == []
    assert store.game(game).actions == ["a", "b", "d"]  # type: ignore[union-attr]


def test_replace_from_rewrites_the_tail(tmp_path: Path) -> None:
    store = Store(tmp_path / "g.db")
    game = store.create_game({})
    for text in ("a", "b", "c", "d"):
        store.append(game, text, "test")
    store.replace_from(game, 1, ["B", "C"], "fix")
    assert store.game(game).actions == ["a", "B", "C"]  # type: ignore[union-attr]
    assert store.active_seqs(game) == [1, 2, 3]


def test_finished_games_leave_the_resume_slot(tmp_path: Path) -> None:
    store = Store(tmp_path / "g.db")
    first = store.create_game({"n": 1})
    store.finish_game(first, {"winners": [0]})
    assert store.unfinished_game() is None
    assert [g.result for g in store.finished_games()] == [{"winners": [0]}]
    store.reopen_game(first)
    assert store.unfinished_game() is not None


def test_proofs_are_kept_up_to_the_limit(tmp_path: Path) -> None:
    store = Store(tmp_path / "g.db", proof_limit=3)
    game = store.create_game({})
    for seq in range(1, 6):
        store.save_proof(game, seq, bytes([seq]))
    assert [store.proof(game, seq) for seq in range(1, 6)] == [
        None, None, bytes([3]), bytes([4]), bytes([5])]
