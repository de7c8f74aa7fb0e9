"""Helpers shared by the vision tests."""

from __future__ import annotations

from vision.calibration import calibrate
from vision.profile import LabelledDie
from vision.reader import DiceReader
from vision.render import DiceStyle, render_roll


def calibrated_reader(style: DiceStyle, conditions: str, *, width: int = 1280,
                      height: int = 720) -> DiceReader:
    """A reader calibrated like an owner does it: two shots showing each MLEM face once."""
    shots = []
    for seed in (101, 102):
        scene = render_roll(["1", "2", "3", "4", "fuel"], seed, style=style,
                            conditions=conditions, width=width, height=height)
        shots.append((scene.image, [LabelledDie(d.face, d.x, d.y) for d in scene.dice]))
    profile = calibrate(shots)
    assert profile.look() is not None
    return DiceReader(profile)
