"""Builders for the spec's worked examples: small boards and token sets, games, and play helpers.

Positions are reached through real actions (place, roll, move, land, stay, crash); the helpers only
save typing. Spaces a test does not describe get a neutral face set (every face, fuel 1), so the
rocket can hop across them with fuel dice without spending dice.
"""

from __future__ import annotations

import random
from collections import deque
from collections.abc import Iterable, Mapping
from typing import Any

import pytest

from companion.games.mlem import (
    ASTRONAUT_KINDS,
    Action,
    Board,
    Game,
    GameConfig,
    IllegalActionError,
    Phase,
    Roll,
    RuleOptions,
    RulesError,
    State,
    TokenSets,
    parse_board,
    parse_tokens,
)

COLOURS = ("Blue", "Red", "Green", "Yellow", "Purple")
NEUTRAL_FACES = ["1", "2", "3", "4", "fuel"]
START_FACES = ["1", "2", "fuel"]
"""Space 0 unless a test says otherwise: {1, 2, fuel} with fuel value 1 (PUB-4, PUB-7)."""
DEFAULT_PLANETS: dict[str, tuple[int, int, int]] = {
    "P1": (6, 3, 1),
    "P2": (8, 4, 2),
    "P3": (10, 5, 2),
    "P4": (12, 6, 3),
    "P5": (14, 7, 3),
}

SpaceSpec = Mapping[str, Any]


def board_dict(
    spaces: Mapping[int, SpaceSpec] | None = None,
    *,
    last_space: int = 25,
    planets: Mapping[str, tuple[int, int, int]] | None = None,
    **top: Any,
) -> dict[str, Any]:
    """A board definition dict: `spaces` maps an index to {faces, fuel, moons, planet}.

    Moons may be given as (id, points) pairs. Unlisted spaces below `last_space` are neutral
    (every face, fuel 1); space 0 defaults to {1, 2, fuel} with fuel 1.
    """
    spaces = spaces or {}
    all_planets = {**DEFAULT_PLANETS, **(planets or {})}
    rows: list[dict[str, Any]] = []
    for i in range(last_space + 1):
        if i == last_space:
            rows.append({"i": i, **spaces.get(i, {})})
            continue
        spec = dict(spaces.get(i, {}))
        default_faces = START_FACES if i == 0 else NEUTRAL_FACES
        faces = list(spec.pop("faces", default_faces))
        row: dict[str, Any] = {"i": i, "faces": faces}
        fuel = spec.pop("fuel", 1 if "fuel" in faces else None)
        if fuel is not None:
            row["fuel"] = fuel
        moons = spec.pop("moons", [])
        if moons:
            row["moons"] = [
                m if isinstance(m, dict) else {"id": m[0], "points": m[1]} for m in moons
            ]
        row.update(spec)
        rows.append(row)
    return {
        "board_id": "test",
        "last_space": last_space,
        "planets": {
            pid: {"gold": g, "silver": s, "bronze": b} for pid, (g, s, b) in all_planets.items()
        },
        "spaces": rows,
        **top,
    }


def make_board(
    spaces: Mapping[int, SpaceSpec] | None = None, **kwargs: Any
) -> Board:
    """A validated board from `board_dict`."""
    return parse_board(board_dict(spaces, **kwargs))


def make_tokens(board: Board, **sets: list[dict[str, Any]]) -> TokenSets:
    """Token sets (expedition / exploration / missions lists of dicts) checked against `board`."""
    return parse_tokens(dict(sets), board)


def new_state(
    board: Board | None = None,
    players: str | Iterable[str] = "Blue Red",
    starter: str | None = None,
    *,
    tokens: TokenSets | None = None,
    variants: Iterable[str] = (),
    astronaut_set: tuple[str, ...] = ASTRONAUT_KINDS,
    **rules: Any,
) -> State:
    """A fresh state; `players` are names in seating order, `starter` a name (default the first)."""
    names = tuple(players.split() if isinstance(players, str) else players)
    board = board or make_board()
    config = GameConfig(
        players=names,
        starter=names.index(starter) if starter else 0,
        variants=frozenset(variants),
        astronaut_set=astronaut_set,
        rules=RuleOptions(**rules),
    )
    game = Game(config, board=board, tokens=tokens or parse_tokens({}, board))
    return game.new_initial_state()


def seat(state: State, name: str) -> int:
    """The seat of a player by name."""
    return state.game.config.players.index(name)


def play(state: State, *actions: str) -> State:
    """Apply actions in text form, in order."""
    for action in actions:
        state.apply_action(action)
    return state


def takeoff(state: State, *kinds: str) -> State:
    """Each player in placing order (clockwise from the starter) puts one kind aboard."""
    assert state.phase is Phase.PLACE, state
    for kind in kinds:
        state.apply_action(f"place {kind}")
    return state


def assert_refused(
    state: State, action: str, match: str, error: type[RulesError] = IllegalActionError
) -> None:
    """The action raises `error` whose message matches, and the state is unchanged."""
    before = state.clone()
    with pytest.raises(error, match=match):
        state.apply_action(action)
    assert state == before


def legal(state: State) -> set[str]:
    """The text forms of the legal actions."""
    return {str(action) for action in state.legal_actions()}


