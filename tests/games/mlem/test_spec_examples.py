"""The worked examples of MLEM-SPEC.md section 9 (TC-01 .. TC-39), one test function (or more) each.

Seating is clockwise Blue, Red, Green, Yellow; only the players a TC names take part. Space data is
given inline (small boards from `helpers.make_board`), and every position is reached through real
actions unless a comment says otherwise.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pytest

from companion.games.mlem import (
    BoardError,
    IllegalActionError,
    InvalidActionError,
    Move,
    Phase,
    Roll,
    ScoreBreakdown,
    State,
    load_board,
    parse_board,
)
from companion.games.mlem.landing import landing_targets
from companion.games.mlem.scoring import (
    MISSION_POINTS,
    Placement,
    missions_completed,
    planet_awards,
    winners,
)

from .helpers import (
    assert_refused,
    board_dict,
    crash_expedition,
    crash_now,
    expedition,
    legal,
    make_board,
    make_tokens,
    new_state,
    play,
    reach,
    seat,
    takeoff,
)

# ----------------------------------------------------------------------------- travel: TC-01..05


def _tc01_state() -> State:
    state = new_state(players="Blue Red")  # space 0: {1, 2, fuel}, fuel value 1
    takeoff(state, "moon_x2", "planet_x2")
    assert (state.available, state.removed) == (6, 0)
    play(state, "roll fuel fuel 1 1 2 4")
    return state


def test_tc01_groups_and_fuel_value() -> None:
    """TC-01: faces {fuel,1,2}, fuel 1, 6/0, roll [fuel,fuel,1,1,2,4]: units fuel x2 (2/0),
    1 x2 (2/2), 2 x1 (2/1); the 4 is unusable; no crash; exactly 7 moves; {fuel,2} moves 4 and
    leaves 5/1 with the 4-die and both 1-dice still available."""
    state = _tc01_state()
    assert state.phase is Phase.CHOOSE
    context = state.travel_context()
    assert context.groups == {"1": 2, "2": 1, "fuel": 2}  # no 4-group: face not allowed
    moves = {}
    for action in state.legal_actions():
        assert isinstance(action, Move)
        moves[str(action)] = (context.distance(action), context.dice_consumed(action))
    assert moves == {
        "move fuel fuel": (2, 0),
        "move 1 1": (2, 2),
        "move 2": (2, 1),
        "move 1 1 fuel fuel": (4, 2),
        "move 2 fuel fuel": (4, 1),
        "move 1 1 2": (4, 3),
        "move 1 1 2 fuel fuel": (6, 3),
    }
    play(state, "move fuel 2 fuel")  # any order of the words
    assert state.space == 4
    assert (state.available, state.removed) == (5, 1)
    assert state.phase is Phase.ROLL  # below 6: no landing phase, roll again
    # the 4-die and both 1-dice are still among the 5 available dice: a roll of 5 is expected
    assert_refused(state, "roll 1 1 4 fuel fuel fuel", "6 dice, but 5", InvalidActionError)


def test_tc02_whole_groups() -> None:
    """TC-02: with TC-01's roll, a move that uses one of the two 1s is rejected."""
    state = _tc01_state()
    assert_refused(state, "move 1", "whole groups only: the roll has 2 x 1, the move uses 1")
    assert_refused(state, "move 1 2 fuel fuel", "whole groups")
    assert_refused(state, "move 1 1 2 fuel", "whole groups")
    assert_refused(state, "move 4", "not allowed on space 0")
    assert_refused(state, "move 3", "not allowed")


def test_tc03_no_pass() -> None:
    """TC-03: with TC-01's roll, an empty move is rejected (and so is declaring a crash)."""
    state = _tc01_state()
    assert_refused(state, "move", "at least one group")
    assert_refused(state, "crash", "a move is mandatory")
    assert "crash" not in legal(state)


def test_tc04_fuel_value_3() -> None:
    """TC-04: faces {3,fuel}, fuel 3, av 3; roll [fuel,fuel,2], choose {fuel}: the rocket moves
    6 and av stays 3."""
    state = new_state(make_board({3: {"faces": ["3", "fuel"], "fuel": 3}}))
    takeoff(state, "moon_x2", "planet_x2")
    reach(state, 3, available=3)
    assert state.available == 3
    play(state, "roll fuel fuel 2")
    assert legal(state) == {"move fuel fuel"}
    play(state, "move fuel fuel")
    assert state.space == 9
    assert (state.available, state.removed) == (3, 3)


def test_tc05_last_die_returns() -> None:
    """TC-05: faces {2,4}, av/rm 2/4, roll [2,2], choose {2} (value 4): av/rm is 1/5."""
    state = new_state(make_board({4: {"faces": ["2", "4"]}}))
    takeoff(state, "moon_x2", "planet_x2")
    reach(state, 4, available=2)
    assert (state.available, state.removed) == (2, 4)
    play(state, "roll 2 2")
    assert legal(state) == {"move 2 2"}
    play(state, "move 2 2")
    assert state.space == 8
    assert (state.available, state.removed) == (1, 5)


# ------------------------------------------------------------------------------ crash: TC-06


def test_tc06_crash() -> None:
    """TC-06: 4 players, Red started, Green captain (Red and Blue on the mat), Yellow aboard,
    faces {3,4}, crash_count 3; roll [1,2,2,fuel]: crash_count 4, Green and Yellow return
    unscored, no landing phase, the next starter is Green (left of Red), not Blue."""
    board = make_board({8: {"faces": ["3", "4"], "planet": "P3"}})
    state = new_state(board, players="Blue Red Green Yellow", starter="Green")
    blue, red, green, yellow = (seat(state, n) for n in ("Blue", "Red", "Green", "Yellow"))
    for _ in range(3):  # Green, Yellow and Blue start and crash: crash_count 3
        crash_expedition(state)
    assert state.crash_count == 3
    assert state.starter == red
    takeoff(state, "moon_x2", "moon_x2", "moon_x2", "moon_x2")
    assert [s for s, _ in state.rocket] == [red, green, yellow, blue]
    reach(state, 8, available=4)
    play(state, "land P3", "stay", "stay", "land P3")  # Red, Green, Yellow, Blue
    assert state.captain == green
    assert [s for s, _ in state.rocket] == [green, yellow]
    assert state.phase is Phase.ROLL
    placements = list(state.placements)
    play(state, "roll 1 2 2 fuel")
    assert state.crash_count == 4
    assert state.placements == placements  # nobody landed
    for player in (green, yellow):
        assert sum(state.supply[player].values()) == 8  # back in supply
        assert state.scores()[player].total == 0
    assert state.phase is Phase.PLACE  # no landing phase: the next takeoff
    assert state.starter == green
    assert state.current_player() == green


# ----------------------------------------------------------------------- dice-1: TC-07..TC-10


