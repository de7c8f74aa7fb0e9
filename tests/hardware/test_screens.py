"""The OLED screens, compared pixel for pixel with reference PNGs in ``reference/``.

After a deliberate change to a screen, regenerate the references and look at every one::

    MLEM_REGEN_SCREENS=1 .venv/bin/pytest tests/hardware/test_screens.py

(the run writes ``reference/<name>.png`` and passes); review them scaled up, e.g.
``python -c "from PIL import Image; im = Image.open('x.png'); im.resize((512, 256)).show()"``,
then commit them with the change. A mismatch writes the actual image next to the test's
temporary folder and names it in the failure.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from hardware import screens
from hardware.screens import (
    idle_screen,
    message_screen,
    prompt_screen,
    result_screen,
    roll_screen,
)

REFERENCE = Path(__file__).parent / "reference"
REGEN = os.environ.get("MLEM_REGEN_SCREENS") == "1"

SCREENS: dict[str, Callable[[], Image.Image]] = {
    "prompt_board": lambda: prompt_screen(
        "Who boards the rocket next?", ["Red (Anna)", "Blue (Ben)", "Green", "Yellow", "Nobody"], 1
    ),
    "prompt_short_title": lambda: prompt_screen(
        "Launch?", ["Launch now", "Wait", "Abort mission", "Undo"], 0
    ),
    "prompt_scrolled_last": lambda: prompt_screen(
        "Use the dice: choose a group of faces to spend now",
        ["2 x fuel", "1, 2, 2 -> Moon", "Skip"], 2,
    ),
    "prompt_long_option": lambda: prompt_screen(
        "Where does the astronaut land?",
        ["Moon of planet 3 (two fuel)", "Deep space beyond the belt"], 0,
    ),
    "prompt_no_options": lambda: prompt_screen("Waiting for the captain", [], 0),
    "prompt_german": lambda: prompt_screen(
        "Rakete startet \u2013 w\u00e4hle W\u00fcrfel", ["Gr\u00fcn", "Wei\u00df"], 1
    ),
    "roll_1": lambda: roll_screen(["fuel"]),
    "roll_3": lambda: roll_screen(["1", "2", "fuel"]),
    "roll_4": lambda: roll_screen(["3", "4", "5", "6"]),
    "roll_5_unknown": lambda: roll_screen(["fuel", "2", "2", "?", "4"]),
    "roll_6": lambda: roll_screen(["1", "2", "3", "4", "5", "6"]),
    "roll_empty": lambda: roll_screen([], title="Camera"),
    "result_crash": lambda: result_screen("CRASH 4/11"),
    "result_rocket": lambda: result_screen("Rocket \u2192 12"),
    "result_long": lambda: result_screen("Anna scores 17 points with two moons and a planet"),
    "idle": lambda: idle_screen("http://192.168.1.23:8080/join?c=4821", "192.168.1.23", "4821"),
    "idle_long_ip": lambda: idle_screen(
        "http://192.168.100.200:8080/join?c=482193", "192.168.100.200", "482193"
    ),
    "idle_port_80": lambda: idle_screen("http://10.0.0.7/j/77", "10.0.0.7", "77"),
    "message_camera_lost": lambda: message_screen("Camera lost: enter dice on phone"),
    "message_long": lambda: message_screen(
        "The display could not reach the game service; it keeps trying every few seconds. "
        "Check the power supply and the SD card."
    ),
    "message_plain": lambda: message_screen("Saving the game...", alert=False),
}


@pytest.mark.parametrize("name", sorted(SCREENS))
def test_screen_matches_reference(name: str, tmp_path: Path) -> None:
    image = SCREENS[name]()
    assert image.mode == "1" and image.size == (128, 64)
    path = REFERENCE / f"{name}.png"
    if REGEN:
        REFERENCE.mkdir(exist_ok=True)
        image.save(path, optimize=True)
        return
    assert path.exists(), f"no reference {path}: run with MLEM_REGEN_SCREENS=1 and review it"
    expected = Image.open(path).convert("1")
    if image.tobytes() != expected.tobytes():
        actual = tmp_path / f"{name}.png"
        image.save(actual)
        diff = np.count_nonzero(np.asarray(image) != np.asarray(expected))
        pytest.fail(f"{name}: {diff} pixels differ from {path}; actual image in {actual}")


@pytest.mark.parametrize(
    ("url", "ip", "code"),
    [
        ("http://192.168.1.23:8080/join?c=4821", "192.168.1.23", "4821"),
        ("http://192.168.100.200:8080/join?c=482193", "192.168.100.200", "482193"),
        ("http://10.0.0.7/j/77", "10.0.0.7", "77"),
    ],
)
def test_idle_qr_code_decodes_to_the_url(url: str, ip: str, code: str) -> None:
    cv2 = pytest.importorskip("cv2")
    if not hasattr(cv2, "QRCodeDetector"):
        pytest.skip("this OpenCV build has no QR code detector")
    screen = idle_screen(url, ip, code).convert("L")
    # as a phone would see the panel: the whole screen, pixels scaled up, nothing cropped
    big = np.asarray(screen.resize((128 * 4, 64 * 4), Image.NEAREST))
    text, _points, _ = cv2.QRCodeDetector().detectAndDecode(big)
    assert text == url


def test_idle_qr_modules_are_two_pixels_for_a_lan_url() -> None:
    """A LAN URL fits QR version 3 or less, drawn at 2 px a module: big enough for a phone."""
    screen = np.asarray(idle_screen("http://192.168.100.200:8080/join?c=482193",
                                    "192.168.100.200", "482193"))
    qr = screen[:, :64]
    # the top-left finder pattern's outer ring is 7 modules: find its dark run on its top row
    row = next(y for y in range(64) if not qr[y].all())
    run = np.flatnonzero(~qr[row])
    assert run[0] >= 3  # at least 1.5 modules of lit quiet zone
    assert (run[:14] == np.arange(run[0], run[0] + 14)).all()  # 7 modules x 2 px


def test_highlighted_option_is_inverted() -> None:
    image = np.asarray(prompt_screen("Launch?", ["Launch now", "Wait", "Abort"], 1))
    # one-line title: rule at y=12, rows of 16 px from y=14
    rows = [image[14 + 16 * i: 30 + 16 * i] for i in range(3)]
    lit = [row.mean() for row in rows]
    assert lit[1] > 0.6 > max(lit[0], lit[2])


def test_prompt_rejects_a_highlight_outside_the_options() -> None:
    with pytest.raises(ValueError, match="highlighted 3"):
        prompt_screen("Launch?", ["a", "b", "c"], 3)


def test_text_helpers() -> None:
    assert screens.clean("Rocket \u2192 12 \u2026 \u65e5\u672c") == "Rocket -> 12 ... ??"
    assert screens.wrap("CRASH 4/11", 24, 124) == ["CRASH 4/11"]
    assert screens.wrap("Rocket -> 12", 32, 124) == ["Rocket", "-> 12"]
    assert screens.wrap("abcdefghij", 12, 30) == ["abcde", "fghij"]
    assert screens.wrap("one\ntwo", 12, 128) == ["one", "two"]
    assert screens.truncate("Deep space beyond", 16, 64) == "Deep s.."
    assert screens._split_address("192.168.1.23:8080", 10) == ["192.168.", "1.23:8080"]
    assert screens._split_address("192.168.100.200:8080", 10) == ["192.168.", "100.200", ":8080"]
    assert screens._split_address("10.0.0.7", 10) == ["10.0.0.7"]
    assert screens._port("http://x:8080/") == 8080
    assert screens._port("http://x/") is None
    assert screens._port("https://x:443/") is None


def test_fonts_cover_the_sizes() -> None:
    for size in screens.FONT_SIZES:
        assert screens.font(size).getbbox("M")[3] <= size
    with pytest.raises(ValueError):
        screens.font(13)
