"""The face network and the uncalibrated path around it: the shipped model, its input, answers."""

from __future__ import annotations

import random
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from vision import uncalibrated
from vision.classify import (
    CLASSES,
    CLOSE_MODEL_PATH,
    CLOSE_PX,
    CROP_PX,
    MODEL_PATH,
    TRAINED_CLOSE_PATH,
    TRAINED_PATH,
    FaceNet,
    crops,
    normalise,
    turns,
)
from vision.detect import estimate_die_px
from vision.reader import DiceReader
from vision.render import STANDARD_FACES, DiceStyle, render_empty, render_roll
from vision.render_wild import render_wild
from vision.uncalibrated import (
    ASIDE,
    BEYOND_STEP,
    CLOSER_LOOK_BELOW,
    CLOSER_VIEWS,
    CROP_SCALES,
    FINDER_VIEWS,
    VIEW_WIDTHS,
    Candidate,
    Looked,
    Networks,
    _one_step_aside,
    _one_step_beyond,
    candidates,
    crop_widths,
    read_candidates,
    read_faces,
    read_unknown_dice,
    view_probabilities,
)

from .helpers import standard_roll
from .test_detect import drawn_die


@pytest.mark.parametrize("role", ["finder", "close"])
def test_the_shipped_models_load_and_answer_every_class(nets: Networks, role: str) -> None:
    net: FaceNet = getattr(nets, role)
    assert net.px == {"finder": CROP_PX, "close": CLOSE_PX}[role]
    image = drawn_die("4", size=60, angle=0.3, body=(235, 235, 235), pip=(20, 20, 20))
    probs = net.probabilities(crops(image, [(320, 240, 60), (60, 60, 60)], net.px))
    assert probs.shape == (2, len(CLASSES))
    assert probs.sum(axis=1) == pytest.approx([1.0, 1.0], abs=1e-5)
    assert CLASSES[int(np.argmax(probs[0]))] == "4"
    assert CLASSES[int(np.argmax(probs[1]))] == "none"  # bare felt


@pytest.mark.parametrize(("trained", "shipped", "px"), [(TRAINED_PATH, MODEL_PATH, CROP_PX),
                                                       (TRAINED_CLOSE_PATH, CLOSE_MODEL_PATH,
                                                        CLOSE_PX)])
def test_the_8_bit_networks_the_reader_runs_answer_as_the_trained_ones(
        trained: Path, shipped: Path, px: int) -> None:
    """``tools/quantize_faces.py``'s output, held against the float network it was made from:
    crops of 3-D rendered dice at their labels, 0.8 and 1.25 times their width, and of places
    anywhere in the frame. On these 216 crops the likeliest class was the same on every one,
    and no probability moved more than 0.05."""
    assert b"DequantizeLinear" in shipped.read_bytes()
    floats, ints = FaceNet(trained, px), FaceNet(shipped, px)
    rng = np.random.default_rng(0)
    same = total = 0
    for seed in range(40, 52):
        scene = render_wild([str(f) for f in rng.integers(1, 7, 4)], seed, mlem=False).scene
        places = [(d.x, d.y, d.size * k) for d in scene.dice for k in (0.8, 1.0, 1.25)]
        places += [(float(rng.uniform(0, scene.image.shape[1])),
                    float(rng.uniform(0, scene.image.shape[0])), scene.dice[0].size)
                   for _ in range(6)]
        batch = crops(scene.image, places, px)
        want, got = floats.probabilities(batch), ints.probabilities(batch)
        assert float(np.abs(want - got).max()) < 0.1
        same += int((want.argmax(axis=1) == got.argmax(axis=1)).sum())
        total += len(batch)
    assert same >= 0.98 * total


def test_no_crops_give_no_rows(nets: Networks) -> None:
    empty = np.zeros((0, CROP_PX, CROP_PX, 3), np.float32)
    assert nets.finder.probabilities(empty).shape == (0, 7)


def test_a_missing_model_is_named(tmp_path: Path) -> None:
    with pytest.raises(OSError, match="no face model"):
        FaceNet(tmp_path / "faces.onnx")


