"""The display adapter on luma's own test doubles: the ``dummy`` device (keeps the last frame,
compared with the reference PNGs) and the real SSD1306/SH1106 drivers on a fake I2C interface.
A contract suite runs the same checks on every backend, the real I2C bus only where it exists.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from PIL import Image

pytest.importorskip("luma.core", reason="luma.oled is in the [pi] extra")

from hardware.base import HardwareError
from hardware.display import LumaDisplay, create_display
from hardware.screens import prompt_screen, result_screen

REFERENCE = Path(__file__).parent / "reference"

# luma.oled 3.16 still calls Image.getdata(), deprecated in Pillow 13 (removal due in Pillow 14)
pytestmark = pytest.mark.filterwarnings("ignore:Image.Image.getdata:DeprecationWarning")


class FakeI2C:
    """Stands in for ``luma.core.interface.serial.i2c``: records traffic, can lose the panel."""

    def __init__(self) -> None:
        self.commands: list[int] = []
        self.data_bytes = 0
        self.broken = False
        self.cleaned = 0

    def command(self, *cmd: int) -> None:
        if self.broken:
            raise OSError(121, "Remote I/O error")
        self.commands.extend(cmd)

    def data(self, data: list[int]) -> None:
        if self.broken:
            raise OSError(121, "Remote I/O error")
        self.data_bytes += len(data)

    def cleanup(self) -> None:
        self.cleaned += 1


def reference(name: str) -> Image.Image:
    return Image.open(REFERENCE / f"{name}.png").convert("1")


def test_dummy_keeps_the_frame_it_was_shown() -> None:
    display = create_display("dummy")
    display.show(prompt_screen("Who boards the rocket next?",
                               ["Red (Anna)", "Blue (Ben)", "Green", "Yellow", "Nobody"], 1))
    assert display.device.image.tobytes() == reference("prompt_board").tobytes()
    assert display.last_image is not None
    assert display.last_image.tobytes() == reference("prompt_board").tobytes()


def test_dummy_upside_down_panel_gets_the_frame_turned() -> None:
    display = create_display("dummy", rotate=2)
    display.show(result_screen("CRASH 4/11"))
    turned = reference("result_crash").rotate(180)
    assert display.device.image.tobytes() == turned.tobytes()
    assert display.last_image is not None
    assert display.last_image.tobytes() == reference("result_crash").tobytes()  # as shown


def test_greyscale_and_colour_images_are_made_one_bit() -> None:
    display = create_display("dummy")
    display.show(Image.new("RGB", (128, 64), (255, 255, 255)))
    assert display.device.image.mode == "1"
    assert display.device.image.getextrema() == (255, 255)


def test_real_driver_sends_frames_and_contrast_over_i2c() -> None:
    bus = FakeI2C()
    display = create_display("ssd1306", serial_interface=bus)
    before = bus.data_bytes  # the driver clears the panel when it starts
    display.show(result_screen("CRASH 4/11"))
    assert bus.data_bytes - before == 128 * 64 // 8
    display.set_contrast(0x20)
    assert bus.commands[-2:] == [0x81, 0x20]  # SSD1306 SETCONTRAST
    display.close()
    assert bus.cleaned == 1


def test_lost_panel_is_a_hardware_error() -> None:
    bus = FakeI2C()
    display = create_display("sh1106", serial_interface=bus)
    bus.broken = True
    with pytest.raises(HardwareError, match="Remote I/O error"):
        display.show(result_screen("CRASH 4/11"))
    with pytest.raises(HardwareError):
        display.set_contrast(10)
    display.close()  # closing a lost panel does not raise


def test_no_i2c_bus_is_a_hardware_error() -> None:
    if Path("/dev/i2c-99").exists():
        pytest.skip("this machine has an I2C bus 99")
    with pytest.raises(HardwareError, match="no ssd1306 display on I2C bus 99 at 0x3c"):
        create_display("ssd1306", i2c_port=99)


def test_missing_luma_oled_is_a_hardware_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "luma.oled", None)
    with pytest.raises(HardwareError, match=r"mlem-companion\[pi\]"):
        create_display("sh1106", serial_interface=FakeI2C())


def test_bad_arguments_are_value_errors() -> None:
    with pytest.raises(ValueError, match="unknown display driver"):
        create_display("ssd1351")
    with pytest.raises(ValueError, match="rotate"):
        create_display("dummy", rotate=1)


# -- the contract: every backend --------------------------------------------------------------


def _real_i2c() -> LumaDisplay:
    if not Path("/dev/i2c-1").exists():
        pytest.skip("no I2C bus /dev/i2c-1 (not a Raspberry Pi with I2C enabled)")
    try:
        return create_display("ssd1306")
    except HardwareError as e:
        pytest.skip(f"no SSD1306 panel answers on /dev/i2c-1: {e}")


BACKENDS: dict[str, Callable[[], LumaDisplay]] = {
    "dummy": lambda: create_display("dummy"),
    "ssd1306-fake-i2c": lambda: create_display("ssd1306", serial_interface=FakeI2C()),
    "sh1106-fake-i2c": lambda: create_display("sh1106", serial_interface=FakeI2C()),
    "ssd1306-i2c-1": _real_i2c,
}


@pytest.fixture(params=sorted(BACKENDS))
def display(request: pytest.FixtureRequest) -> Iterator[LumaDisplay]:
    made = BACKENDS[request.param]()
    yield made
    made.close()


def test_contract_size(display: Any) -> None:
    assert (display.width, display.height) == (128, 64)


def test_contract_show_and_contrast(display: Any) -> None:
    display.show(result_screen("Rocket -> 12"))
    display.set_contrast(0)
    display.set_contrast(255)
    with pytest.raises(ValueError):
        display.set_contrast(256)


def test_contract_wrong_size_is_refused(display: Any) -> None:
    with pytest.raises(ValueError, match="128, 64"):
        display.show(Image.new("1", (64, 32)))


def test_contract_close_is_idempotent_and_final(display: Any) -> None:
    display.close()
    display.close()
    with pytest.raises(HardwareError, match="closed"):
        display.show(result_screen("CRASH 4/11"))
