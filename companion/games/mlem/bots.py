"""Seat-filling bots: they pick one of `state.legal_actions()`, deterministically for a given rng.

They fill empty seats in the demo and the simulator and give the benchmark its playouts; they are
heuristics, not strong players:

- RandomBot: uniform over the legal actions (the playout baseline).
- CautiousBot: small moves that keep dice, lands on the best target as soon as it has one.
- GreedyBot: the longest move, the highest-value targets, astronauts whose ability fits the seat;
  it stays aboard for better targets while the next roll is unlikely to crash (exact odds).
"""

from __future__ import annotations

import random
from typing import Protocol

from .actions import Action, Crash, Discard, Land, Move, Place, Reroll, Stay
from .board import COMET, GALAXY
from .dice import FUEL
from .odds import next_roll_odds
from .scoring import Placement, goals_met, planet_awards
from .state import Phase, State


class Bot(Protocol):
    """Chooses an action for the seat to act; must return one of `state.legal_actions()`."""

    name: str

    def choose(self, state: State, rng: random.Random) -> Action: ...


def _decision_actions(state: State) -> list[Action]:
    """The legal actions of a player decision; bots never act for chance."""
    if state.is_chance_node() or state.is_terminal():
        raise ValueError(f"bots decide for players, not here: the state waits for "
                         f"{state.expecting()}")
    actions = state.legal_actions()
    if not actions:
        raise ValueError(f"no legal action at {state}")
    return actions


def _dice_consumed(move: Move) -> int:
    """Rolled dice a move removes (fuel dice come back, keep removes nothing: R-V5, U4)."""
    return 0 if move.keep else sum(1 for face in move.dice if face != FUEL)


def _kind_aboard(state: State, seat: int) -> str:
    return next(kind for s, kind in state.rocket if s == seat)


def target_value(state: State, seat: int, kind: str, target: str) -> int:
    """Points landing `kind` of `seat` on `target` is worth now: immediate points, the change in
    the provisional planet award, and goals it would newly claim (5 each)."""
    board = state.game.board
    if target in (COMET, GALAXY):
        points = board.comet_points if target == COMET else board.galaxy_points
        value = points * (2 if kind == "deep_space_x2" else 1)
    elif target in board.planets:
        after = [*state.placements, Placement(len(state.placements) + 1, seat, kind, target)]
        value = (planet_awards(board, after).get(seat, 0)
                 - planet_awards(board, state.placements).get(seat, 0))
    else:
        value = board.moons[target].points * (2 if kind == "moon_x2" else 1)
    hypothetical = [*state.placements, Placement(len(state.placements) + 1, seat, kind, target)]
    new_goals = [g for g in goals_met(board, hypothetical, seat) if g not in state.goals]
    return value + 5 * len(new_goals)


def _best_land(state: State, actions: list[Action]) -> Land | None:
    """The landing worth most to the deciding astronaut (first listed on ties)."""
    seat = state.current_player()
    kind = _kind_aboard(state, seat)
    lands = [a for a in actions if isinstance(a, Land)]
    if not lands:
        return None
    return max(lands, key=lambda a: target_value(state, seat, kind, a.target))


def _mission_space(state: State, token_id: str) -> int:
    """The track space of a mission's target (moon, moon body or planet); far = hard."""
    target = next(t.target for t in state.game.tokens.missions if t.id == token_id)
    for space in state.game.board.spaces:
        if space.planet == target or any(target in (m.id, m.body) for m in space.moons):
            return space.index
    return state.game.board.last_space


def _discard_hardest(state: State, actions: list[Action]) -> Action:
    """Give up the mission whose target is farthest along the track."""
    discards = [a for a in actions if isinstance(a, Discard)]
    return max(discards, key=lambda a: _mission_space(state, a.token))


def _no_move(actions: list[Action]) -> Action:
    """Only Reroll and/or Crash are legal: a reroll may still save the rocket."""
    return next((a for a in actions if isinstance(a, Reroll)),
                next(a for a in actions if isinstance(a, Crash)))


class RandomBot:
    """Uniform over the legal actions: the fastest bot, the playout baseline."""

    name = "random"

    def choose(self, state: State, rng: random.Random) -> Action:
        return rng.choice(_decision_actions(state))


