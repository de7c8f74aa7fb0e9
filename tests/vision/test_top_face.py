"""A doubtful die is read again where the face networks find its top face centred."""

from __future__ import annotations

from pathlib import Path

import cv2
import pytest

from vision import top_face
from vision.body_face import BodyRead
from vision.calibration import calibrate
from vision.evaluate import calibration_shots, load_dataset
from vision.reader import DiceReader
from vision.render import render_roll
from vision.render_wild import write_wild_dataset
from vision.set_reader import shipped_networks
from vision.top_face import SEARCH_BELOW, at_top_faces, search_grid


def test_the_grid_is_centred_on_the_die_and_reaches_as_far_each_way() -> None:
    grid = search_grid(100.0, 50.0, 40.0)
    xs, ys = sorted({c.x for c in grid}), sorted({c.y for c in grid})
    assert len(grid) == len(xs) * len(ys) == (2 * top_face.STEPS + 1) ** 2
    assert xs[0] == pytest.approx(100 - top_face.REACH * 40)
    assert ys[-1] == pytest.approx(50 + top_face.REACH * 40)
    assert {c.width for c in grid} == {40.0}


@pytest.mark.parametrize("scale", [1.0, 0.5])
def test_a_doubtful_die_read_off_its_centre_is_read_again_at_it(scale: float) -> None:
    """A 4 read as a 5 at 0.5, a sixth of its width off its centre: the networks find the top
    face and read the 4, placed within a tenth of a width of its centre (in the reading's own
    scale)."""
    scene = render_roll(["4", "1"], seed=11)
    four = next(d for d in scene.dice if d.face == "4")
    off = BodyRead("5", 0.5, (four.x + four.size / 6) * scale, four.y * scale, four.size * scale)
    [read] = at_top_faces(scene.image, [off], scale, shipped_networks())
    assert read.face == "4" and read.confidence >= top_face.TAKE_FROM
    assert abs(read.x / scale - four.x) < 0.1 * four.size
    assert abs(read.y / scale - four.y) < 0.1 * four.size
    assert read.size / scale == pytest.approx(four.size, rel=0.25)


def test_a_sure_die_and_a_die_the_networks_agree_with_are_left_as_they_are() -> None:
    scene = render_roll(["4", "1"], seed=11)
    four = next(d for d in scene.dice if d.face == "4")
    sure = BodyRead("5", SEARCH_BELOW, four.x, four.y, four.size)
    agreed = BodyRead("4", 0.3, four.x + four.size / 6, four.y, four.size)
    assert at_top_faces(scene.image, [sure, agreed], 1.0, shipped_networks()) == [sure, agreed]


@pytest.mark.slow
def test_a_tilted_one_whose_square_saw_the_symbol_on_its_side_reads_as_a_one(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """3-D tuning set 5036 (a tray under a ring light, 1280x720, the camera at a slant): the
    body path read a 1 as the fuel symbol on its side face. Read again at its top face, the
    roll of six reads whole; without that search it does not."""
    write_wild_dataset(tmp_path, 1, 5036, surface="tray", light="ring", resolution=(1280, 720))
    lines = load_dataset(tmp_path)
    profile = calibrate(calibration_shots(lines))
    [roll] = [line for line in lines if line.split == "test"]
    image = cv2.imread(str(roll.image))
    truth = tuple(sorted(d.face for d in roll.dice))
    assert truth == ("1", "2", "3", "4", "4", "fuel")
    assert DiceReader(profile).read(image).key == truth
    monkeypatch.setattr(top_face, "SEARCH_BELOW", 0.0)
    assert DiceReader(profile).read(image).key != truth