def _tc07_state(**rules: Any) -> State:
    state = new_state(make_board({3: {"faces": ["1", "4"]}}), **rules)
    takeoff(state, "moon_x2", "dice_1")  # Blue captain, Red's dice-1 aboard
    reach(state, 3, available=3)
    play(state, "roll 2 3 fuel")
    return state


def test_tc07_dice1_prevents_the_crash() -> None:
    """TC-07: faces {1,4}, Red's dice_1 unused, av 3, roll [2,3,fuel]: no automatic crash; the
    only move is {Red dice-1}, value 1; taking it moves 1, av stays 3 and flips Red's token.
    If the captain declines, the rocket crashes."""
    state = _tc07_state()
    red = seat(state, "Red")
    assert state.phase is Phase.CHOOSE
    assert state.crash_count == 0
    assert legal(state) == {f"move dice1:{red}", "crash"}
    declined = state.clone()
    play(state, f"move dice1:{red}")
    assert state.space == 4
    assert (state.available, state.removed) == (3, 3)
    assert red in state.dice1_used
    # declining: the crash
    play(declined, "crash")
    assert declined.crash_count == 1
    assert declined.phase is Phase.PLACE
    assert declined.starter == red


def test_tc07_ability_units_mandatory_option() -> None:
    """TC-07 / A2 with ability_units_optional=false: the dice-1 unit must be used."""
    state = _tc07_state(ability_units_optional=False)
    red = seat(state, "Red")
    assert legal(state) == {f"move dice1:{red}"}
    assert_refused(state, "crash", "ability units must be used")


def test_tc08_dice1_needs_face_1() -> None:
    """TC-08: faces {3,4}, an unused dice_1 aboard, av 2, roll [1,2]: the rocket crashes."""
    state = new_state(make_board({4: {"faces": ["3", "4"]}}))
    takeoff(state, "moon_x2", "dice_1")
    reach(state, 4, available=2)
    assert state.travel_context().dice1_seats == ()  # 1 is not allowed here
    play(state, "roll 1 2")
    assert state.crash_count == 1
    assert state.phase is Phase.PLACE


def test_tc09_several_dice1() -> None:
    """TC-09: faces {1,2}, Red's and Blue's dice_1 unused, av 2, roll [1,3]: legal moves include
    {1-group} 1/1, {Red} 1/0, {1-group, Red, Blue} 3/1; the last flips both and leaves av 1."""
    state = new_state(make_board({4: {"faces": ["1", "2"]}}))
    blue, red = seat(state, "Blue"), seat(state, "Red")
    takeoff(state, "dice_1", "dice_1")
    reach(state, 4, available=2)
    play(state, "roll 1 3")
    context = state.travel_context()
    moves = {str(a): a for a in state.legal_actions()}
    expected = {
        "move 1": (1, 1),
        f"move dice1:{red}": (1, 0),
        f"move 1 dice1:{blue} dice1:{red}": (3, 1),
    }
    for text, (distance, consumed) in expected.items():
        move = moves[text]
        assert isinstance(move, Move)
        assert (context.distance(move), context.dice_consumed(move)) == (distance, consumed)
    assert "crash" not in moves
    play(state, f"move 1 dice1:{red} dice1:{blue}")
    assert state.space == 7
    assert state.dice1_used == {blue, red}
    assert state.available == 1
    play(state, "roll 1")  # the flipped tokens are no units any more
    assert legal(state) == {"move 1"}


def test_tc10_dice1_reset() -> None:
    """TC-10: Red's used dice_1 aboard when the rocket crashes returns to supply unflipped and is
    usable in the next expedition."""
    state = new_state(make_board({2: {"faces": ["1", "2"]}}))
    red = seat(state, "Red")
    takeoff(state, "moon_x2", "dice_1")
    play(state, "roll 1 4 4 4 4 4", f"move 1 dice1:{red}")
    assert state.space == 2
    assert red in state.dice1_used
    play(state, "roll 3 3 3 3 3")  # the flipped token is no unit: crash
    assert state.crash_count == 1
    assert state.supply[red]["dice_1"] == 1
    assert red not in state.dice1_used
    takeoff(state, "dice_1", "moon_x2")  # Red starts the next expedition
    play(state, "roll 3 4 4 4 4 4")
    assert legal(state) == {f"move dice1:{red}", "crash"}


# --------------------------------------------------------------------------- TC-11 satellite


def test_tc11_satellite() -> None:
    """TC-11: Blue places planet_x2, Red satellite: the rocket is on 3 and the first roll uses
    space 3's faces; with two satellites aboard it is still on 3."""
    board = make_board({3: {"faces": ["3", "4"]}})
    state = new_state(board)
    takeoff(state, "planet_x2", "satellite")
    assert state.space == 3
    assert state.phase is Phase.ROLL
    play(state, "roll 3 1 1 2 2 fuel")  # only the 3 is usable on space 3
    assert state.departure == 3
    assert legal(state) == {"move 3"}
    both = new_state(board)
    takeoff(both, "satellite", "satellite")
    assert both.space == 3


def test_tc11_no_satellite_starts_at_0() -> None:
    """TC-11 counter-check: without a satellite the first roll uses space 0's faces."""
    state = new_state(make_board({3: {"faces": ["3", "4"]}}))
    takeoff(state, "planet_x2", "moon_x2")
    play(state, "roll 3 1 1 2 2 fuel")
    assert state.departure == 0
    assert "move 3" not in legal(state)


# ------------------------------------------------------------------------- landing: TC-12..14


def test_tc12_no_landing_on_0_to_5() -> None:
    """TC-12: the rocket moves from 0 to 5 with a plus_minus_1 aboard: no landing phase (not even
    +1 to space 6), and the same captain rolls again."""
    state = new_state(make_board({6: {"moons": [("M6", 3)]}}))
    blue = seat(state, "Blue")
    takeoff(state, "moon_x2", "plus_minus_1")
    play(state, "roll fuel fuel fuel fuel fuel 4", "move fuel fuel fuel fuel fuel")
    assert state.space == 5
    assert state.phase is Phase.ROLL
    assert state.captain == blue
    assert state.placements == []
    assert landing_targets(state.game.board, "plus_minus_1", 5, {}) == []


def test_tc13_moons_farthest_first_full_moon() -> None:
    """TC-13: space 9 with moons [M9a 4 (far), M9b 3 (near)], no planet; Blue, Red, Green all
    want to land: Blue takes M9a (+4), Red is captain and takes M9b (+3), Green is captain and
    has no target; the next travel phase is rolled by Green."""
    board = make_board({9: {"moons": [("M9a", 4), ("M9b", 3)]}})
    state = new_state(board, players="Blue Red Green")
    blue, red, green = (seat(state, n) for n in ("Blue", "Red", "Green"))
    takeoff(state, "planet_x2", "deep_space_x2", "planet_x2")
    reach(state, 9)
    assert state.phase is Phase.LANDING
    assert state.current_player() == blue
    assert legal(state) == {"land M9a", "stay"}  # not the nearer, lower moon
    assert_refused(state, "land M9b", "cannot land on M9b")
    play(state, "land M9a")
    assert state.moon_points[blue] == 4
    assert state.captain == red
    assert legal(state) == {"land M9b", "stay"}
    play(state, "land M9b")
    assert state.moon_points[red] == 3
    assert state.captain == green
    assert state.phase is Phase.ROLL  # Green had no target and stayed without a decision
    assert state.rocket == [(green, "planet_x2")]
    play(state, "roll fuel fuel fuel fuel fuel fuel")
    assert state.current_player() == green


