"""The pending decision as a short prompt with options, for the OLED, the buttons and the phones.

"Use fuel x2 + 2 -> space 9", "Anna: land on moon M9a (5) or stay?": the same options everywhere,
each carrying the action text the table submits when it is chosen.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from companion.events import target_label
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
    State,
    Stay,
)
from companion.games.mlem.dice import FACES

KIND_LABELS = {
    "satellite": "Satellite",
    "plus_minus_1": "+1/-1",
    "parachute": "Parachute",
    "moon_x2": "Moon x2",
    "planet_x2": "Planet x2",
    "deep_space_x2": "Deep space x2",
    "dice_x": "Dice X",
    "dice_1": "Dice 1",
}


@dataclass(frozen=True)
class Option:
    label: str
    action: str


@dataclass(frozen=True)
class Prompt:
    """What the table waits for: a title, who answers, and the options (none for a roll)."""

    title: str
    seat: int | None
    options: tuple[Option, ...]
    kind: str

    def to_json(self) -> dict[str, object]:
        return {"title": self.title, "seat": self.seat, "kind": self.kind,
                "options": [{"label": o.label, "action": o.action} for o in self.options]}


def move_label(state: State, move: Move) -> str:
    """'Use fuel x2 + 2 -> space 9' (+ dice-1 tokens, UFO extras, keep)."""
    context = state.travel_context()
    names = state.game.config.players
    parts = [face if count == 1 else f"{face} x{count}"
             for face, count in sorted(Counter(move.dice).items(), key=lambda i: FACES.index(i[0]))]
    parts.extend(f"dice-1 ({names[seat]})" for seat in move.dice1)
    if move.ufo:
        parts.append("UFO " + "+".join(context.ufo_extra))
    board = state.game.board
    destination = min(state.departure + context.distance(move), board.last_space)
    where = "deep space" if destination == board.last_space else f"space {destination}"
    return f"Use {' + '.join(parts)} -> {where}" + (", keep dice" if move.keep else "")


def option_for(state: State, action: Action) -> Option:
    """The label a person reads for one legal action."""
    label: str
    if isinstance(action, Move):
        label = move_label(state, action)
    elif isinstance(action, Place):
        label = KIND_LABELS.get(action.kind, action.kind)
    elif isinstance(action, Land):
        label = "Land: " + target_label(state, action.target)
    elif isinstance(action, Stay):
        label = "Return to supply" if state.phase is Phase.PARACHUTE else "Stay aboard"
    elif isinstance(action, Reroll):
        label = "Reroll all dice (UFO)"
    elif isinstance(action, Crash):
        label = "Decline: the rocket crashes"
    elif isinstance(action, Discard):
        target = next(t.target for t in state.game.tokens.missions if t.id == action.token)
        label = f"Discard mission {target}"
    else:
        label = str(action)
    return Option(label, str(action))


def prompt_for(state: State) -> Prompt:
    """The prompt for the state's pending decision."""
    names = state.game.config.players
    phase = state.phase
    if phase is Phase.GAME_OVER:
        scores = state.returns()
        winners = " & ".join(f"{names[s]} {scores[s]}" for s in state.winners())
        return Prompt(f"Game over: {winners}", None, (), "game_over")
    if phase is Phase.ROLL:
        captain = names[state.rocket[0][0]]
        return Prompt(f"{captain}: roll {state.available} dice", state.rocket[0][0], (), "roll")
    if state.is_chance_node():
        draws = [a for a in state.legal_actions() if isinstance(a, Draw)]
        return Prompt(f"Reveal a token ({phase.value.replace('_', ' ')})", None,
                      tuple(Option(a.token, str(a)) for a in draws), "draw")
    seat = state.current_player()
    options = [option_for(state, action) for action in state.legal_actions()]
    who = names[seat]
    if phase is Phase.CHOOSE:
        roll = " ".join(state.roll)
        title = f"{who}: roll {roll}. Choose"
    elif phase is Phase.PLACE:
        title = f"{who}: who boards?"
    elif phase is Phase.LANDING:
        targets = " or ".join(o.label[6:] for o in options if o.action.startswith("land "))
        title = f"{who}: land on {targets} or stay?"
    elif phase is Phase.PARACHUTE:
        title = f"{who}: parachute down?"
    elif phase is Phase.DEEP_SPACE:
        title = f"{who}: where to land?"
    else:
        title = f"{who}: discard a mission"
    return Prompt(title, seat, tuple(options), phase.value)
