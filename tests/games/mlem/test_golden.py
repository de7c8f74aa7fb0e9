"""Golden transcript: one seeded game written out as text, committed (OpenSpiel's playthroughs).

golden/seed-34.txt has one line per action: the step, who acted, the action, and a compact summary
of the state after it. golden/seed-34.json is the same game as a game record. The test plays the
game again and compares both files, so a diff shows any change of behaviour.

After an intended rules change, regenerate and review the diff:

    MLEM_REGEN_GOLDEN=1 .venv/bin/pytest tests/games/mlem/test_golden.py

The game uses its own small sampler (not the playout tests' or the simulator's) so that changes
there do not move the golden game.
"""

from __future__ import annotations

import json
import os
import random
from pathlib import Path

from companion.games.mlem import CHANCE, Game, GameConfig, State
from companion.games.mlem.record import replay, write_record

from .helpers import random_action

GOLDEN = Path(__file__).parent / "golden"
SEED = 34
REGEN = os.environ.get("MLEM_REGEN_GOLDEN") == "1"


def golden_game() -> Game:
    return Game(GameConfig(players=("Ann", "Bob", "Cleo", "Dev"), starter=SEED % 4,
                           variants=frozenset({"ufo", "exploration", "missions"})))


def summary(state: State) -> str:
    """The state in one line: phase, rocket space, dice, crashes, who is aboard, UFO, totals."""
    rocket = " ".join(f"{seat}:{kind}" for seat, kind in state.rocket) or "-"
    goals = " ".join(f"{goal}:{seat}" for goal, seat in sorted(state.goals.items()))
    ufo = f" ufo {state.ufo_position}" if state.game.has("ufo") else ""
    totals = " ".join(str(total) for total in state.returns())
    return (f"{state.phase.value} sp {state.space} dice {state.available}/{state.removed}"
            f" crash {state.crash_count}{ufo} [{rocket}]" + (f" goals {goals}" if goals else "")
            + f" | {totals}")


def transcript() -> tuple[str, State]:
    game = golden_game()
    rng = random.Random(SEED)
    state = game.new_initial_state()
    names = game.config.players
    lines = [
        f"# MLEM golden transcript: seed {SEED}, {len(names)} players, variants"
        f" {' '.join(sorted(game.config.variants))}, board {game.board.board_id}.",
        "# Regenerate: MLEM_REGEN_GOLDEN=1 .venv/bin/pytest tests/games/mlem/test_golden.py",
        "# step, who acted, action | after it: phase, space, dice available/removed, crashes,",
        "# UFO space, rocket (seat:kind, captain first), goal owners | totals by seat",
        f"setup {json.dumps(game.config.to_json())}",
        f"     {summary(state)}",
    ]
    while not state.is_terminal():
        player = state.current_player()
        who = "chance" if player == CHANCE else f"{player}:{names[player]}"
        action = random_action(state, rng)
        state.apply_action(action)
        lines.append(f"{len(state.history):4} {who:<7} {action!s:<28} | {summary(state)}")
    lines.append(f"# end: {state.end_reason}; winners {state.winners()}")
    for seat, breakdown in enumerate(state.scores()):
        lines.append(f"# {seat}:{names[seat]} {json.dumps(breakdown.to_json())}")
    return "\n".join(lines) + "\n", state


def check_golden(name: str, text: str) -> None:
    path = GOLDEN / name
    if REGEN:
        path.parent.mkdir(exist_ok=True)
        path.write_text(text, "utf-8")
    assert path.exists(), f"{path} is missing: run with MLEM_REGEN_GOLDEN=1"
    assert path.read_text("utf-8") == text, (
        f"{name} differs from the committed golden file; if the change is intended, regenerate"
        " with MLEM_REGEN_GOLDEN=1 and review the diff"
    )


def test_golden_transcript() -> None:
    text, state = transcript()
    check_golden(f"seed-{SEED}.txt", text)
    check_golden(f"seed-{SEED}.json", write_record(state))


def test_golden_record_replays() -> None:
    """The committed record replays to the committed game's end and writes back byte for byte."""
    text = (GOLDEN / f"seed-{SEED}.json").read_text("utf-8")
    state = replay(text)
    assert state.is_terminal()
    assert write_record(state) == text
    last = (GOLDEN / f"seed-{SEED}.txt").read_text("utf-8").splitlines()
    winners = next(line for line in last if line.startswith("# end:"))
    assert winners.endswith(f"winners {state.winners()}")