def test_tc14_moon_x2() -> None:
    """TC-14: Red's moon_x2 disembarks where the first free moon is worth 5: +10."""
    state = new_state(make_board({7: {"moons": [("M7a", 5), ("M7b", 4)]}}))
    red = seat(state, "Red")
    takeoff(state, "planet_x2", "moon_x2")
    reach(state, 7)
    play(state, "stay", "land M7a")
    assert state.moon_points[red] == 10
    assert state.scores()[red].moons == 10


# ------------------------------------------------------------------- deep space: TC-15..TC-18


def test_tc15_deep_space_with_overshoot() -> None:
    """TC-15: rocket at 22 {1,fuel} fuel 3, av 3; Green (captain, deep_space_x2), Blue (dice_x),
    Red (moon_x2); roll [fuel,fuel,4], choose {fuel} (6): on 25, not 28; Green comet 14, Blue
    galaxy 5, Red galaxy 5; Blue's dice_x has no effect; the expedition ends."""
    state = new_state(
        make_board({22: {"faces": ["1", "fuel"], "fuel": 3}}),
        players="Blue Red Green",
        starter="Green",
    )
    blue, red, green = (seat(state, n) for n in ("Blue", "Red", "Green"))
    takeoff(state, "deep_space_x2", "dice_x", "moon_x2")
    assert [s for s, _ in state.rocket] == [green, blue, red]
    reach(state, 22, available=3)
    assert state.phase is Phase.ROLL
    play(state, "roll fuel fuel 4")
    assert legal(state) == {"move fuel fuel"}
    play(state, "move fuel fuel")
    assert [(p.seat, p.target) for p in state.placements] == [
        (green, "comet"),
        (blue, "galaxy"),
        (red, "galaxy"),
    ]
    assert state.deep_points[green] == 14
    assert state.deep_points[blue] == 5
    assert state.deep_points[red] == 5
    assert state.moon_points == [0, 0, 0]
    assert state.phase is Phase.PLACE  # the expedition is over
    assert state.starter == blue
    assert (state.available, state.removed) == (6, 0)


def _tc16_board() -> dict[int, dict[str, object]]:
    return {
        10: {"planet": "P1"},
        23: {"moons": [("M23", 6)]},
        24: {"moons": [("M24", 6)]},
    }


def test_tc16_plus_minus_1_to_galaxy_only() -> None:
    """TC-16: rocket at 24 (its moon taken), 23's moons taken, no planets there; Blue alone
    aboard (captain, plus_minus_1): stay or the galaxy (+5), never the comet; the galaxy empties
    the rocket and ends the expedition."""
    state = new_state(make_board(_tc16_board()))
    blue, red = seat(state, "Blue"), seat(state, "Red")
    # expedition 1 (Blue starts): Blue takes M23, Red takes M24 and the rocket is empty
    takeoff(state, "planet_x2", "planet_x2")
    reach(state, 23)
    play(state, "land M23")  # Red has no target left at 23: no decision
    reach(state, 24)
    play(state, "land M24")
    assert state.phase is Phase.PLACE and state.starter == red
    # expedition 2 (Red starts): Red lands on P1 at 10, Blue's +/-1 goes on alone
    takeoff(state, "moon_x2", "plus_minus_1")
    reach(state, 10)
    play(state, "land P1", "stay")
    assert state.rocket == [(blue, "plus_minus_1")]
    reach(state, 24)
    assert state.phase is Phase.LANDING
    assert state.current_player() == blue
    assert legal(state) == {"land galaxy", "stay"}
    assert_refused(state, "land comet", "cannot land on comet")
    play(state, "land galaxy")
    assert state.deep_points[blue] == 5
    assert state.placements[-1].target == "galaxy"
    assert state.phase is Phase.PLACE and state.starter == blue  # expedition over


def test_tc17_plus_minus_1_to_a_neighbour() -> None:
    """TC-17: rocket at 23 (its moons taken), planet P5 at 22, free moon worth 6 at 24: Red's
    plus_minus_1 may choose P5 or the 24-moon; Green (no ability) has no target."""
    board = make_board({
        22: {"planet": "P5"},
        23: {"faces": ["2", "4"], "moons": [("M23", 6)]},
        24: {"moons": [("M24", 6)]},
    })
    state = new_state(board, players="Blue Red Green")
    blue, red, green = (seat(state, n) for n in ("Blue", "Red", "Green"))
    expedition(state, 23, {blue: "M23"})  # Blue takes 23's only moon; Red and Green crash
    assert state.moon_occupant == {"M23": blue}
    assert state.starter == red
    takeoff(state, "plus_minus_1", "moon_x2", "planet_x2")  # Red, Green, Blue
    reach(state, 23)
    assert state.phase is Phase.LANDING
    assert state.current_player() == red
    assert legal(state) == {"land P5", "land M24", "stay"}
    assert landing_targets(board, "moon_x2", 23, state.moon_occupant) == []
    to_moon = state.clone()
    play(state, "land P5")
    assert state.placements[-1].target == "P5"
    assert state.phase is Phase.ROLL  # Green and Blue had nothing to decide
    assert state.captain == green
    play(to_moon, "land M24")
    assert to_moon.moon_points[red] == 6


def test_tc18_plus_minus_1_at_deep_space() -> None:
    """TC-18: the rocket reaches 25 with Red's plus_minus_1 aboard (not captain) and planet Q at
    24: Red may choose the galaxy (5) or Q, not the comet."""
    board = make_board({24: {"planet": "Q"}}, planets={"Q": (9, 4, 2)})
    state = new_state(board)
    blue, red = seat(state, "Blue"), seat(state, "Red")
    takeoff(state, "planet_x2", "plus_minus_1")
    reach(state, 25)
    assert state.phase is Phase.DEEP_SPACE
    assert state.placements[0].target == "comet" and state.placements[0].seat == blue
    assert state.current_player() == red
    assert legal(state) == {"land galaxy", "land Q"}
    assert_refused(state, "land comet", "cannot land on comet")
    assert_refused(state, "stay", "not possible now")  # everyone must disembark
    to_galaxy = state.clone()
    play(state, "land Q")
    assert state.placements[-1].target == "Q"
    assert state.deep_points[red] == 0
    play(to_galaxy, "land galaxy")
    assert to_galaxy.deep_points[red] == 5


