"""The versioned game record: setup plus the ordered actions (rolls and draws included), as JSON.

The record is the truth of a game (DESIGN.md): the state is whatever replaying it gives. The file
layout is fixed, one action per line, so that writing a replayed record gives the same bytes, diffs
read well, and an error can name the line of the action it refuses. The format is documented in
docs/game-record.md.

>>> from .game import Game, GameConfig
>>> state = Game(GameConfig(players=("Ann", "Bob"))).new_initial_state()
>>> state.apply_action("place dice_1")
>>> text = write_record(state)
>>> print(text.splitlines()[-3])
  "place dice_1"
>>> replay(text) == state and write_record(replay(text)) == text
True
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from .actions import Action, parse_action
from .errors import RulesError, SetupError
from .game import Game, GameConfig
from .state import State

FORMAT = "mlem-game-record"
VERSION = 1
SUPPORTED_VERSIONS = (1,)
_TOP_KEYS = ("format", "version", "setup", "actions")
_SETUP_KEYS = ("players", "starter", "variants", "board", "board_id", "tokens", "astronaut_set",
               "rules")


class RecordError(RulesError):
    """A record that cannot be replayed: `line` (1-based, in the file) and `reason` say why."""

    def __init__(self, line: int, reason: str) -> None:
        super().__init__(f"line {line}: {reason}")
        self.line = line
        self.reason = reason


@dataclass(frozen=True)
class Record:
    """A parsed record: the game it sets up, its actions, and the file line of each action."""

    game: Game
    actions: tuple[Action, ...]
    action_lines: tuple[int, ...]
    version: int


# --------------------------------------------------------------------------------- writing


def write_record(state: State) -> str:
    """The record of `state`'s game so far, in the canonical layout (ends with a newline)."""
    return dump_record(state.game, state.history)


def dump_record(game: Game, actions: Sequence[Action]) -> str:
    """The canonical text of a record: fixed key order, one setup key and one action per line.

    Every setup field is spelled out, defaults included, so a record never depends on a default
    that a later version might change.
    """
    setup = game.config.to_json()
    setup["board_id"] = game.board.board_id
    lines = ["{", f' "format": {_dumps(FORMAT)},', f' "version": {VERSION},', ' "setup": {']
    for n, key in enumerate(_SETUP_KEYS):
        comma = "," if n < len(_SETUP_KEYS) - 1 else ""
        lines.append(f"  {_dumps(key)}: {_dumps(setup[key])}{comma}")
    lines.append(" },")
    if actions:
        lines.append(' "actions": [')
        lines.extend(f"  {_dumps(str(a))}," for a in actions[:-1])
        lines.append(f"  {_dumps(str(actions[-1]))}")
        lines.append(" ]")
    else:
        lines.append(' "actions": []')
    lines.append("}")
    return "\n".join(lines) + "\n"


def _dumps(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(", ", ": "))


# --------------------------------------------------------------------------------- reading


def read_record(text: str) -> tuple[Game, list[Action]]:
    """The game a record sets up and its parsed actions (not yet checked for legality).

    :raises RecordError: not JSON, not a record, an unknown version, a bad setup, or an action
        whose text does not parse; `line` points into `text`.
    """
    record = parse_record(text)
    return record.game, list(record.actions)


def replay(text: str, limit: int | None = None) -> State:
    """The state a record leads to (after its first `limit` actions, if given).

    A record may end mid-game: the state then waits for its pending decision.

    :raises RecordError: as `read_record`, or an action the rules refuse at that point; the
        reason is the engine's own explanation.
    """
    record = parse_record(text)
    state = record.game.new_initial_state()
    count = len(record.actions) if limit is None else min(max(limit, 0), len(record.actions))
    for n in range(count):
        action, line = record.actions[n], record.action_lines[n]
        try:
            state.apply_action(action)
        except RulesError as exc:
            raise RecordError(line, f"action {n + 1} {str(action)!r} is illegal: {exc}") from exc
    return state