CAUTIOUS_PLACE_ORDER = ("parachute", "satellite", "dice_1", "plus_minus_1", "dice_x", "moon_x2",
                        "planet_x2", "deep_space_x2")


class CautiousBot:
    """Keeps dice and lands early: small moves, the best target at the first chance."""

    name = "cautious"

    def choose(self, state: State, rng: random.Random) -> Action:
        actions = _decision_actions(state)
        phase = state.phase
        if phase is Phase.PLACE:
            kinds = {a.kind for a in actions if isinstance(a, Place)}
            kind = next((k for k in CAUTIOUS_PLACE_ORDER if k in kinds), sorted(kinds)[0])
            return Place(kind)
        if phase is Phase.CHOOSE:
            moves = [a for a in actions if isinstance(a, Move)]
            if not moves:
                return _no_move(actions)
            context = state.travel_context()
            return min(moves, key=lambda m: (_dice_consumed(m), context.distance(m), not m.keep))
        if phase is Phase.DISCARD_MISSION:
            return _discard_hardest(state, actions)
        best = _best_land(state, actions)
        return best if best is not None else Stay()


GREEDY_PLACE_ORDER = ("satellite", "dice_1", "plus_minus_1", "moon_x2", "planet_x2",
                      "deep_space_x2", "dice_x", "parachute")


class GreedyBot:
    """Goes far and lands high: the longest move, the best target, abilities that fit the seat.

    In a landing phase it stays aboard while its best target is worth less than `good_target`
    and the next roll crashes with probability under `max_risk` (exact odds, not a guess).
    """

    name = "greedy"

    def __init__(self, good_target: int = 6, max_risk: float = 0.25) -> None:
        self.good_target = good_target
        self.max_risk = max_risk

    def choose(self, state: State, rng: random.Random) -> Action:
        actions = _decision_actions(state)
        phase = state.phase
        if phase is Phase.PLACE:
            return Place(self._place_kind(state, actions))
        if phase is Phase.CHOOSE:
            moves = [a for a in actions if isinstance(a, Move)]
            if not moves:
                return _no_move(actions)
            context = state.travel_context()
            return max(moves, key=lambda m: (context.distance(m), m.keep, -_dice_consumed(m)))
        if phase is Phase.DISCARD_MISSION:
            return _discard_hardest(state, actions)
        best = _best_land(state, actions)
        if best is None:
            return Stay()
        if phase is not Phase.LANDING:
            return best  # deep space or parachute: this is the last chance to score
        seat = state.current_player()
        value = target_value(state, seat, _kind_aboard(state, seat), best.target)
        if value >= self.good_target or self._risky(state):
            return best
        return Stay()

    def _risky(self, state: State) -> bool:
        odds = next_roll_odds(state)
        crash = odds.crash_with_reroll if odds.crash_with_reroll is not None else odds.crash
        last_crash = state.crash_count == state.game.board.crash_track_length - 1
        return crash >= self.max_risk or last_crash

    def _place_kind(self, state: State, actions: list[Action]) -> str:
        """The captain seat wants the comet doubler; a second satellite is wasted."""
        kinds = [a.kind for a in actions if isinstance(a, Place)]
        aboard = {kind for _, kind in state.rocket}

        def score(kind: str) -> int:
            rank = (len(GREEDY_PLACE_ORDER) - GREEDY_PLACE_ORDER.index(kind)
                    if kind in GREEDY_PLACE_ORDER else 0)
            if kind == "deep_space_x2" and not state.rocket:
                rank += 10  # the first aboard is captain: the comet counts double
            if kind == "satellite" and "satellite" in aboard:
                rank -= 10
            if kind == "parachute" and state.crash_count >= state.game.board.crash_track_length - 2:
                rank += 10
            return rank

        return max(kinds, key=score)


BOTS: dict[str, type[RandomBot] | type[CautiousBot] | type[GreedyBot]] = {
    "random": RandomBot,
    "cautious": CautiousBot,
    "greedy": GreedyBot,
}


def make_bot(name: str) -> Bot:
    """A bot by name (`random`, `cautious`, `greedy`).

    :raises ValueError: an unknown name; the message lists the known ones.
    """
    try:
        return BOTS[name]()
    except KeyError:
        raise ValueError(f"unknown bot {name!r}; known: {', '.join(BOTS)}") from None