# ------------------------------------------------------------------------------ TC-19 dice-X


@pytest.mark.parametrize(("available", "after"), [(3, 2), (1, 1)])
def test_tc19_dice_x(available: int, after: int) -> None:
    """TC-19: av/rm 3/3, Green's dice_x disembarks on a moon, Yellow stays aboard: av/rm 2/4.
    With av/rm 1/5 instead it stays 1/5."""
    state = new_state(make_board({8: {"moons": [("M8", 3)]}}), players="Green Yellow")
    green, yellow = seat(state, "Green"), seat(state, "Yellow")
    takeoff(state, "dice_x", "moon_x2")
    reach(state, 8, available=available)
    assert state.available == available
    play(state, "land M8")  # Yellow has no target left: stays without a decision
    assert (state.available, state.removed) == (after, 6 - after)
    assert state.phase is Phase.ROLL and state.captain == yellow
    assert state.moon_points[green] == 3


# ---------------------------------------------------------------------------- TC-20 parachute


def test_tc20_parachute() -> None:
    """TC-20: a crash next to planet P3 with Blue (captain), Red and Green (parachutes): Red
    lands on P3 with the next arrival_seq, Green declines; Green and Blue are in supply;
    crash_count +1. On space 4 instead, Red has no option and returns to supply."""
    board = make_board({8: {"faces": ["3", "4", "fuel"], "fuel": 1, "planet": "P3"}})
    state = new_state(board, players="Blue Red Green")
    blue, red, green = (seat(state, n) for n in ("Blue", "Red", "Green"))
    takeoff(state, "moon_x2", "parachute", "parachute")
    reach(state, 8)
    play(state, "stay", "stay", "stay")
    seq = len(state.placements) + 1
    play(state, "roll 1 2 2 2 1 1")
    assert state.phase is Phase.PARACHUTE
    assert state.crash_count == 1
    assert state.current_player() == red
    assert legal(state) == {"land P3", "stay"}
    play(state, "land P3")
    assert state.current_player() == green
    assert_refused(state, "land M1", "cannot land on M1")
    play(state, "stay")
    assert state.placements[-1] == Placement(seq, red, "parachute", "P3")
    assert state.supply[green]["parachute"] == 1
    assert state.supply[blue]["moon_x2"] == 1
    assert state.supply[red]["parachute"] == 0
    assert state.crash_count == 1
    assert state.phase is Phase.PLACE and state.starter == red


def test_tc20_parachute_on_space_4() -> None:
    """TC-20 variant: a crash on space 4 gives the parachute no option: back to supply."""
    state = new_state(make_board({4: {"faces": ["3", "4"]}}), players="Blue Red Green")
    red = seat(state, "Red")
    takeoff(state, "moon_x2", "parachute", "parachute")
    reach(state, 4)
    play(state, "roll 1 1 1 2 2 2")
    assert state.crash_count == 1
    assert state.phase is Phase.PLACE  # no parachute decision
    assert state.supply[red]["parachute"] == 1
    assert state.placements == []


# ------------------------------------------------------------------ planets: TC-21, TC-22


def test_tc21_planet_majorities_and_tie_break() -> None:
    """TC-21: planet 10/5/2 with arrivals 1 Red, 3 Blue, 5 Blue, 7 Red, 9 Green: counts 2/2/1;
    Red gold 10 (first arrival 1 < 3), Blue silver 5, Green bronze 2. With Blue's seq-3
    astronaut a planet_x2, Blue scores 10."""
    board = make_board(planets={"P": (10, 5, 2)})
    blue, red, green = 0, 1, 2
    arrivals = [(1, red), (3, blue), (5, blue), (7, red), (9, green)]
    elsewhere = [Placement(seq, blue, "moon_x2", "P1") for seq in (2, 4, 6, 8)]
    placements = sorted(
        [Placement(seq, who, "dice_x", "P") for seq, who in arrivals] + elsewhere,
        key=lambda p: p.seq,
    )
    awards = planet_awards(board, placements)
    # Blue's P1 gold (6) adds to Blue's award; isolate planet P by subtracting it
    assert awards[red] == 10
    assert awards[blue] - 6 == 5
    assert awards[green] == 2
    doubled = [
        Placement(p.seq, p.seat, "planet_x2", p.target) if p.seq == 3 else p for p in placements
    ]
    assert planet_awards(board, doubled)[blue] - 6 == 10
    # a later-arriving tie loses: Red first arrived at 7 instead of 1
    late = [Placement(p.seq, blue if p.seq == 1 else p.seat, p.kind, p.target)
            for p in placements]
    late_awards = planet_awards(board, late)
    assert late_awards[blue] - 6 == 10  # Blue 3 on P: gold
    assert late_awards[red] == 5


def test_tc22_lone_player_on_a_planet() -> None:
    """TC-22: only Yellow on P1 (6/3/1): Yellow scores 6."""
    state = new_state(make_board({7: {"planet": "P1"}}), players="Blue Yellow")
    blue, yellow = seat(state, "Blue"), seat(state, "Yellow")
    takeoff(state, "moon_x2", "dice_x")
    reach(state, 7)
    play(state, "stay", "land P1")
    scores = state.scores()
    assert scores[yellow].planets == 6
    assert scores[blue].planets == 0


# -------------------------------------------------------------------------- goals: TC-23..26


def _goal_board() -> dict[int, dict[str, object]]:
    land = ["1", "2", "fuel"]  # a 3 or 4 crashes here
    spaces: dict[int, dict[str, object]] = {
        6: {"faces": land, "planet": "P1"},
        7: {"faces": land, "planet": "P2"},
        8: {"faces": land, "planet": "P4"},
        9: {"faces": land, "planet": "P5"},
        10: {"faces": land, "planet": "P3"},
    }
    for i, points in zip(range(11, 16), (4, 4, 5, 5, 5), strict=True):
        spaces[i] = {"faces": land, "moons": [(f"M{i}", points)]}
    return spaces


def test_tc23_g3_goal_first_only() -> None:
    """TC-23: Red has 2 on P2 and lands a 3rd: Red holds G3; later Blue gets 3 on P4 and gains
    nothing."""
    state = new_state(make_board(_goal_board()))
    blue, red = seat(state, "Blue"), seat(state, "Red")
    for _ in range(2):
        expedition(state, 7, {red: "P2"})
    assert state.goal_owners()["crowd"] is None
    assert state.starter == blue
    takeoff(state, "moon_x2", "deep_space_x2")
    reach(state, 7)
    play(state, "stay", "land P2")
    assert state.goals["crowd"] == red  # claimed at once, during the landing phase
    assert state.phase is Phase.ROLL
    crash_now(state)
    for _ in range(3):
        expedition(state, 8, {blue: "P4"})
    assert sum(1 for p in state.placements if p.seat == blue and p.target == "P4") == 3
    assert state.goals["crowd"] == red
    assert state.scores()[blue].goals == 0
    assert state.scores()[red].goals == 5


