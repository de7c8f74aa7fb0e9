"""Calibration chooses the reader that reads the set's own shots back best (``calibration.py``)."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from vision.calibration import calibrate, read_back_by
from vision.evaluate import calibration_shots, load_dataset
from vision.profile import LabelledDie
from vision.reader import DiceReader
from vision.render import STANDARD_FACES, DiceStyle, render_roll, write_dataset

Shots = list[tuple[np.ndarray, list[LabelledDie]]]


def _shots(faces: list[str], seeds: tuple[int, ...], style: DiceStyle, conditions: str) -> Shots:
    scenes = [render_roll(faces, seed, style=style, conditions=conditions) for seed in seeds]
    return [(s.image, [LabelledDie(d.face, d.x, d.y) for d in s.dice]) for s in scenes]


def test_standard_dice_the_body_path_reads_well_keep_it(plain_style: DiceStyle) -> None:
    profile = calibrate(_shots(list(STANDARD_FACES), (1, 2), plain_style, "normal"))
    assert not profile.network_reads
    assert profile.self_check is not None and profile.self_check[0] >= 10
    assert DiceReader(profile).read(
        render_roll(["5", "6", "3"], 7, style=plain_style).image).key == ("3", "5", "6")


@pytest.mark.slow
def test_a_set_with_a_fuel_symbol_keeps_the_body_path_even_when_it_reads_worse(
        tmp_path: Path) -> None:
    """Rendered hard set 124: dice the colour of their mat. The network reads more of the
    calibration dice back than the body path, but it cannot read the fuel symbol."""
    write_dataset(tmp_path, 0, 124, conditions="hard")
    shots = calibration_shots(load_dataset(tmp_path))
    profile = calibrate(shots)
    assert profile.self_check is not None
    assert read_back_by(DiceReader(replace(profile, network_reads=True)), shots) > (
        profile.self_check[0])
    assert not profile.network_reads
