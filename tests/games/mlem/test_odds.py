"""Exact next-roll odds, checked against independent brute force over every ordered roll."""

from __future__ import annotations

import random
import statistics
import time
from fractions import Fraction
from itertools import product

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from companion.games.mlem import Game, GameConfig, Move, Phase, Roll, State, Stay
from companion.games.mlem.bots import RandomBot
from companion.games.mlem.dice import FACES, FUEL, canonical
from companion.games.mlem.odds import (
    OddsError,
    RollOdds,
    RollSetup,
    clear_cache,
    next_roll_odds,
    odds_for,
    roll_setup,
)
from companion.games.mlem.simulate import DIE_SIDES, sample_chance
from companion.games.mlem.travel import TravelContext

PLAYERS = ("Blue", "Red", "Green", "Yellow")


# ------------------------------------------------------------------------------ brute force


def brute_force(
    setup: RollSetup, dice1_seats: tuple[int, ...] = (), extra: tuple[str, ...] = ()
) -> tuple[Fraction, dict[int, Fraction]]:
    """Crash and reach by the engine's own TravelContext over all 6^n ordered rolls."""
    rolls = list(product(DIE_SIDES, repeat=setup.available))
    crash = 0
    reach = dict.fromkeys(range(setup.departure + 1, setup.last_space + 1), 0)
    for ordered in rolls:
        context = TravelContext(setup.departure, setup.allowed, setup.fuel_value,
                                canonical(list(ordered)), dice1_seats, extra, False)
        if not context.has_units():
            crash += 1
            continue
        ends = {min(setup.departure + context.distance(m), setup.last_space)
                for m in context.legal_moves()}
        for space in ends:
            reach[space] += 1
    n = len(rolls)
    return Fraction(crash, n), {space: Fraction(w, n) for space, w in reach.items()}


def setup_for(departure: int, last: int, available: int, allowed: set[str], fuel: int,
              dice1_seats: tuple[int, ...] = (), extra: tuple[str, ...] = ()) -> RollSetup:
    ufo = sum(fuel if f == FUEL else int(f) for f in extra)
    return RollSetup(departure, last, available, frozenset(allowed), fuel, len(dice1_seats), ufo)


CASES = [
    # departure, last, dice, allowed, fuel, dice-1 seats, UFO extra faces
    (0, 25, 3, {"1", "2", FUEL}, 1, (), ()),
    (3, 25, 4, {"2", "4"}, 0, (), ()),
    (7, 25, 2, {"1", "3"}, 0, (0, 1), ()),
    (14, 25, 4, {"4", FUEL}, 2, (), ("4",)),
    (20, 25, 3, {"4", FUEL}, 3, (), ()),  # overshoot: clamped to deep space
    (22, 25, 4, {"1", FUEL}, 3, (2,), ("1", "3")),
    (9, 12, 3, {"2", "3"}, 0, (), ("2",)),
    (1, 25, 1, {"3"}, 0, (), ()),
    (5, 25, 4, set(FACES), 2, (), ()),
]


@pytest.mark.parametrize(("dep", "last", "dice", "allowed", "fuel", "seats", "extra"), CASES)
def test_matches_brute_force_over_ordered_rolls(
    dep: int, last: int, dice: int, allowed: set[str], fuel: int,
    seats: tuple[int, ...], extra: tuple[str, ...],
) -> None:
    setup = setup_for(dep, last, dice, allowed, fuel, seats, extra)
    odds = odds_for(setup)
    crash, reach = brute_force(setup, seats, extra)
    assert odds.crash == crash
    assert odds.reach == reach
    assert set(odds.reach) == set(range(dep + 1, last + 1))


@pytest.mark.slow
@pytest.mark.parametrize("dice", [5, 6])
def test_matches_brute_force_with_all_six_dice(dice: int) -> None:
    setup = setup_for(0, 25, dice, {"1", "2", FUEL}, 1, (1,), ())
    assert (lambda o: (o.crash, o.reach))(odds_for(setup)) == brute_force(setup, (1,))


# --------------------------------------------------------------------------- rule examples


def test_two_allowed_faces_crash_chance_counts_the_double_two() -> None:
    """Faces {3, 4}: p = 2/6 per die, so 2 dice crash with (4/6)^2; {2} alone has p = 1/3."""
    assert odds_for(setup_for(1, 25, 2, {"3", "4"}, 0)).crash == Fraction(4, 9)
    assert odds_for(setup_for(1, 25, 3, {"2"}, 0)).crash == Fraction(2, 3) ** 3
    assert odds_for(setup_for(1, 25, 2, {"1", "2"}, 0)).crash == Fraction(1, 4)