def test_tc24_goal_g1_four_planets() -> None:
    """TC-24 (G1): Blue has astronauts on P1, P2 and P4 and lands on P5: Blue gains G1."""
    state = new_state(make_board(_goal_board()))
    blue = seat(state, "Blue")
    for space, planet in ((6, "P1"), (7, "P2"), (8, "P4")):
        expedition(state, space, {blue: planet})
    assert "planets" not in state.goals
    expedition(state, 9, {blue: "P5"})
    assert state.goals == {"planets": blue}


def test_tc24_goal_g2_four_moons() -> None:
    """TC-24 (G2): Red has 3 moons and lands on a 4th: Red gains G2."""
    state = new_state(make_board(_goal_board()))
    red = seat(state, "Red")
    for space in (11, 12, 13):
        expedition(state, space, {red: f"M{space}"})
    assert "moons" not in state.goals
    expedition(state, 14, {red: "M14"})
    assert state.goals == {"moons": red}


def test_tc24_goal_g2_counts_moon_bodies() -> None:
    """G2 with A14 reading (b): moon slots sharing a `body` count once."""
    spaces = _goal_board()
    spaces[11] = {"faces": ["1", "2", "fuel"],
                  "moons": [{"id": "M11a", "points": 4, "body": "Big"},
                            {"id": "M11b", "points": 3, "body": "Big"}]}
    state = new_state(make_board(spaces))
    red = seat(state, "Red")
    for target, space in (("M11a", 11), ("M11b", 11), ("M12", 12), ("M13", 13)):
        expedition(state, space, {red: target})
    assert "moons" not in state.goals  # 4 slots, 3 bodies
    expedition(state, 14, {red: "M14"})
    assert state.goals == {"moons": red}


def test_tc24_goal_g4_deep_space() -> None:
    """TC-24 (G4): Green has 1 on the galaxy and takes the comet: Green gains G4."""
    state = new_state(make_board(_goal_board()), players="Blue Green")
    blue, green = seat(state, "Blue"), seat(state, "Green")
    takeoff(state, "moon_x2", "moon_x2")  # Blue captain
    reach(state, 25)
    assert [(p.seat, p.target) for p in state.placements] == [(blue, "comet"), (green, "galaxy")]
    assert "deep_space" not in state.goals
    takeoff(state, "planet_x2", "planet_x2")  # Green captain; Blue gets off at P3 on space 10
    reach(state, 10)
    play(state, "stay", "land P3")
    reach(state, 25)
    assert state.placements[-1] == Placement(4, green, "planet_x2", "comet")
    assert state.goals == {"deep_space": green}


def test_tc25_goal_order_within_one_landing() -> None:
    """TC-25: Blue and Red each have 1 in deep space; the rocket reaches 25 with Blue captain and
    Red below: Blue (comet, placed first) takes G4, Red gets nothing."""
    state = new_state(starter="Red")
    blue, red = seat(state, "Blue"), seat(state, "Red")
    takeoff(state, "moon_x2", "moon_x2")
    reach(state, 25)
    assert [(p.seat, p.target) for p in state.placements] == [(red, "comet"), (blue, "galaxy")]
    takeoff(state, "planet_x2", "planet_x2")
    reach(state, 25)
    assert [(p.seat, p.target) for p in state.placements[2:]] == [(blue, "comet"), (red, "galaxy")]
    assert state.goals == {"deep_space": blue}


def test_tc26_goal_by_parachute() -> None:
    """TC-26: Red has 2 on P3; Red's parachute lands on P3 during a crash: Red takes G3 at once."""
    state = new_state(make_board(_goal_board()), starter="Red")
    blue, red = seat(state, "Blue"), seat(state, "Red")
    for _ in range(2):
        expedition(state, 10, {red: "P3"})
    assert state.starter == red
    takeoff(state, "parachute", "parachute")  # Red above Blue
    reach(state, 10)
    play(state, "stay", "stay")
    crashes = state.crash_count
    play(state, "roll 3 3 3 4 4 4")
    assert state.crash_count == crashes + 1
    assert state.phase is Phase.PARACHUTE and state.current_player() == red
    play(state, "land P3")
    assert state.phase is Phase.PARACHUTE and state.current_player() == blue  # still the crash
    assert state.goals == {"crowd": red}
    play(state, "stay")
    assert state.goals == {"crowd": red}


def test_tc26_literal_rulebook_reading_waits_for_a_landing_phase() -> None:
    """With goal_check=landing_phase (JA: goals are claimed 「着陸フェイズ中に」), the parachute
    landing of TC-26 claims nothing; Red's next landing-phase placement claims G3."""
    state = new_state(make_board(_goal_board()), starter="Red", goal_check="landing_phase")
    blue, red = seat(state, "Blue"), seat(state, "Red")
    for _ in range(2):
        expedition(state, 10, {red: "P3"})
    takeoff(state, "parachute", "parachute")
    reach(state, 10)
    play(state, "stay", "stay")
    play(state, "roll 3 3 3 4 4 4")
    play(state, "land P3", "stay")
    assert state.goals == {}
    expedition(state, 10, {red: "P3"})
    assert state.goals == {"crowd": red}
    assert blue not in state.goals.values()


# ---------------------------------------------------------------------- game end: TC-27, 28


def test_tc27_eleventh_crash_ends_the_game() -> None:
    """TC-27: crash_count 10, Red's parachute aboard next to a free moon worth 4; the rocket
    crashes: crash_count 11, Red may land first (+4), the game is over, no takeoff follows and
    final scoring runs."""
    board = make_board({7: {"faces": ["1", "2", "fuel"], "moons": [("M7", 4)]}})
    state = new_state(board)
    red = seat(state, "Red")
    for _ in range(10):
        crash_expedition(state)
    assert state.crash_count == 10
    takeoff(state, "moon_x2", "parachute")
    reach(state, 7)
    play(state, "stay", "stay", "roll 3 3 3 3 3 3")
    assert state.crash_count == 11
    assert state.phase is Phase.PARACHUTE
    assert legal(state) == {"land M7", "stay"}
    play(state, "land M7")
    assert state.is_terminal()
    assert state.crash_count == 11
    assert state.legal_actions() == []
    assert "crash" in state.end_reason
    assert state.returns()[red] == 4
    assert state.winners() == [red]
    assert_refused(state, "place moon_x2", "the game is over")


