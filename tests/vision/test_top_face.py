"""A doubtful die is read again where the face networks find its top face centred."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import pytest

from tests.vision.helpers import on_opencv_5_only
from vision import set_reader, top_face, uncalibrated
from vision.body_face import BodyRead
from vision.calibration import calibrate
from vision.diemap import Peak
from vision.evaluate import calibration_shots, load_dataset
from vision.reader import DiceReader
from vision.render import render_roll
from vision.render_wild import write_wild_dataset
from vision.set_reader import shipped_networks
from vision.top_face import SEARCH_BELOW, at_top_faces, dice_at_peaks, search_grid
from vision.uncalibrated import Candidate


@pytest.mark.parametrize("reach", [top_face.REACH, top_face.NARROWER_REACH])
def test_the_grid_is_centred_on_the_die_and_reaches_as_far_every_way(reach: float) -> None:
    """Steps of REACH / STEPS widths, every point within ``reach`` of the centre and every grid
    point that is, so the square's corners are left out."""
    grid = search_grid(100.0, 50.0, 40.0, reach)
    step = top_face.REACH / top_face.STEPS * 40
    offsets = [((c.x - 100) / step, (c.y - 50) / step) for c in grid]
    assert all(i == pytest.approx(round(i)) and j == pytest.approx(round(j)) for i, j in offsets)
    cells = {(round(i), round(j)) for i, j in offsets}
    assert len(cells) == len(grid)
    most = reach / top_face.REACH * top_face.STEPS
    steps = int(most + 1e-9)
    assert cells == {(i, j) for i in range(-steps, steps + 1) for j in range(-steps, steps + 1)
                     if i * i + j * j <= most ** 2 + 1e-9}
    assert (steps, 0) in cells and (steps, steps) not in cells
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


def test_the_top_face_is_looked_for_away_from_the_frame_s_centre() -> None:
    """Around a die right of and above the frame's centre, the points kept lie no nearer the
    centre than the die (the half-disc facing away from it, the line through the die included);
    a die at the very centre keeps them all."""
    shape = (720, 1280, 3)
    grid = search_grid(1000.0, 100.0, 40.0)
    kept = top_face.outward(grid, 1000.0, 100.0, shape)
    away = np.array([1000.0 - 640.0, 100.0 - 360.0])
    assert all(np.dot([c.x - 1000.0, c.y - 100.0], away) >= -1e-6 for c in kept)
    assert len(grid) / 2 < len(kept) < len(grid)
    assert Candidate(1000.0, 100.0, 40.0) in kept
    at_centre = search_grid(640.0, 360.0, 40.0)
    assert top_face.outward(at_centre, 640.0, 360.0, shape) == at_centre


def test_a_sure_die_and_a_die_the_networks_agree_with_are_left_as_they_are() -> None:
    scene = render_roll(["4", "1"], seed=11)
    four = next(d for d in scene.dice if d.face == "4")
    sure = BodyRead("5", SEARCH_BELOW, four.x, four.y, four.size)
    agreed = BodyRead("4", 0.3, four.x + four.size / 6, four.y, four.size)
    assert at_top_faces(scene.image, [sure, agreed], 1.0, shipped_networks()) == [sure, agreed]


def test_a_sure_one_off_a_four_s_top_face_is_read_again_there() -> None:
    """A 4 read surely as a 1 from a sixth of a width nearer the frame's centre than its top
    face (a tilted die's square that took in one pip and its side face): the outward half of
    the grid finds the top face and the 4 is read. A sure 1 on a 1 stays as it is."""
    scene = render_roll(["4", "1"], seed=11)
    four, one = sorted(scene.dice, key=lambda d: d.face, reverse=True)
    h, w = scene.image.shape[:2]
    inward = np.array([w / 2 - four.x, h / 2 - four.y])
    x, y = np.array([four.x, four.y]) + inward / np.linalg.norm(inward) * four.size / 6
    misread = BodyRead(top_face.SURE_ONE, 1.0, float(x), float(y), four.size)
    true_one = BodyRead(top_face.SURE_ONE, 1.0, one.x, one.y, one.size)
    read, kept = at_top_faces(scene.image, [misread, true_one], 1.0, shipped_networks())
    assert read.face == "4" and read.confidence >= top_face.TAKE_FROM
    assert np.hypot(read.x - four.x, read.y - four.y) < 0.15 * four.size
    assert kept == true_one


