"""The reader the table uses: a frame in, the dice on it out, each with a face and a confidence.

A profile may hold a household's several dice sets (``Profile.more_sets``). Each set reads the
frame its own way (``set_reader.py``) and the reading that explains the frame best is kept
(``explains``): a roll is thrown with one set.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from vision.confidence import SURE
from vision.profile import Profile
from vision.set_reader import FrameNetworks, Read, SetReader
from vision.threads import one_thread


@dataclass(frozen=True)
class Detection:
    """One die: its face (None if unreadable), the centre of its top face and its width in frame
    pixels, and how sure the reading is; uncertain (read less than ``confidence.SURE``): the
    table asks a person instead of guessing."""

    face: str | None
    x: float
    y: float
    size: float
    confidence: float
    uncertain: bool


@dataclass(frozen=True)
class Reading:
    """Every die seen in one frame; ``error`` says why the frame cannot be used as a roll."""

    dice: tuple[Detection, ...]
    error: str | None = None

    @property
    def key(self) -> tuple[str, ...]:
        """The roll as a sorted multiset of faces; unreadable dice count as "?"."""
        return tuple(sorted(d.face or "?" for d in self.dice))


class DiceReader:
    """Reads frames with a profile's dice sets (or, without calibration, the default profile)."""

    def __init__(self, profile: Profile | None = None, *, max_dice: int = 6) -> None:
        one_thread()
        self.profile = profile or Profile()
        self.max_dice = max_dice
        self._sets = [SetReader(p) for p in self.profile.sets()]

    def read(self, image_bgr: np.ndarray) -> Reading:
        """Find and read the dice in a BGR frame of any size.

        Every set of a household reads the frame, and the set whose own colours explain it
        best wins; of equals (a lone die that two sets read surely), the set whose body
        colour the dice show (``SetReader.colour_distance``): three households of eight 3-D
        tuning sets then read 301 of their 360 photos against 298 with the first of equals.
        A set whose body path found no die would read the frame by the networks, none of
        those dice its own: it explains nothing, so that reading is made only if the set
        wins, when no set's own dice explain the frame (in a household of eight 3-D tuning
        sets, a fifth of each other set's time). Stopping at the first set that read all its
        dice surely was tried: a set reading one die of another set as its fuel symbol,
        surely, and nothing else, stopped it (two sets' rolls, alternating, read 14 of 16
        against 16)."""
        networks = FrameNetworks(image_bgr)
        readings = [dice_set.read_own(image_bgr, networks) for dice_set in self._sets]
        scores = [0.0 if reading is None else explains(reading.own) for reading in readings]
        k = scores.index(max(scores))
        tied = [(j, reading) for j, reading in enumerate(readings)
                if reading is not None and scores[j] == scores[k] > 0]
        if len(tied) > 1:
            k = min(tied, key=lambda t: self._sets[t[0]].colour_distance(image_bgr, t[1]))[0]
        best = readings[k]
        if best is None:
            best = self._sets[k].read_without_own(image_bgr, networks)
        return self._reading(best.dice, best.scale)

    def _reading(self, reads: Sequence[Read], scale: float) -> Reading:
        """The reads (``scale`` working pixels per frame pixel) as detections, top to bottom."""
        dice = tuple(
            Detection(r.face, r.x / scale, r.y / scale, r.size / scale, round(r.confidence, 3),
                      r.face is None or r.confidence < SURE)
            for r in sorted(reads, key=lambda r: (r.y, r.x)))
        error = None
        if len(dice) > self.max_dice:
            error = f"{len(dice)} dice seen, at most {self.max_dice}"
        return Reading(dice, error)


def explains(reads: Sequence[Read]) -> float:
    """How well a set's own dice explain a frame: the sum of their confidences. A set whose
    body colour is not on the table finds no dice, or reads the other set's in doubt; a die
    with no face read counts nothing."""
    return sum(r.confidence for r in reads if r.face)