def _tc28_state(end_timing: str) -> State:
    board = make_board({
        7: {"faces": ["1", "2", "fuel"], "planet": "P1"},
        9: {"faces": ["1", "2", "fuel"], "moons": [("M9", 4)]},
    })
    # Green starts, so that the 8th expedition is started by Blue (Blue, Red, Green aboard)
    state = new_state(board, players="Blue Red Green", starter="Green", end_timing=end_timing)
    red = seat(state, "Red")
    for _ in range(7):
        expedition(state, 7, {red: "P1"})
    assert len(state.placed(red)) == 7
    assert state.phase is Phase.PLACE and state.starter == seat(state, "Blue")
    takeoff(state, "moon_x2", "satellite", "moon_x2")  # Red's last astronaut
    reach(state, 9)
    play(state, "stay", "land M9")
    return state


def test_tc28_eighth_astronaut_ends_at_expedition_end() -> None:
    """TC-28 (default end_of_expedition): Red's 8th lands on a moon while Blue (captain) and
    Green stay aboard: the expedition continues until the rocket is empty or crashes, then the
    game ends with no further takeoff."""
    state = _tc28_state("end_of_expedition")
    blue, red, green = (seat(state, n) for n in ("Blue", "Red", "Green"))
    assert len(state.placed(red)) == 8
    assert not state.is_terminal()
    assert state.phase is Phase.ROLL and state.captain == blue  # the expedition goes on
    assert [s for s, _ in state.rocket] == [blue, green]
    reach(state, 25)  # Blue comet, Green galaxy: the rocket is empty
    assert state.is_terminal()
    assert state.deep_points[blue] == 7 and state.deep_points[green] == 5
    assert "Red placed every astronaut" in state.end_reason
    assert state.legal_actions() == []


def test_tc28_eighth_astronaut_crash_also_ends() -> None:
    """TC-28 (default): if the continuing expedition crashes, the game ends then."""
    state = _tc28_state("end_of_expedition")
    crash_now(state)
    assert state.is_terminal()
    assert "Red placed every astronaut" in state.end_reason


def test_tc28_eighth_astronaut_immediate() -> None:
    """TC-28 with end_timing=immediate: Blue and Green return to supply unscored and the game
    ends at once."""
    state = _tc28_state("immediate")
    blue, green = seat(state, "Blue"), seat(state, "Green")
    assert state.is_terminal()
    assert state.rocket == []
    assert sum(state.supply[blue].values()) == 8
    assert sum(state.supply[green].values()) == 8
    assert state.moon_points[blue] == state.deep_points[blue] == 0
    assert state.moon_points[green] == state.deep_points[green] == 0
    assert state.placements[-1].target == "M9"


# ---------------------------------------------------------------------------- TC-29 totals


def test_tc29_final_total_and_shared_win() -> None:
    """TC-29: Red: ledger 19, planet awards 10, goals 1, UFO token 5, exploration 2, 2 missions:
    19 + 10 + 5 + 5 + 2 + 5 = 46; Blue 41 loses; if Blue has 46 instead, both win.

    Built from score parts directly: reaching these items by play would take a whole game.
    """
    red = ScoreBreakdown(moons=12, deep_space=7, planets=10, goals=5, ufo=5, exploration=2,
                         missions=MISSION_POINTS[2])
    assert red.total == 46
    assert red.to_json()["total"] == 46
    assert winners([41, 46]) == [1]
    assert winners([46, 46]) == [0, 1]
    assert winners([46, 46, 12]) == [0, 1]


# -------------------------------------------------------------------------- UFO: TC-30..TC-33


def _ufo_state(board_spaces: dict[int, dict[str, object]], token: dict[str, object],
               **board_kw: object) -> State:
    board = make_board(board_spaces, **board_kw)
    tokens = make_tokens(board, expedition=[{"id": "U1", **token}])
    state = new_state(board, tokens=tokens, variants=("ufo",))
    assert state.phase is Phase.REVEAL_EXPEDITION
    play(state, "draw U1")
    return state


def test_tc30_ufo_extra_dice_alone() -> None:
    """TC-30: token extra_faces [2,fuel] on a space {2,3} without fuel, roll [1,4]: the unit is
    {2}, value 2; no forced crash; after use the token is set aside."""
    state = _ufo_state(
        {2: {"faces": ["2", "3"]}},
        {"ufo_move": 1, "dice": 4, "ability": "extra_dice", "extra_faces": ["2", "fuel"]},
    )
    takeoff(state, "moon_x2", "planet_x2")
    reach(state, 2, available=2)
    play(state, "roll 1 4")
    assert state.phase is Phase.CHOOSE
    assert state.travel_context().ufo_extra == ("2",)
    assert legal(state) == {"move ufo", "crash"}
    assert state.travel_context().distance(Move(ufo=True)) == 2
    play(state, "move ufo")
    assert state.space == 4
    assert state.available == 2  # the extras consume no dice
    assert state.ufo_ability_used
    play(state, "roll 2 fuel")
    assert not any("ufo" in text for text in legal(state))
    assert_refused(state, "move 2 ufo", "no UFO extra dice")


def test_tc30_ufo_extra_dice_all_faces() -> None:
    """TC-30: on a space {2,fuel} with fuel 2 the unit must be 2 + fuel = 4; using only the 2 is
    rejected; it may be combined with a rolled 2-group."""
    spaces = {2: {"faces": ["2", "fuel"], "fuel": 2}}
    token = {"ufo_move": 1, "dice": 4, "ability": "extra_dice", "extra_faces": ["2", "fuel"]}
    state = _ufo_state(spaces, token)
    takeoff(state, "moon_x2", "planet_x2")
    reach(state, 2, available=2)
    play(state, "roll 3 4")
    assert state.travel_context().distance(Move(ufo=True)) == 4
    assert_refused(state, "move 2", "the roll has no 2")  # the token's 2 alone is no unit
    assert legal(state) == {"move ufo", "crash"}
    combined = _ufo_state(spaces, token)
    takeoff(combined, "moon_x2", "planet_x2")
    reach(combined, 2, available=2)
    play(combined, "roll 2 3")
    assert {"move 2", "move ufo", "move 2 ufo"} <= legal(combined)
    assert "crash" not in legal(combined)
    play(combined, "move 2 ufo")
    assert combined.space == 2 + 2 + 4
    assert combined.available == 1


def test_tc31_ufo_keep_dice() -> None:
    """TC-31: space {1,2}, av 4, roll [1,1,2,3], the captain chooses {1,2} (distance 4) and
    declares keep: av stays 4 and the token is spent."""
    state = _ufo_state({0: {"faces": ["1", "2"]}},
                       {"ufo_move": 0, "dice": 4, "ability": "keep_dice"})
    takeoff(state, "moon_x2", "planet_x2")
    assert (state.available, state.removed) == (4, 2)
    play(state, "roll 1 1 2 3")
    assert {"move 1 1 2", "move 1 1 2 keep"} <= legal(state)
    without = state.clone()
    play(state, "move 1 1 2 keep")
    assert state.space == 4
    assert (state.available, state.removed) == (4, 2)
    assert state.ufo_ability_used
    play(state, "roll 1 1 2 3")
    assert not any(text.endswith("keep") for text in legal(state))
    play(without, "move 1 1 2")
    assert without.available == 1
    assert not without.ufo_ability_used


