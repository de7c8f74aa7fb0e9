"""`companion simulate` and `companion transcript` from the command line, plus the narration."""

from __future__ import annotations

import json
import random

import pytest

from companion.cli import main
from companion.games.mlem import Game, GameConfig, Place, Roll
from companion.games.mlem.bots import GreedyBot
from companion.games.mlem.simulate import play_game
from companion.narrate import describe, final_report

TIMING = {"seconds", "games_per_second"}
REQUIRED = {"games", "players", "variants", "seed", "bots", "mean_expeditions", "crash_end_share",
            "mean_score", "max_score", "games_per_second", "win_share_by_bot"}


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str]:
    code = main(list(argv))
    return code, capsys.readouterr().out


def test_simulate_json_has_the_figures_and_is_reproducible(
    capsys: pytest.CaptureFixture[str],
) -> None:
    argv = ("simulate", "--games", "6", "--players", "3", "--variants", "ufo,exploration,missions",
            "--seed", "4", "--bots", "greedy,random", "--json")
    code, out = run(capsys, *argv)
    assert code == 0
    data = json.loads(out)
    assert set(data) >= REQUIRED
    assert data["games"] == 6 and data["players"] == 3
    assert data["variants"] == ["exploration", "missions", "ufo"]
    assert data["bots"] == ["greedy", "random", "greedy"]
    assert data["max_score"] >= data["mean_score"]
    _, again = run(capsys, *argv)
    strip = lambda d: {k: v for k, v in d.items() if k not in TIMING}  # noqa: E731
    assert strip(json.loads(again)) == strip(data)


def test_simulate_table(capsys: pytest.CaptureFixture[str]) -> None:
    code, out = run(capsys, "simulate", "--games", "3", "--players", "2")
    assert code == 0
    assert "expeditions per game" in out and "games per second" in out
    assert "variants" in out and "none" in out


@pytest.mark.parametrize(("argv", "message"), [
    (("--variants", "ufo,space_cats"), "unknown variants"),
    (("--players", "7"), "7 players"),
    (("--bots", "clever"), "unknown bot"),
    (("--games", "0"), "at least one game"),
])
def test_simulate_refuses_bad_setups(
    capsys: pytest.CaptureFixture[str], argv: tuple[str, ...], message: str
) -> None:
    code, out = run(capsys, "simulate", "--games", "2", *argv)
    assert code == 2
    assert message in out


def test_transcript_tells_a_whole_game(capsys: pytest.CaptureFixture[str]) -> None:
    code, out = run(capsys, "transcript", "--seed", "3", "--players", "3")
    assert code == 0
    assert out.startswith("MLEM: Space Agency, simulated game (seed 3)")
    assert "== Expedition 1:" in out and " rolls " in out and " moves " in out
    assert "Game over:" in out and "Final score" in out and "Winner" in out
    _, again = run(capsys, "transcript", "--seed", "3", "--players", "3")
    assert again == out


def test_run_is_the_default_command(monkeypatch: pytest.MonkeyPatch) -> None:
    """A bare `companion` is `companion run` (the demo off a Pi), which serves until stopped."""
    from companion.commands import run as run_module

    seen: list[str] = []
    monkeypatch.setattr(run_module, "run_command", lambda args: seen.append(args.command) or 0)
    assert main([]) == 0
    assert seen == ["run"]


def test_transcript_json_is_the_final_state(capsys: pytest.CaptureFixture[str]) -> None:
    code, out = run(capsys, "transcript", "--seed", "2", "--json", "--variants", "none")
    assert code == 0
    data = json.loads(out)
    assert data["phase"] == "game_over" and data["winners"] and data["end_reason"]
    assert data["ufo"] is None


def test_transcript_refuses_bad_players(capsys: pytest.CaptureFixture[str]) -> None:
    code, out = run(capsys, "transcript", "--players", "1")
    assert code == 2 and "1 players" in out


def test_describe_roll_move_and_crash() -> None:
    state = Game(GameConfig(players=("Blue", "Red"))).new_initial_state()
    assert describe(state, Place("satellite")) == "Blue puts satellite aboard as captain."
    state.apply_action("place satellite")
    assert "starts the rocket on space 3" in describe(state, Place("moon_x2"))
    state.apply_action("place moon_x2")
    crash = describe(state, Roll(("1", "1", "3", "3", "fuel", "fuel")))  # space 3: 2 and 4
    assert "rolls 1 1 3 3 fuel fuel on space 3 (2, 4; crash chance 2%): nothing usable." in crash
    assert "CRASH 1/11" in crash and "Expedition 1 is over." in crash
    state.apply_action("roll 1 2 2 3 4 fuel")
    text = describe(state, state.legal_actions()[-1])
    assert text == "Blue moves 8 with 2 + 2 + 4: space 3 -> 11; dice 6 -> 3."


def test_describe_every_action_of_a_game() -> None:
    """No action makes the narrator fail or say nothing, and the report names the winner."""
    game = Game(GameConfig(players=("Blue", "Red", "Green"),
                           variants=frozenset({"ufo", "exploration", "missions"})))
    told: list[str] = []
    final = play_game(game, [GreedyBot()] * 3, random.Random(8),
                      lambda state, action: told.append(describe(state, action)))
    assert len(told) == len(final.history) and all(told)
    assert any("lands on" in line for line in told)
    report = final_report(final)
    assert len(report) == 1 + 3 + 1 and report[-1].startswith("Winner")
