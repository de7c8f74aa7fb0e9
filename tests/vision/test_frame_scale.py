"""The calibrated path when the camera moves: dice bigger or smaller than at calibration, or a
frame of another size and shape. The die width is measured again in every frame."""

from __future__ import annotations

import random
from dataclasses import replace

import pytest

from vision.render import DiceStyle, random_faces, render_roll

from .helpers import calibrated_reader

STYLE_SEED = 7


def rolls_read_right(size: float, width: int, height: int, conditions: str = "normal") -> int:
    """How many of 8 rendered rolls a reader calibrated at 1280x720 reads right when the dice
    are ``size`` times as big and the frame is ``width`` x ``height``."""
    style = DiceStyle.random(random.Random(STYLE_SEED), conditions=conditions)
    reader = calibrated_reader(style, conditions)
    moved = replace(style, size=style.size * size)
    rng = random.Random(STYLE_SEED)
    right = 0
    for seed in range(8):
        faces = random_faces(rng, rng.randint(1, 6))
        scene = render_roll(faces, 300 + seed, style=moved, conditions=conditions,
                            width=width, height=height)
        right += reader.read(scene.image).key == tuple(sorted(faces))
    return right


@pytest.mark.parametrize(("size", "width", "height"), [
    (0.7, 1280, 720),   # camera raised
    (1.4, 1280, 720),   # camera lowered
    (1.0, 640, 480),    # another sensor mode: smaller and 4:3
    (1.0, 1920, 1080),
])
def test_rolls_read_after_the_camera_moved(size: float, width: int, height: int) -> None:
    assert rolls_read_right(size, width, height) >= 7
