"""Where an astronaut may disembark: moons, planets, deep space, and the +/-1 shift (R-L3, R-L4)."""

from __future__ import annotations

from .board import COMET, GALAXY, Board

PLUS_MINUS_1 = "plus_minus_1"


def space_targets(board: Board, index: int, moon_occupant: dict[str, int]) -> list[str]:
    """Targets of one space: its first free moon (the farthest, highest) and its planet."""
    if not 0 <= index < board.last_space:
        return []
    space = board.spaces[index]
    targets = []
    for moon in space.moons:
        if moon.id not in moon_occupant:
            targets.append(moon.id)
            break
    if space.planet is not None:
        targets.append(space.planet)
    return targets


def landing_targets(
    board: Board, kind: str, index: int, moon_occupant: dict[str, int]
) -> list[str]:
    """Legal targets in a landing phase at `index` (never below no_landing_below, A6)."""
    if index < board.no_landing_below:
        return []
    targets = space_targets(board, index, moon_occupant)
    if kind == PLUS_MINUS_1:
        for neighbour in (index - 1, index + 1):
            if neighbour == board.last_space:
                targets.append(GALAXY)
            elif neighbour >= board.no_landing_below:
                targets.extend(t for t in space_targets(board, neighbour, moon_occupant)
                               if t not in targets)
    return targets


def deep_space_targets(
    board: Board, kind: str, is_deep_captain: bool, moon_occupant: dict[str, int]
) -> list[str]:
    """Deep space (R-D2): comet for the arrival captain, galaxy for the rest; +/-1 may step back."""
    targets = [COMET if is_deep_captain else GALAXY]
    if kind == PLUS_MINUS_1:
        targets.extend(space_targets(board, board.last_space - 1, moon_occupant))
    return targets
