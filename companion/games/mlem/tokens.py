"""Variant token sets as data: UFO expedition tokens, exploration tokens, secret missions.

The rulebooks do not print the tokens' contents; the shipped sets are reconstructions an owner can
correct (MLEM-SPEC.md section 7). Each set is validated against the board in use.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeGuard

from .board import Board, read_source
from .dice import FACES
from .errors import BoardError

UFO_ABILITIES = ("extra_dice", "keep_dice", "reroll")
EXPLORATION_KINDS = ("points", "dice_recovery", "tunnel")


@dataclass(frozen=True, slots=True)
class ExpeditionToken:
    """UFO variant: revealed at takeoff; sets the dice count, one ability, the UFO's move."""

    id: str
    ufo_move: int
    dice: int
    ability: str
    extra_faces: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class ExplorationToken:
    """Exploration variant: lies on its printed space until the rocket ends a travel phase there."""

    id: str
    space: int
    kind: str
    points: int = 0


@dataclass(frozen=True, slots=True)
class MissionToken:
    """Secret missions variant: complete when the owner has an astronaut on the target."""

    id: str
    target: str
    """A moon id, a moon body, or a planet id."""


@dataclass(frozen=True, slots=True)
class TokenSets:
    """The three token sets in use."""

    expedition: tuple[ExpeditionToken, ...]
    exploration: tuple[ExplorationToken, ...]
    missions: tuple[MissionToken, ...]
    _by_id: dict[str, ExpeditionToken | ExplorationToken | MissionToken] = field(
        init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        tokens: list[ExpeditionToken | ExplorationToken | MissionToken] = [
            *self.expedition, *self.exploration, *self.missions]
        index = {t.id: t for t in tokens}
        object.__setattr__(self, "_by_id", index)

    def expedition_by_id(self, token_id: str) -> ExpeditionToken:
        token = self._by_id[token_id]
        assert isinstance(token, ExpeditionToken)
        return token

    def exploration_by_id(self, token_id: str) -> ExplorationToken:
        token = self._by_id[token_id]
        assert isinstance(token, ExplorationToken)
        return token

    def mission_by_id(self, token_id: str) -> MissionToken:
        token = self._by_id[token_id]
        assert isinstance(token, MissionToken)
        return token


def parse_tokens(data: Any, board: Board) -> TokenSets:
    """Build token sets from a parsed file; raises BoardError listing every problem."""
    problems: list[str] = []
    if not isinstance(data, dict):
        raise BoardError(["the top level must be a table"])
    sets = {key: _table_list(data, key, problems) for key in ("expedition", "exploration",
                                                              "missions")}
    expedition = tuple(
        _expedition(raw, f"expedition[{n}]", problems) for n, raw in enumerate(sets["expedition"])
    )
    exploration = tuple(
        _exploration(raw, f"exploration[{n}]", board, problems)
        for n, raw in enumerate(sets["exploration"])
    )
    targets = set(board.moons) | {m.body for m in board.moons.values()} | set(board.planets)
    missions = []
    for n, raw in enumerate(sets["missions"]):
        if raw.get("target") not in targets:
            problems.append(f"missions[{n}]: target {raw.get('target')!r} is not on the board")
        missions.append(MissionToken(str(raw.get("id")), str(raw.get("target"))))
    ids = [t.id for t in expedition] + [t.id for t in exploration] + [t.id for t in missions]
    duplicates = sorted({i for i in ids if ids.count(i) > 1})
    if duplicates:
        problems.append(f"token ids used twice: {duplicates}")
    if problems:
        raise BoardError(problems)
    return TokenSets(expedition, exploration, tuple(missions))


def _table_list(data: dict[str, Any], key: str, problems: list[str]) -> list[dict[str, Any]]:
    """The list of tables under `key` (empty if absent); anything else is a problem."""
    raw = data.get(key, [])
    if not isinstance(raw, list) or not all(isinstance(item, dict) for item in raw):
        problems.append(f"{key}: must be a list of tables")
        return []
    return raw


def _is_int(value: Any) -> TypeGuard[int]:
    return isinstance(value, int) and not isinstance(value, bool)


def _expedition(raw: dict[str, Any], where: str, problems: list[str]) -> ExpeditionToken:
    extra = raw.get("extra_faces", [])
    if not isinstance(extra, list):
        problems.append(f"{where}: extra_faces must be a list of faces")
        extra = []
    token = ExpeditionToken(
        id=str(raw.get("id")),
        ufo_move=raw.get("ufo_move", -1),
        dice=raw.get("dice", 0),
        ability=raw.get("ability", ""),
        extra_faces=tuple(extra),
    )
    if not _is_int(token.ufo_move) or token.ufo_move not in (0, 1, 2, 3):
        problems.append(f"{where}: ufo_move must be 0-3")
    if not _is_int(token.dice) or token.dice not in (4, 5, 6):
        problems.append(f"{where}: dice must be 4, 5 or 6")
    if token.ability not in UFO_ABILITIES:
        problems.append(f"{where}: ability must be one of {UFO_ABILITIES}")
    if (token.ability == "extra_dice") != bool(token.extra_faces):
        problems.append(f"{where}: extra_faces are given exactly for extra_dice")
    if any(face not in FACES for face in token.extra_faces):
        problems.append(f"{where}: extra_faces must be among {FACES}")
    return token


def _exploration(
    raw: dict[str, Any], where: str, board: Board, problems: list[str]
) -> ExplorationToken:
    token = ExplorationToken(
        id=str(raw.get("id")),
        space=raw.get("space", -1),
        kind=raw.get("kind", ""),
        points=raw.get("points", 0),
    )
    if not _is_int(token.space) or not 1 <= token.space < board.last_space:
        problems.append(f"{where}: space must be 1..{board.last_space - 1}")
    if token.kind not in EXPLORATION_KINDS:
        problems.append(f"{where}: kind must be one of {EXPLORATION_KINDS}")
    if (token.kind == "points") != (_is_int(token.points) and token.points in (1, 2, 3)):
        problems.append(f"{where}: points (1-3) are given exactly for kind points")
    return token


def load_tokens(board: Board, source: str | Path = "reconstruction") -> TokenSets:
    """Load a shipped token file by name or a token file by path."""
    return parse_tokens(read_source("tokens", source), board)