@given(gain=st.floats(0.7, 1.4), offset=st.floats(-15, 30))
def test_the_crop_ignores_brightness_and_contrast(gain: float, offset: float) -> None:
    image = drawn_die("5", size=50, angle=0.7, body=(150, 110, 160), pip=(30, 30, 30))
    relit = np.clip(image.astype(np.float32) * gain + offset, 0, 255).astype(np.uint8)
    # nothing clips in this range; what differs is rounding and the small floor under the
    # contrast that keeps a flat patch's noise from being blown up
    a, b = crops(image, [(320, 240, 50)]), crops(relit, [(320, 240, 50)])
    assert float(np.abs(a - b).mean()) < 0.1


def test_normalise_gives_zero_mean_and_bounded_contrast() -> None:
    patch = np.random.default_rng(1).uniform(0, 255, (CROP_PX, CROP_PX, 3)).astype(np.float32)
    out = normalise(patch)
    assert abs(float(out.mean())) < 1e-4
    assert 0.9 < float(out.std()) <= 1.0


def test_a_stack_of_patches_is_normalised_patch_by_patch() -> None:
    rng = np.random.default_rng(2)
    dim = rng.uniform(0, 40, (CROP_PX, CROP_PX, 3)).astype(np.float32)
    bright = rng.uniform(150, 255, (CROP_PX, CROP_PX, 3)).astype(np.float32)
    together = normalise(np.stack([dim, bright]))
    assert np.allclose(together[0], normalise(dim), atol=1e-5)
    assert np.allclose(together[1], normalise(bright), atol=1e-5)


def _lone_die(face: str, angle: float, size: float, seed: int) -> np.ndarray:
    """A drawn die of random body colour, with pips that stand out from it, on green felt."""
    rng = random.Random(seed)
    body = tuple(rng.randint(0, 255) for _ in range(3))
    pip = (20, 20, 20) if sum(body) > 380 else (240, 240, 240)
    return drawn_die(face, size=size, angle=angle, body=body, pip=pip)  # type: ignore[arg-type]


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(face=st.sampled_from(STANDARD_FACES), angle=st.floats(0, 2 * np.pi),
       size=st.floats(30, 90), seed=st.integers(0, 10_000))
def test_a_lone_die_of_any_colour_is_never_misread(face: str, angle: float, size: float,
                                                   seed: int) -> None:
    """Read right, or not seen, or flagged for the table to ask: never a wrong face."""
    reading = DiceReader().read(_lone_die(face, angle, size, seed))
    assert all(d.face == face or d.uncertain for d in reading.dice)
    assert len(reading.dice) <= 1


def test_a_green_four_on_green_felt_is_not_read_as_two_ones() -> None:
    """Hypothesis's counterexample to the property above (body (61, 163, 67) on (40, 110, 40)
    felt): the die map also peaks weakly on two of its white pips, and the finder took each for
    a 1 on a green die, surely. Peaks on a stronger peak's die are no candidates
    (``uncalibrated.INSIDE``): the 4 is read."""
    assert DiceReader().read(_lone_die("4", 0.0, 75.0, 2205)).key == ("4",)


def test_lone_dice_of_any_colour_are_read() -> None:
    """100 drawn dice of random face, colour, size and turn: 98 of every 100 are read right
    (588 of 600 with the die map, 590 or more with the spot search before it). The rest are
    not seen at all: bodies the colour of the felt, which show no outline, and lone 1s."""
    rng = random.Random(7)
    reader = DiceReader()
    right = sum(reader.read(_lone_die(face, rng.uniform(0, 2 * np.pi), rng.uniform(30, 90),
                                      rng.randrange(10_000))).key == (face,)
                for face in (rng.choice(STANDARD_FACES) for _ in range(100)))
    assert right >= 96


def test_candidates_on_an_empty_tray_are_turned_down(nets: Networks) -> None:
    for seed in range(4):
        image = render_empty(seed, conditions="hard")
        found, die_px = candidates(image, nets.diemap)
        assert read_candidates(image, found, die_px, nets) == []


def test_candidates_cover_every_rendered_die(nets: Networks) -> None:
    rng = random.Random(5)
    for seed in range(6):
        faces = [rng.choice(STANDARD_FACES) for _ in range(rng.randint(1, 6))]
        scene = render_roll(faces, seed, width=960, height=540,
                            style=DiceStyle.random(random.Random(seed)))
        found, _ = candidates(scene.image, nets.diemap)
        for die in scene.dice:
            assert min(np.hypot(c.x - die.x, c.y - die.y) for c in found) < 0.2 * die.size


