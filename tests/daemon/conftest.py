"""A daemon on the mocks: simulated camera, gpiozero MockFactory buttons, luma's dummy OLED."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import pytest

from companion.config import Config, demo_config
from companion.daemon import BotSeats, Daemon
from companion.games.mlem import Game, GameConfig, State
from companion.sdnotify import Notifier
from hardware.base import ButtonEvent, Camera


def replay(setup: dict[str, Any], actions: list[str]) -> State:
    state = Game(GameConfig.from_json(setup)).new_initial_state()
    for text in actions:
        state.apply_action(text)
    return state


def test_config(**display: Any) -> Config:
    config = demo_config()
    return replace(
        config,
        camera=replace(config.camera, width=480, height=360, seed=3),
        buttons=replace(config.buttons, bounce_time=0.0, hold_time=0.3),
        display=replace(config.display, result_seconds=0.2, **display),
    )


@dataclass
class Rig:
    """One daemon and the hands that work it."""

    daemon: Daemon
    press: Callable[[ButtonEvent], None]
    factory: Any
    cameras: list[Camera]
    config: Config

    def bots(self, **options: Any) -> BotSeats:
        from companion.daemon import throw_into_tray

        options.setdefault("throw", lambda faces: throw_into_tray(self.cameras, faces))
        options.setdefault("throw_for_all", True)
        return BotSeats(self.daemon, self.press, **options)


@pytest.fixture
def make_rig(tmp_path: Path) -> Iterator[Callable[..., Rig]]:
    from companion.daemon import build_drivers, mock_buttons

    rigs: list[Rig] = []

    def make(config: Config | None = None, *, camera: bool = True,
             display: Callable[[], Any] | None = None, factory: Any = None,
             store: Path | None = None, notifier: Notifier | None = None, fps: float = 40.0,
             start: bool = True) -> Rig:
        config = config or test_config()
        made_factory, press = mock_buttons(config, factory)
        cameras: list[Camera] = []
        drivers = build_drivers(config, pin_factory=made_factory, cameras=cameras)
        if not camera:
            drivers = replace(drivers, camera=None, reader=None)
        if display is not None:
            drivers = replace(drivers, display=display)
        daemon = Daemon(config, drivers, store_path=store or tmp_path / "table.db", demo=True,
                        web=False, notifier=notifier or Notifier(address=""), camera_fps=fps)
        rig = Rig(daemon, press, made_factory, cameras, config)
        rigs.append(rig)
        if start:
            daemon.start()
        return rig

    yield make
    for rig in rigs:
        rig.daemon.stop()
