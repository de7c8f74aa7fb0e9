"""One dice set's reading of a frame: which of the readers reads this set, and the dice it finds.

A calibrated set is read by its bodies (``bodies.py``), with the die map proposing the dice the
body masks missed (a dark set's map lifted to mid tones: ``diemap.tone_lift``; lifting the
networks' map too lost dice they had found) and the face networks adding the dice they read away
from all of those, unless calibration found that the face network reads it better
(``calibration.py``). Where that reading is in doubt (a die read unsure, or a die-map peak the
set's templates could not read) it is merged with the networks' reading of the whole frame, die
by die (``merged``). With no profile, dice are read by the face network (``uncalibrated.py``). A
calibrated set whose bodies do not stand out from the surface in a frame, or in which its
colours and templates find no die, is read by the network too, which reads the set's fuel symbol
with the set's own templates (``network_fuel.py``; on twelve 3-D rendered MLEM tuning sets,
reading the frames where they found none so read 0.567 exact against 0.561); a set whose symbol
the body path never learned falls back to the pip-first reader, the one reader that knows the
symbol without the body path. A die only the networks read, on a mark of the table that they
read as a die in the calibration shots (``Profile.table_marks``), is that mark and is dropped.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache, cached_property
from typing import NamedTuple

import numpy as np

from vision.bodies import OVERLAP, Placed, TemplateReads, missed_dice, read_bodies, recentred
from vision.body_face import BodyRead, pip_templates
from vision.body_mask import unit_colour
from vision.confidence import SURE
from vision.detect import PIP_ROUNDNESS, Frame, die_size_candidates, group_spots, prepare
from vision.diemap import FrameMap, Peak, tone_lift
from vision.faces import FaceRead, best_reads
from vision.network_fuel import FUEL, FUEL_SURE, fuel_at_peaks, fuel_faces, fuel_known, with_fuel
from vision.profile import Profile, body_match
from vision.top_face import dice_at_peaks
from vision.uncalibrated import (
    PEAK_ABOVE,
    Candidate,
    Networks,
    Seen,
    read_candidates,
    read_unknown_dice,
)

Read = BodyRead | Seen | FaceRead

SAME_DIE = OVERLAP
"""Two readings whose centres lie closer than this of the larger width are one die."""
NETWORK_WIDTHS = (0.6, 1.7)
"""Widths, over the body path's die width, of a die the networks add (their crops run about a
fifth wider than the body path's squares): a printed planet on a galaxy mat, read as a 1 two and
a half dice wide, is no die of this set. Under a tilted camera the far dice look narrower than
the set's width (3-D tuning set 5013: 4s read 46 and 65 px wide against 93): from 0.7, the
24 3-D tuning sets read 301 rolls of 360 against 297, flat hard sets 0.952 either way; from
0.5 a flat hard set lost a roll."""

ON_MARK = (0.5, 1.25)
"""A die the networks read is a mark of the table when its centre lies within the first of the
mark's width from the mark's and its width is within the second's factor of the mark's: the
same camera sees a mark where and as wide as it did at calibration. Without the width, marks
twice a die wide that the networks read in one-die calibration shots of a standard set on a
busy mat dropped real dice around them (a set read by the networks lost 0.16 of its rolls)."""

MIDDLE = 0.3
"""A die's middle, whose colour is its body's (``middle_colours``), reaches this of
its width each side of its centre: inside the rim, mostly body around a face's pips."""

OWN_COLOUR = 0.5
"""A die the networks read is a network-read set's own where its middle's chromaticity
(``middle_colours``) lies within this of the set's body colour: a set's own dice lie about 0.2
from it, another set's about 1 (``reader.ALIKE``). Every die its own, such a set outbid the
body-path sets of a household for their frames: eight 3-D tuning sets (5025-5032, 5025 read by
the networks) read 105 rolls of 120 against 103 (104 within 0.3), median frame 14.8 against
18.6 ms; eight standard sets, all read by the networks (tuning seeds 6001-6008), 113 either
way."""

OWN_BESIDE_SURE = 0.9
"""A body-path reading owns, besides its bodies, the dice found beside them (``_beside``, the
weak peaks, the networks' merged dice) that show the set's body colour (``OWN_COLOUR``) and are
read at least this sure. A set's lights compete on what they own (``reader.explains``), and a
network-read light owns every die of the set's colour: owning its bodies alone, a light that
read all six dice of 3-D tuning set 5041's photo 12 lost to one that read four. On the 48 3-D
tuning sets 676 rolls of 720 against 675 (wrong unasked 9 against 10), hard 542 against 540
(26 against 25); households of eight 446 against 445 (9 wrong unasked either way), hard
348 against 344 (33 against 34). Owning every such die, however sure: hard 544 rolls, but 31
wrong unasked (bench/results/2026-12-07-tried-own-extras.md)."""

