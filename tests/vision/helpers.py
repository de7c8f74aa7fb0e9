"""Helpers shared by the vision tests."""

from __future__ import annotations

import random

import numpy as np

from vision.calibration import calibrate
from vision.profile import LabelledDie
from vision.reader import DiceReader
from vision.render import DiceStyle, Scene, random_faces, render_roll


def calibration_shots_of(style: DiceStyle, conditions: str, *, width: int = 1280,
                         height: int = 720) -> list[tuple[np.ndarray, list[LabelledDie]]]:
    """Shots as an owner takes them: two, each showing every MLEM face once."""
    shots = []
    for seed in (101, 102):
        scene = render_roll(["1", "2", "3", "4", "fuel"], seed, style=style,
                            conditions=conditions, width=width, height=height)
        shots.append((scene.image, [LabelledDie(d.face, d.x, d.y) for d in scene.dice]))
    return shots


def calibrated_reader(style: DiceStyle, conditions: str, *, width: int = 1280,
                      height: int = 720) -> DiceReader:
    """A reader calibrated like an owner does it (``calibration_shots_of``)."""
    profile = calibrate(calibration_shots_of(style, conditions, width=width, height=height))
    assert profile.look() is not None
    return DiceReader(profile)


def standard_roll(seed: int, conditions: str = "normal") -> Scene:
    """One to six standard dice of a random dice set, thrown on a random 960x540 tray."""
    rng = random.Random(seed)
    return render_roll(random_faces(rng, rng.randint(1, 6), mlem=False), seed, width=960,
                       height=540, conditions=conditions,
                       style=DiceStyle.random(random.Random(seed), conditions=conditions))