def test_a_peak_off_its_die_s_top_face_finds_the_die_there() -> None:
    """A die-map peak a sixth of a width off a 4's top face: the die is found and read there,
    placed within a tenth of a width of its centre; a peak on a die already read, and a second
    peak on the same die, add nothing."""
    scene = render_roll(["4", "1"], seed=11)
    four, one = sorted(scene.dice, key=lambda d: d.face, reverse=True)
    nets = shipped_networks()
    off = Peak(four.x + four.size / 6, four.y, four.size, 0.8)
    beside = Peak(four.x - four.size / 4, four.y, four.size, 0.5)
    [found] = dice_at_peaks(scene.image, [beside, off], [], four.size, four.size, nets)
    assert found.face == "4"
    assert np.hypot(found.x - four.x, found.y - four.y) < 0.1 * four.size
    assert dice_at_peaks(scene.image, [off], [found], four.size, four.size, nets) == []
    two = [off, Peak(one.x, one.y, one.size, 0.9)]
    crop_px = (four.size + one.size) / 2  # the peaks' median width, as ``_beside`` gives it
    assert [d.face for d in dice_at_peaks(scene.image, two, [found], four.size, crop_px, nets)
            ] == ["1"]


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


@pytest.mark.slow
@pytest.mark.parametrize(("seed", "table", "count", "roll", "module", "before"), [
    pytest.param(5021, ("neoprene", "lamp", (1280, 720)), 11, "test_0011.jpg", uncalibrated,
                 {"ASIDE": 0.0}, marks=on_opencv_5_only(
                     "on OpenCV 4.6 the 8-bit finder takes this 2 without the step aside")),
    (5043, ("felt", "window", (640, 480)), 4, "test_0005.jpg", top_face,
     {"REACH": 0.2, "STEPS": 2, "NARROWER_REACH": 0.2}),
    (5057, ("neoprene", "lamp", (640, 480)), 5, "test_0006.jpg", top_face,
     {"NARROWER": 1.0}),
    (5085, ("felt", "lamp", (1280, 720)), 3, "test_0004.jpg", top_face,
     {"NARROWER_REACH": top_face.REACH}),
    pytest.param(5035, ("laminate", "window", (640, 480)), 8, "test_0009.jpg", set_reader,
                 {"dice_at_peaks": lambda *_: []}, marks=on_opencv_5_only(
                     "OpenCV 4.6 writes this photo's JPEG otherwise: its peaks read without "
                     "the search")),
])
def test_a_tilted_die_is_read_whole_only_with_each_look_beyond_its_centre(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, seed: int,
        table: tuple[str, str, tuple[int, int]], count: int, roll: str, module: object,
        before: dict[str, object]) -> None:
    """3-D tuning sets, the camera at a slant, each roll read whole, and not without one look.
    Set 5021 (neoprene under a lamp): a lone 2 goes unread unless the finder looks a step aside
    the candidates it turned down (``uncalibrated.ASIDE``). Set 5043 (felt by a window):
    a 2 is misread unless the top-face grids reach 0.3 of a width (both reaching 0.2
    did not). Set 5057 (translucent dice on neoprene under a lamp): a 1 read 1.35 times as
    wide as its top face is read as an unsure 2 unless its top face is looked for at 0.8 of
    its read width too (``top_face.NARROWER``). Set 5085 (black dice on felt under a lamp):
    a 1 read 1.4 times as wide as its top face is read as an unsure 2 unless the narrower grid
    reaches beyond 0.3 of its width (``top_face.NARROWER_REACH``). Set 5035
    (laminate by a window): two tilted 2s go unread unless their die-map peaks are searched
    (``top_face.dice_at_peaks``)."""
    surface, light, resolution = table
    write_wild_dataset(tmp_path, count, seed, surface=surface, light=light, resolution=resolution)
    lines = load_dataset(tmp_path)
    profile = calibrate(calibration_shots(lines))
    line = next(line for line in lines if line.image.name == roll)
    image = cv2.imread(str(line.image))
    truth = tuple(sorted(d.face for d in line.dice))
    assert DiceReader(profile).read(image).key == truth
    for name, value in before.items():
        monkeypatch.setattr(module, name, value)
    assert DiceReader(profile).read(image).key != truth
