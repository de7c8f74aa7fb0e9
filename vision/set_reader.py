"""One dice set's reading of a frame: which of the readers reads this set, and the dice it finds.

A calibrated set is read by its bodies (``bodies.py``), with the die map proposing the dice the
body masks missed, unless calibration found that the face network reads it better
(``calibration.py``). With no profile, dice are read by the face network
(``uncalibrated.py``). A calibrated set whose bodies do not stand out from the surface in a
frame is read by the network too, which reads the set's fuel symbol with the set's own
templates (``network_fuel.py``); a set whose symbol the body path never learned falls back to
the pip-first reader, the one reader that knows the symbol without the body path.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache

import numpy as np

from vision.bodies import missed_dice, read_bodies
from vision.body_face import BodyRead, pip_templates
from vision.detect import PIP_ROUNDNESS, Frame, die_size_candidates, group_spots, prepare
from vision.diemap import DieMap
from vision.faces import FaceRead, best_reads
from vision.network_fuel import fuel_known, with_fuel
from vision.profile import Profile, body_match
from vision.uncalibrated import Networks, Seen, read_unknown_dice

Read = BodyRead | Seen | FaceRead

MIN_CONFIDENCE = 0.25
"""Below this a group of spots is taken for clutter, not a die."""

NEIGHBOUR_GAP = 0.7
"""Closest two die centres can be, in die widths (touching dice, one slightly tilted)."""

DIE_COST = 0.8
"""When choosing between die scales, the reading that explains the most spots, trusted, with
the fewest dice wins: at too small a scale every die falls apart into valid-looking pieces (a
six's column is a perfect three), and each extra die costs this much."""

def suppress_neighbours(reads: list[FaceRead], die_px: float) -> list[FaceRead]:
    """Keep one reading per die: two dice cannot lie closer than most of a die width, so a
    weaker reading next to a stronger one is a side face or a stray spot of that die."""
    kept: list[FaceRead] = []
    for r in sorted(reads, key=lambda r: (min(r.spots, 2), r.confidence), reverse=True):
        if all((r.x - k.x) ** 2 + (r.y - k.y) ** 2 > (NEIGHBOUR_GAP * die_px) ** 2 for k in kept):
            kept.append(r)
    return kept


@cache
def shipped_networks() -> Networks:
    """The shipped networks, loaded once per process: every dice set's reader shares them (an
    ONNX Runtime session may run from several threads)."""
    return Networks.load()


class SetReader:
    """Reads frames as one dice set (the module docstring says which reader reads it)."""

    def __init__(self, profile: Profile) -> None:
        self.profile = profile
        look = profile.look()
        self._look = None if profile.network_reads else look
        self._templates = pip_templates(look) if look else None
        self._fuel_look = look if fuel_known(look) else None
        self._nets = shipped_networks() if profile.fuel is None or self._fuel_look else None
        self._diemap = (self._nets.diemap if self._nets else DieMap()) if look else None

    def read(self, image_bgr: np.ndarray) -> tuple[Sequence[Read], float]:
        """The dice of a BGR frame, and the working pixels per frame pixel they are given in."""
        if self._look is not None and self._templates is not None and self._diemap is not None:
            found = read_bodies(image_bgr, self._look, self._templates)
            if found is not None:
                return found + missed_dice(image_bgr, found, self._look, self._templates,
                                           self._diemap), 1.0
        if self._nets is not None:
            seen = read_unknown_dice(image_bgr, self._nets)
            if self._fuel_look is not None and self._templates is not None:
                return with_fuel(image_bgr, seen, self._fuel_look, self._templates,
                                 self._nets.diemap), 1.0
            return seen, 1.0
        best: tuple[float, Frame, list[FaceRead]] | None = None
        for die_frame in die_size_candidates(image_bgr):
            frame = prepare(image_bgr, die_frame)
            reads = self._read_frame(frame)
            evidence = sum(r.confidence * r.spots - DIE_COST for r in reads)
            if best is None or evidence > best[0]:
                best = (evidence, frame, reads)
        assert best is not None
        _, frame, reads = best
        return reads, frame.scale

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
