"""What each seat may see (observation.py): a seat its own missions, the table none until the end.

Hand-built positions for each rule, then random playouts: at every step of every game, no viewer's
observation names a mission token of another seat's hand, and the owner's always does (a few
games in the fast run, a couple of hundred with `-m slow`).
"""

from __future__ import annotations

import json
import random

import pytest

from companion.games.mlem import Game, GameConfig, State
from companion.games.mlem.observation import (
    PUBLIC,
    MissionSlot,
    hand,
    observation,
    sees_decision,
)
from companion.games.mlem.state import Phase

from .helpers import make_board, make_tokens, new_state, play, random_action, reach, seat, takeoff

FAST_GAMES = 8
SLOW_GAMES = 100


def dealt_state() -> State:
    """Blue holds S0-S3 (P1, P2, P3, P4), Red S4-S7 (P5, P3, P4, P5); Blue discards first."""
    board = make_board({7: {"planet": "P1"}, 8: {"planet": "P2"}})
    targets = ["P1", "P2", "P3", "P4", "P5", "P3", "P4", "P5"]
    tokens = make_tokens(board, missions=[{"id": f"S{n}", "target": t}
                                          for n, t in enumerate(targets)])
    state = new_state(board, tokens=tokens, variants=("missions",))
    for n in range(8):
        play(state, f"draw S{n}")
    return state


def test_a_seat_sees_its_own_hand_and_only_how_many_the_others_hold() -> None:
    state = dealt_state()
    blue, red = seat(state, "Blue"), seat(state, "Red")
    assert hand(state, blue, blue) == (MissionSlot(1, "S0", "P1"), MissionSlot(2, "S1", "P2"),
                                       MissionSlot(3, "S2", "P3"), MissionSlot(4, "S3", "P4"))
    assert hand(state, red, blue) == tuple(MissionSlot(n, None, None) for n in range(1, 5))
    assert hand(state, PUBLIC, red) == tuple(MissionSlot(n, None, None) for n in range(1, 5))
    seen = observation(state, red)["missions"]
    assert [m["token"] for m in seen[red]] == ["S4", "S5", "S6", "S7"]
    assert [m["token"] for m in seen[blue]] == [None] * 4
    assert all(m["token"] is None for hand_ in observation(state, PUBLIC)["missions"]
               for m in hand_)


def test_only_the_discarding_player_sees_the_discards() -> None:
    state = dealt_state()
    blue, red = seat(state, "Blue"), seat(state, "Red")
    assert state.phase is Phase.DISCARD_MISSION and state.current_player() == blue
    assert observation(state, blue)["legal_actions"] == [f"discard S{n}" for n in range(4)]
    assert observation(state, red)["legal_actions"] == []
    assert observation(state, PUBLIC)["legal_actions"] == []
    play(state, "discard S0")
    assert [m.slot for m in hand(state, blue, blue)] == [1, 2, 3], "slots close up"
    assert sees_decision(state, red) and not sees_decision(state, blue)


def test_nobody_sees_the_deal() -> None:
    state = dealt_state()
    state.undo(3)
    assert state.phase is Phase.DEAL_MISSIONS
    for viewer in (PUBLIC, 0, 1):
        assert not sees_decision(state, viewer)
        assert observation(state, viewer)["legal_actions"] == []
    assert [len(h) for h in observation(state, PUBLIC)["missions"]] == [4, 1]


def test_mission_points_are_the_owners_until_the_end() -> None:
    """Blue keeps the P2 mission and lands there: Red and the table see no mission points."""
    state = dealt_state()
    blue, red = seat(state, "Blue"), seat(state, "Red")
    play(state, "discard S0", "discard S5")
    takeoff(state, "moon_x2", "planet_x2")
    reach(state, 8)
    play(state, "land P2")
    assert state.scores()[blue].missions == 2
    own = observation(state, blue)["players"][blue]["score"]
    assert own["missions"] == 2 and own["total"] == state.returns()[blue]
    for viewer in (red, PUBLIC):
        theirs = observation(state, viewer)["players"][blue]["score"]
        assert theirs["missions"] is None and theirs["total"] == state.returns()[blue] - 2
    assert observation(state, PUBLIC)["players"][red]["score"]["missions"] is None


def test_the_kept_missions_are_turned_up_at_the_end() -> None:
    game = Game(GameConfig(players=("Anna", "Ben", "Chi"), variants=frozenset({"missions"})))
    rng = random.Random(3)
    state = game.new_initial_state()
    while not state.is_terminal():
        state.apply_action(random_action(state, rng))
    public = observation(state, PUBLIC)
    for owner in range(3):
        kept = [m["token"] for m in public["missions"][owner]]
        assert kept == state.mission_hands[owner] and len(kept) == 3
        assert public["players"][owner]["score"]["missions"] is not None


def test_without_the_variant_there_are_no_missions() -> None:
    state = new_state()
    assert observation(state, PUBLIC)["missions"] is None
    assert observation(state, PUBLIC) == {**state.to_json(), "missions": None}


def check_game(n: int) -> int:
    """Play seeded random game `n` (2-5 players, missions, UFO and exploration every other game);
    at every step, for every viewer, the JSON names the viewer's own mission tokens and none of
    another seat's, until the game is over. Returns the number of (viewer, hand) checks."""
    rng = random.Random(n)
    players = tuple("ABCDE"[: 2 + n % 4])
    variants = frozenset({"missions"} | ({"ufo", "exploration"} if n % 2 else set()))
    state = Game(GameConfig(players=players, variants=variants)).new_initial_state()
    checked = 0
    while True:
        over = state.is_terminal()
        for viewer in (PUBLIC, *range(len(players))):
            text = json.dumps(observation(state, viewer))
            for owner, tokens in enumerate(state.mission_hands):
                shown = {t for t in tokens if f'"{t}"' in text}
                assert shown == (set(tokens) if viewer == owner or over else set()), (
                    n, state.phase, viewer, owner)
                checked += 1
        if over:
            return checked
        state.apply_action(random_action(state, rng))


def test_random_games_never_show_a_seat_another_seats_missions() -> None:
    assert sum(check_game(n) for n in range(FAST_GAMES)) > 1000


@pytest.mark.slow
def test_random_games_never_show_a_seat_another_seats_missions_slow() -> None:
    for n in range(FAST_GAMES, SLOW_GAMES):
        check_game(n)
