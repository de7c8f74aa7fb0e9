"""Calibrating a dice set: learn its profile from labelled shots, then keep the reader that
reads those same shots back best.

The body path (``bodies.py``) is fast and knows the set's fuel symbol, but it needs dice of one
colour that stands out from the surface. A set of standard dice can also be read by the face
network (``uncalibrated.py``), which needs no colours. Which of the two suits a set shows on its
own calibration shots. Calibrated on three photos of dice-real (dice of many designs), the body
path learned one body colour in 5 of 8 random picks and then read the 50 unseen photos 0.00 to
0.02 exact, finding at most 8 % of the dice; the network read the shots back better in all 8
and reads those photos 0.76 exact. On 15 rendered sets of standard dice in hard light the body
path read back at least as many in 14 and read their rolls better (0.64 to 1.00 exact against
0.32 to 0.84); in the fifteenth the network read back more and read the rolls 0.76 against
0.72.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import replace

from vision.body_learn import read_back
from vision.detect import Image
from vision.profile import LabelledDie, Profile, learn_profile
from vision.reader import DiceReader

Shot = tuple[Image, Sequence[LabelledDie]]


def calibrate(shots: Iterable[Shot]) -> Profile:
    """Learn a dice set from labelled shots ("show each face once") and choose its reader:
    the face network when the set has no fuel symbol and the network reads the shots back
    better than the body path (strictly better: the body path reads a frame in about 20 ms,
    the network in 300-450)."""
    shots = list(shots)
    profile = learn_profile(shots)
    if not shots or shows_fuel(shots):
        return profile  # the network knows only the pip faces
    by_body = profile.self_check[0] if profile.look() and profile.self_check else None
    network = replace(profile, network_reads=True)
    by_network = _read_back_by(DiceReader(network), shots)
    if by_body is not None and by_body >= by_network:
        return profile
    return replace(network, self_check=(by_network, sum(len(dice) for _, dice in shots)))


def shows_fuel(shots: Iterable[Shot]) -> bool:
    """Is a fuel symbol among the labelled dice? (A learned symbol comes only from those.)"""
    return any(die.face == "fuel" for _, dice in shots for die in dice)


def _read_back_by(reader: DiceReader, shots: Sequence[Shot]) -> int:
    """The labelled dice of the shots that ``reader`` reads right, less the dice it sees that
    are not there or reads wrong (the score of the body path's own size trials)."""
    return sum(read_back([(d.face, d.x, d.y, d.size) for d in reader.read(image).dice],
                         [(d.face, d.x, d.y) for d in dice])
               for image, dice in shots)
