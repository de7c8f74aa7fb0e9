"""Named events: what one action changed, for the display, the web page and the logs.

The rules core returns new state; this module compares the state before and after an action and
names what happened (OctoPrint's events, derived rather than emitted, so no rule is duplicated).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from companion.games.mlem import Action, Place, Roll, State
from companion.games.mlem.board import COMET, GALAXY

EVENT_NAMES = (
    "game_started",
    "placed",
    "roll_read",
    "moved",
    "crashed",
    "landed",
    "goal_claimed",
    "reward",
    "expedition_over",
    "game_over",
    # from the table service rather than the rules
    "roll_seen",
    "undone",
    "redone",
    "corrected",
)


@dataclass(frozen=True)
class Event:
    """One thing that happened; `text` is a short sentence for people, `data` for programs."""

    name: str
    text: str
    data: dict[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return {"name": self.name, "text": self.text, "data": self.data}


GOAL_TITLES = {
    "planets": "four planets",
    "moons": "four moons",
    "crowd": "three on one planet",
    "deep_space": "two in deep space",
}


def target_label(state: State, target: str) -> str:
    """'moon M9a (4)', 'planet P2', 'comet (7)', 'galaxy (5)'."""
    board = state.game.board
    if target == COMET:
        return f"comet ({board.comet_points})"
    if target == GALAXY:
        return f"galaxy ({board.galaxy_points})"
    if target in board.planets:
        return f"planet {target}"
    return f"moon {target} ({board.moons[target].points})"


def events_between(before: State, action: Action, after: State) -> list[Event]:
    """Name what `action` did, in the order it happened."""
    names = after.game.config.players
    events: list[Event] = []
    if isinstance(action, Place):
        seat = before.current_player()
        events.append(Event("placed", f"{names[seat]} boards: {action.kind}",
                            {"seat": seat, "kind": action.kind}))
    if isinstance(action, Roll):
        events.append(Event("roll_read", "Roll: " + " ".join(action.faces),
                            {"faces": list(action.faces)}))
    if after.space != before.space and before.phase.value == "choose":
        events.append(Event("moved", f"Rocket {before.departure} -> {after.space}",
                            {"from": before.departure, "to": after.space}))
    _rewards(before, after, events)
    if after.crash_count != before.crash_count:
        track = after.game.board.crash_track_length
        events.append(Event("crashed", f"CRASH {after.crash_count}/{track}",
                            {"crash_count": after.crash_count}))
    for placement in after.placements[len(before.placements):]:
        points = _immediate_points(before, after, placement.seat)
        events.append(Event(
            "landed",
            f"{names[placement.seat]} lands on {target_label(after, placement.target)}"
            + (f" +{points}" if points else ""),
            {"seat": placement.seat, "kind": placement.kind, "target": placement.target,
             "points": points},
        ))
    for goal, seat in after.goals.items():
        if goal not in before.goals:
            events.append(Event("goal_claimed", f"{names[seat]} claims the goal "
                                f"'{GOAL_TITLES[goal]}' (+5)", {"goal": goal, "seat": seat}))
    if after.expedition != before.expedition or (after.is_terminal() and not before.is_terminal()):
        events.append(Event("expedition_over", f"Expedition {before.expedition} over",
                            {"expedition": before.expedition}))
    if after.is_terminal() and not before.is_terminal():
        winners = " and ".join(names[seat] for seat in after.winners())
        events.append(Event("game_over", f"Game over ({after.end_reason}): {winners} won",
                            {"winners": after.winners(), "scores": after.returns()}))
    return events


def _immediate_points(before: State, after: State, seat: int) -> int:
    return (after.moon_points[seat] + after.deep_points[seat]
            - before.moon_points[seat] - before.deep_points[seat])


def _rewards(before: State, after: State, events: list[Event]) -> None:
    names = after.game.config.players
    for seat, name in enumerate(names):
        for value in after.ufo_won[seat][len(before.ufo_won[seat]):]:
            events.append(Event("reward", f"{name} meets the UFO: token worth {value}",
                                {"seat": seat, "kind": "ufo", "points": value}))
        for value in after.explore_won[seat][len(before.explore_won[seat]):]:
            events.append(Event("reward", f"{name} explores: {value} point(s)",
                                {"seat": seat, "kind": "exploration", "points": value}))
