"""The OLED panel: a luma.oled device (SSD1306 or SH1106 over I2C) or luma's ``dummy``.

``dummy`` keeps the last frame as a PIL image and needs no hardware: the demo mode mirrors it on
the web page and the tests compare it with reference PNGs. luma is imported only when a display
is built, and its errors (no I2C bus, no answer at the address) come out as ``HardwareError`` so
the daemon can carry on without a panel.
"""

from __future__ import annotations

import contextlib
import threading
from typing import TYPE_CHECKING, Any

from PIL import Image

from hardware.base import Display, HardwareError

DRIVERS = ("ssd1306", "sh1106", "dummy")
WIDTH, HEIGHT = 128, 64


class LumaDisplay:
    """A luma device behind the ``Display`` protocol; remembers the last image it was shown."""

    width: int
    height: int

    def __init__(self, device: Any, driver: str) -> None:
        self._device = device
        self.driver = driver
        self.width, self.height = WIDTH, HEIGHT
        self.last_image: Image.Image | None = None  # as given to show(), before any rotation
        self._lock = threading.Lock()  # show() may come from the daemon and the web mirror
        self._closed = False

    @property
    def device(self) -> Any:
        """The luma device itself (for ``dummy``, ``device.image`` is the panel's frame)."""
        return self._device

    def show(self, image: Image.Image) -> None:
        """Put ``image`` (128x64, any mode; converted to 1-bit) on the panel.

        :raises ValueError: if the image is not the panel's size.
        :raises HardwareError: the panel did not answer, or the display is closed.
        """
        if image.size != (self.width, self.height):
            raise ValueError(f"image is {image.size}, the panel is {(self.width, self.height)}")
        frame = image if image.mode == "1" else image.convert("1")
        with self._lock:
            self._check_open()
            try:
                self._device.display(frame.convert(self._device.mode))
            except Exception as e:  # luma raises its own errors, OSError from smbus2, ...
                raise HardwareError(f"{self.driver} display failed: {e}") from e
            self.last_image = frame.copy()

    def set_contrast(self, level: int) -> None:
        """Set the panel's contrast 0..255 (the daemon dims an idle panel to spare it).

        :raises ValueError: outside 0..255.
        :raises HardwareError: the panel did not answer, or the display is closed.
        """
        if not 0 <= level <= 255:
            raise ValueError(f"contrast {level} is not in 0..255")
        with self._lock:
            self._check_open()
            try:
                self._device.contrast(level)
            except Exception as e:
                raise HardwareError(f"{self.driver} display failed: {e}") from e

    def close(self) -> None:
        """Blank the panel, switch it off and free the bus; a second call does nothing."""
        with self._lock:
            if self._closed:
                return
            self._closed = True
            with contextlib.suppress(Exception):  # the panel may be gone; closing must not fail
                self._device.cleanup()

    def _check_open(self) -> None:
        if self._closed:
            raise HardwareError(f"{self.driver} display is closed")


def create_display(
    driver: str,
    *,
    i2c_port: int = 1,
    i2c_address: int = 0x3C,
    rotate: int = 0,
    serial_interface: Any = None,
) -> LumaDisplay:
    """Build the display named ``driver`` ("ssd1306", "sh1106" or "dummy").

    ``rotate`` is luma's quarter turns: 0, or 2 for a panel mounted upside down (the screens
    are landscape, so a quarter turn would not fit them).
    ``serial_interface`` replaces the I2C bus (tests pass a fake one to a real driver).

    :raises ValueError: unknown driver or rotation.
    :raises HardwareError: luma.oled is not installed, or the panel is not on the bus.
    """
    if driver not in DRIVERS:
        raise ValueError(f"unknown display driver {driver!r}; expected one of {DRIVERS}")
    if rotate not in (0, 2):
        raise ValueError(f"rotate must be 0 or 2 (upside down), not {rotate}")
    w, h = WIDTH, HEIGHT
    try:
        if driver == "dummy":
            from luma.core.device import dummy

            return LumaDisplay(dummy(width=w, height=h, rotate=rotate, mode="1"), driver)
        from luma.core.interface.serial import i2c
        from luma.oled import device as oled
    except ImportError as e:
        raise HardwareError(
            f"the {driver} display needs luma.oled: pip install 'mlem-companion[pi]' ({e})"
        ) from e
    try:
        serial = serial_interface or i2c(port=i2c_port, address=i2c_address)
        device = getattr(oled, driver)(serial, width=w, height=h, rotate=rotate)
    except Exception as e:  # DeviceNotFoundError, DevicePermissionError, OSError (no ACK)
        raise HardwareError(
            f"no {driver} display on I2C bus {i2c_port} at {i2c_address:#04x}: {e}"
        ) from e
    return LumaDisplay(device, driver)


if TYPE_CHECKING:  # mypy proves that the adapter meets the protocol

    def _is_display(display: LumaDisplay) -> Display:
        return display
