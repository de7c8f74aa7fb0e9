"""Named events: what one action changed, for the display, the web page, the logs and narration.

The rules core returns new state; this module compares the state before and after an action and
names what happened (OctoPrint's events, derived rather than emitted, so no rule is duplicated).
It is the only place that reads that difference: `companion.narrate` tells the same events as
sentences, so a rule change shows up in one place. ``text`` is short (an OLED line, the page's
event list); ``data`` has what programs and the narrator need.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from companion.games.mlem import Action, Land, Move, Phase, Place, Roll, State
from companion.games.mlem.board import COMET, GALAXY

EVENT_NAMES = (
    "game_started",
    "placed",
    "launched",
    "roll_read",
    "moved",
    "reward",
    "explored",
    "crashed",
    "landed",
    "goal_claimed",
    "dice_removed",
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
                            {"seat": seat, "kind": action.kind, "captain": not before.rocket}))
        if after.phase is not Phase.PLACE and after.departure:
            events.append(Event("launched", f"Rocket starts on space {after.departure}",
                                {"space": after.departure}))
    if isinstance(action, Roll):
        only_reroll = after.phase is Phase.CHOOSE and not after.travel_context().has_units()
        events.append(Event("roll_read", "Roll: " + " ".join(action.faces),
                            {"faces": list(action.faces), "space": before.departure,
                             "only_reroll": only_reroll}))
    if isinstance(action, Move):
        events.append(_moved(before, action, after))
    _rewards(before, after, events)
    events.extend(_explored(before, after))
    if after.crash_count != before.crash_count:
        track = after.game.board.crash_track_length
        parachutes = list(after.pending) if after.phase is Phase.PARACHUTE else []
        events.append(Event("crashed", f"CRASH {after.crash_count}/{track}",
                            {"crash_count": after.crash_count, "track": track,
                             "parachutes": parachutes}))
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
    if (isinstance(action, Land) and before.phase is Phase.LANDING
            and after.available < before.available and after.phase is not Phase.GAME_OVER):
        events.append(Event("dice_removed", f"Dice X: one die leaves play ({before.available}"
                            f" -> {after.available})",
                            {"before": before.available, "after": after.available}))
    if after.expedition != before.expedition or (after.is_terminal() and not before.is_terminal()):
        events.append(Event("expedition_over", f"Expedition {before.expedition} over",
                            {"expedition": before.expedition, "next": after.expedition}))
    if after.is_terminal() and not before.is_terminal():
        winners = " and ".join(names[seat] for seat in after.winners())
        events.append(Event("game_over", f"Game over ({after.end_reason}): {winners} won",
                            {"winners": after.winners(), "scores": after.returns(),
                             "reason": after.end_reason}))
    return events


def _moved(before: State, action: Move, after: State) -> Event:
    """The move: where from and to (before any reset at the end of the expedition), with what."""
    distance = before.travel_context().distance(action)
    last = before.game.board.last_space
    arrive = min(before.departure + distance, last)
    return Event("moved", f"Rocket {before.departure} -> {arrive}", {
        "from": before.departure, "to": arrive, "distance": distance, "deep_space": arrive == last,
        "seat": before.captain, "dice": list(action.dice), "dice1": list(action.dice1),
        "ufo": action.ufo, "keep": action.keep,
        "dice_before": before.available, "dice_after": after.available,
    })


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


EXPLORATION_EFFECTS = {
    "dice_recovery": "a die comes back into play",
    "tunnel": "a tunnel, four spaces on",
}


def _explored(before: State, after: State) -> list[Event]:
    """Exploration tokens the rocket picked up this action (points, dice back, tunnels)."""
    if not after.game.has("exploration"):
        return []
    events = []
    tokens = after.game.tokens
    for space, tid in sorted(before.explore_on_board.items()):
        if after.explore_on_board.get(space) == tid:
            continue
        token = tokens.exploration_by_id(tid)
        effect = (f"{plural(token.points, 'point')} for the captain" if token.kind == "points"
                  else EXPLORATION_EFFECTS.get(token.kind, token.kind.replace("_", " ")))
        events.append(Event("explored", f"Exploration token on {space}: {effect}",
                            {"space": space, "token": tid, "kind": token.kind,
                             "points": token.points if token.kind == "points" else 0}))
    return events


def plural(n: int, word: str) -> str:
    """'1 point', '2 points'."""
    return f"{n} {word}{'s' if n != 1 else ''}"
