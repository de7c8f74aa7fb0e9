"""Openers for the devices the config names; each imports its library only when called.

picamera2 cannot even be imported off a Pi, so nothing here imports a driver at module level: the
daemon calls an opener when it starts (and again when it retries a failed device).
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from companion.config import Config, ConfigError
from hardware.base import ButtonEvent, Buttons, Camera, Display

if TYPE_CHECKING:
    import numpy as np

    from vision.profile import Profile

log = logging.getLogger(__name__)


@dataclass
class Drivers:
    """How to open each device; None leaves it out. Tests and the demo inject their own."""

    camera: Callable[[], Camera] | None = None
    reader: Callable[[np.ndarray], Any] | None = None
    display: Callable[[], Display] | None = None
    buttons: Callable[[], Buttons] | None = None


def build_drivers(config: Config, *, pin_factory: Any = None,
                  cameras: list[Camera] | None = None) -> Drivers:
    """Openers for the devices the config names (`cameras` collects every camera opened).

    :raises ConfigError: the vision profile cannot be read.
    """
    drivers = Drivers()
    if config.camera.kind != "none":
        drivers.camera = _camera_opener(config, cameras)
        drivers.reader = _reader(config)
    display = config.display
    if display.driver != "none":
        def open_display() -> Any:
            from hardware.display import create_display

            return create_display(display.driver, i2c_port=display.i2c_port,
                                  i2c_address=display.i2c_address, rotate=display.rotate)
        drivers.display = open_display
    if config.buttons.enabled:
        def open_buttons() -> Any:
            from hardware.buttons import GpioButtons

            buttons = config.buttons
            return GpioButtons(button_pins(config), hold_seconds=buttons.hold_time,
                               bounce_time=buttons.bounce_time, pin_factory=pin_factory)
        drivers.buttons = open_buttons
    return drivers


def button_pins(config: Config) -> dict[ButtonEvent | str, int]:
    """Role -> BCM pin for GpioButtons; the UNDO role only when a fourth button is wired."""
    buttons = config.buttons
    pins: dict[ButtonEvent | str, int] = {
        "ok": buttons.ok, "next": buttons.next, "back": buttons.back}
    if buttons.undo:
        pins["undo"] = buttons.undo
    return pins


def _camera_opener(config: Config, cameras: list[Camera] | None) -> Callable[[], Camera]:
    camera = config.camera
    options: dict[str, Any]
    if camera.kind == "picamera":
        options = {"resolution": (camera.width, camera.height)}
    elif camera.kind == "usb":
        options = {"device": camera.device, "resolution": (camera.width, camera.height)}
    elif camera.kind == "folder":
        options = {"folder": camera.folder, "hold": 4}
    else:
        options = {"seed": camera.seed, "width": camera.width, "height": camera.height,
                   "rolling_frames": 1}

    def open_camera() -> Camera:
        from hardware.camera import create_camera

        if cameras and camera.kind == "simulated" and not getattr(cameras[-1], "_closed", True):
            return cameras[-1]  # the simulated tray survives a "reconnect", like a real one
        opened = create_camera(camera.kind, **options)
        if cameras is not None:
            cameras.append(opened)
        return opened

    return open_camera


def _reader(config: Config) -> Callable[[Any], Any]:
    from vision.profile import Profile
    from vision.reader import DiceReader

    profile = None
    if config.vision.profile:
        try:
            profile = Profile.load(Path(config.vision.profile))
        except (OSError, ValueError) as exc:
            raise ConfigError([f"vision.profile: {exc}"]) from exc
        for number, dice_set in enumerate(profile.sets(), 1):
            warning = dice_set.calibration_warning()
            if warning:
                log.warning("vision.profile %s, dice set %d: %s", config.vision.profile,
                            number, warning)
    elif config.camera.kind == "simulated":
        profile = _simulated_profile(config)
    return DiceReader(profile, max_dice=config.vision.max_dice).read


def _simulated_profile(config: Config) -> Profile:
    """The demo calibrates its simulated dice set the way an owner calibrates real dice."""
    return _calibrate_simulated(config.camera.seed, config.camera.width, config.camera.height)


@cache
def _calibrate_simulated(seed: int, width: int, height: int) -> Profile:
    """A few seconds of work, done once per dice set and size in a process."""
    from hardware.camera import SimulatedCamera
    from vision.calibration import calibrate
    from vision.profile import LabelledDie

    camera = SimulatedCamera(seed, width, height)
    return calibrate((image, [LabelledDie(*die) for die in dice])
                     for image, dice in camera.calibration_shots())


def mock_buttons(config: Config, factory: Any = None
                 ) -> tuple[Any, Callable[[ButtonEvent], None]]:
    """gpiozero's MockFactory (a new one unless given) and a `press(event)` that drives its
    pins like a finger: down, up (UNDO: the fourth button if wired, else BACK held for
    `hold_time`)."""
    if factory is None:
        from gpiozero.pins.mock import MockFactory

        factory = MockFactory()
    buttons = config.buttons
    pins = {ButtonEvent.OK: buttons.ok, ButtonEvent.NEXT: buttons.next,
            ButtonEvent.BACK: buttons.back, ButtonEvent.UNDO: buttons.undo or buttons.back}
    undo_by_holding_back = not buttons.undo
    settle = buttons.bounce_time * 1.5 + 0.005 if buttons.bounce_time else 0.0

    def press(event: ButtonEvent) -> None:
        pin = factory.pin(pins[event])
        pin.drive_low()
        held = event is ButtonEvent.UNDO and undo_by_holding_back
        time.sleep(buttons.hold_time + 0.2 if held else settle)
        pin.drive_high()
        if settle:
            time.sleep(settle)

    return factory, press


def throw_into_tray(cameras: list[Camera], faces: list[str]) -> None:
    """Throw dice into the newest simulated camera's tray (the demo's and the tests' hand).

    :raises RuntimeError: the camera is not the simulated one.
    """
    camera = cameras[-1] if cameras else None
    throw = getattr(camera, "throw", None)
    if throw is None:
        raise RuntimeError("the demo throws dice only into the simulated camera")
    throw(faces)
