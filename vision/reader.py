"""The reader the table uses: a frame in, the dice on it out, each with a face and a confidence.

A profile may hold a household's several dice sets (``Profile.more_sets``), and a set the same set
learned from each of its shots (``Profile.lights``). Each of them reads the frame its own way
(``set_reader.py``) and the reading that explains the frame best is kept (``explains``): a roll is
thrown with one set. A game is played with one set, so the set that read the last roll reads the
next one first, and alone where its reading leaves no doubt.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from vision.bodies import WEAK_PEAK, on_die
from vision.body_mask import CHROMA_TOL
from vision.confidence import SURE
from vision.profile import Profile
from vision.set_reader import (
    FrameNetworks,
    Read,
    SetReader,
    middle_colours,
    one_die,
    shipped_networks,
)
from vision.threads import one_thread
from vision.top_face import at_top_faces

ALIKE = CHROMA_TOL
"""How much further from the set in play's body colour than from another set's (in
``SetReader.colour_distance``) a frame's dice may look for the set in play to read it alone:
the body mask's own chromaticity tolerance, within which it cannot tell the two colours apart
either. A set's own dice lie about 0.2 from its body colour, another set's about 1 (3-D tuning
sets 5001 and 5003). On three households of eight 3-D tuning sets, each set's photos in turn
or all shuffled, any margin from 0 to 0.3 read the same rolls but one; the median frame
(grouped) was 26 / 44 / 102 ms at 0, 27 / 33 / 37 at 0.16."""

SIDE_FACE_BELOW = 0.3
"""A die read less sure than this whose centre lies closer than ``SIDE_FACE_GAP`` of the larger
width to a surer die's is a side face or the shade of that die, and is dropped
(``off_side_faces``). On the 48 3-D tuning sets every such die was false (0.03 to 0.25 sure,
0.48 to 0.87 of a width from a die read 0.68 to 1.0 sure; on OpenCV 4.6 one was a real 2 beside
a false 4 read surer, a roll wrong either way); the least sure real die that close to another
was read 0.45 sure there, and 0.44 on dice-real's 250 photos."""
SIDE_FACE_GAP = 0.9
"""Two dice lying flat cannot lie closer than their width; a tilted camera shows a die's side
faces beside its top, where a body or a die-map peak can be read as another, doubtful, die.
The bar is for doubtful dice only: the face networks' widths run wide, so on dice-real's
crowded photos real dice read 0.9 sure and more lie 0.72 to 0.9 of the larger width apart
(dropping the less sure of any two dice closer than ``bodies.OVERLAP`` cost 0.896 -> 0.844
exact there)."""


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
        self._sets = [SetReader(p) for p in self.profile.readers()]
        self._in_play = 0

    def read(self, image_bgr: np.ndarray) -> Reading:
        """Find and read the dice in a BGR frame of any size.

        The set in play (the one that read the last frame, at first the profile's first set)
        reads the frame first, and alone where its reading leaves no doubt (``_beyond_doubt``).
        Three households of eight 3-D tuning sets, each set's 15 photos in turn: median frame
        30 / 37 / 39 ms against 167 / 163 / 213 ms with every set reading every frame, 307
        rolls of 360 read right against 305; the photos shuffled (a new set every frame, which
        no table does): the same 302 rolls, median 140-168 ms against 151-182.

        Otherwise every set of a household reads the frame and the set whose own colours
        explain it best wins (and is in play, unless no set's own dice explain the frame); of
        equals (a lone die that two sets read surely), the set whose body colour the dice show
        (``SetReader.colour_distance``): three households of eight 3-D tuning sets then read
        301 of their 360 photos against 298 with the first of equals. A set whose body path
        found no die would read the frame by the networks, none of those dice its own: it
        explains nothing, so that reading is made only if the set wins, when no set's own dice
        explain the frame (in a household of eight 3-D tuning sets, a fifth of each other
        set's time)."""
        networks = FrameNetworks(image_bgr)
        in_play = self._in_play
        first = self._sets[in_play].read_own(image_bgr, networks)
        reading = None if first is None else self._reading(image_bgr, first.dice, first.scale)
        if reading is not None and (
                len(self._sets) == 1 or self._beyond_doubt(image_bgr, networks, reading)):
            return reading
        readings = [first if j == in_play else dice_set.read_own(image_bgr, networks)
                    for j, dice_set in enumerate(self._sets)]
        scores = [0.0 if reading is None else explains(reading.own) for reading in readings]
        k = scores.index(max(scores))
        tied = [(j, reading) for j, reading in enumerate(readings)
                if reading is not None and scores[j] == scores[k] > 0]
        if len(tied) > 1:
            k = min(tied, key=lambda t: self._sets[t[0]].colour_distance(
                middle_colours(image_bgr, t[1].own, t[1].scale)))[0]
        if scores[k] > 0:  # an empty tray between rolls leaves the set in play
            self._in_play = k
        best = readings[k]
        if best is first and reading is not None:  # its doubtful dice are read again already
            return reading
        if best is None:
            best = self._sets[k].read_without_own(image_bgr, networks)
        return self._reading(image_bgr, best.dice, best.scale)

    def _beyond_doubt(self, image_bgr: np.ndarray, networks: FrameNetworks, reading: Reading
                      ) -> bool:
        """Does the set in play's reading of a frame leave no doubt, so that the household's
        other sets need not read it? Every die read surely, every strong peak of the die map
        (``bodies.WEAK_PEAK`` and up, at the dice's width) on one of them, and the dice no
        further from the set's body colour than ``ALIKE`` beyond the nearest other set's (a set
        without a calibrated body colour never reads alone). Without the colour, a set that
        reads another set's dice surely kept frames of the other set (the shuffled tuning
        households: 297 rolls against 302); without the peaks, a white set that read the white
        symbol on a green die as its lone 1 kept a roll of six green dice
        (``household_bench.py``, normal light, the pair of sets 31 and 44)."""
        if not reading.dice or any(d.uncertain for d in reading.dice):
            return False
        width = float(np.median([d.size for d in reading.dice]))
        if not all(any(on_die(peak, d, width) for d in reading.dice)
                   for peak in networks.map.peaks(WEAK_PEAK, width)):
            return False
        middles = middle_colours(image_bgr, reading.dice)
        distances = [dice_set.colour_distance(middles) for dice_set in self._sets]
        mine = distances.pop(self._in_play)
        return mine < float("inf") and mine <= min(distances, default=mine) + ALIKE

    def _reading(self, image_bgr: np.ndarray, reads: Sequence[Read], scale: float) -> Reading:
        """The reads (``scale`` working pixels per frame pixel) as detections, top to bottom,
        the doubtful ones read again at their top face's centre (``top_face.at_top_faces``),
        then those on a surer die's side face dropped (``off_side_faces``)."""
        reads = off_side_faces(at_top_faces(image_bgr, reads, scale, shipped_networks()))
        dice = tuple(
            Detection(r.face, r.x / scale, r.y / scale, r.size / scale, round(r.confidence, 3),
                      r.face is None or r.confidence < SURE)
            for r in sorted(reads, key=lambda r: (r.y, r.x)))
        error = None
        if len(dice) > self.max_dice:
            error = f"{len(dice)} dice seen, at most {self.max_dice}"
        return Reading(dice, error)


def off_side_faces(reads: Sequence[Read]) -> list[Read]:
    """The reads but the doubtful ones on a surer die's side face (``SIDE_FACE_BELOW``,
    ``SIDE_FACE_GAP``). Each step of a set's reading keeps its dice apart from those it knows
    of, yet the last reading can hold two on one die: the body path cuts the blob of a die and
    its side face into two squares (3-D tuning sets 5043, photo 6; 5029, photo 3), and the
    networks' dice merged in are placed and sized their own way (5029, photo 11: a 4 widened
    by half onto a doubtful fuel symbol beside it). On the 48 tuning sets this read 656 rolls
    of 720 against 651 (OpenCV 4.6: 649 against 646), twenty flat hard sets 0.950 against
    0.948, dice-real as before."""
    return [read for read in reads if read.confidence >= SIDE_FACE_BELOW or not any(
        one_die(read, other, SIDE_FACE_GAP)
        for other in reads if other.confidence > read.confidence)]


def explains(reads: Sequence[Read]) -> float:
    """How well a set's own dice explain a frame: the sum of their confidences. A set whose
    body colour is not on the table finds no dice, or reads the other set's in doubt; a die
    with no face read counts nothing."""
    return sum(r.confidence for r in reads if r.face)
