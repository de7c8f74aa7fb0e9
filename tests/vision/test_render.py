"""Synthetic dice photos: deterministic, truthful labels, valid datasets."""

import itertools
import json
import math
import random
from pathlib import Path

import cv2
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from vision.render import (
    DIE_SIZE_RANGE,
    FACES,
    MLEM_FACES,
    STANDARD_FACES,
    DiceStyle,
    Scene,
    random_faces,
    render_empty,
    render_roll,
    write_dataset,
)

SIX = ["1", "2", "3", "4", "5", "fuel"]


def assert_truthful(scene: Scene, faces: list[str], width: int, height: int) -> None:
    """Right count and faces, every die fully inside the image, no two dice overlapping."""
    assert scene.image.shape == (height, width, 3)
    assert scene.image.dtype == np.uint8
    assert sorted(d.face for d in scene.dice) == sorted(faces)
    for d in scene.dice:
        assert d.size / 2 <= d.x <= width - d.size / 2
        assert d.size / 2 <= d.y <= height - d.size / 2
    for a, b in itertools.combinations(scene.dice, 2):
        # squares that do not overlap have centres at least one (mean) side apart
        assert math.hypot(a.x - b.x, a.y - b.y) >= (a.size + b.size) / 2 - 1


@pytest.mark.parametrize("conditions", ["normal", "hard"])
def test_same_seed_same_bytes_and_other_seed_differs(conditions: str) -> None:
    a = render_roll(SIX, 7, width=640, height=480, conditions=conditions)
    b = render_roll(SIX, 7, width=640, height=480, conditions=conditions)
    c = render_roll(SIX, 8, width=640, height=480, conditions=conditions)
    assert a.image.tobytes() == b.image.tobytes()
    assert a.dice == b.dice
    assert a.image.tobytes() != c.image.tobytes()


def test_layout_rethrows_onto_the_same_tray() -> None:
    a = render_roll(SIX, 3, width=640, height=480, layout=0)
    b = render_roll(SIX, 3, width=640, height=480, layout=1)
    empty = render_empty(3, width=640, height=480)
    assert a.dice != b.dice
    assert a.tags == b.tags
    # away from the dice the photos show the same tray: only sensor noise differs
    far = np.ones(empty.shape[:2], bool)
    for d in a.dice + b.dice:
        cv2.circle(far.view(np.uint8), (int(d.x), int(d.y)), int(d.size), 0, -1)
    diff = cv2.absdiff(a.image, empty)[far]
    assert np.median(diff) <= 4


@pytest.mark.parametrize("conditions", ["normal", "hard"])
@pytest.mark.parametrize(("width", "height"), [(640, 480), (1280, 720), (1920, 1080)])
def test_labels_inside_image_and_dice_apart(conditions: str, width: int, height: int) -> None:
    for seed in range(2):
        faces = random_faces(random.Random(seed), 6 - seed * 3)
        scene = render_roll(faces, seed, width=width, height=height, conditions=conditions)
        assert_truthful(scene, faces, width, height)
        scale = min(width / 1280, height / 720)
        for d in scene.dice:
            assert DIE_SIZE_RANGE[0] * scale * 0.95 <= d.size <= DIE_SIZE_RANGE[1] * scale * 1.05
        assert scene.tags["conditions"] == conditions


@settings(max_examples=12, deadline=None)
@given(faces=st.lists(st.sampled_from(FACES), min_size=1, max_size=6),
       seed=st.integers(0, 2**31 - 1), hard=st.booleans())
def test_any_roll_renders_truthfully(faces: list[str], seed: int, hard: bool) -> None:
    scene = render_roll(faces, seed, width=480, height=360,
                        conditions="hard" if hard else "normal")
    assert_truthful(scene, faces, 480, 360)


