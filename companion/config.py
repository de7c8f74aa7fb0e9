"""The daemon's TOML configuration: documented defaults, strict validation, clear errors.

Every key has a default (``config.example.toml`` lists them all with comments), so an empty file
is a valid configuration. A wrong key is never ignored: unknown keys, wrong types and bad pins are
reported together, each with its key path (``display.i2c_address: expected an integer, got
'3c'``), because a typo in a file nobody reads again must not silently change the table.

Where the file is looked for: ``--config FILE``, else ``$MLEM_COMPANION_CONFIG``, else
``$CONFIGURATION_DIRECTORY/config.toml`` (systemd's ConfigurationDirectory=), else
``/etc/mlem-companion/config.toml``.
"""

from __future__ import annotations

import dataclasses
import os
import tempfile
import tomllib
import types
import typing
from collections.abc import Mapping
from dataclasses import dataclass, field, fields, replace
from pathlib import Path
from typing import Any, Union

from companion.games.mlem import GameConfig, RuleOptions, RulesError, load_board, load_tokens
from companion.games.mlem.bots import BOTS
from companion.games.mlem.game import END_TIMINGS, GOAL_CHECKS, VARIANTS

SYSTEM_CONFIG = Path("/etc/mlem-companion/config.toml")
STATE_DIRECTORY = Path("/var/lib/mlem-companion")
DB_NAME = "mlem-companion.db"
DEMO_DB_NAME = "demo.db"

CAMERA_KINDS = ("picamera", "usb", "folder", "simulated", "none")
DISPLAY_DRIVERS = ("ssd1306", "sh1106", "dummy", "none")
LOG_LEVELS = ("debug", "info", "warning", "error")
I2C_PINS = {2: "I2C SDA (the OLED)", 3: "I2C SCL (the OLED)"}
BCM_PINS = range(2, 28)  # the 40-pin header's GPIO2..GPIO27


class ConfigError(ValueError):
    """The configuration file is unreadable or invalid; the message lists every problem."""

    def __init__(self, problems: list[str], source: str = "config") -> None:
        self.problems = problems
        self.source = source
        super().__init__(f"{source}: " + "; ".join(problems) if len(problems) == 1 else
                         f"{source}: {len(problems)} problems:\n  " + "\n  ".join(problems))


@dataclass(frozen=True)
class GameSection:
    board: str = "reconstruction"
    tokens: str = "reconstruction"
    players: list[str] = field(default_factory=lambda: ["Blue", "Red", "Green", "Yellow"])
    variants: list[str] = field(default_factory=list)
    rules: RuleOptions = field(default_factory=RuleOptions)
    """The switchable rulings (MLEM-SPEC section 8), straight from the rules core."""

    def game_config(self) -> GameConfig:
        """The game this table plays unless told otherwise: the one place where a game set up
        with the buttons and one set up from a phone get their board, tokens and rules."""
        return GameConfig(players=tuple(self.players), variants=frozenset(self.variants),
                          board=self.board, tokens=self.tokens, rules=self.rules)


@dataclass(frozen=True)
class CameraSection:
    kind: str = "picamera"
    width: int = 1280
    height: int = 720
    device: int | str = 0
    folder: str = ""
    fps: float = 8.0
    seed: int = 1


@dataclass(frozen=True)
class VisionSection:
    profile: str = ""
    max_dice: int = 6
    still_frames: int = 3
    stable_readings: int = 3
    auto_confirm: bool = False
    proof_width: int = 480
    proof_quality: int = 70


@dataclass(frozen=True)
class ButtonsSection:
    enabled: bool = True
    ok: int = 17
    next: int = 27
    back: int = 22
    undo: int = 0
    """An optional fourth button that undoes at once (0 = none; holding BACK always undoes)."""
    hold_time: float = 1.0
    bounce_time: float = 0.03


@dataclass(frozen=True)
class DisplaySection:
    driver: str = "ssd1306"
    i2c_address: int = 0x3C
    i2c_port: int = 1
    rotate: int = 0
    dim_after: float = 120.0
    result_seconds: float = 2.5
    contrast: int = 255
    dim_contrast: int = 8


