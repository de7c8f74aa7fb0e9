"""Finding dice: scale estimation and spots on drawn and rendered photos with known answers."""

from __future__ import annotations

import math
import random

import cv2
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from vision.detect import blob_maxima, components, estimate_die_px, find_spots, prepare, to_lab
from vision.reader import DiceReader
from vision.render import CONDITIONS, DiceStyle, random_faces, render_empty, render_roll

from .helpers import calibrated_reader, standard_roll

GRID = {
    "1": ((0, 0),),
    "2": ((-1, -1), (1, 1)),
    "3": ((-1, -1), (0, 0), (1, 1)),
    "4": ((-1, -1), (1, -1), (-1, 1), (1, 1)),
    "5": ((-1, -1), (1, -1), (0, 0), (-1, 1), (1, 1)),
    "6": ((-1, -1), (-1, 0), (-1, 1), (1, -1), (1, 0), (1, 1)),
}


def drawn_die(face: str, *, size: float, angle: float, body: tuple[int, int, int],
              pip: tuple[int, int, int], surface: tuple[int, int, int] = (40, 110, 40),
              shape: tuple[int, int] = (480, 640)) -> np.ndarray:
    """One die drawn flat in the middle of a plain surface."""
    image = np.full((*shape, 3), surface, np.uint8)
    cx, cy = shape[1] / 2, shape[0] / 2
    c, s = math.cos(angle), math.sin(angle)
    rot = np.array([[c, s], [-s, c]])
    h = size / 2
    square = np.array([[-h, -h], [h, -h], [h, h], [-h, h]]) @ rot + (cx, cy)
    cv2.fillPoly(image, [np.round(square).astype(np.int32)], body, cv2.LINE_AA)
    radius = max(1, round(size * (0.12 if face == "1" else 0.085)))
    for px, py in np.array(GRID[face], float) * 0.27 * size @ rot + (cx, cy):
        cv2.circle(image, (round(px), round(py)), radius, pip, -1, cv2.LINE_AA)
    return image


def test_die_size_is_estimated_from_the_blobs() -> None:
    image = drawn_die("5", size=80, angle=0.4, body=(235, 235, 235), pip=(20, 20, 20))
    assert estimate_die_px(image) == pytest.approx(80, rel=0.25)


def test_empty_frame_has_no_die_size() -> None:
    assert estimate_die_px(np.full((240, 320, 3), 90, np.uint8)) is None


@given(seed=st.integers(0, 10_000), fill=st.floats(0.05, 0.6), blur=st.sampled_from([1, 3, 7]))
@settings(max_examples=40, deadline=None)
def test_block_based_labelling_matches_the_default(seed: int, fill: float, blur: int) -> None:
    """``components`` swaps OpenCV's labelling algorithm for speed: labels, stats and centroids
    must be the default's, blob for blob, on OpenCV 4.6 and 5 alike."""
    noise = np.random.default_rng(seed).uniform(0, 1, (97, 131)).astype(np.float32)
    mask = (cv2.blur(noise, (blur, blur)) < fill).astype(np.uint8)
    fast = components(mask)
    default = cv2.connectedComponentsWithStats(mask, connectivity=8)
    assert fast[0] == default[0]
    for ours, theirs in zip(fast[1:], default[1:], strict=True):
        assert np.array_equal(ours, theirs)


@given(seed=st.integers(0, 10_000), fill=st.floats(0.05, 0.6), blur=st.sampled_from([1, 3, 7]))
@settings(max_examples=40, deadline=None)
def test_each_blobs_maximum_is_found_in_its_box(seed: int, fill: float, blur: int) -> None:
    """``blob_maxima`` looks in each blob's bounding box, not over the whole mask: on the
    blobs asked about it must give what ``np.maximum.at`` over every pixel gives (a box holds
    parts of other blobs, which must not count), and 0 on the others."""
    rng = np.random.default_rng(seed)
    mask = (cv2.blur(rng.uniform(0, 1, (97, 131)).astype(np.float32), (blur, blur))
            < fill).astype(np.uint8)
    n, labels, stats, _ = components(mask)
    values = rng.uniform(0, 5, mask.shape).astype(np.float32)
    which = rng.random(n) < 0.7
    everywhere = np.zeros(n, np.float32)
    np.maximum.at(everywhere, labels.ravel(), values.ravel())
    found = blob_maxima(labels, stats, values, which)
    assert np.array_equal(found[which], everywhere[which])
    assert not found[~which].any()


def test_spots_of_both_polarities() -> None:
    dark = drawn_die("6", size=60, angle=0.0, body=(235, 235, 235), pip=(20, 20, 20))
    light = drawn_die("6", size=60, angle=0.0, body=(30, 30, 30), pip=(240, 240, 240))
    for image, light_pips in ((dark, False), (light, True)):
        spots = find_spots(image, to_lab(image), 60.0)
        assert sum(s.light == light_pips for s in spots) == 6


DRAWN_COLOURS = (((235, 235, 235), (20, 20, 20)), ((30, 30, 30), (240, 240, 240)),
                 ((40, 200, 230), (30, 30, 30)))
