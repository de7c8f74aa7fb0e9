"""The space mat as data: which faces each space allows, fuel values, moons, planets, deep space.

The rulebooks do not print the mat's layout, so it lives in a board file (TOML or JSON) that an
owner can correct. `check_board` lists every problem with its location; `load_board` refuses a
board with errors and keeps the warnings.
"""

from __future__ import annotations

import json
import tomllib
from dataclasses import dataclass, field
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any, TypeGuard

from .dice import FACES, FUEL
from .errors import BoardError

COMET = "comet"
GALAXY = "galaxy"
DEFAULT_BOARD = "reconstruction"
_PACKAGE = "companion.games.mlem"


@dataclass(frozen=True, slots=True)
class Moon:
    """One moon slot: holds one astronaut for the whole game."""

    id: str
    points: int
    body: str
    """Moons sharing a body count once for the "4 different moons" goal (A14)."""


@dataclass(frozen=True, slots=True)
class Planet:
    """A planet: unlimited capacity, scored by majority at game end."""

    id: str
    gold: int
    silver: int
    bronze: int


@dataclass(frozen=True, slots=True)
class Space:
    """One space of the track."""

    index: int
    faces: frozenset[str]
    fuel: int
    """Steps per fuel die; 0 where the space does not allow fuel."""
    moons: tuple[Moon, ...] = ()
    """Listed farthest from the rocket (highest value) first."""
    planet: str | None = None


@dataclass(frozen=True, slots=True)
class Board:
    """A validated board."""

    board_id: str
    printed: bool
    last_space: int
    no_landing_below: int
    satellite_start: int
    ufo_start: int
    crash_track_length: int
    comet_points: int
    galaxy_points: int
    planets: dict[str, Planet]
    spaces: tuple[Space, ...]
    warnings: tuple[str, ...] = field(default=(), compare=False)
    moons: dict[str, Moon] = field(init=False, repr=False, compare=False)
    """Every moon on the board by id (derived from the spaces)."""

    def __post_init__(self) -> None:
        moons = {moon.id: moon for space in self.spaces for moon in space.moons}
        object.__setattr__(self, "moons", moons)

    def target_ids(self) -> set[str]:
        """Every place an astronaut can land: moons, planets, comet, galaxy."""
        return set(self.moons) | set(self.planets) | {COMET, GALAXY}


def check_board(data: Any) -> tuple[list[str], list[str]]:
    """Every error and warning of a board definition, each prefixed with its location.

    Never raises: a malformed file (wrong types, missing keys) is reported like any other error.
    """
    errors: list[str] = []
    warnings: list[str] = []
    if not isinstance(data, dict):
        return ["the top level must be a table"], warnings
    for key in ("board_id", "last_space", "spaces"):
        if key not in data:
            errors.append(f"{key}: missing")
    if errors:
        return errors, warnings
    if not isinstance(data["board_id"], str) or not data["board_id"]:
        errors.append(f"board_id: must be a non-empty string, not {data['board_id']!r}")
    if not isinstance(data.get("printed", False), bool):
        errors.append(f"printed: must be true or false, not {data['printed']!r}")
    last = data["last_space"]
    if not _is_int(last) or last < 2:
        return [f"last_space: must be an integer of at least 2, not {last!r}"], warnings
    no_landing_below = _int_field(data, "no_landing_below", 6, errors)
    if no_landing_below < 0:
        errors.append(f"no_landing_below: must not be negative, not {no_landing_below}")
    positions = {
        "satellite_start": _int_field(data, "satellite_start", 3, errors),
        "ufo_start": _int_field(data, "ufo_start", last, errors),
    }
    for key, value in positions.items():
        if not 0 <= value <= last:
            errors.append(f"{key}: {value} is off the track 0..{last}")
    if _int_field(data, "crash_track_length", 11, errors) < 1:
        errors.append("crash_track_length: must be at least 1")
    deep = data.get("deep_space", {})
    if not isinstance(deep, dict):
        errors.append(f"deep_space: must be a table {{comet, galaxy}}, not {deep!r}")
    else:
        for key in (COMET, GALAXY):
            if not _is_int(deep.get(key, 0)) or deep.get(key, 0) < 0:
                errors.append(f"deep_space.{key}: points must be a non-negative integer")
    planets = data.get("planets", {})
    if not isinstance(planets, dict):
        errors.append("planets: must be a table of planet id -> {gold, silver, bronze}")
        planets = {}
    for pid, planet in planets.items():
        if pid in (COMET, GALAXY):
            errors.append(f"planets.{pid}: {pid!r} is reserved for deep space")
        if not isinstance(planet, dict):
            errors.append(f"planets.{pid}: must be a table {{gold, silver, bronze}}")
            continue
        for medal in ("gold", "silver", "bronze"):
            if not _is_int(planet.get(medal)):
                errors.append(f"planets.{pid}.{medal}: missing or not an integer")
    if len(planets) != 5:
        warnings.append(f"planets: {len(planets)} planets; the printed mat has 5")
    spaces = data["spaces"]
    if not isinstance(spaces, list) or not all(isinstance(space, dict) for space in spaces):
        errors.append("spaces: must be a list of tables {i, faces, fuel, moons, planet}")
        return errors, warnings
    _check_spaces(spaces, last, no_landing_below, planets, errors, warnings)
    return errors, warnings


