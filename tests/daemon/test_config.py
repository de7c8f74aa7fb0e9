"""The TOML config: documented defaults, and clear errors with key paths."""

from __future__ import annotations

import dataclasses
import tomllib
from pathlib import Path
from typing import Any

import pytest

from companion.commands.run import resolve_config
from companion.config import (
    Config,
    ConfigError,
    demo_config,
    find_config,
    load_config,
    parse_config,
)

EXAMPLE = Path(__file__).resolve().parents[2] / "config.example.toml"
SHIPPED_BOARDS = Path(__file__).resolve().parents[2] / "companion" / "games" / "mlem" / "boards"


def keys(value: Any, prefix: str = "") -> set[str]:
    if dataclasses.is_dataclass(value):
        value = dataclasses.asdict(value)  # type: ignore[arg-type]
    found = set()
    for key, item in value.items():
        found.add(prefix + key)
        if isinstance(item, dict):
            found |= keys(item, f"{prefix}{key}.")
    return found


def test_the_example_lists_every_key_with_its_default() -> None:
    with EXAMPLE.open("rb") as handle:
        data = tomllib.load(handle)
    assert keys(data) == keys(Config())
    assert load_config(EXAMPLE) == Config()


def test_an_empty_file_is_the_defaults(tmp_path: Path) -> None:
    path = tmp_path / "c.toml"
    path.write_text("")
    assert load_config(path) == Config()


@pytest.mark.parametrize(("text", "message"), [
    ("[web]\nprot = 1", "web.prot: unknown key"),
    ("[display]\ni2c_address = '3c'", "display.i2c_address: expected an integer, got string"),
    ("[buttons]\nok = 2", "buttons.ok: GPIO2 is I2C SDA"),
    ("[buttons]\nok = 40", "buttons.ok: GPIO40 is not a header GPIO"),
    ("[buttons]\nnext = 17", "buttons.next: GPIO17 is already buttons.ok"),
    ("[buttons]\nhold_time = true", "buttons.hold_time: expected a number, got boolean"),
    ("[buttons]\nhold_time = 0.2\nbounce_time = 0.5",
     "buttons.bounce_time: must be shorter than buttons.hold_time (0.2 s), got 0.5"),
    ("[buttons]\nundo = 17", "buttons.undo: GPIO17 is already buttons.ok"),
    ("[buttons]\nundo = 3", "buttons.undo: GPIO3 is I2C SCL"),
    ("[camera]\nkind = 'kinect'", "camera.kind: 'kinect' is not one of"),
    ("[game]\nplayers = ['A']", "game.players: MLEM takes 2 to 5 players"),
    ("[game]\nvariants = ['ufo', 'moon']", "game.variants[1]: 'moon' is not one of"),
    ("[game.rules]\nend_timing = 'never'", "game.rules.end_timing"),
    ("[game.rules]\ngoal_check = 'sometimes'", "game.rules.goal_check: 'sometimes'"),
    ("[game.rules]\nufo_reshuffle = 'yes'", "game.rules.ufo_reshuffle: expected"),
    ("[game]\nboard = '/nonexistent/board.toml'", "game.board / game.tokens: "),
    ("display = 3", "display: expected a table"),
    ("[web]\nport = 70000", "web.port: 1 to 65535"),
    ("[display]\nrotate = 1", "display.rotate"),
    ("log_level = 'loud'", "log_level: 'loud' is not one of"),
])
def test_errors_name_the_key(tmp_path: Path, text: str, message: str) -> None:
    path = tmp_path / "bad.toml"
    path.write_text(text)
    with pytest.raises(ConfigError) as caught:
        load_config(path)
    assert message in str(caught.value)
    assert str(path) in str(caught.value)


def test_every_problem_at_once() -> None:
    with pytest.raises(ConfigError) as caught:
        parse_config({"web": {"port": "x", "hots": "y"}, "camera": {"fps": "fast"}})
    assert len(caught.value.problems) == 3


def test_not_toml(tmp_path: Path) -> None:
    path = tmp_path / "bad.toml"
    path.write_text("[web\nport = ")
    with pytest.raises(ConfigError, match="not valid TOML"):
        load_config(path)


def test_not_utf8(tmp_path: Path) -> None:
    path = tmp_path / "latin1.toml"
    path.write_bytes("# Café\nlog_level = \"info\"\n".encode("latin-1"))
    with pytest.raises(ConfigError, match=f"^{path}: not UTF-8 text"):
        load_config(path)


def test_a_board_that_is_not_utf8(tmp_path: Path) -> None:
    board = tmp_path / "mat.toml"
    board.write_bytes(b"# Caf\xe9\n" + (SHIPPED_BOARDS / "reconstruction.toml").read_bytes())
    path = tmp_path / "config.toml"
    path.write_text(f"[game]\nboard = {str(board)!r}\n", "utf-8")
    with pytest.raises(ConfigError, match=r"game\.board / game\.tokens: mat\.toml: not UTF-8"):
        load_config(path)


def test_a_missing_explicit_file_is_an_error(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="no such file"):
        find_config(tmp_path / "nope.toml")


def test_store_path(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("STATE_DIRECTORY", "/var/lib/mlem-companion")
    assert str(Config().store_path()) == "/var/lib/mlem-companion/mlem-companion.db"
    monkeypatch.setenv("XDG_STATE_HOME", "/home/ann/.state")
    assert str(Config().store_path(demo=True)) == "/home/ann/.state/mlem-companion/demo.db"
    monkeypatch.delenv("XDG_STATE_HOME")
    monkeypatch.setenv("HOME", "/home/ann")
    assert str(Config().store_path(demo=True)) == "/home/ann/.local/state/mlem-companion/demo.db"
    custom = parse_config({"store": {"path": "/srv/x.db"}})
    assert str(custom.store_path(demo=True)) == "/srv/x.db"


def test_no_config_off_a_pi_is_the_demo(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.delenv("MLEM_COMPANION_CONFIG", raising=False)
    monkeypatch.delenv("CONFIGURATION_DIRECTORY", raising=False)
    monkeypatch.setattr("companion.config.SYSTEM_CONFIG", tmp_path / "absent.toml")
    monkeypatch.setattr("companion.commands.run.is_raspberry_pi", lambda: False)
    config, demo = resolve_config(None, False)
    assert demo and config == demo_config()
    assert config.web.host == "127.0.0.1" and config.camera.kind == "simulated"
    assert config.display.driver == "dummy"
    monkeypatch.setattr("companion.commands.run.is_raspberry_pi", lambda: True)
    config, demo = resolve_config(None, False)
    assert not demo and config == Config()