"""Body and pip colours of the drawn dice: white, black, yellow."""


def test_drawn_dice_are_read_and_never_misread() -> None:
    """300 lone drawn dice, 40-120 px in a 640x480 frame, any turn, faces 1, 4, 5 and 6, the
    three colour schemes: 298 are read right where they lie, the rest not seen (the table then
    asks, the count being off), none read as a sure wrong face or as two dice. The misses are
    mostly lone 1s, whose width the die map gives too small (docs/vision.md, "Flat drawn
    dice"); a second seed reads 299 (295 and 294 before the die map's retrain with 3-D
    renders, 293 and 294 before the face networks' retrain)."""
    rng = random.Random(0)
    reader = DiceReader()
    right = wrong = 0
    for _ in range(300):
        face, size, angle = rng.choice("1456"), rng.uniform(40, 120), rng.uniform(0, math.pi / 2)
        body, pip = rng.choice(DRAWN_COLOURS)
        dice = reader.read(drawn_die(face, size=size, angle=angle, body=body, pip=pip)).dice
        right += (len(dice) == 1 and dice[0].face == face
                  and math.hypot(dice[0].x - 320, dice[0].y - 240) < 0.25 * size)
        wrong += len(dice) > 1 or any(d.face != face and not d.uncertain for d in dice)
    assert right >= 288
    assert wrong <= 1


def test_red_die_on_green_keeps_its_corner_pips() -> None:
    """Counting spots read this as a 4 (a corner sticking out in one colour channel merged with
    the corner pip); the face network reads the whole face."""
    image = drawn_die("5", size=42, angle=1.0, body=(40, 40, 190), pip=(240, 240, 240))
    assert DiceReader().read(image).key == ("5",)


def test_frame_is_resampled_so_a_die_is_about_forty_pixels() -> None:
    image = drawn_die("4", size=120, angle=0.2, body=(235, 235, 235), pip=(20, 20, 20),
                      shape=(720, 1280))
    frame = prepare(image, 120.0)
    assert frame.scale == pytest.approx(40 / 120)
    assert len(frame.spots) == 4


def test_rendered_rolls_floor(plain_style: DiceStyle) -> None:
    """Rendered white dice on plain surfaces: a floor at the measured rate, not a target."""
    rolls = [["1", "2", "3"], ["4", "5", "6"], ["2", "4"], ["3", "5", "6", "1"]]
    right = 0
    for seed in range(12):
        faces = rolls[seed % 4]
        scene = render_roll(faces, seed, style=plain_style)
        right += DiceReader().read(scene.image).key == tuple(sorted(faces))
    assert right >= 6  # measured 0.625 on 24 rolls


# --- the calibrated path ----------------------------------------------------------------------

@pytest.mark.parametrize(("conditions", "style_seed", "floor"),
                         [("normal", 3, 11), ("normal", 8, 11), ("hard", 2, 10)])
def test_calibrated_rolls_floor(conditions: str, style_seed: int, floor: int) -> None:
    """Rendered MLEM rolls read by the body path: a floor a little under the measured rate."""
    style = DiceStyle.random(random.Random(style_seed), conditions=conditions)
    reader = calibrated_reader(style, conditions)
    rng = random.Random(style_seed)
    right = 0
    for seed in range(12):
        faces = random_faces(rng, rng.randint(1, 6))
        scene = render_roll(faces, 200 + seed, style=style, conditions=conditions)
        reading = reader.read(scene.image)
        right += reading.key == tuple(sorted(faces))
        for die in reading.dice:  # every die found is a die, near its centre
            assert min(math.hypot(die.x - d.x, die.y - d.y) for d in scene.dice) < 0.3 * style.size
    assert right >= floor


def test_calibrated_reader_sees_an_empty_tray_as_empty(plain_style: DiceStyle) -> None:
    reader = calibrated_reader(plain_style, "normal")
    assert reader.read(render_empty(7)).dice == ()


def test_die_width_holds_on_striped_and_busy_surfaces() -> None:
    """Rendered rolls of random dice sets on every surface: the foreground cut at four times
    the surface's grain alone put 27 of these 120 estimates outside 0.6-1.8 of the dice's
    width (dice on striped wood came out a pip wide); the median over several cuts puts
    16 there."""
    off = 0
    for conditions in CONDITIONS:
        for seed in range(60):
            scene = standard_roll(seed, conditions)
            size = float(np.median([d.size for d in scene.dice]))
            off += not 0.6 * size <= (estimate_die_px(scene.image) or 0) <= 1.8 * size
    assert off <= 18


def test_dice_on_striped_wood_are_not_sized_by_their_pips() -> None:
    """The stripes raise the surface's grain so far that the four-times cut keeps only the
    pips of these purple dice (an estimate a quarter of their width)."""
    scene = standard_roll(48)
    size = float(np.median([d.size for d in scene.dice]))
    assert scene.tags["background"] == "wood"
    assert estimate_die_px(scene.image) == pytest.approx(size, rel=0.2)
