"""Goals (section 5) and final scoring (section 6.2): planet majorities, missions, totals."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import asdict, dataclass

from .board import COMET, GALAXY, Board

GOALS = ("planets", "moons", "crowd", "deep_space")
"""G1 four different planets, G2 four different moons, G3 three on one planet, G4 two in deep
space; checked in this order after every placement."""
MISSION_POINTS = (0, 2, 5, 10)
PLANET_X2 = "planet_x2"


@dataclass(frozen=True, slots=True)
class Placement:
    """An astronaut on the mat; `seq` orders every placement of the game (arrival_seq)."""

    seq: int
    seat: int
    kind: str
    target: str


@dataclass(frozen=True, slots=True)
class ScoreBreakdown:
    """One player's score by source; before the game ends, planets and missions are provisional."""

    moons: int = 0
    deep_space: int = 0
    planets: int = 0
    goals: int = 0
    ufo: int = 0
    exploration: int = 0
    missions: int = 0

    @property
    def total(self) -> int:
        return (self.moons + self.deep_space + self.planets + self.goals + self.ufo
                + self.exploration + self.missions)

    def to_json(self) -> dict[str, int]:
        return {**asdict(self), "total": self.total}


def goals_met(board: Board, placements: list[Placement], seat: int) -> list[str]:
    """The goal conditions `seat` satisfies now (whether or not someone claimed them first)."""
    mine = [p for p in placements if p.seat == seat]
    moons = board.moons
    per_planet: dict[str, int] = defaultdict(int)
    bodies = set()
    deep = 0
    for p in mine:
        if p.target in board.planets:
            per_planet[p.target] += 1
        elif p.target in moons:
            bodies.add(moons[p.target].body)
        elif p.target in (COMET, GALAXY):
            deep += 1
    met = []
    if len(per_planet) >= 4:
        met.append("planets")
    if len(bodies) >= 4:
        met.append("moons")
    if per_planet and max(per_planet.values()) >= 3:
        met.append("crowd")
    if deep >= 2:
        met.append("deep_space")
    return met


def planet_ranking(placements: list[Placement], planet: str) -> list[int]:
    """Seats on `planet`, best first: most astronauts, ties to the earliest first arrival (A18)."""
    count: dict[int, int] = defaultdict(int)
    first: dict[int, int] = {}
    for p in placements:
        if p.target == planet:
            count[p.seat] += 1
            first.setdefault(p.seat, p.seq)
    return sorted(count, key=lambda seat: (-count[seat], first[seat]))


def planet_awards(board: Board, placements: list[Placement]) -> dict[int, int]:
    """End-game planet points per seat: gold, silver, then bronze for everyone else (A19, A20)."""
    awards: dict[int, int] = defaultdict(int)
    for planet in board.planets.values():
        doubled = {p.seat for p in placements if p.target == planet.id and p.kind == PLANET_X2}
        for rank, seat in enumerate(planet_ranking(placements, planet.id)):
            award = (planet.gold, planet.silver)[rank] if rank < 2 else planet.bronze
            awards[seat] += award * (2 if seat in doubled else 1)
    return awards


def missions_completed(
    board: Board, placements: list[Placement], seat: int, targets: list[str]
) -> int:
    """Kept missions whose target (moon id, moon body or planet) holds an astronaut of `seat`."""
    moons = board.moons
    reached: set[str] = set()
    for p in placements:
        if p.seat == seat:
            reached.add(p.target)
            if p.target in moons:
                reached.add(moons[p.target].body)
    return sum(1 for target in targets if target in reached)


def winners(totals: list[int]) -> list[int]:
    """Every seat tied on the highest total shares the victory (A35)."""
    best = max(totals)
    return [seat for seat, total in enumerate(totals) if total == best]
