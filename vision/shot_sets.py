"""Which calibration shots show the same dice set.

A dataset's calibration lines may hold a household's sets, each shown in its own shots
(``companion vision eval`` and ``calibrate --dataset`` calibrate on all of them). Learned as
one set, their body colours and pip templates blur together: eight 3-D tuning sets pooled so
read 0.55-0.58 of their rolls, against about 0.92 with each set calibrated on its own shots in
one household profile. So shots are grouped into sets first, and each set is calibrated on its
own shots (``calibration.calibrate``).

Two shots show the same set when they share a frame size and either their dice look alike
(``apart`` under 1: body chromaticity within ``SAME_CHROMA`` and body against surface within
``SAME_CONTRAST``) or the body path learned from one shot reads the other's dice
(``READS_ACROSS``). Groups join only where every pair of their shots does (joining through any
one pair chained white sets together: of 200 random pools of eight of the tuning sets 5001-5032,
0.60 of the sets came out alone and whole, against 0.81), the nearest groups first
(``_linked``), so the order of the shots matters only between groups equally near. Exposure,
white balance and the lamp's place change from shot to shot, so these tests missed the two shots
of one set in 4 of those 32 sets; but a set is shown in two shots, so a shot alike to no other
joins the set it looks most like (``apart``). An owner's two shots of one set are thus never
split, and three or fewer shots are one set. Shots of fewer than ``SET_SHOT_DICE`` dice (the
camera's and the image folder's one die a shot) are one set too: one die says too little.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from functools import cache
from itertools import combinations
from typing import NamedTuple

import numpy as np

from vision.bodies import read_bodies
from vision.body_face import Look, Templates, pip_templates
from vision.body_learn import read_back
from vision.detect import Image, estimate_die_px
from vision.profile import LabelledDie, learn_profile

Shot = tuple[Image, Sequence[LabelledDie]]

SAME_CHROMA = 0.06
"""Largest difference in any normalised channel (b, g, r over their sum) between two shots'
median body colours that still shows one set."""
SAME_CONTRAST = 0.5
"""Largest difference in any channel of log(body / surface) between two shots that still shows
one set: a gain of exposure or white balance cancels out of the ratio."""
READS_ACROSS = 0.6
"""Share of a shot's labelled dice that the body path learned from another shot must read back
(``body_learn.read_back``) for the two to show one set."""
SET_SHOT_DICE = 3
"""Fewest labelled dice every shot must hold for shots to be told apart."""
SET_SHOTS = 2
"""Fewest shots a set is shown in (calibration asks for two): fewer than two sets' worth are
one set, and a shot alike to no other joins the set it looks most like."""
BODY_BOX = 0.25
"""Half the side of the square around a die's labelled centre that gives its body colour, in
die widths: the top face's middle, where pips cover less than the body."""
CLEAR_OF_DICE = 0.8
"""Half the side of the square around each die left out of the surface colour, in widths."""


class ShotLook(NamedTuple):
    """What tells one shot's set from another's."""

    shape: tuple[int, int]
    chroma: np.ndarray
    contrast: np.ndarray


def dice_sets(shots: Sequence[Shot]) -> list[list[Shot]]:
    """The shots grouped by the dice set they show, in the order each set first appears."""
    if len(shots) < 2 * SET_SHOTS or min(len(dice) for _, dice in shots) < SET_SHOT_DICE:
        return [list(shots)]
    looks = [shot_look(image, dice) for image, dice in shots]
    reads = CrossReads(shots)

    @cache
    def link(i: int, j: int) -> float:
        unlike = apart(looks[i], looks[j])
        if unlike < 1.0 or unlike == math.inf:
            return unlike
        return 1.0 if reads(i, j) or reads(j, i) else math.inf

    sets = _linked(len(shots), lambda i, j: link(min(i, j), max(i, j)))
    sets = _lone_shots_joined(sets, looks)
    return [[shots[i] for i in sorted(members)] for members in sorted(sets, key=min)]


