"""The die map: its input, the conversion of its cells to frame pixels, and the shipped model."""

from __future__ import annotations

import random
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from vision.diemap import (
    LIFTED_BODY,
    PAD_TO,
    STRIDE,
    WORK_SIDE,
    DieMap,
    FrameMap,
    from_cell,
    map_peaks,
    to_cell,
    tone_lift,
    work_input,
    work_scale,
)
from vision.render import STANDARD_FACES, render_empty, render_roll
from vision.uncalibrated import Networks


def test_a_missing_model_is_named(tmp_path: Path) -> None:
    with pytest.raises(OSError, match="no die map model"):
        DieMap(tmp_path / "diemap.onnx")


@given(st.floats(-10, 2000, allow_nan=False))
def test_cells_and_working_pixels_convert_both_ways(v: float) -> None:
    assert from_cell(to_cell(v)) == pytest.approx(v, abs=1e-9)


def test_a_cell_centre_is_the_middle_of_its_pixels() -> None:
    # cell 0 covers working pixels 0-3, whose middle is 1.5
    assert from_cell(0.5) == 1.5
    assert to_cell(STRIDE - 0.5) == 1.0


@pytest.mark.parametrize("shape", [(480, 640), (720, 1280), (1080, 1920), (333, 517),
                                   (640, 640)])
def test_the_frame_is_shrunk_to_the_working_side_and_padded(shape: tuple[int, int]) -> None:
    image = np.random.default_rng(0).integers(0, 256, (*shape, 3), np.uint8)
    batch, scale = work_input(image)
    assert scale == WORK_SIDE / max(shape)
    assert batch.shape[:2] == (1, 3)
    assert batch.dtype == np.float32
    for side, frame_side in zip(batch.shape[2:], shape, strict=True):
        assert side % PAD_TO == 0
        assert 0 <= side - round(frame_side * scale) < PAD_TO
    assert abs(float(batch.mean())) < 0.05  # each channel less its mean


@pytest.mark.parametrize(("shape", "die_px", "factor"),
                         [((720, 1280), 100.0, 5), ((720, 1280), 63.0, 3), ((480, 640), 15.0, 1),
                          ((1080, 1920), 20.0, 3), ((723, 1283), 100.0, 5)])
