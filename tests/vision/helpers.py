"""Helpers shared by the vision tests."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import NamedTuple

import cv2
import numpy as np
import pytest

from vision.bodies import TemplateReads, missed_dice, read_bodies, recentred
from vision.body_face import BodyRead, pip_templates
from vision.calibration import calibrate
from vision.diemap import DieMap, FrameMap, tone_lift
from vision.evaluate import Label, calibration_shots, load_dataset, read_image
from vision.profile import LabelledDie, Profile
from vision.reader import DiceReader
from vision.render import DiceStyle, Scene, random_faces, render_roll, write_dataset
from vision.render_wild import write_wild_dataset


def on_opencv_5_only(reason: str) -> pytest.MarkDecorator:
    """Skips a test on OpenCV 4 (the Pi's 4.6), saying why: a 3-D tuning photo picked on
    OpenCV 5.1, which 4.6 renders, writes or calibrates otherwise. The code path still runs
    there on every other photo; the tuning sets measure 4.6 as a whole."""
    return pytest.mark.skipif(int(cv2.__version__.split(".")[0]) < 5, reason=reason)


def calibration_shots_of(style: DiceStyle, conditions: str, *, width: int = 1280,
                         height: int = 720, count: int = 2
                         ) -> list[tuple[np.ndarray, list[LabelledDie]]]:
    """Shots as an owner takes them: two (or ``count``), each showing every MLEM face once."""
    shots = []
    for seed in range(101, 101 + count):
        scene = render_roll(["1", "2", "3", "4", "fuel"], seed, style=style,
                            conditions=conditions, width=width, height=height)
        shots.append((scene.image, [LabelledDie(d.face, d.x, d.y) for d in scene.dice]))
    return shots


def household_dataset(folder: Path, seeds: tuple[int, ...], count: int) -> Path:
    """One dataset (FORMAT.md) holding several flat-rendered sets, ``write_dataset``'s of each
    seed: their calibration shots and ``count`` test photos each, in one ``labels.jsonl``."""
    lines = []
    for seed in seeds:
        for line in write_dataset(folder / str(seed), count, seed).read_text().splitlines():
            labelled = json.loads(line)
            lines.append(json.dumps({**labelled, "image": f"{seed}/{labelled['image']}"}))
    (folder / "labels.jsonl").write_text("\n".join(lines) + "\n")
    return folder


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


class WildRoll(NamedTuple):
    """A 3-D rendered MLEM roll, the set calibrated on its own shots, and the dice the body path
    finds in it before the networks: bodies and the set's templates at the die map's peaks."""

    profile: Profile
    image: np.ndarray
    truth: tuple[str, ...]
    by_bodies: list[BodyRead]
    labels: tuple[Label, ...]


def wild_roll(folder: Path, photo: int, seed: int, *, surface: str, light: str,
              resolution: tuple[int, int]) -> WildRoll:
    """Test photo ``photo`` of the ``render_wild`` set of ``seed`` on that table."""
    write_wild_dataset(folder, photo + 1, seed, surface=surface, light=light,
                       resolution=resolution)
    lines = load_dataset(folder)
    profile = calibrate(calibration_shots(lines))
    line = [line for line in lines if line.split == "test"][photo]
    image = read_image(line.image)
    look = profile.look()
    assert look is not None
    templates = pip_templates(look)
    frame, lift = FrameMap(DieMap(), image), tone_lift(look.body)
    found = read_bodies(image, look, templates, frame=frame, lift=lift)
    assert found is not None
    reads = TemplateReads(image, look, templates)
    found = recentred(frame, found, reads, lift)
    missed = missed_dice(frame, found, reads, lift).dice
    return WildRoll(profile, image, tuple(sorted(d.face for d in line.dice)), found + missed,
                    line.dice)