MIGHT_OWN = 0.8
"""A household's set reads a frame the set in play doubts only where one of the places a die
may lie (the set in play's dice, the die map's strong peaks) shows a colour within this of the
set's body colour (chromaticity, as ``OWN_COLOUR``): a set whose colour no die shows finds
little of its own there, yet its body path and its templates search the frame at length (in a
hard household of eight 3-D tuning sets, the other sets' readings that found no die took
13 ms each, a third of the household's time). In the frames of four households of eight
tuning sets, the nearest place to the set thrown lay at most 0.83 from its colour (0.78 in
hard light), and within 0.8 in all frames but one; the nearest to another set beyond 0.8 in
four frames of ten (a third in hard light). The households read 445 rolls of 480 against
446, in hard light 344 against 340, their photos shuffled 435 against 437 and 330 against 334
(bench/results/2026-12-07-might-own.md, which gives the times); at 0.6, 445, 344 and 434."""

WEAK_PEAK_SURE = 0.9
"""A die the face networks read at a weak die-map peak the templates could not read
(``bodies.Missed.weak``) is kept when read at least this sure and showing the set's body colour
(``OWN_COLOUR``): a die the body mask missed whose peak came out weak (a tilted die's top and
side face, a die against another). On the 48 3-D tuning sets 646 rolls of 720 against 644
(OpenCV 4.6: 637 against 635), none worse. Every die the networks read there: 647, but the
busy printed mat's planets passed as dice (flat hard set 0.985 -> 0.980, twenty hard styles
0.948 -> 0.942); with the colour bar alone 0.944; with both bars the flat sets and households
read as before."""

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


class SetReading(NamedTuple):
    """One set's reading of a frame: its dice (``scale`` working pixels per frame pixel), and
    those among them that the set's own colours and templates found: the dice that tell this
    set's reading from another set's, since the networks read any set's pips alike. For the
    body path, its bodies and the dice found beside them that show its body colour, read
    ``OWN_BESIDE_SURE`` or surer; for a set calibration gave to the networks, the dice showing
    its body colour (``OWN_COLOUR``); all of them for a set without a body colour; none when
    the body path found no die and the networks read the frame."""

    dice: Sequence[Read]
    scale: float
    own: Sequence[Read]


@cache
def shipped_networks() -> Networks:
    """The shipped networks, loaded once per process: every dice set's reader shares them (an
    ONNX Runtime session may run from several threads)."""
    return Networks.load()


class FrameNetworks:
    """The shipped networks' reading of one frame, and its die map, each made at most once
    however many of a household's dice sets ask for them; each set then reads its own fuel
    symbol into the reading."""

    def __init__(self, image_bgr: np.ndarray) -> None:
        self.image = image_bgr
        self._dice: list[Seen] | None = None

    @cached_property
    def map(self) -> FrameMap:
        """The frame's die map."""
        return FrameMap(shipped_networks().diemap, self.image)

    def dice(self, die_px: float | None = None, lift: float = 1.0) -> list[Seen]:
        """The dice the networks read in the frame; ``die_px``: their width where a calibrated
        set's body path found it, so the die map's run at that width (``FrameMap``) serves the
        networks too (the first set to ask gives the width and ``lift``). On 24 3-D rendered
        MLEM tuning sets this read 274 of 360 rolls against 273 with the map's own run at its
        working side, the sets' median frame 66 against 76 ms. ``lift``: the set's tone lift
        (``diemap.tone_lift``), so a dark set's networks read the peaks of the same lifted map
        its body path searched, and the map is not run again in the frame's own tones: the
        48 tuning sets read 644 rolls of 720 against 642 (OpenCV 4.6: 634 against 632), faces
        misread 45 against 51, set 5004 (black dice on a playmat) at a median 39 against 48 ms.
        Without ``die_px`` the map runs at its working side in the frame's own tones, through
        ``map`` like every other run, so a later look at the same scale (the body path's, the
        fuel search's) runs it no more: photos read with another set's calibration ran it 2.04
        times a frame against 2.47, the same readings."""
        if self._dice is None:
            peaks = (self.map.peaks(PEAK_ABOVE) if die_px is None
                     else self.map.peaks(PEAK_ABOVE, die_px, lift))
            self._dice = read_unknown_dice(self.image, shipped_networks(), peaks)
        return self._dice


