"""Devices built from the config: the button roles GpioButtons is given, the mock finger."""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

import pytest

from companion.config import Config, parse_config
from companion.daemon import build_drivers, mock_buttons
from companion.daemon.drivers import button_pins
from companion.games.mlem import GameConfig
from hardware.base import ButtonEvent
from vision.profile import Profile

from .conftest import Rig
from .conftest import test_config as rig_config
from .test_game import wait_for


def test_three_buttons_by_default() -> None:
    assert button_pins(Config()) == {"ok": 17, "next": 27, "back": 22}


def test_the_fourth_button_gets_the_undo_role() -> None:
    config = parse_config({"buttons": {"undo": 5, "bounce_time": 0}, "camera": {"kind": "none"},
                           "display": {"driver": "none"}})
    assert button_pins(config)["undo"] == 5
    factory, press = mock_buttons(config)
    drivers = build_drivers(config, pin_factory=factory)
    assert drivers.buttons is not None
    buttons = drivers.buttons()
    seen: list[ButtonEvent] = []
    buttons.on_event(seen.append)
    try:
        press(ButtonEvent.UNDO)  # a short press on GPIO5, not BACK held
        assert seen == [ButtonEvent.UNDO]
        press(ButtonEvent.BACK)
        assert seen == [ButtonEvent.UNDO, ButtonEvent.BACK]
    finally:
        buttons.close()


def test_the_undo_button_undoes_a_step_at_the_table(make_rig: Callable[..., Rig]) -> None:
    config = rig_config()
    rig = make_rig(replace(config, buttons=replace(config.buttons, undo=5)))
    table = rig.daemon.table
    assert table.new_game(GameConfig(players=("Anna", "Ben"))).ok
    rig.press(ButtonEvent.OK)
    assert wait_for(lambda: table.snapshot().can_undo)
    version = table.snapshot().version
    rig.press(ButtonEvent.UNDO)
    assert wait_for(lambda: table.snapshot().version > version and not table.snapshot().can_undo)


def test_a_poorly_calibrated_profile_is_warned_about_at_start(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    path = tmp_path / "dice.json"
    Profile(body_bgr=(40.0, 60.0, 200.0), inks_bgr=((250.0, 250.0, 250.0),), die_frac=0.07,
            self_check=(1, 10)).save(path)
    config = parse_config({"camera": {"kind": "simulated"}, "vision": {"profile": str(path)},
                           "display": {"driver": "none"}})
    with caplog.at_level(logging.WARNING, logger="companion.daemon.drivers"):
        drivers = build_drivers(config)
    assert drivers.reader is not None
    assert "only 1 of 10 calibration dice were read back right" in caplog.text