def test_tc32_ufo_reroll() -> None:
    """TC-32: space {3,4}, av 3, unused reroll, roll [1,2,2]: the captain rerolls, the new roll
    [3,1,2] has the only unit {3}; the old roll is discarded and the reroll is spent."""
    state = _ufo_state({1: {"faces": ["3", "4"]}},
                       {"ufo_move": 0, "dice": 4, "ability": "reroll"})
    takeoff(state, "moon_x2", "planet_x2")
    reach(state, 1, available=3)
    play(state, "roll 1 2 2")
    assert state.phase is Phase.CHOOSE  # no automatic crash while the reroll is unused
    assert legal(state) == {"reroll", "crash"}
    play(state, "reroll")
    assert state.phase is Phase.ROLL and state.roll == ()
    assert_refused(state, "roll 3 1", "2 dice, but 3", InvalidActionError)
    play(state, "roll 3 1 2")
    assert legal(state) == {"move 3"}
    assert_refused(state, "reroll", "no unused UFO reroll")
    assert_refused(state, "crash", "a move is mandatory")


def test_tc32_reroll_crash_result_crashes() -> None:
    """U5 / A25: the crash test applies to the kept (rerolled) result."""
    state = _ufo_state({1: {"faces": ["3", "4"]}},
                       {"ufo_move": 0, "dice": 4, "ability": "reroll"})
    takeoff(state, "moon_x2", "planet_x2")
    reach(state, 1, available=3)
    play(state, "roll 1 2 2", "reroll", "roll 1 1 2")
    assert state.crash_count == 1
    assert state.phase is Phase.REVEAL_EXPEDITION  # the next takeoff


def test_tc33_ufo_encounter_tokens_and_movement() -> None:
    """TC-33: UFO on 12, stack [5,4,3,2,1], token {ufo_move 2, dice 4}: av/rm 4/2; a travel
    phase ending on 12 gives the captain's player the 5-token; at the end of the expedition the
    UFO is on 10. A UFO on 1 that moves 3 ends on 0."""
    token = {"ufo_move": 2, "dice": 4, "ability": "keep_dice"}
    state = _ufo_state({12: {"faces": ["1", "2", "fuel"]}}, token, ufo_start=12)
    blue = seat(state, "Blue")
    assert (state.available, state.removed) == (4, 2)
    assert state.ufo_position == 12 and state.ufo_stack == [5, 4, 3, 2, 1]
    takeoff(state, "moon_x2", "planet_x2")
    reach(state, 12)
    assert state.ufo_won[blue] == [5]
    assert state.ufo_stack == [4, 3, 2, 1]
    assert state.scores()[blue].ufo == 5
    crash_now(state)
    assert state.ufo_position == 10
    low = _ufo_state({}, {"ufo_move": 3, "dice": 6, "ability": "reroll"}, ufo_start=1)
    crash_expedition(low)
    assert low.ufo_position == 0


def test_tc33_ufo_passing_or_starting_does_not_count() -> None:
    """U6: passing over the UFO, or starting on its space, gives no token."""
    token = {"ufo_move": 0, "dice": 6, "ability": "reroll"}
    state = _ufo_state({}, token, ufo_start=3, satellite_start=3)
    takeoff(state, "satellite", "moon_x2")
    assert state.space == 3
    play(state, "roll fuel fuel 4 4 4 4", "move fuel fuel")  # 3 -> 5
    assert state.ufo_won == [[], []]
    other = _ufo_state({}, token, ufo_start=3)
    takeoff(other, "moon_x2", "moon_x2")
    play(other, "roll fuel fuel fuel fuel 4 4", "move fuel fuel fuel fuel")  # 0 -> 4, over 3
    assert other.ufo_won == [[], []]


# ------------------------------------------------------------------ exploration: TC-34, TC-35


def _points(tid: str, space: int, points: int = 1) -> dict[str, object]:
    return {"id": tid, "space": space, "kind": "points", "points": points}


def _explore_state(spaces: Mapping[int, Mapping[str, Any]], exploration: list[dict[str, Any]],
                   reveal: list[str], ufo: bool = False) -> State:
    board = make_board(spaces, ufo_start=13)
    expedition_tokens = [{"id": "E", "ufo_move": 0, "dice": 6, "ability": "reroll"}]
    tokens = make_tokens(board, exploration=exploration, expedition=expedition_tokens)
    variants = ("exploration", "ufo") if ufo else ("exploration",)
    state = new_state(board, tokens=tokens, variants=variants)
    for tid in reveal:
        assert state.phase is Phase.REVEAL_EXPLORATION
        play(state, f"draw {tid}")
    if ufo:
        play(state, "draw E")
    assert state.phase is Phase.PLACE
    return state


def _tc34_state() -> State:
    exploration = [
        {"id": "R", "space": 8, "kind": "dice_recovery"},
        _points("F1", 14), _points("F2", 15), _points("F3", 16), _points("F4", 17),
        _points("N1", 18), _points("N2", 19),
    ]
    state = _explore_state({}, exploration, ["R", "F1", "F2", "F3", "F4"])
    takeoff(state, "moon_x2", "planet_x2")
    return state


def test_tc34_exploration_dice_recovery() -> None:
    """TC-34: av/rm 4/2 and a dice-recovery token where the travel phase ends: av/rm 5/1, the
    token is removed and one replacement is revealed. With 6/0 nothing changes, but the token
    is still removed."""
    state = _tc34_state()
    reach(state, 8, available=4)
    assert (state.available, state.removed) == (5, 1)
    assert 8 not in state.explore_on_board
    assert state.phase is Phase.REVEAL_EXPLORATION
    assert {str(a) for a, _ in state.chance_outcomes()} == {"draw N1", "draw N2"}
    play(state, "draw N2")
    assert state.explore_on_board == {14: "F1", 15: "F2", 16: "F3", 17: "F4", 19: "N2"}
    assert state.phase is Phase.ROLL
    full = _tc34_state()
    reach(full, 8)
    assert (full.available, full.removed) == (6, 0)
    assert 8 not in full.explore_on_board
    play(full, "draw N1")
    assert len(full.explore_on_board) == 5


