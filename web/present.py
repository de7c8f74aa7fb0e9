"""Turn the table's snapshot into what the page shows: the board, odds, planet ranks, seats.

Pure functions of a snapshot and a private state copy; the live hub calls them once per change and
sends the result to every phone, so no request handler recomputes them.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from companion.games.mlem import Board, Roll, RulesError, State, load_board
from companion.games.mlem.scoring import planet_ranking
from companion.table import Snapshot

log = logging.getLogger(__name__)

# Okabe & Ito (2008): eight colours that people with any common colour-vision deficiency can tell
# apart; every seat also gets a symbol, and names are always shown next to both.
PALETTE: dict[str, str] = {
    "orange": "#E69F00",
    "sky_blue": "#56B4E9",
    "bluish_green": "#009E73",
    "yellow": "#F0E442",
    "blue": "#0072B2",
    "vermillion": "#D55E00",
    "reddish_purple": "#CC79A7",
    "black": "#000000",
}
SYMBOLS = ("●", "▲", "■", "◆", "★")


@dataclass
class SeatBook:
    """Seat colours and bot seats per game: presentation the rules core does not keep."""

    colours: dict[int, tuple[str, ...]] = field(default_factory=dict)
    bots: dict[int, frozenset[int]] = field(default_factory=dict)

    def set(self, game_id: int, colours: tuple[str, ...], bots: frozenset[int]) -> None:
        self.colours[game_id] = colours
        self.bots[game_id] = bots

    def colours_of(self, game_id: int | None, players: int) -> tuple[str, ...]:
        chosen = self.colours.get(game_id or -1)
        if chosen and len(chosen) == players:
            return chosen
        return tuple(list(PALETTE)[:players])

    def bots_of(self, game_id: int | None) -> frozenset[int]:
        return self.bots.get(game_id or -1, frozenset())


@lru_cache(maxsize=16)
def board_json(name: str) -> dict[str, Any]:
    """The board as the page draws it (cached: boards are immutable data)."""
    board: Board = load_board(name)
    return {
        "board_id": board.board_id,
        "printed": board.printed,
        "last_space": board.last_space,
        "no_landing_below": board.no_landing_below,
        "crash_track_length": board.crash_track_length,
        "comet_points": board.comet_points,
        "galaxy_points": board.galaxy_points,
        "planets": {pid: {"gold": p.gold, "silver": p.silver, "bronze": p.bronze}
                    for pid, p in board.planets.items()},
        "spaces": [{
            "i": space.index,
            "faces": sorted(space.faces, key=("1", "2", "3", "4", "fuel").index),
            "fuel": space.fuel,
            "moons": [{"id": m.id, "points": m.points, "body": m.body} for m in space.moons],
            "planet": space.planet,
        } for space in board.spaces],
    }


def public_snapshot(snapshot: Snapshot) -> dict[str, Any]:
    """The snapshot anyone on the LAN may see: the table's public view (the rules core's
    observation), less a sealed prompt's options, whose actions name secret missions."""
    data = snapshot.to_json()
    if snapshot.prompt is not None and snapshot.prompt.sealed:
        data["prompt"] = {**data["prompt"], "options": []}
    return data


def game_extras(snapshot: Snapshot, state: State | None, store_seqs: list[int] | None,
                has_proof: Any) -> dict[str, Any]:
    """Odds of the next roll, planet ranks and the last roll (with its proof picture's URL)."""
    extras: dict[str, Any] = {"odds": None, "planet_ranks": {}, "last_roll": None}
    if state is None or snapshot.game_id is None:
        return extras
    try:
        from companion.games.mlem.odds import next_roll_odds  # written in parallel; optional
        extras["odds"] = next_roll_odds(state).to_json()
    except (ImportError, RulesError):
        pass
    extras["planet_ranks"] = {pid: planet_ranking(state.placements, pid)
                              for pid in state.game.board.planets}
    index = next((i for i in range(len(state.history) - 1, -1, -1)
                  if isinstance(state.history[i], Roll)), None)
    if index is not None:
        roll = state.history[index]
        assert isinstance(roll, Roll)
        proof = None
        if store_seqs is not None and index < len(store_seqs):
            seq = store_seqs[index]
            if has_proof(snapshot.game_id, seq):
                proof = f"/api/games/{snapshot.game_id}/proofs/{seq}"
        extras["last_roll"] = {"faces": list(roll.faces), "proof": proof}
    return extras


def seats_json(snapshot: Snapshot, book: SeatBook, holders: dict[int, str]) -> list[dict[str, Any]]:
    """Each seat with its colour, symbol, bot flag and the phone that claimed it."""
    setup = snapshot.setup
    if not setup:
        return []
    players = list(setup["players"])
    colours = book.colours_of(snapshot.game_id, len(players))
    bots = book.bots_of(snapshot.game_id)
    return [{
        "seat": seat,
        "name": name,
        "colour": colours[seat],
        "hex": PALETTE[colours[seat]],
        "symbol": SYMBOLS[seat % len(SYMBOLS)],
        "bot": seat in bots,
        "claimed_by": holders.get(seat),
    } for seat, name in enumerate(players)]