def test_tc01_space_zero_with_six_dice() -> None:
    odds = odds_for(setup_for(0, 25, 6, {"1", "2", FUEL}, 1))
    assert odds.crash == Fraction(1, 3) ** 6  # only 3 and 4 fail: 2 sides of 6
    assert odds.reach[12] == Fraction(1, 3) ** 6  # six 2s is the only way to go 12
    assert all(odds.reach[s] == 0 for s in range(13, 26))


def test_dice1_and_ufo_extra_remove_the_automatic_crash() -> None:
    """TC-07: an unused dice-1 where 1 is allowed is a unit whatever the roll (A2)."""
    assert odds_for(setup_for(5, 25, 3, {"1", "4"}, 0, (1,))).crash == 0
    assert odds_for(setup_for(5, 25, 3, {"1", "4"}, 0, (1,))).reach[6] == 1
    assert odds_for(setup_for(1, 25, 2, {"2", "3"}, 0, (), ("2",))).crash == 0


def test_crash_formula_of_the_spec() -> None:
    """Section 1: without abilities the crash chance is (1 - p)^n, p the allowed faces' share."""
    for allowed in ({"1"}, {"2", "3"}, {"4", FUEL}, {"1", "2", FUEL}):
        p = Fraction(sum(2 if f == "2" else 1 for f in allowed), 6)
        for n in range(1, 7):
            assert odds_for(setup_for(0, 25, n, allowed, 1)).crash == (1 - p) ** n


# ------------------------------------------------------------------------ from real states


def started(variants: frozenset[str] = frozenset(), kinds: tuple[str, ...] = ()) -> State:
    state = Game(GameConfig(players=PLAYERS[:2], variants=variants)).new_initial_state()
    for kind in kinds or ("parachute", "moon_x2"):
        state.apply_action(f"place {kind}")
    return state


def test_state_at_roll_uses_space_faces_and_dice1() -> None:
    state = started(kinds=("dice_1", "moon_x2"))  # space 0 allows 1: the token is a unit
    assert state.phase is Phase.ROLL
    assert next_roll_odds(state).crash == 0
    state = started(kinds=("dice_1", "satellite"))  # space 3 allows {2, 4}: the token is not
    odds = next_roll_odds(state)
    assert odds.departure == 3
    assert odds.crash == Fraction(1, 2) ** 6


def test_unused_reroll_squares_the_crash() -> None:
    state = Game(GameConfig(players=PLAYERS[:2], variants=frozenset({"ufo"}))).new_initial_state()
    reroll = next(t for t in state.game.tokens.expedition if t.ability == "reroll")
    state.apply_action(f"draw {reroll.id}")
    state.apply_action("place satellite")
    state.apply_action("place moon_x2")
    odds = next_roll_odds(state)
    assert odds.crash == Fraction(1, 2) ** reroll.dice
    assert odds.crash_with_reroll == odds.crash**2
    assert next_roll_odds(started()).crash_with_reroll is None


def landing_state(seed: int) -> State:
    """A landing decision reached by a seeded random game."""
    rng = random.Random(seed)
    state = Game(GameConfig(players=PLAYERS, variants=frozenset({"ufo"}))).new_initial_state()
    bot = RandomBot()
    while state.phase is not Phase.LANDING:
        if state.is_terminal():
            state = Game(state.game.config).new_initial_state()
        elif state.is_chance_node():
            state.apply_action(sample_chance(state, rng))
        else:
            state.apply_action(bot.choose(state, rng))
    return state


def test_landing_odds_are_the_next_roll_if_everyone_stays() -> None:
    for seed in range(5):
        state = landing_state(seed)
        odds = next_roll_odds(state)
        assert odds.departure == state.space
        while state.phase is Phase.LANDING:
            state.apply_action(Stay())
        assert state.phase is Phase.ROLL
        assert next_roll_odds(state) == odds


def test_refuses_points_without_a_next_roll() -> None:
    state = Game(GameConfig(players=PLAYERS[:2])).new_initial_state()
    with pytest.raises(OddsError, match="place an astronaut"):
        next_roll_odds(state)
    state = started()
    state.apply_action(Roll(("1", "1", "2", "3", "4", FUEL)))
    assert state.phase is Phase.CHOOSE
    with pytest.raises(OddsError, match="choose a move"):
        next_roll_odds(state)


