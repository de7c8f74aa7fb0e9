"""A household's profile holds several dice sets: a roll is read as the set it was thrown with."""

from __future__ import annotations

import random

from tests.vision.helpers import calibration_shots_of
from vision.calibration import add_set, calibrate
from vision.reader import DiceReader
from vision.render import DiceStyle, random_faces, render_roll


def test_rolls_of_either_set_read_with_the_households_profile() -> None:
    """A tan set and a pale pink one, in normal light. The tan set's profile reads the pink
    set's rolls only where the face networks can (no fuel symbol among them); the household's
    profile reads the rolls of both."""
    tan, pink = (DiceStyle.random(random.Random(seed), conditions="normal") for seed in (3, 10))
    only_tan = calibrate(calibration_shots_of(tan, "normal"))
    household = add_set(only_tan, calibration_shots_of(pink, "normal"))
    assert len(household.sets()) == 2
    readers = {"tan only": DiceReader(only_tan), "household": DiceReader(household)}
    right = {(who, style): 0 for who in readers for style in ("tan", "pink")}
    throws = random.Random(5)
    for i in range(8):
        faces = random_faces(throws, throws.randint(1, 6))
        for name, style in (("tan", tan), ("pink", pink)):
            image = render_roll(faces, 9000 + i, style=style).image
            for who, reader in readers.items():
                right[who, name] += reader.read(image).key == tuple(sorted(faces))
    assert right["household", "tan"] >= 7 and right["household", "pink"] >= 7, right
    assert right["tan only", "pink"] <= right["household", "pink"] - 3, right