def _linked(count: int, link: Callable[[int, int], float]) -> list[list[int]]:
    """Shot numbers grouped by complete linkage: the two groups whose farthest shots are
    nearest (``link``: how unlike two shots are, infinite for two sets) join first, while
    every pair of their shots is linked. Nearest first: joined in the order first found,
    a shot read across by one other shot could take it from the shots it looks like."""
    sets = [[i] for i in range(count)]
    while len(sets) > 1:
        nearest, (a, b) = min((max(link(i, j) for i in sets[a] for j in sets[b]), (a, b))
                              for a, b in combinations(range(len(sets)), 2))
        if nearest == math.inf:
            break
        sets[a] += sets.pop(b)
    return sets


def _lone_shots_joined(sets: list[list[int]], looks: Sequence[ShotLook]) -> list[list[int]]:
    """Each group of fewer than ``SET_SHOTS`` shots joined to the group holding the shot it
    looks most like (``apart``)."""
    sets = [list(s) for s in sets]
    while len(sets) > 1 and (alone := next((s for s in sets if len(s) < SET_SHOTS), None)):
        sets.remove(alone)
        nearest = min(((i, j) for i in alone for s in sets for j in s),
                      key=lambda pair: apart(looks[pair[0]], looks[pair[1]]))[1]
        next(s for s in sets if nearest in s).extend(alone)
    return sets


class CrossReads:
    """Does the body path learned from one shot alone read another shot's dice
    (``READS_ACROSS``)? Each shot is learned once, when first asked."""

    def __init__(self, shots: Sequence[Shot]) -> None:
        self._shots = shots
        self._learned: dict[int, tuple[Look, Templates] | None] = {}

    def __call__(self, learned_from: int, read: int) -> bool:
        if learned_from not in self._learned:
            look = learn_profile([self._shots[learned_from]]).look()
            self._learned[learned_from] = None if look is None else (look, pip_templates(look))
        learned = self._learned[learned_from]
        if learned is None:
            return False
        image, dice = self._shots[read]
        found = read_bodies(image, *learned) or []
        score = read_back([(r.face, r.x, r.y, r.size) for r in found],
                          [(d.face, d.x, d.y) for d in dice])
        return score >= READS_ACROSS * len(dice)


def apart(a: ShotLook, b: ShotLook) -> float:
    """How unlike two shots' dice look, in multiples of the most one set's shots differ (over
    1: not alike): a frame size of its own is farthest."""
    if a.shape != b.shape:
        return math.inf
    return float(max(np.abs(a.chroma - b.chroma).max() / SAME_CHROMA,
                     np.abs(a.contrast - b.contrast).max() / SAME_CONTRAST))


def shot_look(image: Image, dice: Sequence[LabelledDie]) -> ShotLook:
    """A shot's body colour (the median of its pip dice's middles; the fuel symbol can cover
    a die's middle) as chromaticity and against the surface (the frame away from the dice)."""
    die = estimate_die_px(image) or 0.08 * min(image.shape[:2])
    pixels = image.astype(np.float32) + 1.0
    surface = np.ones(image.shape[:2], bool)
    middles = []
    height, width = image.shape[:2]
    half, clear = max(2, int(BODY_BOX * die)), int(CLEAR_OF_DICE * die)
    for d in dice:  # a label off the frame is taken at its edge
        x, y = min(max(int(d.x), 0), width - 1), min(max(int(d.y), 0), height - 1)
        box = pixels[max(0, y - half):y + half, max(0, x - half):x + half].reshape(-1, 3)
        if d.face != "fuel" or all(o.face == "fuel" for o in dice):
            middles.append(np.median(box, axis=0))
        surface[max(0, y - clear):y + clear, max(0, x - clear):x + clear] = False
    body = np.median(middles, axis=0)
    floor = np.median(pixels[surface], axis=0) if surface.any() else body
    return ShotLook((height, width), body / body.sum(), np.log(body / floor))