def test_dice_the_blobs_undersize_are_sized_by_the_map(nets: Networks) -> None:
    """Cream dice on striped wood hardly stand out from the stripes, so the blobs make them
    half their width and no crop of that fits them: only one of the five dice was read right
    when the blobs sized them, four when the pips' spread did, all five with the map."""
    scene = standard_roll(6)
    size = float(np.mean([d.size for d in scene.dice]))
    assert (estimate_die_px(scene.image) or 0) < 0.8 * size
    _, die_px = candidates(scene.image, nets.diemap)
    assert die_px == pytest.approx(size, rel=0.2)
    seen = DiceReader().read(scene.image).dice
    right = sum(any(s.face == d.face and np.hypot(s.x - d.x, s.y - d.y) < 0.3 * size
                    for s in seen) for d in scene.dice)
    assert right == len(scene.dice)


def test_a_candidate_is_also_looked_at_with_its_own_width() -> None:
    frame_widths = [40.0 * f for f in CROP_SCALES]
    assert crop_widths(Candidate(10, 10, 0.0), 40.0) == frame_widths
    assert crop_widths(Candidate(10, 10, 36.0), 40.0) == frame_widths
    assert crop_widths(Candidate(10, 10, 90.0), 40.0) == [*frame_widths, 90.0]
    assert crop_widths(Candidate(10, 10, 12.0), 40.0) == [*frame_widths, 12.0]


def test_dice_sized_too_narrow_are_found_one_step_beyond_the_crop_widths(nets: Networks) -> None:
    """The frame's die width at 0.7 of the dice's own: every crop step is too tight and the
    finder turns the dice down (none of these 24 was read right before), until it looks once
    more a step wider (17 are)."""
    right = 0
    for seed in range(8):
        rng = random.Random(seed)
        faces = [rng.choice(STANDARD_FACES) for _ in range(3)]
        scene = render_roll(faces, seed, width=960, height=540,
                            style=DiceStyle.random(random.Random(seed)))
        size = float(np.mean([d.size for d in scene.dice]))
        seen = read_candidates(scene.image, [Candidate(d.x, d.y, 0.0) for d in scene.dice],
                               0.7 * size, nets)
        right += sum(any(s.face == d.face and np.hypot(s.x - d.x, s.y - d.y) < 1.0
                         and s.size == pytest.approx(0.7 * BEYOND_STEP * size) for s in seen)
                     for d in scene.dice)
    assert right >= 16


def test_a_turned_down_candidate_is_looked_at_beyond_both_ends() -> None:
    """Turned down at 25-50 px, surest at 25: looked at 70 and 18 px; a die taken is not."""
    looked = {(10.0, 20.0): Looked(0.8, 25.0, 25.0, 50.0),
              (5.0, 5.0): Looked(0.1, 40.0, 20.0, 40.0)}
    assert _one_step_beyond(looked) == [(10.0, 20.0, 50.0 * BEYOND_STEP),
                                        (10.0, 20.0, 25.0 / BEYOND_STEP)]


def test_a_turned_down_candidate_is_looked_at_aside_in_eight_directions_at_its_surest_width(
        ) -> None:
    looked = {(100.0, 50.0): Looked(0.8, 40.0, 20.0, 56.0),
              (5.0, 5.0): Looked(0.1, 40.0, 20.0, 40.0)}
    aside = _one_step_aside(looked)
    step = ASIDE * 40.0
    assert sorted(aside) == sorted((100.0 + i * step, 50.0 + j * step, 40.0)
                                   for i in (-1, 0, 1) for j in (-1, 0, 1) if (i, j) != (0, 0))


def test_dice_whose_candidate_lies_on_their_edge_are_found_a_step_aside(
        nets: Networks, monkeypatch: pytest.MonkeyPatch) -> None:
    """A candidate 0.4 of a width beside each die of six rolls (a map peak on a side face):
    the finder turns every one down where it is; looked at a step aside, about half the dice
    are found and read (9 of 18 on OpenCV 5.1, 10 on 4.6), placed within a fifth of a width of
    their centre."""
    def found(aside: float) -> int:
        monkeypatch.setattr(uncalibrated, "ASIDE", aside)
        right = 0
        for seed in range(6):
            scene = render_roll(["4", "2", "5"], seed=seed)
            for d in scene.dice:
                seen = read_candidates(scene.image, [Candidate(d.x + 0.4 * d.size, d.y, d.size)],
                                       d.size, nets)
                right += any(s.face == d.face and abs(s.x - d.x) < 0.2 * d.size for s in seen)
        return right

    assert found(0.0) == 0
    assert found(ASIDE) >= 8