class SetReader:
    """Reads frames as one dice set (the module docstring says which reader reads it)."""

    def __init__(self, profile: Profile) -> None:
        self.profile = profile
        look = profile.look()
        self._body = None if look is None else unit_colour(np.array(look.body, np.float32))
        self._look = None if profile.network_reads else look
        self._lift = tone_lift(look.body) if look else 1.0
        self._templates = pip_templates(look) if look else None
        self._fuel_look = look if fuel_known(look) else None
        self._nets = shipped_networks() if profile.fuel is None or self._fuel_look else None

    def read_own(self, image_bgr: np.ndarray, networks: FrameNetworks) -> SetReading | None:
        """The dice of a BGR frame as this set reads them (``networks``: the frame's network
        reading, shared with the household's other sets); None where the reading would hold
        none of the set's own dice: where the body path finds no die and the networks read the
        frame (``read_without_own``), which a household needs only if this set wins
        (``reader.DiceReader.read``)."""
        reads = self._template_reads(image_bgr)
        if self._look is not None and reads is not None:
            reading = self._read_bodies(networks, reads)
            # without the networks the pip-first reader reads instead, its dice the set's own
            if reading is not None or self._nets is not None:
                return reading
        return self.read_without_own(image_bgr, networks, reads)

    def _template_reads(self, image_bgr: np.ndarray) -> TemplateReads | None:
        """A frame's reads by the set's own templates, which its body path and its fuel search
        share; None for a set that reads no frame by them."""
        look = self._look if self._look is not None else self._fuel_look
        if look is None or self._templates is None:
            return None
        return TemplateReads(image_bgr, look, self._templates)

    def _read_bodies(self, networks: FrameNetworks, reads: TemplateReads) -> SetReading | None:
        """The body path's reading (the module docstring says how); None when it finds no die
        (the set's colours do not single dice out, or find none)."""
        assert self._look is not None and self._templates is not None
        found = read_bodies(reads.image, self._look, self._templates, frame=networks.map,
                            lift=self._lift)
        if found is None:
            return None
        found = recentred(networks.map, found, reads, self._lift)
        missed = missed_dice(networks.map, found, reads, self._lift)
        bodies = [*found, *missed.dice]
        if not bodies:
            return None
        die = float(np.median([b.size for b in bodies]))
        dice = [*bodies, *self._beside(reads, bodies, die, missed.unread)]
        dice += self._at_weak_peaks(reads, dice, die, missed.weak)
        if self._nets is not None and (missed.unread or any(
                d.confidence < SURE for d in dice)):
            sure = [d for d in bodies if d.confidence >= SURE]
            dice = merged(dice, self._by_network(networks, reads, die, sure))
        beside = [d for d in dice[len(bodies):] if d.confidence >= OWN_BESIDE_SURE]
        return SetReading(dice, 1.0, [*bodies, *self._own_colour(reads.image, beside)])

    def read_without_own(self, image_bgr: np.ndarray, networks: FrameNetworks,
                         reads: TemplateReads | None = None) -> SetReading:
        """The frame read without the set's body path (none, or it found no die): by the
        networks, with the set's fuel templates, or by the pip-first reader (the module
        docstring says which). ``reads``: the set's template reads of the frame so far."""
        if self._nets is not None:
            if reads is None:
                reads = self._template_reads(image_bgr)
            seen = self._by_network(networks, reads)
            if self._look is not None:
                # read by the networks where the body path found nothing: none is its own
                return SetReading(seen, 1.0, [])
            return SetReading(seen, 1.0, self._own_colour(image_bgr, seen))
        best: tuple[float, Frame, list[FaceRead]] | None = None
        for die_frame in die_size_candidates(image_bgr):
            frame = prepare(image_bgr, die_frame)
            found = self._read_frame(frame)
            evidence = sum(r.confidence * r.spots - DIE_COST for r in found)
            if best is None or evidence > best[0]:
                best = (evidence, frame, found)
        assert best is not None
        _, frame, found = best
        return SetReading(found, frame.scale, found)

    def _own_colour(self, image_bgr: np.ndarray, seen: Sequence[Read]) -> Sequence[Read]:
        """Of the dice the networks read (or the body path found beside its bodies), those
        showing the set's body colour (``OWN_COLOUR``): for a set calibration gave to the
        networks, its own, which tell its reading from another set's in a household; at weak
        die-map peaks, the set's dice among what the networks found there (``_at_weak_peaks``);
        beside the body path's bodies, its own where read surely (``OWN_BESIDE_SURE``); all of
        them for a set without a calibrated body colour."""
        if self._body is None or not seen:
            return seen
        far = self._from_body(middle_colours(image_bgr, seen))
        return [d for d, f in zip(seen, far, strict=True) if f < OWN_COLOUR]

    def colour_distance(self, middles: np.ndarray) -> float:
        """How far from this set's calibrated body colour dice look whose middles have the
        chromaticities ``middles`` (``middle_colours``): the median distance; infinite for a set
        without a calibrated body, or for no dice. Tells apart the sets of a household whose
        readings explain a frame equally, and says whether a frame's dice show the colour of
        the set in play (``reader.DiceReader.read``)."""
        if self._body is None or not len(middles):
            return float("inf")
        return float(np.median(self._from_body(middles)))

    def might_own(self, middles: np.ndarray) -> bool:
        """Might any of the dice whose middles have the chromaticities ``middles``
        (``middle_colours``) be this set's, by their colour (``MIGHT_OWN``)? Yes for a set
        without a calibrated body colour, and where no die is seen."""
        if self._body is None or not len(middles):
            return True
        return bool(self._from_body(middles).min() <= MIGHT_OWN)

    def _from_body(self, middles: np.ndarray) -> np.ndarray:
        """Each die's distance from the set's calibrated body colour, by the chromaticities of
        its middle (``middle_colours``); for a set with a calibrated body."""
        assert self._body is not None
        distances: np.ndarray = np.linalg.norm(middles - self._body, axis=1)
        return distances

    def _by_network(self, networks: FrameNetworks, reads: TemplateReads | None,
                    die_px: float | None = None, read: Sequence[BodyRead] = ()
                    ) -> Sequence[Read]:
        """The dice as the face networks read them (``FrameNetworks.dice``), fuel faces by the
        set's templates (``reads``), except on the dice the body path ``read`` surely
        (``with_fuel``)."""
        assert self._nets is not None
        seen = self._off_marks(networks.dice(die_px, self._lift), networks.image.shape)
        if self._fuel_look is not None and reads is not None:
            return with_fuel(networks.map, seen, reads, read, die_px, self._lift)
        return seen

    def _beside(self, reads: TemplateReads, bodies: Sequence[Read], die: float,
                unread: Sequence[Peak]) -> Sequence[Read]:
        """The face networks' reading of the die map's peaks the set's templates could not read
        (``missed_dice``), kept where they find a die about as wide as the set's dice
        (``NETWORK_WIDTHS``) away from every die the body path found: dice whose body the
        colour does not describe in this light (a tilted camera sees a die's shaded side, a
        lamp or a ring light washes its top out). On twelve 3-D rendered MLEM sets
        (``render_wild.py``, seeds 5001-5012, 15 rolls each) this read 0.56 exact against
        0.45, on twenty flat rendered sets in hard light 0.946 against 0.942. Adding every die
        the networks read in the whole frame read 0.58 and 0.944 at three to five times the
        cost; without the width bar, printed discs of busy mats passed as dice (0.936). A
        frame whose peaks the body path explained costs nothing more. A peak the networks find
        no die at is looked for again around it (``top_face.dice_at_peaks``): the 48 tuning
        sets read 642 rolls of 720 against 639 (OpenCV 4.6: 632 against 630), none worse, the
        median frame alike. Fuel dice, which the networks do not know, are read at the peaks
        no die lies on by the set's templates (``network_fuel.fuel_at_peaks``). ``bodies``
        holds at least one die (a frame where the body path found none is the networks'
        alone), ``die`` their median width; ``reads``: the set's template reads of the frame."""
        if self._nets is None or not unread:
            return []
        image_bgr = reads.image
        places = [Candidate(p.x, p.y, p.width) for p in unread]
        crop_px = float(np.median([p.width for p in unread]))
        read = read_candidates(image_bgr, places, crop_px, self._nets)
        read += [d for d in dice_at_peaks(image_bgr, unread, read, die, crop_px, self._nets)
                 if not any(one_die(d, r) for r in read)]
        beside = [d for d in self._off_marks(read, image_bgr.shape)
                  if as_wide_as_the_set(d, die) and not any(one_die(d, b) for b in bodies)]
        if self._fuel_look is None:
            return beside
        return [*fuel_faces(beside, reads), *fuel_at_peaks(unread, [*bodies, *read], die, reads)]

    def _at_weak_peaks(self, reads: TemplateReads, dice: Sequence[Read], die: float,
                       weak: Sequence[Peak]) -> list[Read]:
        """The dice at the weak die-map peaks the templates could not read (``weak``), read as
        ``_beside`` reads the strong ones and kept where read ``WEAK_PEAK_SURE`` or surer in
        the set's body colour; ``dice``: those read already, ``die`` their median width."""
        found = self._beside(reads, dice, die, weak)
        return [d for d in self._own_colour(reads.image, found) if d.confidence >= WEAK_PEAK_SURE]

    def _off_marks(self, seen: list[Seen], shape: tuple[int, ...]) -> list[Seen]:
        """The networks' dice but those on a mark of the table (``Profile.table_marks``, as
        ``ON_MARK`` says)."""
        if not self.profile.table_marks:
            return seen
        near, alike = ON_MARK
        marks = self.profile.marks_in(shape)
        return [d for d in seen if not any(
            np.hypot(d.x - x, d.y - y) < near * width and 1 / alike < d.size / width < alike
            for x, y, width in marks)]

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