def _is_int(value: Any) -> TypeGuard[int]:
    """An integer that is not a boolean (TOML/JSON true is no number of spaces)."""
    return isinstance(value, int) and not isinstance(value, bool)


def _int_field(data: dict[str, Any], key: str, default: int, errors: list[str]) -> int:
    value = data.get(key, default)
    if not _is_int(value):
        errors.append(f"{key}: must be an integer, not {value!r}")
        return default
    return int(value)


def _check_spaces(
    spaces: list[dict[str, Any]],
    last: int,
    no_landing_below: int,
    planets: dict[str, Any],
    errors: list[str],
    warnings: list[str],
) -> None:
    indices = [space.get("i") for space in spaces]
    if indices != list(range(last + 1)):
        errors.append(f"spaces: indices must run 0..{last} in order with no gaps, got {indices}")
    seen_targets: set[str] = {COMET, GALAXY}
    for n, space in enumerate(spaces):
        where = f"spaces[{n}] (i={space.get('i')})"
        faces = space.get("faces", [])
        fuel = space.get("fuel")
        moons = space.get("moons", [])
        planet = space.get("planet")
        if not isinstance(faces, list):
            errors.append(f"{where}: faces must be a list, not {faces!r}")
            faces = []
        if not isinstance(moons, list) or not all(isinstance(m, dict) for m in moons):
            errors.append(f"{where}: moons must be a list of tables {{id, points, body}}")
            moons = []
        if planet is not None and not isinstance(planet, str):
            errors.append(f"{where}: planet must be a planet id, not {planet!r}")
            planet = None
        if space.get("i") == last:
            if faces or moons or planet or fuel is not None:
                errors.append(f"{where}: deep space has no faces, fuel, moons or planet")
            continue
        if not faces:
            errors.append(f"{where}: faces must be a non-empty list")
        bad = [face for face in faces if face not in FACES]
        if bad:
            errors.append(f"{where}: unknown faces {bad}; allowed: {list(FACES)}")
        if len(set(map(str, faces))) != len(faces):
            errors.append(f"{where}: faces {faces} name a face twice")
        has_fuel_value = _is_int(fuel) and 1 <= fuel <= 3
        if (FUEL in faces) != has_fuel_value:
            errors.append(
                f"{where}: fuel value must be an integer 1-3 exactly when faces include fuel"
                f" (faces {faces}, fuel {fuel!r})"
            )
        if _is_int(space.get("i")) and space["i"] < no_landing_below and (moons or planet):
            errors.append(f"{where}: spaces below {no_landing_below} have no moons or planets")
        if planet is not None and planet not in planets:
            errors.append(f"{where}: planet {planet!r} is not defined under [planets]")
        for moon in moons:
            mid = moon.get("id")
            if (not isinstance(mid, str) or not _is_int(moon.get("points"))
                    or not isinstance(moon.get("body", ""), str)):
                errors.append(
                    f"{where}: a moon needs a string id, integer points and an optional string"
                    f" body: {moon}"
                )
            elif mid in seen_targets or mid in planets:
                errors.append(f"{where}: target id {mid!r} is used twice")
            else:
                seen_targets.add(mid)
        points = [moon.get("points", 0) for moon in moons]
        if all(_is_int(p) for p in points) and points != sorted(points, reverse=True):
            warnings.append(f"{where}: moon points {points} are not listed highest first")