def test_a_lone_one_sized_too_small_is_found_beyond_its_widest_crop(nets: Networks) -> None:
    """A flat white 1, 60 px, with a frame width of 50 (the map gives such dice 0.5-0.9 of
    their width): every step is turned down and the surest is the narrowest, a crop of its pip
    (no die 0.82). Looking only that way, as before, it was not found; beyond the widest, at
    70 px, it is a sure 1."""
    image = drawn_die("1", size=60, angle=0.0, body=(235, 235, 235), pip=(20, 20, 20))
    [seen] = read_candidates(image, [Candidate(320, 240, 0.0)], 50.0, nets)
    assert seen.face == "1"
    assert seen.size == pytest.approx(50.0 * BEYOND_STEP)
    assert seen.confidence > 0.9


@given(st.integers(1, 4), st.integers(0, 2**32 - 1))
def test_the_views_of_a_crop_are_turns_and_mirror_images_of_it(count: int, seed: int) -> None:
    """Each view holds the crop's own pixels, only moved: the second is its mirror image across
    a diagonal (a die a quarter turn on), and no two views are alike."""
    patch = np.random.default_rng(seed).random((6, 6, 3), dtype=np.float32)
    views = turns(patch, count)
    assert len(views) == count
    for view in views:
        assert view.flags.c_contiguous
        assert np.array_equal(np.sort(view, axis=None), np.sort(patch, axis=None))
    if count > 1:
        assert np.array_equal(views[1], patch[::-1, ::-1].transpose(1, 0, 2))
    assert len({view.tobytes() for view in views}) == count


def test_only_an_unsure_face_gets_a_closer_look(nets: Networks) -> None:
    """A five cropped 1.6 times too wide: the finder is unsure, and its mean with the closer
    look is read. A five cropped right is the finder's alone. (The finder trained with wild
    renders is sure of this five up to 1.45 times its width, where the one before wavered at
    1.3 and the closer look was the surer.)"""
    image = drawn_die("5", size=40, angle=0.3, body=(235, 235, 235), pip=(20, 20, 20))
    wide, right = (1.0, 320.0, 240.0, 64.0), (1.0, 320.0, 240.0, 40.0)
    own = VIEW_WIDTHS.index(1.0)
    finder = view_probabilities(image, [wide, right], nets.finder, FINDER_VIEWS)
    closer = view_probabilities(image, [wide], nets.close, CLOSER_VIEWS)[0]
    assert finder.shape == (2, len(VIEW_WIDTHS), len(CLASSES))
    overall = finder.mean(axis=1)
    assert overall[0, 1:].max() < CLOSER_LOOK_BELOW <= overall[1, 1:].max()
    five = CLASSES.index("5")
    seen_wide, seen_right = read_faces(image, [wide, right], nets)
    assert seen_wide.face == "5"
    assert seen_wide.confidence == pytest.approx(0.5 * (finder[0, own, five] + closer[own, five]),
                                                 abs=1e-5)
    assert seen_right.face == "5"
    assert seen_right.confidence == pytest.approx(finder[1, own, five], abs=1e-5)


@pytest.mark.parametrize("seed", [30, 100])
def test_a_phantom_the_die_width_alone_lets_through_is_dropped(nets: Networks, seed: int) -> None:
    """Standard dice in hard light where the views at the chosen width alone kept a phantom
    2: with the views 15 % either side it is dropped and the roll is right. (Of the first 120
    such rolls, these two and a third change so; the third, seed 89, shows another phantom
    under OpenCV 4.6.)"""
    scene = standard_roll(seed, "hard")
    seen = read_unknown_dice(scene.image, nets)
    assert sorted(s.face for s in seen) == sorted(d.face for d in scene.dice)


def test_a_place_its_views_find_bare_is_dropped(nets: Networks) -> None:
    """One view of a bare mat or of a die's gap may pass the finder; the mean of all its
    views (at every width) must still favour a face, or the place is no die."""
    die = drawn_die("3", size=40, angle=0.2, body=(235, 235, 235), pip=(20, 20, 20))
    places = [(1.0, 320.0, 240.0, 40.0), (1.0, 100.0, 100.0, 40.0)]
    bare = view_probabilities(die, places[1:], nets.finder, FINDER_VIEWS)[0]
    assert bare.mean(axis=0).argmax() == 0
    assert [s.face for s in read_faces(die, places, nets)] == ["3"]
