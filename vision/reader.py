"""The reader the table uses: a frame in, the dice on it out, each with a face and a confidence."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from vision.bodies import missed_dice, read_bodies
from vision.body_face import BodyRead, pip_templates
from vision.detect import PIP_ROUNDNESS, Frame, die_size_candidates, group_spots, prepare
from vision.diemap import DieMap
from vision.faces import FaceRead, best_reads
from vision.network_fuel import fuel_known, with_fuel
from vision.profile import Profile, body_match
from vision.uncalibrated import Networks, Seen, read_unknown_dice

MIN_CONFIDENCE = 0.25
"""Below this a group of spots is taken for clutter, not a die."""

NEIGHBOUR_GAP = 0.7
"""Closest two die centres can be, in die widths (touching dice, one slightly tilted)."""

DIE_COST = 0.8
"""When choosing between die scales, the reading that explains the most spots, trusted, with
the fewest dice wins: at too small a scale every die falls apart into valid-looking pieces (a
six's column is a perfect three), and each extra die costs this much."""

UNCERTAIN_BELOW = 0.6
"""Below this a die is reported as uncertain: the table asks a person instead of guessing."""


@dataclass(frozen=True)
class Detection:
    """One die: its face (None if unreadable), the centre of its top face and its width in frame
    pixels, and how sure the reading is."""

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


def suppress_neighbours(reads: list[FaceRead], die_px: float) -> list[FaceRead]:
    """Keep one reading per die: two dice cannot lie closer than most of a die width, so a
    weaker reading next to a stronger one is a side face or a stray spot of that die."""
    kept: list[FaceRead] = []
    for r in sorted(reads, key=lambda r: (min(r.spots, 2), r.confidence), reverse=True):
        if all((r.x - k.x) ** 2 + (r.y - k.y) ** 2 > (NEIGHBOUR_GAP * die_px) ** 2 for k in kept):
            kept.append(r)
    return kept


class DiceReader:
    """Reads frames with one dice set's profile (or the default profile without calibration).

    A calibrated set is read by its bodies (``bodies.py``), with the die map proposing the dice
    the body masks missed, unless calibration found that the face network reads it better
    (``calibration.py``). With no profile, dice are read by the face network
    (``uncalibrated.py``). A calibrated set whose bodies do not stand out from the surface in a
    frame is read by the network too, which reads the set's fuel symbol with the set's own
    templates (``network_fuel.py``); a set whose symbol the body path never learned falls back
    to the pip-first reader, the one reader that knows the symbol without the body path.
    """

    def __init__(self, profile: Profile | None = None, *, max_dice: int = 6) -> None:
        self.profile = profile or Profile()
        self.max_dice = max_dice
        look = self.profile.look()
        self._look = None if self.profile.network_reads else look
        self._templates = pip_templates(look) if look else None
        self._fuel_look = look if fuel_known(look) else None
        self._nets = (Networks.load() if self.profile.fuel is None or self._fuel_look
                      else None)
        self._diemap = (self._nets.diemap if self._nets else DieMap()) if look else None

    def read(self, image_bgr: np.ndarray) -> Reading:
        """Find and read the dice in a BGR frame of any size."""
        if self._look is not None and self._templates is not None and self._diemap is not None:
            found = read_bodies(image_bgr, self._look, self._templates)
            if found is not None:
                return self._reading(
                    found + missed_dice(image_bgr, found, self._look, self._templates,
                                        self._diemap))
        if self._nets is not None:
            seen = read_unknown_dice(image_bgr, self._nets)
            if self._fuel_look is not None and self._templates is not None:
                return self._reading(with_fuel(image_bgr, seen, self._fuel_look,
                                               self._templates, self._nets.diemap))
            return self._reading(seen)
        best: tuple[float, Frame, list[FaceRead]] | None = None
        for die_frame in die_size_candidates(image_bgr):
            frame = prepare(image_bgr, die_frame)
            reads = self._read_frame(frame)
            evidence = sum(r.confidence * r.spots - DIE_COST for r in reads)
            if best is None or evidence > best[0]:
                best = (evidence, frame, reads)
        assert best is not None
        _, frame, reads = best
        return self._reading(reads, frame.scale)

    def _reading(self, reads: Sequence[BodyRead | Seen | FaceRead], scale: float = 1.0) -> Reading:
        """The reads (``scale`` working pixels per frame pixel) as detections, top to bottom."""
        dice = tuple(
            Detection(r.face, r.x / scale, r.y / scale, r.size / scale, round(r.confidence, 3),
                      r.face is None or r.confidence < UNCERTAIN_BELOW)
            for r in sorted(reads, key=lambda r: (r.y, r.x)))
        error = None
        if len(dice) > self.max_dice:
            error = f"{len(dice)} dice seen, at most {self.max_dice}"
        return Reading(dice, error)

    def _read_frame(self, frame: Frame) -> list[FaceRead]:
        """The dice of one prepared frame, in working pixels."""
        reads: list[FaceRead] = []
        # without a learned fuel symbol only round spots can be pips
        found = [s for s in frame.spots
                 if (self.profile.fuel or s.roundness >= PIP_ROUNDNESS)
                 and body_match(self.profile, s.ring)]
        for group in group_spots(found, frame.die_px):
            spots = [found[i] for i in group]
            reads.extend(r for r in best_reads(spots, frame.die_px, self.profile)
                         if r.confidence >= MIN_CONFIDENCE)
        return suppress_neighbours(reads, frame.die_px)
