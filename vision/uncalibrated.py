"""Reading dice no profile describes: spot groups say where a die may be, the face network says
whether one is there and which face it shows.

Every group of pip-like spots found at two likely die scales is a candidate, and so is the middle
of every blob that stands out from the surface, so hardly a die is missed (98 % of dice-real's
dice have a candidate within a fifth of a die width). Most candidates are pieces of dice, side
faces or specks; the network, shown each at a few crop sizes, keeps those it is sure are a die's
top face, and of two candidates on one die the surer wins.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from vision.classify import CLASSES, FaceNet, crop, turns
from vision.detect import (
    PIP_ROUNDNESS,
    Foreground,
    Image,
    die_size_candidates,
    foreground,
    group_spots,
    prepare,
)
from vision.faces import best_reads
from vision.profile import Profile

CROP_SCALES = (0.5, 0.7, 1.0)
"""Crop widths tried, over the frame's blob estimate of the die width. That estimate is right or
up to twice too big (touching dice merge into one blob), never much too small. The network
takes a die 15 % off its width, so three steps cover the range (six read no better on
dice-real's unseen photos, at 1.4 times the time)."""

SAME_SPOT = 0.1
"""Candidates closer than this (in estimated die widths) are read once: the network takes a
shift of a sixth of a die in its stride."""

DIE_BELOW = 0.3
"""A candidate is a die when the network gives "no die" less than this (0.5 let specks on busy
mats through: rendered hard read 0.53 exact against 0.62)."""

MIN_GAP = 0.7
"""Closest two dice can be, in widths of the larger (touching, one slightly tilted)."""


@dataclass(frozen=True)
class Seen:
    """A die as the network reads it: face, its probability, centre and width in frame pixels."""

    face: str
    confidence: float
    x: float
    y: float
    size: float
    die: float
    """Probability that a die's top face is centred here at all."""


def candidates(image: Image) -> tuple[list[tuple[float, float]], float]:
    """Where a die may be centred, and the blob estimate of the die width (frame pixels):
    every spot group at the estimated scale and a smaller one, and the middle of every blob that
    stands out from the surface (a die whose pips were not all found, such as a two under
    glare)."""
    fg = foreground(image)
    sizes = die_size_candidates(image, fg)
    default = Profile()
    centres: list[tuple[float, float]] = []
    # the blob estimate errs big (touching dice merge), so its bigger step adds nothing
    for die_frame in sizes[:2]:
        frame = prepare(image, die_frame)
        pips = [s for s in frame.spots if s.roundness >= PIP_ROUNDNESS]
        for group in group_spots(pips, frame.die_px):
            centres += [(r.x / frame.scale, r.y / frame.scale)
                        for r in best_reads([pips[i] for i in group], frame.die_px, default)]
    centres += _blob_middles(fg, sizes[0])
    return _distinct(centres, SAME_SPOT * sizes[0]), sizes[0]


def _blob_middles(fg: Foreground, die_px: float) -> list[tuple[float, float]]:
    """Local peaks of the foreground's distance transform at least a quarter die from an edge:
    the middle of a lone die, and of each die in a row of touching ones."""
    dt = fg.distance
    reach = max(3, round(0.5 * die_px * fg.scale) | 1)
    peaks = (dt >= cv2.dilate(dt, np.ones((reach, reach), np.uint8))) & (
        dt >= 0.25 * die_px * fg.scale)
    ys, xs = np.nonzero(peaks)
    return [((x + 0.5) / fg.scale - 0.5, (y + 0.5) / fg.scale - 0.5)
            for x, y in zip(xs.tolist(), ys.tolist(), strict=True)]


def _distinct(centres: list[tuple[float, float]], gap: float) -> list[tuple[float, float]]:
    """The centres without near repeats (one die's group is found again at each scale)."""
    kept: list[tuple[float, float]] = []
    for x, y in centres:
        if all((x - kx) ** 2 + (y - ky) ** 2 > gap * gap for kx, ky in kept):
            kept.append((x, y))
    return kept


def read_candidates(image: Image, centres: list[tuple[float, float]], die_px: float,
                    net: FaceNet) -> list[Seen]:
    """The dice among ``centres``: each looked at with every crop width, kept at the width the
    network is surest of a die, one per die, then read."""
    if not centres:
        return []
    stack = np.stack([crop(image, x, y, die_px * f) for x, y in centres for f in CROP_SCALES])
    no_die = net.probabilities(stack).reshape(len(centres), len(CROP_SCALES), len(CLASSES))[..., 0]
    places = []  # (probability of a die, x, y, width)
    for (x, y), p in zip(centres, no_die, strict=True):
        k = int(np.argmin(p))
        if p[k] < DIE_BELOW:
            places.append((1.0 - float(p[k]), x, y, die_px * CROP_SCALES[k]))
    kept: list[tuple[float, float, float, float]] = []
    for place in sorted(places, reverse=True):
        _, x, y, size = place
        if all(np.hypot(x - kx, y - ky) > MIN_GAP * max(size, ks) for _, kx, ky, ks in kept):
            kept.append(place)
    return _read_faces(image, kept, net)


def _read_faces(image: Image, places: list[tuple[float, float, float, float]],
                net: FaceNet) -> list[Seen]:
    """Each die's face from the mean of the network's answers on its eight turns and mirror
    images: a die has no up, and one view's quirk is outvoted by the others."""
    if not places:
        return []
    views = np.stack([v for _, x, y, size in places for v in turns(crop(image, x, y, size))])
    probs = net.probabilities(views).reshape(len(places), -1, len(CLASSES)).mean(axis=1)
    out = []
    for (die, x, y, size), p in zip(places, probs, strict=True):
        face = int(np.argmax(p[1:])) + 1
        out.append(Seen(CLASSES[face], float(p[face]), x, y, size, die))
    return out


def read_unknown_dice(image: Image, net: FaceNet) -> list[Seen]:
    """Find and read the dice of a frame without a profile."""
    centres, die_px = candidates(image)
    return read_candidates(image, centres, die_px, net)