def _filler(faces: frozenset[str], avoid: Iterable[str]) -> str:
    """A face for dice that should not be used: one the space forbids if possible."""
    avoid = set(avoid)
    for face in ("4", "3", "2", "1", "fuel"):
        if face not in faces and face not in avoid:
            return face
    return next(face for face in ("4", "3", "2", "1") if face not in avoid)


def roll_and_move(state: State, used: list[str], extra: int | None = None) -> None:
    """Roll `used` plus filler dice up to the available count, then move with `used`."""
    assert state.phase is Phase.ROLL, state
    faces = state.game.board.spaces[state.space].faces
    filler = _filler(faces, used)
    rest = state.available - len(used) if extra is None else extra
    state.apply_action(" ".join(["roll", *used, *[filler] * rest]))
    state.apply_action(" ".join(["move", *used]))


def _stay_through_landing(state: State) -> None:
    while state.phase is Phase.LANDING:
        state.apply_action("stay")


def reach(state: State, target: int, available: int | None = None) -> State:
    """Travel to space `target` with fuel-only hops, after first spending dice if asked.

    With `available`, the first move uses a 1-group of (available now - available) dice from a
    space that allows 1. Intermediate landing phases are stayed through. Ends in phase ROLL, or
    in LANDING / DEEP_SPACE at the target.
    """
    board = state.game.board
    if available is not None and available < state.available:
        spend = state.available - available
        assert "1" in board.spaces[state.space].faces, "reach: spending needs 1 allowed"
        roll_and_move(state, ["1"] * spend)
        if state.space != target:
            _stay_through_landing(state)
    # breadth-first search for fuel hops whose intermediate stops all allow fuel
    start, n = state.space, state.available
    previous: dict[int, tuple[int, int]] = {}
    queue = deque([start])
    while queue and target not in previous:
        here = queue.popleft()
        space = board.spaces[here]
        if "fuel" not in space.faces or here >= board.last_space:
            continue
        for k in range(1, n + 1):
            there = here + k * space.fuel
            if there > target or there in previous or there == start:
                continue
            previous[there] = (here, k)
            queue.append(there)
    assert target == start or target in previous, f"reach: no fuel path {start} -> {target}"
    hops: list[int] = []
    at = target
    while at != start:
        at, k = previous[at]
        hops.append(k)
    for k in reversed(hops):
        assert state.phase is Phase.ROLL, state
        roll_and_move(state, ["fuel"] * k)
        if state.space != target:
            _stay_through_landing(state)
    # at the target, unless deep space ended the expedition or a tunnel / reveal moved on
    if state.phase in (Phase.ROLL, Phase.LANDING, Phase.DEEP_SPACE):
        assert state.space == target, state
    return state


def crash_now(state: State) -> None:
    """Roll only faces the departure space forbids; decline ability units; parachutes return."""
    assert state.phase is Phase.ROLL, state
    faces = state.game.board.spaces[state.space].faces
    bad = [face for face in ("3", "4", "2", "1", "fuel") if face not in faces]
    assert bad, f"space {state.space} allows every face: no crash possible"
    crashes = state.crash_count
    state.apply_action(" ".join(["roll", *[bad[0]] * state.available]))
    if state.phase is Phase.CHOOSE:
        state.apply_action("crash")
    while state.phase is Phase.PARACHUTE:
        state.apply_action("stay")
    assert state.crash_count == crashes + 1


def plain_kind(state: State, who: int) -> str:
    """A kind in `who`'s supply with no effect on travel or crashes (not satellite/parachute)."""
    supply = state.supply[who]
    for kind in ("moon_x2", "planet_x2", "deep_space_x2", "dice_x", "plus_minus_1", "dice_1",
                 "parachute", "satellite"):
        if supply.get(kind, 0):
            return kind
    raise AssertionError("empty supply")


def crash_expedition(state: State) -> None:
    """One expedition that crashes on its first roll at space 0 (plain kinds aboard)."""
    assert state.phase is Phase.PLACE, state
    while state.phase is Phase.PLACE:
        state.apply_action(f"place {plain_kind(state, state.current_player())}")
    crash_now(state)


def expedition(
    state: State,
    at: int,
    lands: Mapping[int, str],
    kinds: Mapping[int, str] | None = None,
) -> None:
    """One expedition: place (given kinds, else plain ones), reach `at`, the seats in `lands`
    land on their targets, the others stay; whoever is left aboard then crashes."""
    kinds = kinds or {}
    while state.phase is Phase.PLACE:
        who = state.current_player()
        state.apply_action(f"place {kinds.get(who) or plain_kind(state, who)}")
    reach(state, at)
    while state.phase is Phase.LANDING:
        who = state.current_player()
        state.apply_action(f"land {lands[who]}" if who in lands else "stay")
    if state.rocket and state.phase is Phase.ROLL:
        crash_now(state)


DIE = ("1", "2", "2", "3", "4", "fuel")
"""One MLEM die's six sides: sampling a side is the exact roll distribution."""


def random_action(state: State, rng: random.Random) -> Action:
    """A RandomBot: uniform over decisions, the real dice distribution at rolls, uniform draws.

    Independent of simulate.py on purpose, so a change there cannot move the golden game.
    """
    if state.phase is Phase.ROLL:
        return Roll(tuple(rng.choice(DIE) for _ in range(state.available)))
    if state.is_chance_node():
        return rng.choice(state.chance_outcomes())[0]
    return rng.choice(state.legal_actions())
