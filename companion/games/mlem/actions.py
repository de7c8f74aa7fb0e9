"""Actions with a short text form that round-trips (`str(action)` and `parse_action(text)`).

The same text serves the logs, the web API, the game record and undo, like python-chess's UCI moves.

>>> str(parse_action("move 2 fuel fuel dice1:1"))
'move 2 fuel fuel dice1:1'
"""

from __future__ import annotations

from dataclasses import dataclass

from .dice import FACES, canonical, check_face
from .errors import InvalidActionError


@dataclass(frozen=True, slots=True)
class Place:
    """Takeoff: put an astronaut of this kind from the supply into the rocket."""

    kind: str

    def __str__(self) -> str:
        return f"place {self.kind}"


@dataclass(frozen=True, slots=True)
class Roll:
    """Chance: the faces the captain rolled (a multiset, canonical order)."""

    faces: tuple[str, ...]

    def __str__(self) -> str:
        return " ".join(("roll", *self.faces))


@dataclass(frozen=True, slots=True)
class Draw:
    """Chance: the token revealed or dealt from the pile the state is drawing from."""

    token: str

    def __str__(self) -> str:
        return f"draw {self.token}"


@dataclass(frozen=True, slots=True)
class Discard:
    """Secret missions: the one dealt token a player gives up."""

    token: str

    def __str__(self) -> str:
        return f"discard {self.token}"


@dataclass(frozen=True, slots=True)
class Move:
    """Travel: the dice used (whole groups), dice-1 tokens by owner seat, the UFO extras, keep."""

    dice: tuple[str, ...] = ()
    dice1: tuple[int, ...] = ()
    ufo: bool = False
    keep: bool = False

    def __str__(self) -> str:
        words = ["move", *self.dice, *(f"dice1:{seat}" for seat in self.dice1)]
        if self.ufo:
            words.append("ufo")
        if self.keep:
            words.append("keep")
        return " ".join(words)


@dataclass(frozen=True, slots=True)
class Reroll:
    """UFO ability: roll all available dice again before choosing."""

    def __str__(self) -> str:
        return "reroll"


@dataclass(frozen=True, slots=True)
class Crash:
    """The captain declines every ability unit (or a reroll) and the rocket crashes (A2)."""

    def __str__(self) -> str:
        return "crash"


@dataclass(frozen=True, slots=True)
class Land:
    """Disembark onto a target: a moon id, a planet id, "comet" or "galaxy"."""

    target: str

    def __str__(self) -> str:
        return f"land {self.target}"


@dataclass(frozen=True, slots=True)
class Stay:
    """Stay aboard (landing phase), or return to supply (parachute after a crash).

    Not possible in deep space, where everyone must disembark (R-D2)."""

    def __str__(self) -> str:
        return "stay"


Action = Place | Roll | Draw | Discard | Move | Reroll | Crash | Land | Stay


def parse_action(text: str) -> Action:
    """Parse an action's text form.

    :raises InvalidActionError: the text is not an action.
    """
    words = text.split()
    if not words:
        raise InvalidActionError("empty action")
    verb, args = words[0].lower(), words[1:]
    if verb in ("reroll", "crash", "stay"):
        _expect_args(text, args, 0)
        bare: dict[str, Action] = {"reroll": Reroll(), "crash": Crash(), "stay": Stay()}
        return bare[verb]
    if verb in ("place", "draw", "discard", "land"):
        _expect_args(text, args, 1)
        if verb == "place":
            return Place(args[0])
        if verb == "draw":
            return Draw(args[0])
        return Discard(args[0]) if verb == "discard" else Land(args[0])
    if verb == "roll":
        return Roll(canonical([check_face(face) for face in args]))
    if verb == "move":
        return _parse_move(args)
    raise InvalidActionError(f"unknown action {text!r}")


def _expect_args(text: str, args: list[str], n: int) -> None:
    if len(args) != n:
        raise InvalidActionError(f"{text!r}: expected {n} argument(s), got {len(args)}")


def _parse_move(args: list[str]) -> Move:
    dice: list[str] = []
    dice1: list[int] = []
    ufo = keep = False
    for word in args:
        if word in FACES or word in ("5", "6"):
            dice.append(check_face(word))
        elif word.startswith("dice1:") and word[6:].isdigit():
            dice1.append(int(word[6:]))
        elif word == "ufo":
            ufo = True
        elif word == "keep":
            keep = True
        else:
            raise InvalidActionError(
                f"move: {word!r} is not a face, dice1:SEAT, ufo or keep"
            )
    if len(set(dice1)) != len(dice1):
        raise InvalidActionError("move: a dice-1 token is named twice")
    return Move(canonical(dice), tuple(sorted(dice1)), ufo, keep)


def normalize(action: Action) -> Action:
    """The canonical form of an action built in code (sorted dice, faces checked).

    :raises InvalidActionError: a face that MLEM dice do not have.
    """
    if isinstance(action, Roll):
        return Roll(canonical([check_face(face) for face in action.faces]))
    if isinstance(action, Move):
        dice = canonical([check_face(face) for face in action.dice])
        if len(set(action.dice1)) != len(action.dice1):
            raise InvalidActionError("move: a dice-1 token is named twice")
        return Move(dice, tuple(sorted(action.dice1)), action.ufo, action.keep)
    return action
