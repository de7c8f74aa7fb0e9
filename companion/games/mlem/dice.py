"""MLEM dice: six identical d6 showing 1, 2, 2, 3, 4 and the fuel symbol.

Rolls are multisets, kept in a canonical order so that the same roll has one text form.
"""

from __future__ import annotations

import math
from collections import Counter
from fractions import Fraction
from functools import cache
from itertools import combinations_with_replacement

from .errors import InvalidActionError

FUEL = "fuel"
FACES: tuple[str, ...] = ("1", "2", "3", "4", FUEL)
"""Distinct faces, in canonical order."""
SIDES_PER_FACE: dict[str, int] = {"1": 1, "2": 2, "3": 1, "4": 1, FUEL: 1}
"""How many of a die's six sides show each face (the 2 is printed twice)."""
DICE_IN_GAME = 6
_ORDER = {face: i for i, face in enumerate(FACES)}


def canonical(faces: tuple[str, ...] | list[str]) -> tuple[str, ...]:
    """Sort faces into canonical order (1, 2, 3, 4, fuel)."""
    return tuple(sorted(faces, key=_ORDER.__getitem__))


def check_face(face: str) -> str:
    """Return `face` if it is an MLEM face; a 5 or 6 from a generic recogniser is an error (P2)."""
    if face not in _ORDER:
        raise InvalidActionError(
            f"face {face!r} does not exist on MLEM dice (faces: {', '.join(FACES)})"
        )
    return face


def face_value(face: str, fuel_value: int) -> int:
    """Steps one die of `face` moves the rocket; fuel counts the departure space's value."""
    return fuel_value if face == FUEL else int(face)


@cache
def roll_distribution(n: int) -> tuple[tuple[tuple[str, ...], Fraction], ...]:
    """Every multiset of `n` MLEM dice with its exact (multinomial) probability.

    >>> sum(p for _, p in roll_distribution(3))
    Fraction(1, 1)
    """
    outcomes = []
    total = Fraction(1, 6**n)
    for combo in combinations_with_replacement(FACES, n):
        counts = Counter(combo)
        ways = math.factorial(n)
        weight = 1
        for face, k in counts.items():
            ways //= math.factorial(k)
            weight *= SIDES_PER_FACE[face] ** k
        outcomes.append((combo, total * ways * weight))
    return tuple(outcomes)