@pytest.mark.parametrize("face", STANDARD_FACES)
def test_pips_drawn_match_the_label(face: str, plain_style: DiceStyle) -> None:
    """Dark blobs inside the top face of a white die are its pips: count them."""
    scene = render_roll([face], int(face), style=plain_style)
    die = scene.dice[0]
    grey = cv2.cvtColor(scene.image, cv2.COLOR_BGR2GRAY)
    disc = np.zeros_like(grey)
    cv2.circle(disc, (round(die.x), round(die.y)), int(die.size * 0.45), 255, -1)
    dark = ((grey < 110) & (disc > 0)).astype(np.uint8)
    _, _, stats, _ = cv2.connectedComponentsWithStats(dark)
    assert sum(stats[1:, cv2.CC_STAT_AREA] > 20) == int(face)


def test_fuel_face_shows_one_comet_in_the_fuel_colour(plain_style: DiceStyle) -> None:
    scene = render_roll(["fuel"], 1, style=plain_style)
    die = scene.dice[0]
    hsv = cv2.cvtColor(scene.image, cv2.COLOR_BGR2HSV)
    disc = np.zeros(hsv.shape[:2], np.uint8)
    cv2.circle(disc, (round(die.x), round(die.y)), int(die.size * 0.45), 255, -1)
    red = ((hsv[..., 1] > 120) & (disc > 0)).astype(np.uint8)
    n, _, stats, _ = cv2.connectedComponentsWithStats(red)
    assert n == 2  # background + one comet
    assert stats[1, cv2.CC_STAT_AREA] > 0.05 * die.size**2


@pytest.mark.parametrize("faces", [[], ["1"] * 7, ["7"], ["fuel", "Fuel"]])
def test_bad_rolls_raise(faces: list[str]) -> None:
    with pytest.raises(ValueError):
        render_roll(faces, 1)


def test_bad_conditions_and_counts_raise() -> None:
    with pytest.raises(ValueError):
        render_roll(["1"], 1, conditions="dark")
    with pytest.raises(ValueError):
        random_faces(random.Random(1), 0)
    with pytest.raises(ValueError):
        random_faces(random.Random(1), 7)


def test_random_faces_come_from_the_right_die() -> None:
    mlem = random_faces(random.Random(4), 6)
    assert set(mlem) <= set(MLEM_FACES)
    assert set(random_faces(random.Random(4), 6, mlem=False)) <= set(STANDARD_FACES)
    assert mlem == random_faces(random.Random(4), 6)
    seen = {f for seed in range(40) for f in random_faces(random.Random(seed), 6)}
    assert seen == set(MLEM_FACES)


def test_normal_dice_sets_are_never_dark() -> None:
    for seed in range(60):
        style = DiceStyle.random(random.Random(seed))
        assert sum(style.body) > 3 * 60
        assert DIE_SIZE_RANGE[0] <= style.size <= DIE_SIZE_RANGE[1]
    assert DiceStyle.random(random.Random(5)) == DiceStyle.random(random.Random(5))


@pytest.mark.parametrize(("mlem", "conditions"), [(True, "hard"), (False, "normal")])
def test_write_dataset_follows_the_bench_format(tmp_path: Path, mlem: bool,
                                                conditions: str) -> None:
    labels = write_dataset(tmp_path / "set", 4, 9, conditions=conditions, mlem=mlem,
                           width=640, height=480)
    lines = [json.loads(line) for line in labels.read_text(encoding="utf-8").splitlines()]
    assert [line["split"] for line in lines] == ["calibration"] * 2 + ["test"] * 4
    for line in lines:
        image = cv2.imread(str(labels.parent / line["image"]))
        assert image is not None and image.shape == (480, 640, 3)
        assert line["conditions"] == conditions
        assert {"lighting", "background"} <= line.keys()
        for die in line["dice"]:
            assert die["face"] in FACES
            assert 0 <= die["x"] < 640 and 0 <= die["y"] < 480
    faces = set(MLEM_FACES if mlem else STANDARD_FACES)
    for shot in lines[:2]:
        assert sorted(d["face"] for d in shot["dice"]) == sorted(faces)
    assert labels.read_bytes() == write_dataset(tmp_path / "again", 4, 9, conditions=conditions,
                                                mlem=mlem, width=640, height=480).read_bytes()
