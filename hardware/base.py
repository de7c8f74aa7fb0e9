"""The small protocols every driver implements, real or mock, so the daemon never knows which.

Real drivers import their library (gpiozero, luma.oled, picamera2, OpenCV) only when built: the
Pi camera's library cannot even be imported off a Pi.
"""

from __future__ import annotations

from collections.abc import Callable
from enum import Enum
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    import numpy as np
    from PIL import Image


class HardwareError(RuntimeError):
    """A device failed (unplugged camera, I2C error); the daemon logs it and falls back."""


class ButtonEvent(Enum):
    """What a person did with the buttons: the daemon maps these onto the current prompt."""

    OK = "ok"  # choose the highlighted option
    NEXT = "next"  # highlight the next option
    BACK = "back"  # highlight the previous option
    UNDO = "undo"  # BACK held down: take back the last action


class Buttons(Protocol):
    def on_event(self, callback: Callable[[ButtonEvent], None]) -> None:
        """Call `callback` (from the driver's thread) for every press or hold."""

    def close(self) -> None: ...


class Display(Protocol):
    width: int
    height: int

    def show(self, image: Image.Image) -> None:
        """Put a 1-bit image of the display's size on the panel.

        :raises HardwareError: the panel did not answer.
        """

    def set_contrast(self, level: int) -> None:
        """0..255; the daemon dims an idle panel to spare it."""

    def close(self) -> None: ...


class Camera(Protocol):
    def read(self) -> np.ndarray:
        """The newest frame, BGR uint8.

        :raises HardwareError: no frame (unplugged, busy); the caller retries later.
        """

    def close(self) -> None: ...
