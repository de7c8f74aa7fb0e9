"""The travel phase's arithmetic: usable units of a roll, the legal moves, and why a move is not.

A unit is a whole group of rolled dice of one allowed face, an unused dice-1 token (where 1 is
allowed), or the UFO's extra dice; a move is any non-empty set of units (R-V2, R-V3).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from itertools import combinations

from .actions import Move
from .dice import FACES, FUEL, face_value
from .errors import IllegalActionError


@dataclass(frozen=True, slots=True)
class TravelContext:
    """What fixes the units of one travel phase: departure space, roll, abilities at hand."""

    space: int
    allowed: frozenset[str]
    fuel_value: int
    roll: tuple[str, ...]
    dice1_seats: tuple[int, ...]
    """Seats whose dice-1 astronaut is aboard and unused."""
    ufo_extra: tuple[str, ...]
    """UFO extra faces usable here (token faces the space allows); empty if none or spent."""
    keep_available: bool

    groups: dict[str, int] = field(init=False, compare=False)
    """Usable rolled groups: face -> number of dice, in canonical order (derived from the roll)."""

    def __post_init__(self) -> None:
        counts = Counter(self.roll)
        groups = {face: counts[face] for face in FACES if counts[face] and face in self.allowed}
        object.__setattr__(self, "groups", groups)

    @property
    def ability_units(self) -> int:
        """How many units come from abilities rather than rolled dice."""
        return len(self.dice1_seats) + (1 if self.ufo_extra else 0)

    def has_units(self) -> bool:
        return bool(self.groups) or self.ability_units > 0

    def distance(self, move: Move) -> int:
        """Steps the move is worth: groups, dice-1 tokens (1 each) and the UFO extras."""
        steps = sum(face_value(face, self.fuel_value) for face in move.dice)
        steps += len(move.dice1)
        if move.ufo:
            steps += sum(face_value(face, self.fuel_value) for face in self.ufo_extra)
        return steps

    def legal_moves(self) -> list[Move]:
        """Every legal move, each once, in a stable order."""
        units: list[tuple[tuple[str, ...], tuple[int, ...], bool]] = [
            ((face,) * count, (), False) for face, count in self.groups.items()
        ]
        units.extend(((), (seat,), False) for seat in self.dice1_seats)
        if self.ufo_extra:
            units.append(((), (), True))
        moves = []
        for size in range(1, len(units) + 1):
            for chosen in combinations(units, size):
                dice = tuple(face for unit in chosen for face in unit[0])
                dice1 = tuple(seat for unit in chosen for seat in unit[1])
                ufo = any(unit[2] for unit in chosen)
                moves.append(Move(dice, dice1, ufo))
                if self.keep_available:
                    moves.append(Move(dice, dice1, ufo, keep=True))
        return moves

    def check_move(self, move: Move) -> None:
        """Raise IllegalActionError saying why `move` is not legal here."""
        if not (move.dice or move.dice1 or move.ufo):
            raise IllegalActionError("a move must use at least one group or token (no passing)")
        used = Counter(move.dice)
        rolled = Counter(self.roll)
        allowed = ", ".join(face for face in FACES if face in self.allowed)
        for face, count in used.items():
            if face not in self.allowed:
                raise IllegalActionError(
                    f"face {face} is not allowed on space {self.space} (allowed: {allowed})"
                )
            if rolled[face] == 0:
                raise IllegalActionError(f"the roll has no {face}")
            if count != rolled[face]:
                raise IllegalActionError(
                    f"whole groups only: the roll has {rolled[face]} x {face},"
                    f" the move uses {count}"
                )
        for seat in move.dice1:
            if seat not in self.dice1_seats:
                raise IllegalActionError(
                    f"no unused dice-1 token of seat {seat} can be used here"
                    + ("" if "1" in self.allowed else f" (space {self.space} does not allow 1)")
                )
        if move.ufo and not self.ufo_extra:
            raise IllegalActionError("no UFO extra dice are usable here")
        if move.keep and not self.keep_available:
            raise IllegalActionError("no unused UFO keep-dice ability")

    def dice_consumed(self, move: Move) -> int:
        """Rolled dice a move spends: number faces only; fuel dice come back (R-V5)."""
        return sum(1 for face in move.dice if face != FUEL)
