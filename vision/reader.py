"""The reader the table uses: a frame in, the dice on it out, each with a face and a confidence.

A profile may hold a household's several dice sets (``Profile.more_sets``), and a set the same set
learned from each of its shots (``Profile.lights``). Each of them reads the frame its own way
(``set_reader.py``) and the reading that explains the frame best is kept (``explains``): a roll is
thrown with one set. A game is played with one set, so the set that read the last roll reads the
next one first, and alone where its reading leaves no doubt; a set's lights compete with that set
only, and a set whose colour no die in the frame shows does not compete.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from vision.bodies import WEAK_PEAK, on_die
from vision.body_mask import CHROMA_TOL
from vision.confidence import SURE
from vision.diemap import Peak
from vision.profile import Profile
from vision.set_reader import (
    FrameNetworks,
    Read,
    SetReader,
    SetReading,
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

Reader = tuple[int, int]
"""Which reader of a profile: the index of its set (``Profile.sets``), and 0 for the set itself
or 1 on for its ``lights``."""


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
        self._sets = [[SetReader(p) for p in readers] for readers in self.profile.readers()]
        self._in_play: Reader = (0, 0)

    def read(self, image_bgr: np.ndarray) -> Reading:
        """Find and read the dice in a BGR frame of any size.

        The set in play (the one that read the last frame, at first the profile's first set; or
        one of its lights) reads the frame first, and alone where its reading leaves no doubt
        (``_beyond_doubt``). Three households of eight 3-D tuning sets, each set's 15 photos in
        turn: median frame 30 / 37 / 39 ms against 167 / 163 / 213 ms with every set reading
        every frame, 307 rolls of 360 read right against 305; the photos shuffled (a new set
        every frame, which no table does): the same 302 rolls, median 140-168 ms against
        151-182.

        Otherwise the set in play's lights and every other set that might own a die there by
        its colour (``SetReader.might_own``) read the frame, and the reading whose own colours
        explain it best wins (``_best``). A set's lights compete with their
        own set only: where another set wins, its lights read the frame too. Households of
        eight tuning sets whose lights all read every doubtful frame read 436 rolls of 480
        (442 without lights), a light of one set winning frames of another; with lights
        competing with their own set only, 446, and the hard households' median frame 113
        against 140 ms, run side by side."""
        networks = FrameNetworks(image_bgr)
        in_play = self._in_play
        first = self._reader(in_play).read_own(image_bgr, networks)
        reading = None if first is None else self._reading(image_bgr, first.dice, first.scale)
        if reading is not None and (sum(map(len, self._sets)) == 1
                                    or self._beyond_doubt(image_bgr, networks, reading)):
            return reading
        readings = {in_play: first}
        self._read_also(image_bgr, networks, readings, [
            *self._set_and_lights(in_play[0]),
            *self._others_of_colour(image_bgr, networks, reading)])
        best = self._best(image_bgr, readings)
        if best[0] != in_play[0]:
            self._read_also(image_bgr, networks, readings, self._set_and_lights(best[0]))
            best = self._best(image_bgr, readings)
        chosen = readings[best]
        if chosen is not None and explains(chosen.own) > 0:
            self._in_play = best  # an empty tray between rolls leaves the set in play
        if chosen is first and reading is not None:  # its doubtful dice are read again already
            return reading
        if chosen is None:
            chosen = self._reader(best).read_without_own(image_bgr, networks)
        return self._reading(image_bgr, chosen.dice, chosen.scale)

    def _others_of_colour(self, image_bgr: np.ndarray, networks: FrameNetworks,
                          reading: Reading | None) -> list[Reader]:
        """The household's other sets that might own a die of the frame by its colour
        (``SetReader.might_own``), at the places its dice may lie: the set in play's dice
        (``reading``) and the die map's strong peaks. A lone set (with or without lights)
        has none, and looks at no colour."""
        others = [i for i in range(len(self._sets)) if i != self._in_play[0]]
        if not others:
            return []
        dice = list(reading.dice) if reading is not None else []
        middles = middle_colours(image_bgr, [*dice, *_strong_peaks(networks, dice)])
        return [(i, 0) for i in others if self._sets[i][0].might_own(middles)]

    def _reader(self, which: Reader) -> SetReader:
        """A set's reader, or one of its lights'."""
        return self._sets[which[0]][which[1]]

    def _set_and_lights(self, dice_set: int) -> list[Reader]:
        """A set's reader and its lights'."""
        return [(dice_set, j) for j in range(len(self._sets[dice_set]))]

    def _read_also(self, image_bgr: np.ndarray, networks: FrameNetworks,
                   readings: dict[Reader, SetReading | None], which: Sequence[Reader]) -> None:
        """Adds to ``readings`` those of the readers ``which`` it lacks."""
        for key in which:
            if key not in readings:
                readings[key] = self._reader(key).read_own(image_bgr, networks)

    def _best(self, image_bgr: np.ndarray, readings: dict[Reader, SetReading | None]) -> Reader:
        """The reader whose own dice explain the frame best (``explains``); of equals (a lone
        die that two sets read surely), the one whose body colour the dice show
        (``SetReader.colour_distance``): three households of eight 3-D tuning sets then read
        301 of their 360 photos against 298 with the first of equals. A set whose body path
        found no die would read the frame by the networks, none of those dice its own: it
        explains nothing, so that reading is made only if the set wins, when no set's own dice
        explain the frame (in a household of eight 3-D tuning sets, a fifth of each other
        set's time); where none explains anything (an empty tray), the set in play reads it."""
        scores = {key: explains(reading.own) if reading else 0.0
                  for key, reading in readings.items()}
        top = max(scores.values())
        tied = [key for key, score in scores.items() if score == top]
        if len(tied) == 1 or top == 0:
            return tied[0]
        return min(tied, key=lambda key: self._colour_distance(image_bgr, key, readings[key]))

    def _colour_distance(self, image_bgr: np.ndarray, key: Reader, reading: SetReading | None
                         ) -> float:
        """How far the reader's own dice in a frame are from its body colour."""
        if reading is None:
            return float("inf")
        return self._reader(key).colour_distance(
            middle_colours(image_bgr, reading.own, reading.scale))

    def _beyond_doubt(self, image_bgr: np.ndarray, networks: FrameNetworks, reading: Reading
                      ) -> bool:
        """Does the set in play's reading of a frame leave no doubt, so that the household's
        other sets and its own lights need not read it? Every die read surely, every strong
        peak of the die map (``bodies.WEAK_PEAK`` and up, at the dice's width) on one of them,
        and the dice no further from the reader's body colour than ``ALIKE`` beyond the
        nearest other reader's (a reader without a calibrated body colour never reads
        alone). Without the colour, a set that reads another set's dice surely kept frames of
        the other set (the shuffled tuning households: 297 rolls against 302); without the
        peaks, a white set that read the white symbol on a green die as its lone 1 kept a roll
        of six green dice (``household_bench.py``, normal light, the pair of sets 31 and
        44)."""
        if not reading.dice or any(d.uncertain for d in reading.dice):
            return False
        width = float(np.median([d.size for d in reading.dice]))
        if not all(any(on_die(peak, d, width) for d in reading.dice)
                   for peak in _strong_peaks(networks, reading.dice)):
            return False
        middles = middle_colours(image_bgr, reading.dice)
        mine = self._reader(self._in_play).colour_distance(middles)
        others = [reader.colour_distance(middles)
                  for i, readers in enumerate(self._sets) for j, reader in enumerate(readers)
                  if (i, j) != self._in_play]
        return mine < float("inf") and mine <= min(others, default=mine) + ALIKE

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


def _strong_peaks(networks: FrameNetworks, dice: Sequence[Detection]) -> list[Peak]:
    """The die map's strong peaks (``bodies.WEAK_PEAK`` and up) at the dice's median width, or
    at the map's own width where there are none."""
    width = float(np.median([d.size for d in dice])) if dice else None
    return networks.map.peaks(WEAK_PEAK, width)


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