def parse_record(text: str) -> Record:
    """Parse and check a record's structure, setup and action texts.

    :raises RecordError: see `read_record`.
    """
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise RecordError(exc.lineno, f"not JSON: {exc.msg} (column {exc.colno})") from exc
    if not isinstance(data, dict):
        raise RecordError(1, "a game record is a JSON object")
    where = _locate(text)

    def line_of(key: str, fallback: int = 1) -> int:
        return where.keys.get(key, fallback)

    if data.get("format") != FORMAT:
        raise RecordError(line_of("format"), f"not a game record: format must be {FORMAT!r},"
                          f" not {data.get('format')!r}")
    version = data.get("version")
    if type(version) is not int or version not in SUPPORTED_VERSIONS:
        raise RecordError(line_of("version"), f"unsupported version {version!r}; this"
                          f" companion reads versions {list(SUPPORTED_VERSIONS)}")
    unknown = sorted(set(data) - set(_TOP_KEYS))
    if unknown:
        raise RecordError(line_of(unknown[0]), f"unknown keys {unknown}")
    for key in ("setup", "actions"):
        if key not in data:
            raise RecordError(1, f"{key!r} is missing")
    game = _build_game(data["setup"], line_of("setup"), where.setup_keys)
    raw_actions = data["actions"]
    if not isinstance(raw_actions, list):
        raise RecordError(line_of("actions"), "'actions' must be a list of action texts")
    actions: list[Action] = []
    for n, raw in enumerate(raw_actions):
        line = where.actions[n] if n < len(where.actions) else line_of("actions")
        if not isinstance(raw, str):
            raise RecordError(line, f"action {n + 1} must be a string, not {raw!r}")
        try:
            actions.append(parse_action(raw))
        except RulesError as exc:
            raise RecordError(line, f"action {n + 1} {raw!r} does not parse: {exc}") from exc
    lines = tuple(where.actions[: len(actions)])
    return Record(game, tuple(actions), lines, version)


def _build_game(setup: Any, line: int, key_lines: dict[str, int]) -> Game:
    """Check the setup's keys and types (naming the offending key's line); build the Game."""
    if not isinstance(setup, dict):
        raise RecordError(line, "'setup' must be an object")
    unknown = sorted(set(setup) - set(_SETUP_KEYS))
    if unknown:
        raise RecordError(key_lines.get(unknown[0], line), f"setup: unknown keys {unknown}")
    if not isinstance(setup.get("board_id", ""), str):
        raise RecordError(key_lines.get("board_id", line),
                          f"setup: board_id has the wrong type: {setup['board_id']!r}")
    config_data = {key: value for key, value in setup.items() if key != "board_id"}
    try:
        config = GameConfig.from_json(config_data)
        game = Game(config)
    except SetupError as exc:
        raise RecordError(key_lines.get(exc.key, line), str(exc)) from exc
    except RulesError as exc:
        raise RecordError(line, f"setup: {exc}") from exc
    except OSError as exc:
        raise RecordError(key_lines.get("board", line),
                          f"setup: cannot load board {setup.get('board')!r} or tokens"
                          f" {setup.get('tokens')!r}: {exc.strerror or exc}") from exc
    board_id = setup.get("board_id")
    if board_id is not None and board_id != game.board.board_id:
        raise RecordError(key_lines.get("board_id", line),
                          f"setup: the record was made on board {board_id!r}, but board"
                          f" {config.board!r} is {game.board.board_id!r}")
    return game


# ------------------------------------------------------------------- where things are in the text


@dataclass
class _Where:
    """1-based lines of the top-level keys, the setup keys and each action string."""

    keys: dict[str, int]
    setup_keys: dict[str, int]
    actions: list[int]


def _locate(text: str) -> _Where:
    """Find the lines of keys and actions in text already known to be valid JSON.

    The standard library's parser forgets positions, so this walks the top-level object with
    `raw_decode`, which skips one value at a time. Later duplicate keys win, as in `json.loads`.
    """
    decoder = json.JSONDecoder()
    where = _Where({}, {}, [])

    def line(pos: int) -> int:
        return text.count("\n", 0, pos) + 1

    def skip(pos: int) -> int:
        while pos < len(text) and text[pos] in " \t\r\n":
            pos += 1
        return pos

    def walk_object(pos: int, keys: dict[str, int], depth: int) -> int:
        pos = skip(pos + 1)  # past "{"
        if text[pos] == "}":
            return pos + 1
        while True:
            key_pos = pos
            key, pos = decoder.raw_decode(text, pos)
            keys[key] = line(key_pos)
            pos = skip(skip(pos) + 1)  # past ":"
            if depth == 0 and key == "setup" and text[pos] == "{":
                pos = walk_object(pos, where.setup_keys, 1)
            elif depth == 0 and key == "actions" and text[pos] == "[":
                where.actions = []
                pos = walk_array(pos, where.actions)
            else:
                _, pos = decoder.raw_decode(text, pos)
            pos = skip(pos)
            if text[pos] == "}":
                return pos + 1
            pos = skip(pos + 1)  # past ","

    def walk_array(pos: int, lines: list[int]) -> int:
        pos = skip(pos + 1)  # past "["
        if text[pos] == "]":
            return pos + 1
        while True:
            lines.append(line(pos))
            _, pos = decoder.raw_decode(text, pos)
            pos = skip(pos)
            if text[pos] == "]":
                return pos + 1
            pos = skip(pos + 1)

    walk_object(skip(0), where.keys, 0)
    return where


def record_summary(state: State) -> dict[str, Any]:
    """What `companion replay --json` says about the record itself, next to the state."""
    return {
        "format": FORMAT,
        "version": VERSION,
        "board_id": state.game.board.board_id,
        "actions": len(state.history),
        "finished": state.is_terminal(),
    }