@dataclass(frozen=True)
class WebSection:
    enabled: bool = True
    host: str = "0.0.0.0"
    port: int = 8080
    threads: int = 8


@dataclass(frozen=True)
class StoreSection:
    path: str = ""
    proof_retention: int = 200


@dataclass(frozen=True)
class DemoSection:
    bots: list[str] = field(default_factory=lambda: ["greedy", "cautious", "random"])
    humans: int = 1
    throw_delay: float = 1.5


@dataclass(frozen=True)
class Config:
    """The whole file; ``Config()`` is the real-table default, ``demo_config()`` the demo."""

    log_level: str = "info"
    game: GameSection = field(default_factory=GameSection)
    camera: CameraSection = field(default_factory=CameraSection)
    vision: VisionSection = field(default_factory=VisionSection)
    buttons: ButtonsSection = field(default_factory=ButtonsSection)
    display: DisplaySection = field(default_factory=DisplaySection)
    web: WebSection = field(default_factory=WebSection)
    store: StoreSection = field(default_factory=StoreSection)
    demo: DemoSection = field(default_factory=DemoSection)

    def store_path(self, demo: bool = False) -> Path:
        """The database: the configured path, systemd's StateDirectory, or the user's state
        directory in the demo (never the working directory, which may be a checkout)."""
        if self.store.path:
            return Path(self.store.path)
        if demo:
            return demo_state_dir() / DEMO_DB_NAME
        state_dir = os.environ.get("STATE_DIRECTORY", "").split(":")[0]
        return Path(state_dir or STATE_DIRECTORY) / DB_NAME

    def to_json(self) -> dict[str, Any]:
        return dataclasses.asdict(self)


def demo_state_dir() -> Path:
    """$XDG_STATE_HOME/mlem-companion (~/.local/state/mlem-companion), else the temp folder."""
    xdg = os.environ.get("XDG_STATE_HOME", "")
    if xdg and Path(xdg).is_absolute():
        return Path(xdg) / "mlem-companion"
    try:
        return Path.home() / ".local" / "state" / "mlem-companion"
    except RuntimeError:  # no home directory (a system user)
        return Path(tempfile.gettempdir()) / "mlem-companion"


def demo_config(base: Config | None = None) -> Config:
    """No Pi: simulated camera, mock buttons, dummy OLED, web page on localhost only."""
    base = base or Config()
    return replace(
        base,
        camera=replace(base.camera, kind="simulated", width=640, height=480, fps=30.0),
        display=replace(base.display, driver="dummy"),
        web=replace(base.web, host="127.0.0.1"),
        game=replace(base.game, players=base.game.players[:3]),
    )


# ------------------------------------------------------------------------------------ loading


def find_config(explicit: Path | None = None) -> Path | None:
    """The file to read, or None when there is none (the caller then picks demo or defaults).

    :raises ConfigError: an explicitly named file does not exist.
    """
    if explicit is not None:
        if not explicit.is_file():
            raise ConfigError([f"no such file: {explicit}"], str(explicit))
        return explicit
    env = os.environ.get("MLEM_COMPANION_CONFIG")
    if env:
        return find_config(Path(env))
    candidates = [Path(d) / "config.toml"
                  for d in os.environ.get("CONFIGURATION_DIRECTORY", "").split(":") if d]
    candidates.append(SYSTEM_CONFIG)
    return next((c for c in candidates if c.is_file()), None)


def load_config(path: Path) -> Config:
    """Read and validate one TOML file.

    :raises ConfigError: unreadable, not TOML, or invalid (every problem with its key path).
    """
    try:
        with path.open("rb") as handle:
            data = tomllib.load(handle)
    except OSError as exc:
        raise ConfigError([f"cannot read: {exc.strerror}"], str(path)) from exc
    except UnicodeDecodeError as exc:  # tomllib decodes the bytes before it parses them
        raise ConfigError([f"not UTF-8 text ({exc.reason} at byte {exc.start}); save it as"
                           " UTF-8"], str(path)) from exc
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError([f"not valid TOML: {exc}"], str(path)) from exc
    return parse_config(data, str(path))


