"""Plain-English narration of MLEM actions, for the demo transcript.

`describe(before, action)` says what an action did: the choice itself, then what followed from it.
What followed (points, goals, UFO and exploration tokens, crashes and parachutes, the automatic
deep-space landings, the end of the expedition or of the game) is told from `companion.events`,
the one place that reads the state difference; this module only chooses the words. Secret
missions stay secret: deals and discards never name the token.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from companion.events import Event, events_between, plural
from companion.games.mlem import (
    Action,
    Crash,
    Discard,
    Draw,
    Phase,
    Reroll,
    Roll,
    State,
    Stay,
)
from companion.games.mlem.board import COMET, GALAXY
from companion.games.mlem.dice import FACES, FUEL
from companion.games.mlem.game import MISSIONS_DEALT
from companion.games.mlem.odds import next_roll_odds


def describe(before: State, action: Action, after: State | None = None) -> str:
    """What `action` at `before` did, as one or more lines (`after` is computed if not given)."""
    if after is None:
        after = before.clone()
        after.apply_action(action)
    events = events_between(before, action, after)
    first: dict[str, Event] = {}
    for event in events:
        first.setdefault(event.name, event)
    lines = [_choice(before, action, first)]
    lines.extend(_consequence(after, event) for event in events)
    return "\n".join(line for line in lines if line)


def _name(state: State, seat: int) -> str:
    return state.game.config.players[seat]


def _kind(kind: str) -> str:
    return kind.replace("_", " ").replace("plus minus 1", "+/-1")


def _faces(faces: tuple[str, ...] | list[str]) -> str:
    return " ".join(faces) if faces else "nothing"


def _choice(before: State, action: Action, events: dict[str, Event]) -> str:
    """The sentence for the action itself (`events`: the first event of each name)."""
    if isinstance(action, Draw):
        return _draw(before, action)
    if isinstance(action, Discard):
        return f"{_name(before, before.pending[0])} discards one mission and keeps three secret."
    if "placed" in events:
        placed = events["placed"].data
        role = " as captain" if placed["captain"] else ""
        text = f"{_name(before, placed['seat'])} puts {_kind(placed['kind'])} aboard{role}."
        if "launched" in events:
            text += f" The satellite starts the rocket on space {events['launched'].data['space']}."
        return text
    if isinstance(action, Roll):
        return _roll(before, action, events)
    if "moved" in events:
        return _move(before, events["moved"].data, "game_over" in events)
    if isinstance(action, Reroll):
        return f"{_name(before, before.captain or 0)} uses the UFO reroll."
    if isinstance(action, Crash):
        captain = _name(before, before.captain or 0)
        return f"{captain} declines the ability dice: the rocket crashes."
    if isinstance(action, Stay):
        seat = before.pending[0]
        if before.phase is Phase.PARACHUTE:
            return f"{_name(before, seat)} does not open the parachute and returns to supply."
        return f"{_name(before, seat)} stays aboard."
    return ""  # a landing: the placement itself is told with its points


def _move(before: State, moved: dict[str, Any], game_over: bool) -> str:
    parts = [str(face) for face in moved["dice"]]
    parts += [f"dice-1 of {_name(before, s)}" for s in moved["dice1"]]
    if moved["ufo"]:
        parts.append("UFO extra dice")
    captain = _name(before, moved["seat"] or 0)
    text = (f"{captain} moves {moved['distance']} with {' + '.join(parts)}:"
            f" space {moved['from']} -> {moved['to']}")
    if moved["deep_space"]:
        text += " (deep space)"
    dice = "kept by the UFO ability" if moved["keep"] else (
        "" if game_over else f"{moved['dice_before']} -> {moved['dice_after']}")
    return text + (f"; dice {dice}." if dice else ".")


def _draw(before: State, action: Draw) -> str:
    tokens = before.game.tokens
    if before.phase is Phase.DEAL_MISSIONS:
        dealt = sum(len(hand) for hand in before.mission_hands)
        seat = dealt // MISSIONS_DEALT
        return f"{_name(before, seat)} is dealt a secret mission."
    if before.phase is Phase.REVEAL_EXPEDITION:
        t = tokens.expedition_by_id(action.token)
        ability = {"extra_dice": f"extra dice {' '.join(t.extra_faces)}",
                   "keep_dice": "keep dice", "reroll": "reroll"}.get(t.ability, t.ability)
        moves = (f"the UFO moves {t.ufo_move} afterwards" if t.ufo_move
                 else "the UFO stays put afterwards")
        return f"Expedition token {t.id}: {t.dice} dice, ability {ability}, {moves}."
    e = tokens.exploration_by_id(action.token)
    what = plural(e.points, "point") if e.kind == "points" else e.kind.replace("_", " ")
    return f"Exploration token ({what}) revealed on space {e.space}."


def _roll(before: State, action: Roll, events: dict[str, Event]) -> str:
    space = before.game.board.spaces[before.departure]
    allowed = ", ".join(f if f != FUEL else f"fuel={space.fuel}" for f in FACES
                        if f in space.faces)
    captain = _name(before, before.captain or 0)
    crash = next_roll_odds(before).crash
    text = (f"{captain} rolls {_faces(action.faces)} on space {before.departure}"
            f" ({allowed}; crash chance {_percent(crash)})")
    if "crashed" in events:
        return text + ": nothing usable."
    if events["roll_read"].data["only_reroll"]:
        return text + ": nothing usable, but a reroll is at hand."
    return text + "."


def _percent(p: Fraction) -> str:
    """A probability for people: whole percent, but never 0% or 100% unless exact."""
    if p in (0, 1):
        return f"{int(p) * 100}%"
    return f"{min(max(round(100 * p), 1), 99)}%"


def _consequence(after: State, event: Event) -> str:
    """The sentence for one thing that followed from the action ("" if the choice told it)."""
    data = event.data
    if event.name == "landed":
        return _landing(after, data)
    if event.name == "goal_claimed":
        goal = data["goal"].replace("_", " ")
        return f"{_name(after, data['seat'])} claims the {goal} goal (+5)."
    if event.name == "reward" and data["kind"] == "ufo":
        return f"The rocket meets the UFO: {_name(after, data['seat'])} takes its" \
               f" {data['points']} token."
    if event.name in ("explored", "dice_removed"):
        return event.text + "."
    if event.name == "crashed":
        parachutes = [_name(after, seat) for seat in data["parachutes"]]
        if parachutes:
            return (f"{event.text}: {' and '.join(parachutes)} may open the parachute;"
                    " everyone else aboard returns to supply.")
        return f"{event.text}: everyone aboard returns to supply."
    if event.name == "expedition_over" and data["next"] > data["expedition"]:
        return f"Expedition {data['expedition']} is over."
    if event.name == "game_over":
        return f"Game over: {data['reason']}."
    return ""  # told with the choice (placed, launched, roll_read, moved) or by `explored`


def _landing(state: State, landed: dict[str, Any]) -> str:
    board = state.game.board
    who = f"{_name(state, landed['seat'])}'s {_kind(landed['kind'])}"
    target = landed["target"]
    if target in (COMET, GALAXY):
        return f"{who} lands on the {target} (+{landed['points']})."
    if target in board.planets:
        return f"{who} lands on planet {target} (scored at the end by majority)."
    return f"{who} lands on moon {target} (+{landed['points']})."


def final_report(state: State) -> list[str]:
    """The score breakdown per player and the winners (provisional before the end)."""
    names = state.game.config.players
    header = (f"{'player':<8} {'moons':>5} {'deep':>5} {'planets':>7} {'goals':>5} {'ufo':>4}"
              f" {'explo':>5} {'missions':>8} {'total':>6}")
    lines = [header]
    for seat, s in enumerate(state.scores()):
        lines.append(f"{names[seat]:<8} {s.moons:>5} {s.deep_space:>5} {s.planets:>7}"
                     f" {s.goals:>5} {s.ufo:>4} {s.exploration:>5} {s.missions:>8} {s.total:>6}")
    winners = state.winners()
    if winners:
        won = " and ".join(names[seat] for seat in winners)
        lines.append(f"Winner{'s' if len(winners) > 1 else ''}: {won}"
                     f" with {state.returns()[winners[0]]} points.")
    return lines
