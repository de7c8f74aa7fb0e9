"""A game's configuration (players, variants, board, tokens, rulings) and its declared bounds."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field, fields
from typing import TYPE_CHECKING, Any

from .board import Board, load_board
from .errors import RulesError, SetupError
from .tokens import TokenSets, load_tokens

if TYPE_CHECKING:
    from .state import State

VARIANTS = ("ufo", "exploration", "missions")
ASTRONAUT_KINDS = (
    "satellite",
    "plus_minus_1",
    "parachute",
    "moon_x2",
    "planet_x2",
    "deep_space_x2",
    "dice_x",
    "dice_1",
)
END_TIMINGS = ("end_of_expedition", "immediate")
GOAL_CHECKS = ("every_placement", "landing_phase")
MISSIONS_DEALT = 4
MISSIONS_KEPT = 3
EXPLORATION_ON_BOARD = 5
UFO_TOKEN_VALUES = (5, 4, 3, 2, 1)
GOAL_POINTS = 5
MIN_PLAYERS, MAX_PLAYERS = 2, 5


@dataclass(frozen=True)
class RuleOptions:
    """The switchable rulings of MLEM-SPEC.md section 8; defaults are the recommended ones."""

    ability_units_optional: bool = True
    """A2: with only dice-1 / UFO extra units usable, the captain may decline them and crash."""
    end_timing: str = "end_of_expedition"
    """A15: when a player's last astronaut is placed, end at the expedition's end or at once."""
    ufo_reshuffle: bool = True
    """U8/A28: an exhausted expedition pile is reshuffled; otherwise 6 dice, no ability, no move."""
    goal_check: str = "every_placement"
    """A13: goals are checked after every placement (the spec's ruling), or, reading the Japanese
    rulebook literally (「着陸フェイズ中に」, during a landing phase), not after a parachute
    landing: that astronaut then counts at its owner's next landing-phase placement."""


@dataclass(frozen=True)
class GameConfig:
    """Everything that fixes a game before the first action."""

    players: tuple[str, ...]
    """Names in clockwise seating order; seats are their indices."""
    starter: int = 0
    variants: frozenset[str] = frozenset()
    board: str = "reconstruction"
    """A shipped board name or a board file path."""
    tokens: str = "reconstruction"
    astronaut_set: tuple[str, ...] = ASTRONAUT_KINDS
    rules: RuleOptions = field(default_factory=RuleOptions)

    def to_json(self) -> dict[str, Any]:
        data = asdict(self)
        data["players"] = list(self.players)
        data["variants"] = sorted(self.variants)
        data["astronaut_set"] = list(self.astronaut_set)
        return data

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> GameConfig:
        """Build a config from its JSON form, checking every key's type.

        :raises SetupError: an unknown key or a value of the wrong type, naming the key.
        """
        if not isinstance(data, dict):
            raise SetupError("", "the setup must be an object")
        defaults = cls(players=())
        expected: dict[str, tuple[type, Any]] = {
            "players": (list, None),
            "starter": (int, defaults.starter),
            "variants": (list, []),
            "board": (str, defaults.board),
            "tokens": (str, defaults.tokens),
            "astronaut_set": (list, list(defaults.astronaut_set)),
            "rules": (dict, {}),
        }
        for key in data:
            if key not in expected:
                raise SetupError(key, f"unknown key {key!r}; known: {sorted(expected)}")
        if "players" not in data:
            raise SetupError("players", "'players' is missing")
        values: dict[str, Any] = {}
        for key, (kind, default) in expected.items():
            value: Any = data.get(key, default)
            if type(value) is not kind or (
                    isinstance(value, list) and not all(isinstance(i, str) for i in value)):
                raise SetupError(key, f"{key} has the wrong type: {value!r}")
            values[key] = value
        return cls(
            players=tuple(values["players"]),
            starter=values["starter"],
            variants=frozenset(values["variants"]),
            board=values["board"],
            tokens=values["tokens"],
            astronaut_set=tuple(values["astronaut_set"]),
            rules=_rules_from_json(values["rules"]),
        )


def _rules_from_json(data: dict[str, Any]) -> RuleOptions:
    defaults = RuleOptions()
    known = {f.name: type(getattr(defaults, f.name)) for f in fields(RuleOptions)}
    for key, value in data.items():
        if key not in known:
            raise SetupError("rules", f"unknown rule {key!r}; known: {sorted(known)}")
        if type(value) is not known[key]:
            raise SetupError("rules", f"rule {key} must be a {known[key].__name__},"
                             f" not {value!r}")
    return RuleOptions(**data)


class Game:
    """Configuration plus the loaded board and tokens; creates states (OpenSpiel's Game)."""

    def __init__(
        self,
        config: GameConfig,
        board: Board | None = None,
        tokens: TokenSets | None = None,
    ) -> None:
        self.config = config
        self.board = board or load_board(config.board)
        if tokens is None:
            # only the variants use tokens: a custom board without variants needs no token file
            # (the shipped missions name the shipped board's moons and would not validate)
            tokens = (load_tokens(self.board, config.tokens) if config.variants
                      else TokenSets((), (), ()))
        self.tokens = tokens
        self._validate()

    def _validate(self) -> None:
        config = self.config
        n = len(config.players)
        problems = []
        if not MIN_PLAYERS <= n <= MAX_PLAYERS:
            problems.append(f"{n} players; MLEM takes {MIN_PLAYERS} to {MAX_PLAYERS}")
        if len(set(config.players)) != n or not all(p.strip() for p in config.players):
            problems.append("player names must be non-empty and distinct")
        if not 0 <= config.starter < max(n, 1):
            problems.append(f"starter seat {config.starter} is not a seat")
        unknown = config.variants - set(VARIANTS)
        if unknown:
            problems.append(f"unknown variants {sorted(unknown)}; known: {list(VARIANTS)}")
        bad_kinds = [k for k in config.astronaut_set if k not in ASTRONAUT_KINDS]
        if bad_kinds or not config.astronaut_set:
            problems.append(f"astronaut_set: unknown kinds {bad_kinds}")
        if config.rules.end_timing not in END_TIMINGS:
            problems.append(f"end_timing must be one of {END_TIMINGS}")
        if config.rules.goal_check not in GOAL_CHECKS:
            problems.append(f"goal_check must be one of {GOAL_CHECKS}")
        if "missions" in config.variants and len(self.tokens.missions) < MISSIONS_DEALT * n:
            problems.append(f"missions: {MISSIONS_DEALT * n} tokens needed for {n} players")
        if "ufo" in config.variants and not self.tokens.expedition:
            problems.append("ufo: the token set has no expedition tokens")
        if problems:
            raise RulesError("; ".join(problems))

    @property
    def num_players(self) -> int:
        return len(self.config.players)

    def has(self, variant: str) -> bool:
        return variant in self.config.variants

    def max_score(self) -> int:
        """A declared upper bound on any final score (OpenSpiel's max_utility)."""
        board = self.board
        best_single = 2 * max([board.comet_points, board.galaxy_points,
                               *(m.points for m in board.moons.values())])
        bound = len(self.config.astronaut_set) * best_single
        bound += sum(2 * p.gold for p in board.planets.values()) + 4 * GOAL_POINTS
        bound += sum(UFO_TOKEN_VALUES) + sum(t.points for t in self.tokens.exploration) + 10
        return bound

    def new_initial_state(self) -> State:
        from .state import State

        return State(self)
