"""MLEM: Space Agency rules core: pure Python, standard library only.

Where a rule lives:

- board.py     the space mat as data, its validation (`companion board check`)
- tokens.py    UFO / exploration / mission token sets as data
- game.py      configuration, switchable rulings (section 8), declared bounds
- actions.py   actions and their text form
- dice.py      faces and exact roll probabilities
- state.py     the state machine: takeoff, travel, crash, landing, deep space, expedition end
- travel.py    units of a roll, legal moves, why a move is illegal
- landing.py   landing targets, +/-1, deep space
- scoring.py   goals, planet majorities, missions, winners
- observation.py  what each seat (or the whole table) may see: the secret missions
- odds.py      exact crash and reach probabilities of the next roll
- record.py    the versioned game record (JSON) and replay
- bots.py      seat-filling bots; simulate.py: seeded simulated games
"""

from .actions import (
    Action,
    Crash,
    Discard,
    Draw,
    Land,
    Move,
    Place,
    Reroll,
    Roll,
    Stay,
    normalize,
    parse_action,
)
from .board import Board, load_board, parse_board
from .errors import BoardError, IllegalActionError, InvalidActionError, RulesError
from .game import ASTRONAUT_KINDS, VARIANTS, Game, GameConfig, RuleOptions
from .scoring import ScoreBreakdown
from .state import CHANCE, TERMINAL, Phase, State
from .tokens import TokenSets, load_tokens, parse_tokens

__all__ = [
    "ASTRONAUT_KINDS",
    "CHANCE",
    "TERMINAL",
    "VARIANTS",
    "Action",
    "Board",
    "BoardError",
    "Crash",
    "Discard",
    "Draw",
    "Game",
    "GameConfig",
    "IllegalActionError",
    "InvalidActionError",
    "Land",
    "Move",
    "Phase",
    "Place",
    "Reroll",
    "Roll",
    "RuleOptions",
    "RulesError",
    "ScoreBreakdown",
    "State",
    "Stay",
    "TokenSets",
    "load_board",
    "load_tokens",
    "normalize",
    "parse_action",
    "parse_board",
    "parse_tokens",
]