def parse_board(data: dict[str, Any]) -> Board:
    """Build a board from its parsed file; raises BoardError listing every problem."""
    errors, warnings = check_board(data)
    if errors:
        raise BoardError(errors)
    deep = data.get("deep_space", {})
    spaces = tuple(
        Space(
            index=raw["i"],
            faces=frozenset(raw.get("faces", [])),
            fuel=raw.get("fuel") or 0,
            moons=tuple(
                Moon(m["id"], m["points"], m.get("body", m["id"])) for m in raw.get("moons", [])
            ),
            planet=raw.get("planet"),
        )
        for raw in data["spaces"]
    )
    return Board(
        board_id=data["board_id"],
        printed=bool(data.get("printed", False)),
        last_space=data["last_space"],
        no_landing_below=data.get("no_landing_below", 6),
        satellite_start=data.get("satellite_start", 3),
        ufo_start=data.get("ufo_start", data["last_space"]),
        crash_track_length=data.get("crash_track_length", 11),
        comet_points=deep.get(COMET, 7),
        galaxy_points=deep.get(GALAXY, 5),
        planets={
            pid: Planet(pid, p["gold"], p["silver"], p["bronze"])
            for pid, p in data.get("planets", {}).items()
        },
        spaces=spaces,
        warnings=tuple(warnings),
    )


def read_data_file(path: Path) -> dict[str, Any]:
    """Parse a TOML or JSON data file; the suffix decides.

    :raises BoardError: not UTF-8 text, not valid TOML/JSON, or not a table (naming the file).
    :raises OSError: the file cannot be read.
    """
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError as exc:
        raise BoardError([f"{path.name}: not UTF-8 text ({exc.reason} at byte {exc.start});"
                          " save it as UTF-8"]) from exc
    try:
        data = json.loads(text) if path.suffix == ".json" else tomllib.loads(text)
    except (tomllib.TOMLDecodeError, json.JSONDecodeError) as exc:
        raise BoardError([f"{path.name}: not valid {path.suffix.lstrip('.')}: {exc}"]) from exc
    if not isinstance(data, dict):
        raise BoardError([f"{path.name}: the top level must be a table"])
    return data


def read_source(folder: str, source: str | Path) -> dict[str, Any]:
    """The parsed data of a shipped file by name (in `folder`) or of any file by path."""
    path = Path(source)
    if path.suffix:
        return read_data_file(path)
    return _read_shipped(folder, str(source))


@cache
def _read_shipped(folder: str, name: str) -> dict[str, Any]:
    """Shipped files never change, so each is parsed once (the parsers do not mutate it)."""
    with resources.as_file(resources.files(_PACKAGE) / folder / f"{name}.toml") as path:
        return read_data_file(path)


def load_board(source: str | Path = DEFAULT_BOARD) -> Board:
    """Load a shipped board by name (e.g. "reconstruction") or a board file by path."""
    return parse_board(read_source("boards", source))
