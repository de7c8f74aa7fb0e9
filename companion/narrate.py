"""Plain-English narration of MLEM actions, for the demo transcript and later the table service.

`describe(before, action)` says what an action did: the choice itself, then what followed from it,
read off the difference between the state before and after (points, goals, UFO and exploration
tokens, crashes, the automatic deep-space landings, the end of the expedition or of the game).
Secret missions stay secret: deals and discards never name the token.
"""

from __future__ import annotations

from fractions import Fraction

from companion.games.mlem import (
    Action,
    Crash,
    Discard,
    Draw,
    Land,
    Move,
    Phase,
    Place,
    Reroll,
    Roll,
    State,
    Stay,
)
from companion.games.mlem.board import COMET, GALAXY
from companion.games.mlem.dice import FACES, FUEL
from companion.games.mlem.game import MISSIONS_DEALT
from companion.games.mlem.odds import next_roll_odds
from companion.games.mlem.scoring import Placement


def describe(before: State, action: Action, after: State | None = None) -> str:
    """What `action` at `before` did, as one or more lines (`after` is computed if not given)."""
    if after is None:
        after = before.clone()
        after.apply_action(action)
    lines = [_choice(before, action, after)]
    lines.extend(_consequences(before, action, after))
    return "\n".join(line for line in lines if line)


def _name(state: State, seat: int) -> str:
    return state.game.config.players[seat]


def _kind(kind: str) -> str:
    return kind.replace("_", " ").replace("plus minus 1", "+/-1")


def _points(n: int) -> str:
    return f"{n} point{'s' if n != 1 else ''}"


def _faces(faces: tuple[str, ...] | list[str]) -> str:
    return " ".join(faces) if faces else "nothing"


def _choice(before: State, action: Action, after: State) -> str:
    """The sentence for the action itself."""
    board = before.game.board
    phase = before.phase
    if isinstance(action, Draw):
        return _draw(before, action)
    if isinstance(action, Discard):
        return f"{_name(before, before.pending[0])} discards one mission and keeps three secret."
    if isinstance(action, Place):
        seat = before.pending[0]
        role = " as captain" if not before.rocket else ""
        text = f"{_name(before, seat)} puts {_kind(action.kind)} aboard{role}."
        if after.phase is not Phase.PLACE and after.departure:
            text += f" The satellite starts the rocket on space {after.departure}."
        return text
    if isinstance(action, Roll):
        return _roll(before, action, after)
    if isinstance(action, Move):
        context = before.travel_context()
        parts = [f"{face}" for face in action.dice]
        parts += [f"dice-1 of {_name(before, s)}" for s in action.dice1]
        if action.ufo:
            parts.append("UFO extra dice")
        distance = context.distance(action)
        arrive = min(before.departure + distance, board.last_space)
        text = (f"{_name(before, before.captain or 0)} moves {distance} with {' + '.join(parts)}:"
                f" space {before.departure} -> {arrive}")
        if arrive == board.last_space:
            text += " (deep space)"
        dice = "kept by the UFO ability" if action.keep else (
            f"{before.available} -> {after.available}" if after.phase is not Phase.GAME_OVER
            else "")
        return text + (f"; dice {dice}." if dice else ".")
    if isinstance(action, Reroll):
        return f"{_name(before, before.captain or 0)} uses the UFO reroll."
    if isinstance(action, Crash):
        captain = _name(before, before.captain or 0)
        return f"{captain} declines the ability dice: the rocket crashes."
    if isinstance(action, Land):
        return ""  # the placement itself is reported with its points below
    if isinstance(action, Stay):
        seat = before.pending[0]
        if phase is Phase.PARACHUTE:
            return f"{_name(before, seat)} does not open the parachute and returns to supply."
        return f"{_name(before, seat)} stays aboard."
    return str(action)


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
    what = _points(e.points) if e.kind == "points" else e.kind.replace("_", " ")
    return f"Exploration token ({what}) revealed on space {e.space}."


def _roll(before: State, action: Roll, after: State) -> str:
    space = before.game.board.spaces[before.departure]
    allowed = ", ".join(f if f != FUEL else f"fuel={space.fuel}" for f in FACES
                        if f in space.faces)
    captain = _name(before, before.captain or 0)
    crash = next_roll_odds(before).crash
    text = (f"{captain} rolls {_faces(action.faces)} on space {before.departure}"
            f" ({allowed}; crash chance {_percent(crash)})")
    if after.crash_count > before.crash_count:
        return text + ": nothing usable."
    if after.phase is Phase.CHOOSE and not after.travel_context().has_units():
        return text + ": nothing usable, but a reroll is at hand."
    return text + "."


def _percent(p: Fraction) -> str:
    """A probability for people: whole percent, but never 0% or 100% unless exact."""
    if p in (0, 1):
        return f"{int(p) * 100}%"
    return f"{min(max(round(100 * p), 1), 99)}%"


def _placement(state: State, p: Placement) -> str:
    board = state.game.board
    who = f"{_name(state, p.seat)}'s {_kind(p.kind)}"
    if p.target in (COMET, GALAXY):
        points = board.comet_points if p.target == COMET else board.galaxy_points
        points *= 2 if p.kind == "deep_space_x2" else 1
        return f"{who} lands on the {p.target} (+{points})."
    if p.target in board.planets:
        return f"{who} lands on planet {p.target} (scored at the end by majority)."
    points = board.moons[p.target].points * (2 if p.kind == "moon_x2" else 1)
    return f"{who} lands on moon {p.target} (+{points})."


def _consequences(before: State, action: Action, after: State) -> list[str]:
    """What followed from the action, read off the state difference."""
    lines = []
    for p in after.placements[len(before.placements):]:
        lines.append(_placement(after, p))
    for goal, seat in after.goals.items():
        if goal not in before.goals:
            lines.append(f"{_name(after, seat)} claims the {goal.replace('_', ' ')} goal (+5).")
    for seat, won in enumerate(after.ufo_won):
        for value in won[len(before.ufo_won[seat]):]:
            lines.append(f"The rocket meets the UFO: {_name(after, seat)} takes its {value} token.")
    lines.extend(_exploration(before, after))
    if (isinstance(action, Land) and before.phase is Phase.LANDING
            and after.available < before.available and after.phase is not Phase.GAME_OVER):
        lines.append(f"Dice X: one die leaves play ({before.available} -> {after.available}).")
    if after.crash_count > before.crash_count:
        track = after.game.board.crash_track_length
        lines.append(f"CRASH {after.crash_count}/{track}: everyone aboard returns to supply.")
    if after.expedition > before.expedition:
        lines.append(f"Expedition {before.expedition} is over.")
    if after.is_terminal() and not before.is_terminal():
        lines.append(f"Game over: {after.end_reason}.")
    return lines


def _exploration(before: State, after: State) -> list[str]:
    """Exploration tokens the rocket picked up this action (points, dice back, tunnels)."""
    if not after.game.has("exploration"):
        return []
    lines = []
    tokens = after.game.tokens
    for space, tid in sorted(before.explore_on_board.items()):
        if after.explore_on_board.get(space) == tid:
            continue
        token = tokens.exploration_by_id(tid)
        if token.kind == "points":
            lines.append(f"Exploration token on {space}: {_points(token.points)} for the captain.")
        elif token.kind == "dice_recovery":
            lines.append(f"Exploration token on {space}: a die comes back into play.")
        else:
            lines.append(f"Exploration token on {space}: a tunnel, four spaces on.")
    return lines


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
