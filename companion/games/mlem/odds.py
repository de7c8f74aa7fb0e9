"""Exact odds of the next roll: the chance it crashes and the chance it can reach each space ahead.

Exact, not sampled: every multiset of the available dice is enumerated with its multinomial
weight (over 6^n ordered rolls; the 2 is printed on two sides). Only the allowed faces matter, so
the faces a space does not allow are lumped into one "other" face, which keeps the enumeration
small. For each roll the reachable distances are the non-empty subset sums of its units (whole
groups, dice-1 tokens, the UFO extra dice), computed as a bitset: `reach |= reach << value` per
unit. Results are cached per (dice, allowed faces, fuel value, dice-1 tokens, UFO extra value,
distance to deep space), so a repeated query costs a dictionary lookup.

>>> from companion.games.mlem import Game, GameConfig
>>> state = Game(GameConfig(players=("Blue", "Red"))).new_initial_state()
>>> state.apply_action("place parachute"); state.apply_action("place moon_x2")
>>> odds = next_roll_odds(state)   # 6 dice on space 0 (faces 1, 2, fuel): only 3 and 4 fail
>>> odds.crash == Fraction(1, 3) ** 6
True
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache
from typing import Any

from .dice import FACES, SIDES_PER_FACE, face_value
from .errors import RulesError
from .state import Phase, State

SIDES = sum(SIDES_PER_FACE.values())


class OddsError(RulesError):
    """The state is not at a point before a roll, so there is no "next roll" to give odds for."""


@dataclass(frozen=True, slots=True)
class RollSetup:
    """Everything that decides the next roll's odds (from a state or written by hand in a test)."""

    departure: int
    last_space: int
    available: int
    allowed: frozenset[str]
    fuel_value: int
    dice1: int = 0
    """Unused dice-1 tokens aboard that this space lets the captain use (1 each)."""
    ufo_extra: int = 0
    """Steps of the UFO extra-dice unit here (0: none, spent, or no extra face allowed)."""
    reroll: bool = False
    """An unused UFO reroll: a crashing roll is rolled again once."""


@dataclass(frozen=True, slots=True)
class RollOdds:
    """The next roll's exact odds from `departure` with `available` dice."""

    departure: int
    available: int
    crash: Fraction
    """P(the roll has no usable unit): the automatic crash of R-V3 (before any reroll)."""
    crash_with_reroll: Fraction | None
    """With an unused UFO reroll the captain rerolls a crashing roll: crash squared; else None."""
    reach: dict[int, Fraction]
    """Space -> P(some legal move of the roll ends exactly there); every space ahead is listed,
    and overshooting deep space counts as reaching it (A9). Before exploration tunnels."""

    def to_json(self) -> dict[str, Any]:
        """Plain JSON types: each probability as exact text ("4/9") and as a float."""
        return {
            "departure": self.departure,
            "available": self.available,
            "crash": _prob_json(self.crash),
            "crash_with_reroll": (None if self.crash_with_reroll is None
                                  else _prob_json(self.crash_with_reroll)),
            "reach": {str(space): _prob_json(p) for space, p in self.reach.items()},
        }


def _prob_json(p: Fraction) -> dict[str, Any]:
    return {"exact": str(p), "p": float(p)}


def roll_setup(state: State) -> RollSetup:
    """What fixes the next roll at `state`.

    At a ROLL chance node it is the roll about to be made. In a LANDING phase it is the roll that
    follows from the rocket's current space, assuming everyone still to decide stays aboard (a
    landing dice_x or dice_1 astronaut changes the figures).

    :raises OddsError: anywhere else (the roll is made, or no roll follows).
    """
    if state.phase is Phase.ROLL:
        context = state.travel_context()
    elif state.phase is Phase.LANDING:
        context = state.travel_context(departure=state.space)
    else:
        raise OddsError(
            f"no roll to give odds for: the state waits for {state.expecting()}"
            " (odds exist at a roll or in a landing phase)"
        )
    return RollSetup(
        departure=context.space,
        last_space=state.game.board.last_space,
        available=state.available,
        allowed=context.allowed,
        fuel_value=context.fuel_value,
        dice1=len(context.dice1_seats),
        ufo_extra=sum(face_value(face, context.fuel_value) for face in context.ufo_extra),
        reroll=state.reroll_available(),
    )


def next_roll_odds(state: State) -> RollOdds:
    """Exact crash and reach probabilities of the next roll (see `roll_setup` for where).

    :raises OddsError: the state is not before a roll.
    """
    return odds_for(roll_setup(state))


def odds_for(setup: RollSetup) -> RollOdds:
    """The odds of one roll setup (the cached core of `next_roll_odds`)."""
    gap = setup.last_space - setup.departure
    crash, reach = _odds_by_distance(
        setup.available, setup.allowed, setup.fuel_value, setup.dice1, setup.ufo_extra, gap
    )
    return RollOdds(
        departure=setup.departure,
        available=setup.available,
        crash=crash,
        crash_with_reroll=crash * crash if setup.reroll else None,
        reach={setup.departure + d: p for d, p in enumerate(reach, start=1)},
    )


# ------------------------------------------------------------------------ the cached enumeration


@lru_cache(maxsize=4096)
def _odds_by_distance(
    available: int,
    allowed: frozenset[str],
    fuel_value: int,
    dice1: int,
    ufo_extra: int,
    gap: int,
) -> tuple[Fraction, tuple[Fraction, ...]]:
    """(P(crash), P(reach distance d) for d = 1..gap, where d = gap means "gap or more")."""
    total = SIDES**available
    crash, patterns = _patterns(available, allowed, fuel_value, dice1, ufo_extra)
    at_least_gap = -1 << gap  # every bit from `gap` up
    reach = []
    for d in range(1, gap + 1):
        mask = at_least_gap if d == gap else 1 << d
        reach.append(Fraction(sum(w for bits, w in patterns.items() if bits & mask), total))
    return Fraction(crash, total), tuple(reach)


@lru_cache(maxsize=1024)
def _patterns(
    available: int, allowed: frozenset[str], fuel_value: int, dice1: int, ufo_extra: int
) -> tuple[int, dict[int, int]]:
    """(crash weight, reachable-distance bitset -> weight); weights count ordered rolls."""
    faces = [face for face in FACES if face in allowed]
    sides = [SIDES_PER_FACE[face] for face in faces]
    values = [face_value(face, fuel_value) for face in faces]
    other_sides = SIDES - sum(sides)
    base = 1  # the ability units, present whatever the roll
    for _ in range(dice1):
        base |= base << 1
    if ufo_extra:
        base |= base << ufo_extra
    crash = 0
    patterns: dict[int, int] = {}
    for counts in _compositions(available, len(faces) + 1):
        *used, other = counts
        ways = math.factorial(available) // math.factorial(other) * other_sides**other
        bits = base
        for k, s, v in zip(used, sides, values, strict=True):
            if k:
                ways = ways // math.factorial(k) * s**k
                bits |= bits << (k * v)
        if bits == 1:  # no unit at all: the automatic crash
            crash += ways
        else:
            patterns[bits] = patterns.get(bits, 0) + ways
    return crash, patterns


def _compositions(n: int, parts: int) -> list[tuple[int, ...]]:
    """Every way to write n as an ordered sum of `parts` non-negative integers."""
    if parts == 1:
        return [(n,)]
    return [(k, *rest) for k in range(n + 1) for rest in _compositions(n - k, parts - 1)]


def clear_cache() -> None:
    """Forget cached odds (the benchmark measures cold queries with it)."""
    _odds_by_distance.cache_clear()
    _patterns.cache_clear()