def roll_positions(count: int, seed: int = 7) -> list[State]:
    """ROLL chance nodes met in seeded random games with every variant."""
    rng = random.Random(seed)
    game = Game(GameConfig(players=PLAYERS, variants=frozenset({"ufo", "exploration"})))
    state = game.new_initial_state()
    bot = RandomBot()
    found: list[State] = []
    while len(found) < count:
        if state.is_terminal():
            state = game.new_initial_state()
        elif state.is_chance_node():
            if state.phase is Phase.ROLL and rng.random() < 0.3:
                found.append(state.clone())
            state.apply_action(sample_chance(state, rng))
        else:
            state.apply_action(bot.choose(state, rng))
    return found


def by_chance_outcomes(state: State) -> tuple[Fraction, dict[int, Fraction]]:
    """The engine's own view: apply every roll of chance_outcomes() and look at the moves."""
    last = state.game.board.last_space
    crash = Fraction(0)
    reach = dict.fromkeys(range(state.space + 1, last + 1), Fraction(0))
    for roll, p in state.chance_outcomes():
        after = state.clone()
        after.apply_action(roll)
        moves = [a for a in after.legal_actions() if isinstance(a, Move)]
        if after.phase is not Phase.CHOOSE or not moves:
            crash += p
            continue
        context = after.travel_context()
        for space in {min(state.space + context.distance(m), last) for m in moves}:
            reach[space] += p
    return crash, reach


def test_agrees_with_the_state_machine_at_real_positions() -> None:
    for state in roll_positions(12):
        odds = next_roll_odds(state)
        assert (odds.crash, odds.reach) == by_chance_outcomes(state), str(state)
        assert roll_setup(state).departure == state.departure


def test_query_is_fast_once_cached() -> None:
    positions = roll_positions(60, seed=3)
    clear_cache()
    for state in positions:
        next_roll_odds(state)
    times = []
    for state in positions:
        start = time.perf_counter()
        next_roll_odds(state)
        times.append(time.perf_counter() - start)
    assert statistics.median(times) < 0.005


def test_to_json_gives_exact_and_float() -> None:
    data = odds_for(setup_for(1, 25, 2, {"3", "4"}, 0)).to_json()
    assert data["crash"] == {"exact": "4/9", "p": 4 / 9}
    assert data["crash_with_reroll"] is None
    assert set(data["reach"]) == {str(s) for s in range(2, 26)}


# ----------------------------------------------------------------------------- properties


setups = st.builds(
    lambda dep, gap, n, allowed, fuel, d1, ufo: RollSetup(
        dep, dep + gap, n, frozenset(allowed), fuel if FUEL in allowed else 0, d1, ufo),
    st.integers(0, 24), st.integers(1, 25), st.integers(1, 6),
    st.sets(st.sampled_from(FACES), min_size=1), st.integers(1, 3), st.integers(0, 3),
    st.sampled_from([0, 1, 2, 3, 4, 5, 7]),
)


@settings(max_examples=100, deadline=None)
@given(setups)
def test_probabilities_are_consistent(setup: RollSetup) -> None:
    odds: RollOdds = odds_for(setup)
    assert 0 <= odds.crash <= 1
    assert all(0 <= p <= 1 - odds.crash for p in odds.reach.values())
    if setup.dice1 or setup.ufo_extra:
        assert odds.crash == 0
        # a move of the ability unit alone is always legal: its distance is reached for sure
        unit = 1 if setup.dice1 else setup.ufo_extra
        assert odds.reach[min(setup.departure + unit, setup.last_space)] == 1
    else:
        p = Fraction(sum(2 if f == "2" else 1 for f in setup.allowed), 6)
        assert odds.crash == (1 - p) ** setup.available
    # more dice never make a crash likelier
    if setup.available < 6:
        more = RollSetup(setup.departure, setup.last_space, setup.available + 1, setup.allowed,
                         setup.fuel_value, setup.dice1, setup.ufo_extra)
        assert odds_for(more).crash <= odds.crash


@settings(max_examples=40, deadline=None)
@given(setups.filter(lambda s: s.available <= 3), st.data())
def test_small_rolls_match_brute_force(setup: RollSetup, data: st.DataObject) -> None:
    seats = tuple(range(setup.dice1))
    extra: tuple[str, ...] = ()
    if setup.ufo_extra:  # realise the UFO value with allowed faces when possible
        values = {f: (setup.fuel_value if f == FUEL else int(f)) for f in setup.allowed}
        fitting = [f for f, v in values.items() if v == setup.ufo_extra]
        if not fitting:
            setup = RollSetup(setup.departure, setup.last_space, setup.available, setup.allowed,
                              setup.fuel_value, setup.dice1, 0)
        else:
            extra = (data.draw(st.sampled_from(sorted(fitting))),)
    odds = odds_for(setup)
    assert (odds.crash, odds.reach) == brute_force(setup, seats, extra)