def middle_colours(image_bgr: np.ndarray, dice: Sequence[Placed], scale: float = 1.0
                   ) -> np.ndarray:
    """The chromaticities (``unit_colour``) of the median colour of the middle of each die
    (``MIDDLE`` of its width each side; ``scale`` working pixels per frame pixel), one row per
    die: the colour of its body, whichever set read it (``SetReader.colour_distance``)."""
    h, w = image_bgr.shape[:2]
    colours = []
    for die in dice:
        x, y, r = (v / scale for v in (die.x, die.y, MIDDLE * die.size))
        middle = image_bgr[max(0, int(y - r)):min(h, int(y + r) + 1),
                           max(0, int(x - r)):min(w, int(x + r) + 1)].reshape(-1, 3)
        colours.append(unit_colour(np.median(middle, axis=0).astype(np.float32)))
    return np.array(colours, np.float32).reshape(-1, 3)


def merged(dice: Sequence[Read], seen: Sequence[Read]) -> list[Read]:
    """The body path's dice and the networks' reading of the whole frame as one reading, made
    where the body path's reading is in doubt: a die read less than ``confidence.SURE``, about
    which the table would ask, or a die-map peak the set's templates could not read. On twelve
    3-D rendered MLEM tuning sets (seeds 5001-5012) merging there read 0.700 exact against
    0.611, on twenty flat hard sets 0.964 against 0.946; merging every frame read those flat
    sets 0.970 but made every frame pay for the networks
    (bench/results/2026-12-02-merge-retrain.md).

    Of two
    readings of one die the surer wins, except that the set's templates' sure fuel symbol beats
    the networks' 1: the networks do not know the symbol and read its one blob as a 1's pip. A
    face of two or more pips is not what the networks make of a symbol, so the surer still
    wins there: the templates read the symbol on a tilted die's side face as a sure fuel over
    the 2 on its top (3-D tuning set 5019; tuning sets 293 -> 294 rolls of 360, flat hard sets
    0.950 -> 0.952). A die only the networks saw is kept when about as wide as the body path's
    dice (``NETWORK_WIDTHS``)."""
    die = float(np.median([d.size for d in dice]))
    out = list(dice)
    for s in seen:
        near = [i for i, d in enumerate(dice) if one_die(s, d)]
        if not near:
            if as_wide_as_the_set(s, die):
                out.append(s)
            continue
        i = min(near, key=lambda i: np.hypot(s.x - dice[i].x, s.y - dice[i].y))
        if s.confidence > out[i].confidence and not (
                out[i].face == FUEL and out[i].confidence >= FUEL_SURE and s.face == "1"):
            out[i] = s
    return out


def one_die(a: Read, b: Read, within: float = SAME_DIE) -> bool:
    """Do two readings lie on one die (centres closer than ``within`` of the larger width)?"""
    return bool(np.hypot(a.x - b.x, a.y - b.y) < within * max(a.size, b.size))


def as_wide_as_the_set(d: Read, die: float) -> bool:
    """Is a die the networks read about as wide as the set's dice, ``die`` frame pixels
    (``NETWORK_WIDTHS``)?"""
    low, high = NETWORK_WIDTHS
    return low * die <= d.size <= high * die