def test_tc35_exploration_tunnel_chain() -> None:
    """TC-35: a tunnel on 9, a 2-point token on 13, the UFO on 13; the travel phase ends on 9:
    the rocket is on 13, the captain's player takes the top UFO token and the 2-point token,
    both exploration tokens are removed, 2 replacements are revealed, and one landing phase
    runs, at 13."""
    spaces = {9: {"moons": [("M9", 3)]}, 13: {"moons": [("M13", 5)]}}
    exploration = [
        {"id": "T", "space": 9, "kind": "tunnel"}, _points("P", 13, 2),
        _points("F1", 15), _points("F2", 16), _points("F3", 17),
        _points("N1", 18), _points("N2", 19),
    ]
    state = _explore_state(spaces, exploration, ["T", "P", "F1", "F2", "F3"], ufo=True)
    blue = seat(state, "Blue")
    takeoff(state, "moon_x2", "planet_x2")
    reach(state, 9)
    assert state.space == 13
    assert state.phase is Phase.REVEAL_EXPLORATION
    play(state, "draw N1")
    assert state.ufo_won[blue] == [5]
    assert state.explore_won[blue] == [2]
    assert state.phase is Phase.REVEAL_EXPLORATION
    play(state, "draw N2")
    assert sorted(state.explore_on_board) == [15, 16, 17, 18, 19]
    assert state.phase is Phase.LANDING
    assert legal(state) == {"land M13", "stay"}
    play(state, "stay", "stay")
    assert state.phase is Phase.ROLL  # one landing phase only
    assert state.scores()[blue].exploration == 2


def test_tc35_tunnel_into_deep_space() -> None:
    """TC-35: a tunnel from 23 ends on 25, and the deep-space landing follows."""
    exploration = [{"id": "T", "space": 23, "kind": "tunnel"}, _points("F1", 12),
                   _points("F2", 13), _points("F3", 14), _points("F4", 15), _points("N1", 16)]
    state = _explore_state({}, exploration, ["T", "F1", "F2", "F3", "F4"])
    blue, red = seat(state, "Blue"), seat(state, "Red")
    takeoff(state, "moon_x2", "planet_x2")
    reach(state, 23)
    play(state, "draw N1")
    assert [(p.seat, p.target) for p in state.placements] == [(blue, "comet"), (red, "galaxy")]
    assert state.phase is Phase.PLACE


# -------------------------------------------------------------------------- TC-36 missions


def test_tc36_secret_missions_scale() -> None:
    """TC-36: 0, 1, 2 or 3 completed kept missions score 0, 2, 5 or 10."""
    board = make_board()
    placements = [Placement(1, 0, "moon_x2", "P1"), Placement(2, 0, "moon_x2", "P2"),
                  Placement(3, 0, "moon_x2", "P3"), Placement(4, 1, "moon_x2", "P4")]
    for kept, points in (([], 0), (["P1"], 2), (["P1", "P2"], 5), (["P1", "P2", "P3"], 10),
                         (["P4", "P5", "P1"], 2)):
        done = missions_completed(board, placements, 0, kept)
        assert MISSION_POINTS[done] == points


def test_tc36_discarded_mission_never_scores() -> None:
    """TC-36 by play: a discarded mission's target never scores; a kept one does."""
    board = make_board({7: {"planet": "P1"}, 8: {"planet": "P2"}})
    missions = [{"id": f"S{n}", "target": target}
                for n, target in enumerate(["P1", "P2", "P3", "P4", "P5", "P3", "P4", "P5"])]
    tokens = make_tokens(board, missions=missions)
    state = new_state(board, tokens=tokens, variants=("missions",))
    blue = seat(state, "Blue")
    for n in range(8):
        play(state, f"draw S{n}")
    assert state.mission_hands[blue] == ["S0", "S1", "S2", "S3"]
    assert_refused(state, "discard S5", "not in this player's hand")
    play(state, "discard S0", "discard S5")  # Blue gives up the P1 mission
    takeoff(state, "moon_x2", "planet_x2")
    reach(state, 7)
    play(state, "land P1", "stay")
    assert state.scores()[blue].missions == 0
    reach(state, 8)
    play(state, "land P2")  # Red's; the expedition ends
    takeoff(state, "deep_space_x2", "planet_x2")  # Red starts
    reach(state, 8)
    play(state, "stay", "land P2")
    assert state.scores()[blue].missions == 2


# ------------------------------------------------------------------------ TC-37, 38, 39


def test_tc37_empty_landing_phase() -> None:
    """TC-37: the rocket at 12, its moons all taken, no planet, nobody with plus_minus_1: the
    landing phase has no decisions and the same captain rolls next."""
    board = make_board({12: {"faces": ["1", "2", "fuel"], "moons": [("M12", 4)]}})
    state = new_state(board)
    blue, red = seat(state, "Blue"), seat(state, "Red")
    expedition(state, 12, {blue: "M12"})
    assert state.starter == red
    takeoff(state, "moon_x2", "planet_x2")
    reach(state, 12)
    assert state.phase is Phase.ROLL
    assert state.captain == red
    assert len(state.rocket) == 2


def test_tc38_input_validation() -> None:
    """TC-38: with av 5, a roll of 4 faces is rejected, and so is a roll containing 6."""
    state = new_state()
    takeoff(state, "moon_x2", "planet_x2")
    reach(state, 1, available=5)
    assert state.available == 5
    assert_refused(state, "roll 1 2 3 4", "4 dice, but 5 are available", InvalidActionError)
    assert_refused(state, "roll 1 2 3 4 4 4", "6 dice, but 5", InvalidActionError)
    assert_refused(state, "roll 1 2 3 4 6", "face '6' does not exist", InvalidActionError)
    assert_refused(state, "roll 1 2 3 4 5", "face '5' does not exist", InvalidActionError)
    before = state.clone()
    with pytest.raises(InvalidActionError, match="does not exist"):
        state.apply_action(Roll(("1", "2", "3", "4", "6")))
    assert state == before
    play(state, "roll 1 2 3 4 fuel")
    assert state.phase is Phase.CHOOSE


def test_tc39_board_validation() -> None:
    """TC-39: fuel in faces without a fuel value is refused; so is a moon on space 4; the
    section 2.3 reconstruction loads with printed false and no warnings."""
    no_fuel = board_dict({7: {"faces": ["2", "fuel"], "fuel": None}})
    assert "fuel" not in no_fuel["spaces"][7]
    with pytest.raises(BoardError, match=r"spaces\[7\] \(i=7\): fuel value"):
        parse_board(no_fuel)
    with pytest.raises(BoardError, match=r"spaces\[4\] \(i=4\): spaces below 6"):
        parse_board(board_dict({4: {"moons": [("M4", 2)]}}))
    board = load_board()
    assert board.printed is False
    assert board.warnings == ()


def test_illegal_action_in_wrong_phase_leaves_state_unchanged() -> None:
    """Every refusal says why and changes nothing (P2, section 0)."""
    state = new_state()
    assert_refused(state, "roll 1 2 3 4 fuel fuel", "not possible now")
    assert_refused(state, "place unicorn", "no unicorn in this player's supply")
    takeoff(state, "moon_x2", "planet_x2")
    assert_refused(state, "land P1", "not possible now")
    with pytest.raises(IllegalActionError):
        state.apply_action("stay")