def parse_config(data: Mapping[str, Any], source: str = "config") -> Config:
    """Build a Config from parsed TOML; every problem is collected before raising.

    >>> parse_config({"display": {"dim_after": 30}}).display.dim_after
    30.0
    >>> try:
    ...     parse_config({"web": {"prot": 1}})
    ... except ConfigError as exc:
    ...     print(exc)
    config: web.prot: unknown key (known: enabled, host, port, threads)
    """
    problems: list[str] = []
    config: Config = _build(Config, data, "", problems)
    if not problems:
        problems.extend(check_config(config))
    if problems:
        raise ConfigError(problems, source)
    return config


def check_config(config: Config) -> list[str]:
    """Checks beyond types: allowed values, ranges, pins."""
    problems: list[str] = []

    def one_of(path: str, value: str, allowed: tuple[str, ...]) -> None:
        if value not in allowed:
            problems.append(f"{path}: {value!r} is not one of {', '.join(allowed)}")

    def at_least(path: str, value: float, low: float) -> None:
        if value < low:
            problems.append(f"{path}: must be at least {low}, got {value}")

    one_of("log_level", config.log_level, LOG_LEVELS)
    game = config.game
    for i, variant in enumerate(game.variants):
        one_of(f"game.variants[{i}]", variant, VARIANTS)
    if not 2 <= len(game.players) <= 5:
        problems.append(f"game.players: MLEM takes 2 to 5 players, got {len(game.players)}")
    if len(set(game.players)) != len(game.players) or not all(p.strip() for p in game.players):
        problems.append("game.players: names must be non-empty and distinct")
    one_of("game.rules.end_timing", game.rules.end_timing, END_TIMINGS)
    one_of("game.rules.goal_check", game.rules.goal_check, GOAL_CHECKS)
    try:
        load_tokens(load_board(game.board), game.tokens)
    except (RulesError, OSError) as exc:
        problems.append(f"game.board / game.tokens: {exc}")
    camera = config.camera
    one_of("camera.kind", camera.kind, CAMERA_KINDS)
    at_least("camera.width", camera.width, 160)
    at_least("camera.height", camera.height, 120)
    if camera.fps <= 0:
        problems.append(f"camera.fps: must be positive, got {camera.fps}")
    if camera.kind == "folder" and not camera.folder:
        problems.append("camera.folder: required when camera.kind = 'folder'")
    vision = config.vision
    if not 1 <= vision.max_dice <= 6:
        problems.append(f"vision.max_dice: 1 to 6, got {vision.max_dice}")
    at_least("vision.still_frames", vision.still_frames, 1)
    at_least("vision.stable_readings", vision.stable_readings, 1)
    at_least("vision.proof_width", vision.proof_width, 64)
    if not 1 <= vision.proof_quality <= 100:
        problems.append(f"vision.proof_quality: 1 to 100, got {vision.proof_quality}")
    problems.extend(_check_pins(config))
    display = config.display
    one_of("display.driver", display.driver, DISPLAY_DRIVERS)
    if not 0x03 <= display.i2c_address <= 0x77:
        problems.append(f"display.i2c_address: 0x03 to 0x77, got {display.i2c_address:#x}")
    at_least("display.i2c_port", display.i2c_port, 0)
    if display.rotate not in (0, 2):
        problems.append(f"display.rotate: 0, or 2 for a panel mounted upside down, got "
                        f"{display.rotate}")
    at_least("display.dim_after", display.dim_after, 0)
    at_least("display.result_seconds", display.result_seconds, 0)
    for key in ("contrast", "dim_contrast"):
        value = getattr(display, key)
        if not 0 <= value <= 255:
            problems.append(f"display.{key}: 0 to 255, got {value}")
    web = config.web
    if not 1 <= web.port <= 65535:
        problems.append(f"web.port: 1 to 65535, got {web.port}")
    at_least("web.threads", web.threads, 1)
    at_least("store.proof_retention", config.store.proof_retention, 0)
    for i, bot in enumerate(config.demo.bots):
        one_of(f"demo.bots[{i}]", bot, tuple(BOTS))
    if not config.demo.bots:
        problems.append("demo.bots: name at least one bot")
    at_least("demo.humans", config.demo.humans, 0)
    at_least("demo.throw_delay", config.demo.throw_delay, 0)
    return problems


