"""`companion replay FILE [--json]`: the report, the JSON view, refusals with line and reason."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from companion.cli import main
from companion.games.mlem import Game, GameConfig
from companion.games.mlem.record import write_record

GOLDEN = Path(__file__).parents[1] / "games" / "mlem" / "golden" / "seed-34.json"


@pytest.fixture
def finished(tmp_path: Path) -> Path:
    path = tmp_path / "game.json"
    path.write_text(GOLDEN.read_text("utf-8"), "utf-8")
    return path


@pytest.fixture
def mid_game(tmp_path: Path) -> Path:
    """Ann (dice_1) and Bob (plus_minus_1) on space 6 after six fuel: Ann decides to land."""
    state = Game(GameConfig(players=("Ann", "Bob"))).new_initial_state()
    for action in ("place dice_1", "place plus_minus_1", "roll fuel fuel fuel fuel fuel fuel",
                   "move fuel fuel fuel fuel fuel fuel", "land M6a"):
        state.apply_action(action)
    path = tmp_path / "mid.json"
    path.write_text(write_record(state), "utf-8")
    return path


def test_finished_game_report(finished: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["replay", str(finished)]) == 0
    out = capsys.readouterr().out
    for words in ("MLEM game: 4 players (Ann, Bob, Cleo, Dev)", "244 actions replayed",
                  "Rocket     space", "Crashes    ", "Aboard     nobody", "Moons      ",
                  "Planets    P1:", "Deep space comet:", "Goals      planets",
                  "UFO        on space", "Exploration ", "Scores", "moons", "total",
                  "Game over", "Winner"):
        assert words in out, words
    assert "Waiting for" not in out


def test_finished_game_json(finished: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["replay", str(finished), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["phase"] == "game_over"
    assert data["winners"]
    assert data["record"] == {"format": "mlem-game-record", "version": 1,
                              "board_id": "mlem-reconstruction-v0", "actions": 244,
                              "finished": True}
    assert set(data["players"][0]["score"]) >= {"moons", "planets", "goals", "total"}


def test_mid_game_shows_the_pending_decision(
    mid_game: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["replay", str(mid_game)]) == 0
    out = capsys.readouterr().out
    assert "Rocket     space 6 of 25" in out
    assert "Dice       6 available, 0 spent" in out
    assert "Aboard     1. Bob (plus_minus_1, captain)" in out
    assert "Moons      M6a Ann (20 free)" in out
    assert "Waiting for Bob to land or stay" in out
    assert "Options    land M6b | land P1 | stay" in out
    assert "Winner" not in out


def test_mid_game_json(mid_game: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["replay", str(mid_game), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["phase"] == "landing"
    assert data["moons"] == {"M6a": 0}
    assert data["rocket"] == [{"seat": 1, "kind": "plus_minus_1"}]
    assert data["legal_actions"] == ["land M6b", "land P1", "stay"]
    assert data["winners"] == []
    assert data["record"]["finished"] is False


def test_until(mid_game: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["replay", str(mid_game), "--until", "2", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["phase"] == "roll" and data["record"]["actions"] == 2


def test_stdin(mid_game: Path, capsys: pytest.CaptureFixture[str],
               monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("sys.stdin", io.StringIO(mid_game.read_text("utf-8")))
    assert main(["replay", "-"]) == 0
    assert "Waiting for Bob" in capsys.readouterr().out


def test_malformed_json(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "bad.json"
    path.write_text('{\n "format": "mlem-game-record",\n "version": 1,\n "setup": {\n', "utf-8")
    assert main(["replay", str(path)]) == 1
    err = capsys.readouterr().err
    assert f"{path}: line 5: not JSON" in err


def test_illegal_action(mid_game: Path, capsys: pytest.CaptureFixture[str]) -> None:
    text = mid_game.read_text("utf-8").replace('"land M6a"', '"land M8"')
    mid_game.write_text(text, "utf-8")
    assert main(["replay", str(mid_game)]) == 1
    captured = capsys.readouterr()
    assert captured.out == ""
    assert "line 19: action 5 'land M8' is illegal" in captured.err
    assert "cannot land on M8 now (possible: M6a)" in captured.err


def test_illegal_action_json(mid_game: Path, capsys: pytest.CaptureFixture[str]) -> None:
    text = mid_game.read_text("utf-8").replace('"place plus_minus_1"', '"place robot"')
    mid_game.write_text(text, "utf-8")
    assert main(["replay", str(mid_game), "--json"]) == 1
    captured = capsys.readouterr()
    error = json.loads(captured.out)["error"]
    assert error["line"] == 16
    assert "no robot in this player's supply" in error["reason"]
    assert "line 16" in captured.err


def test_missing_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["replay", str(tmp_path / "nothing.json")]) == 1
    assert "cannot read" in capsys.readouterr().err


@pytest.mark.parametrize(("key", "folder"), [("board", "boards"), ("tokens", "tokens")])
def test_a_board_or_token_file_that_is_not_utf8(
        mid_game: Path, tmp_path: Path, key: str, folder: str,
        capsys: pytest.CaptureFixture[str]) -> None:
    latin1 = tmp_path / f"{key}.toml"
    shipped = Path(__file__).parents[2] / "companion" / "games" / "mlem" / folder
    latin1.write_bytes("# Café\n".encode("latin-1")
                       + (shipped / "reconstruction.toml").read_bytes())
    record = json.loads(mid_game.read_text("utf-8"))
    record["setup"].update({key: str(latin1), "variants": ["ufo"]})
    mid_game.write_text(json.dumps(record, indent=1), "utf-8")
    assert main(["replay", str(mid_game)]) == 1
    captured = capsys.readouterr()
    assert captured.out == ""
    lines = captured.err.splitlines()
    assert len(lines) == 1 and f"{key}.toml: not UTF-8 text" in lines[0], lines
    assert lines[0].startswith(f"{mid_game}: line ")
