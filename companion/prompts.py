"""The pending decision as a short prompt with options, for the OLED, the buttons and the phones.

"Use fuel x2 + 2 -> space 9", "Anna: land on moon M9a (5) or stay?": the same options everywhere,
each carrying the action text the table submits when it is chosen.

A prompt is built for one viewer (`companion.games.mlem.observation`): the table's snapshot holds
the PUBLIC one, which the OLED shows to everyone, so it never names a secret mission. The deal
has no options for anyone (the phones deal at random); a discard offers "Mission 1".."Mission 4"
by slot, which the owner matches against the list on their phone.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any

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
from companion.games.mlem.board import COMET, GALAXY
from companion.games.mlem.dice import FACES
from companion.games.mlem.observation import PUBLIC, hand, sees_decision

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
    """One choice: the English label (OLED, fallback), the action text, and a catalog key with
    its values so that the phones can say it in their own language."""

    label: str
    action: str
    key: str = ""
    params: dict[str, Any] = field(default_factory=dict, hash=False, compare=False)

    def to_json(self) -> dict[str, object]:
        return {"label": self.label, "action": self.action, "key": self.key,
                "params": self.params}


@dataclass(frozen=True)
class Prompt:
    """What the table waits for: a title, who answers, and the options (none for a roll).

    `title` is English (the OLED shows it); `key` and `params` name the same title for the
    phones' catalogs ("ask.land_or_stay" with the player and the targets). `sealed`: the viewer
    may not see the decision, so the options' labels say nothing but their actions name secret
    tokens; the buttons may submit them (they show labels only), a phone never gets them.
    """

    title: str
    seat: int | None
    options: tuple[Option, ...]
    kind: str
    key: str = ""
    params: dict[str, Any] = field(default_factory=dict, hash=False, compare=False)
    sealed: bool = False

    def to_json(self) -> dict[str, object]:
        return {"title": self.title, "seat": self.seat, "kind": self.kind, "key": self.key,
                "params": self.params, "options": [o.to_json() for o in self.options]}


def target_params(state: State, target: str) -> dict[str, Any]:
    """A landing target for the catalogs: {"id": "M9a", "body": "moon", "points": 4}."""
    board = state.game.board
    if target == COMET:
        return {"id": target, "body": "comet", "points": board.comet_points}
    if target == GALAXY:
        return {"id": target, "body": "galaxy", "points": board.galaxy_points}
    if target in board.planets:
        return {"id": target, "body": "planet", "points": None}
    return {"id": target, "body": "moon", "points": board.moons[target].points}


def move_params(state: State, move: Move) -> dict[str, Any]:
    """The parts of a move label: dice faces, dice-1 owners, UFO extras, destination, keep."""
    context = state.travel_context()
    names = state.game.config.players
    board = state.game.board
    destination = min(state.departure + context.distance(move), board.last_space)
    return {
        "dice": sorted(move.dice, key=FACES.index),
        "dice1": [names[seat] for seat in move.dice1],
        "ufo": list(context.ufo_extra) if move.ufo else [],
        "destination": destination,
        "deep_space": destination == board.last_space,
        "keep": bool(move.keep),
    }


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


def option_for(state: State, action: Action, viewer: int | None = PUBLIC) -> Option:
    """The label `viewer` reads for one legal action (and its catalog key for the phones)."""
    label: str
    key: str
    params: dict[str, Any] = {}
    if isinstance(action, Move):
        label, key, params = move_label(state, action), "option.move", move_params(state, action)
    elif isinstance(action, Place):
        label, key = KIND_LABELS.get(action.kind, action.kind), "option.place"
        params = {"kind": action.kind}
    elif isinstance(action, Land):
        label, key = "Land: " + target_label(state, action.target), "option.land"
        params = {"target": target_params(state, action.target)}
    elif isinstance(action, Stay):
        if state.phase is Phase.PARACHUTE:
            label, key = "Return to supply", "option.return"
        else:
            label, key = "Stay aboard", "option.stay"
    elif isinstance(action, Reroll):
        label, key = "Reroll all dice (UFO)", "option.reroll"
    elif isinstance(action, Crash):
        label, key = "Decline: the rocket crashes", "option.crash"
    elif isinstance(action, Discard):
        seat = state.current_player()
        seen = hand(state, viewer, seat)[state.mission_hands[seat].index(action.token)]
        if seen.target is None:
            label, key, params = f"Mission {seen.slot}", "option.mission", {"slot": seen.slot}
        else:
            label, key = f"Discard mission {seen.target}", "option.discard"
            params = {"mission": seen.target}
    else:
        label, key = str(action), "option.other"
        params = {"text": label}
    return Option(label, str(action), key, params)


def prompt_for(state: State, viewer: int | None = PUBLIC) -> Prompt:
    """The prompt for the state's pending decision as `viewer` (a seat, or PUBLIC) may see it."""
    names = state.game.config.players
    phase = state.phase
    if phase is Phase.GAME_OVER:
        scores = state.returns()
        winners = " & ".join(f"{names[s]} {scores[s]}" for s in state.winners())
        return Prompt(f"Game over: {winners}", None, (), "game_over", "ask.game_over",
                      {"winners": [{"player": names[s], "score": scores[s]}
                                   for s in state.winners()]})
    if phase is Phase.ROLL:
        seat = state.rocket[0][0]
        captain = names[seat]
        return Prompt(f"{captain}: roll {state.available} dice", seat, (), "roll", "ask.roll",
                      {"player": captain, "dice": state.available})
    if state.is_chance_node() and not sees_decision(state, viewer):
        # the deal: nobody may choose (or see) a draw, so a phone deals at random
        return Prompt("Deal the missions: Draw on a phone", None, (), "draw", "ask.deal",
                      sealed=True)
    if state.is_chance_node():
        draws = [a for a in state.legal_actions() if isinstance(a, Draw)]
        return Prompt(f"Reveal a token ({phase.value.replace('_', ' ')})", None,
                      tuple(Option(a.token, str(a), "option.token", {"token": a.token})
                            for a in draws), "draw", "ask.draw", {"phase": phase.value})
    seat = state.current_player()
    actions = state.legal_actions()
    options = [option_for(state, action, viewer) for action in actions]
    who = names[seat]
    params: dict[str, Any] = {"player": who}
    if phase is Phase.CHOOSE:
        roll = " ".join(state.roll)
        title, key = f"{who}: roll {roll}. Choose", "ask.choose"
        params["roll"] = list(state.roll)
    elif phase is Phase.PLACE:
        title, key = f"{who}: who boards?", "ask.place"
    elif phase is Phase.LANDING:
        targets = " or ".join(o.label[6:] for o in options if o.action.startswith("land "))
        title, key = f"{who}: land on {targets} or stay?", "ask.land_or_stay"
        params["targets"] = [target_params(state, a.target) for a in actions
                             if isinstance(a, Land)]
    elif phase is Phase.PARACHUTE:
        title, key = f"{who}: parachute down?", "ask.parachute"
    elif phase is Phase.DEEP_SPACE:
        title, key = f"{who}: where to land?", "ask.deep_space"
    else:
        title, key = f"{who}: discard a mission", "ask.discard"
    return Prompt(title, seat, tuple(options), phase.value, key, params,
                  sealed=not sees_decision(state, viewer))