def _check_pins(config: Config) -> list[str]:
    """BCM numbers on the header, distinct, and off the OLED's I2C pins."""
    buttons = config.buttons
    problems: list[str] = []
    seen: dict[int, str] = {}
    for name in ("ok", "next", "back", "undo"):
        pin = getattr(buttons, name)
        if name == "undo" and pin == 0:
            continue  # no fourth button
        path = f"buttons.{name}"
        if pin not in BCM_PINS:
            problems.append(f"{path}: GPIO{pin} is not a header GPIO (BCM 2 to 27)")
        elif pin in I2C_PINS and config.display.driver in ("ssd1306", "sh1106"):
            problems.append(f"{path}: GPIO{pin} is {I2C_PINS[pin]}; pick another pin")
        elif pin in seen:
            problems.append(f"{path}: GPIO{pin} is already buttons.{seen[pin]}")
        seen.setdefault(pin, name)
    if not 0.1 <= buttons.hold_time <= 10:
        problems.append(f"buttons.hold_time: 0.1 to 10 seconds, got {buttons.hold_time}")
    if not 0 <= buttons.bounce_time <= 1:
        problems.append(f"buttons.bounce_time: 0 to 1 second, got {buttons.bounce_time}")
    elif buttons.bounce_time >= buttons.hold_time:
        problems.append(f"buttons.bounce_time: must be shorter than buttons.hold_time "
                        f"({buttons.hold_time} s), got {buttons.bounce_time}")
    return problems


# ------------------------------------------------------------------------ generic type checks


def _build(cls: type[Any], data: Any, prefix: str, problems: list[str]) -> Any:
    """Instantiate dataclass `cls` from `data`, recording type problems with key paths."""
    where = prefix.rstrip(".") or "the top level"
    if not isinstance(data, Mapping):
        problems.append(f"{where}: expected a table, got {_describe(data)}")
        return cls()
    hints = typing.get_type_hints(cls)
    known = [f.name for f in fields(cls)]
    for key in data:
        if key not in known:
            problems.append(f"{prefix}{key}: unknown key (known: {', '.join(known)})")
    values: dict[str, Any] = {}
    for f in fields(cls):
        if f.name not in data:
            continue
        path = f"{prefix}{f.name}"
        hint = hints[f.name]
        if isinstance(hint, type) and dataclasses.is_dataclass(hint):
            values[f.name] = _build(hint, data[f.name], path + ".", problems)
            continue
        ok, value = _coerce(data[f.name], hint)
        if ok:
            values[f.name] = value
        else:
            problems.append(f"{path}: expected {_type_name(hint)}, got {_describe(data[f.name])}")
    return cls(**values)


def _coerce(value: Any, hint: Any) -> tuple[bool, Any]:
    """Whether `value` fits `hint` (an int is fine for a float; a bool is never an int)."""
    origin = typing.get_origin(hint)
    if origin in (Union, types.UnionType):
        for option in typing.get_args(hint):
            ok, coerced = _coerce(value, option)
            if ok:
                return True, coerced
        return False, None
    if origin is list:
        (item,) = typing.get_args(hint)
        if not isinstance(value, list):
            return False, None
        items = [_coerce(v, item) for v in value]
        return all(ok for ok, _ in items), [v for _, v in items]
    if hint is bool:
        return isinstance(value, bool), value
    if hint is int:
        return isinstance(value, int) and not isinstance(value, bool), value
    if hint is float:
        ok = isinstance(value, int | float) and not isinstance(value, bool)
        return ok, float(value) if ok else None
    if hint is str:
        return isinstance(value, str), value
    return False, None


def _type_name(hint: Any) -> str:
    origin = typing.get_origin(hint)
    if origin in (Union, types.UnionType):
        return " or ".join(_type_name(a) for a in typing.get_args(hint))
    if origin is list:
        return f"a list of {_type_name(typing.get_args(hint)[0])}s"
    return {bool: "true or false", int: "an integer", float: "a number", str: "a string"}.get(
        hint, str(hint))


def _describe(value: Any) -> str:
    kind = {bool: "boolean", int: "integer", float: "number", str: "string", list: "list",
            dict: "table"}.get(type(value), type(value).__name__)
    return f"{kind} {value!r}" if not isinstance(value, dict | list) else kind
