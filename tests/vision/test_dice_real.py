"""Regression floor on real photos: the 50 photos of shared/dice-real that the face network was not
trained on (the author's own test split, ``source_split=test``: 308 dice).

The floors sit a little under the figures measured when they were set (docs/vision.md), so a
change that makes real-photo reading worse fails here. The other 200 photos trained the network,
so they would flatter it and are not read.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from vision.calibration import calibrate, held_out
from vision.evaluate import calibration_shots, load_dataset, reader_of, score
from vision.reader import DiceReader

DICE_REAL = Path(__file__).resolve().parents[3] / "shared" / "dice-real"

pytestmark = pytest.mark.skipif(not (DICE_REAL / "labels.jsonl").exists(),
                                reason=f"dice-real dataset not found at {DICE_REAL}")

FLOOR = {"exact_match": 0.86, "die_precision": 0.99, "die_recall": 0.99, "face_accuracy": 0.975}
"""Measured on these 50 photos: exact match 0.90, precision 0.997, recall 1.000, face accuracy
0.987, the same with Raspberry Pi OS's OpenCV 4.6 and NumPy 1.24 (0.78, 0.997, 0.997, 0.958
before the face networks were retrained with hard dice shown more often and a linear layer
over the grid; 0.66 and 0.938 before the closer look at unsure
faces; the pip-first reader before the face network read all 250 photos 0.17, 0.92, 0.87,
0.72)."""


@pytest.mark.slow
def test_unseen_real_photos_keep_their_floor() -> None:
    held_out = [line for line in load_dataset(DICE_REAL)
                if line.tags.get("source_split") == "test"]
    result = score(held_out, reader_of(DiceReader(max_dice=64)))
    assert result["images"] == 50
    for figure, floor in FLOOR.items():
        assert result[figure] >= floor, figure


CALIBRATION_PHOTOS = ("IMG_20191208_111650.jpg", "IMG_20191208_111847.jpg",
                      "IMG_20191208_111826.jpg")
"""Three training photos, 25 dice of many designs."""


@pytest.mark.slow
def test_real_dice_of_many_designs_calibrate_to_the_face_network() -> None:
    """The body path learns one body colour from such shots: learned from two of the photos it
    reads the third worse than the network (22 against 25 of 25 dice; 13 before calibration
    learned coloured pips off the light's ways), so the network reads, and keeps reading the
    unseen photos. With a fuel symbol among the labels the body path stays."""
    lines = {line.image.name: line for line in load_dataset(DICE_REAL)}
    shots = calibration_shots([replace(lines[name], split="calibration")
                               for name in CALIBRATION_PHOTOS])
    profile = calibrate(shots)
    assert profile.network_reads and profile.look() is not None
    assert profile.self_check is not None and profile.self_check[0] >= 0.9 * profile.self_check[1]
    assert profile.calibration_warning() is None
    unseen = [line for line in lines.values() if line.tags.get("source_split") == "test"][:10]
    chosen = score(unseen, reader_of(DiceReader(profile, max_dice=64)))
    assert chosen["die_recall"] >= 0.95
    by_body, by_network = held_out(shots)
    assert by_body < by_network
    # a set that shows a fuel symbol keeps the body path
    with_fuel = calibrate([(image, [replace(dice[0], face="fuel"), *dice[1:]])
                           for image, dice in shots])
    assert not with_fuel.network_reads