def test_a_known_die_width_shrinks_the_frame_by_a_whole_factor(
        shape: tuple[int, int], die_px: float, factor: int) -> None:
    """Dice about 20 px wide, in a frame no longer than twice the working side (1920 px with
    20 px dice: a third); the rows and columns short of a whole working pixel are left out."""
    assert work_scale(shape, die_px) == 1 / factor
    batch, scale = work_input(np.zeros((*shape, 3), np.uint8), die_px)
    assert scale == 1 / factor
    for side, frame_side in zip(batch.shape[2:], shape, strict=True):
        assert side == -(-(frame_side // factor) // PAD_TO) * PAD_TO


@given(st.tuples(*[st.floats(0.0, 255.0)] * 3))
def test_a_dark_body_is_lifted_to_mid_tones_and_a_light_one_left(
        body: tuple[float, float, float]) -> None:
    """The gamma brings the body's lightness to ``LIFTED_BODY``; a body that light or lighter
    keeps its tones (the map was trained on them)."""
    gamma = tone_lift(body)
    lightness = max(float(np.mean(body)), 1.0) / 255.0
    if lightness >= LIFTED_BODY:
        assert gamma == 1.0
    else:
        assert 0.0 < gamma < 1.0
        assert lightness ** gamma == pytest.approx(LIFTED_BODY)


def test_a_dark_die_on_a_dark_floor_stands_out_more_lifted() -> None:
    """The map's input is normalised by the frame's contrast plus a floor (``normalised``), so a
    die a few grey levels off a dark floor barely shows; lifted to mid tones, the same die
    stands further out of the floor in what the map sees."""
    image = np.full((480, 640, 3), 20, np.uint8)
    image[200:240, 300:340] = 40

    def standing_out(batch: np.ndarray) -> float:
        return float(batch[0, 0, 110, 160] - batch[0, 0, 10, 10])  # middle of die less floor

    plain, scale = work_input(image, 40.0)
    lifted, _ = work_input(image, 40.0, tone_lift((20.0, 20.0, 20.0)))
    assert scale == 0.5
    assert standing_out(lifted) > 1.2 * standing_out(plain) > 0


def test_a_peak_is_given_in_frame_pixels() -> None:
    """A 1280 px frame works at a quarter: cell (row 7, column 10) with offsets (0.25, 0.75)
    is working pixel (40.5, 30.5), frame pixel (163.5, 123.5); a width of 12 working pixels is
    48 frame pixels."""
    out = np.zeros((4, 46, 80), np.float32)
    out[:, 7, 10] = (0.9, 0.25, 0.75, np.log(12.0))
    out[0, 7, 11] = 0.5  # beside the peak, lower: not a peak of its own
    out[0, 30, 40] = 0.05  # below the threshold
    [peak] = map_peaks(out, 0.25, 0.1, (720, 1280))
    assert (peak.x, peak.y) == pytest.approx((163.5, 123.5))
    assert peak.width == pytest.approx(48.0)
    assert peak.score == pytest.approx(0.9)


def test_a_peak_on_the_padding_is_dropped() -> None:
    """A 333 px tall frame at a quarter is 83 working pixels, padded to 88: the map's last row
    (working pixel 83.5, frame pixel 335.5) lies beyond the frame; row 5 is frame pixel 79.5."""
    out = np.zeros((4, 22, 80), np.float32)
    out[0, 21, 10] = 0.9
    out[0, 5, 10] = 0.9
    assert [p.y for p in map_peaks(out, 0.25, 0.1, (333, 1280))] == [pytest.approx(79.5)]


def test_the_map_finds_rendered_dice_at_their_width(nets: Networks) -> None:
    """Rendered rolls at three frame sizes: 63 of 66 dice have a peak scoring 0.3 or more
    within a quarter of their width of their centre, at a width within 25 % of theirs (of the
    other three, two 91 px dice are given 1.35 times their width and a lone 1 half)."""
    found = total = 0
    for width, height in ((640, 480), (1280, 720), (1920, 1080)):
        rng = random.Random(width)
        for seed in range(6):
            faces = [rng.choice(STANDARD_FACES) for _ in range(rng.randint(1, 6))]
            scene = render_roll(faces, 900 + seed, width=width, height=height,
                                conditions=("normal", "hard")[seed % 2])
            peaks = nets.diemap.peaks(scene.image, 0.3)
            for die in scene.dice:
                total += 1
                found += any(np.hypot(p.x - die.x, p.y - die.y) < 0.25 * die.size
                             and abs(p.width / die.size - 1) < 0.25 for p in peaks)
    assert total == 66
    assert found >= total - 4


def test_an_empty_tray_has_no_sure_peak(nets: Networks) -> None:
    for seed in range(4):
        image = render_empty(seed, conditions=("normal", "hard")[seed % 2])
        assert all(p.score < 0.5 for p in nets.diemap.peaks(image, 0.1))


class CountedMap(DieMap):
    """The shipped die map, counting its runs."""

    def __init__(self) -> None:
        super().__init__()
        self.runs = 0

    def outputs(self, image: np.ndarray, die_px: float | None = None, lift: float = 1.0
                ) -> tuple[np.ndarray, float]:
        self.runs += 1
        return super().outputs(image, die_px, lift)


def test_a_frame_map_runs_the_map_once_per_working_scale() -> None:
    """The body path and the networks' fuel search look for dice of about one width: one run
    of the map serves both; dice twice as wide shrink the frame by another factor."""
    scene = render_roll(["1", "3", "5"], 7, width=1280, height=720)
    counted = CountedMap()
    frame = FrameMap(counted, scene.image)
    first = frame.peaks(0.3, 60.0)
    assert frame.peaks(0.5, 64.0) == [p for p in first if p.score >= 0.5]
    assert counted.runs == 1
    assert first == DieMap().peaks(scene.image, 0.3, 60.0)
    frame.peaks(0.3, 120.0)
    assert counted.runs == 2
    lifted = frame.peaks(0.3, 60.0, tone_lift((30.0, 30.0, 30.0)))
    assert counted.runs == 3 and lifted != first
