"""The calibrated path: die bodies found by the set's colour, each top face read in a square.

With a profile the reader knows what this dice set looks like: body colour, ink colours (pips,
fuel symbol), die size relative to the frame, pip geometry and the fuel symbol itself. Then the
dice are best found as bodies, not as pips:

1. Body mask at a coarse scale, holes filled; its cores lack the darker rims, so touching dice
   come apart (``body_mask.py``).
2. A body blob holds as many dice as its area says; each die is a square of the calibrated
   width (``body_split.py``).
3. The top face is warped to a canonical square, turned into ink maps and matched against the
   pip layouts and the fuel symbol (``body_face.py``).
4. The die map (``diemap.py``) finds the top of a tilted die whose square took in a side face
   (``recentred``), and proposes dice the body masks missed; each is read the same way
   (``missed_dice``). A dark set's map sees the frame lifted to mid tones
   (``diemap.tone_lift``).

This module reads a whole frame that way; calibration learns a set for it (``body_learn.py``).

Every size is a fraction of the die width; no per-pixel Python loops.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import combinations
from typing import NamedTuple, Protocol

import cv2
import numpy as np

from vision.body_face import BodyRead, Look, Templates, read_die
from vision.body_mask import coarse, die_masks
from vision.body_split import die_rects, seen_die_width
from vision.confidence import SURE
from vision.diemap import FrameMap, Peak, seen_width

RESCALE_BEYOND = 1.15
"""A frame's dice may look this much bigger or smaller than calibrated (the photos of a fixed
camera vary a few percent) before the masks are made again at the width they show."""
RESCALE_WITHIN = 1.6
"""The most they may look bigger or smaller and still be read at the width they show: a width
further off is no camera move (the bench moves it by 0.7 and 1.4 times) but a body colour near
the surface's, whose mask falls apart into pieces of dice. Pink dice on a light grey laminate
(3-D tuning set 5023) showed 35 px for 84 px dice; read again at 35 px, one pip became a sure
1, and the networks' dice, 85 px wide, were then too wide to be the set's. On the 24 3-D
tuning sets: 288 rolls of 360 against 285."""
RESCALE_ROUNDS = 2
"""Times a frame is read again at the width its body mask shows: a mask made at a wrong width
shows a width a little off too, so a second look settles it."""
DOUBT = 0.5
"""Confidence below which a die weighs against the reading it is part of (choosing a width)."""
OVERLAP = 0.8
"""Dice whose centres lie closer than this of their width overlap: they cannot both be dice."""
OVERLAP_COST = 1.0
"""What a pair of overlapping dice costs a reading (choosing a width): as much as a confident
die earns and more, so two halves of one die never beat the whole die."""
MISSED_PEAK = 0.4
"""A peak of the die map scoring at least this, away from every die the bodies gave, is looked
at as a die the body mask missed (``missed_dice``). Dark dice on a dark floor, which the mask
loses, score low on the map too (0.49 for a plain 2 on black felt, tuning set 5007): at 0.5 the
24 3-D tuning sets read 288 rolls of 360, at 0.4 292 (flat hard sets 0.948 -> 0.950), at 0.3
293 but 0.946; what is looked at must still read surely (``MISSED_SURE``)."""
WEAK_PEAK = 0.5
"""A peak scoring less than this is weak: its die is kept only where the templates read it at
``confidence.SURE`` or more, and it is not passed to the face networks on its own (only beside a
stronger peak left unread, as that die's side face: ``missed_dice``). On the flat bench's
busy printed mat, peaks of 0.41 and 0.47 were printed planets, read as a 4 at 0.54 by the
templates and as a 1 at 0.9 by the networks (rendered hard set: 0.98 against 0.99 looking at
weak peaks like strong ones; 3-D tuning sets 294 rolls of 360 either way, the camera moved in
hard light 2.74 against 2.76 over three moves)."""
MISSED_SURE = 0.45
"""Such a die is kept when its face is read at least this sure: at 0.3 (with the map's frame
not yet shrunk by a whole factor) a patch of the bench's busy mat passed as a die in one roll
of 200 in hard light; from 0.3 to 0.6, 20 other hard sets read the same within a roll in 500."""
EDGE_REACH = 0.75
"""Half the side of the window whose edges give a die's turn (``edge_turn``), in die widths."""
EDGE_AT = 0.55
"""Distance from the centre of a die's edges, in die widths (half a width at their middles,
0.7 at the corners); its pips lie nearer."""
EDGE_SPREAD = 0.12
"""Spread of the weight around ``EDGE_AT``: pips, whose outline on the pixel grid leans to the
diagonals at small sizes, and neighbouring dice count little."""
EDGE_TURNS = (0.0, 45.0)
"""The turns ``surest_read`` tries added to a die's turn from its edges (``edge_turn``, known
to a quarter turn) until one reads a face: the edges' turn, and the diagonal, where a die's
four edges fit both as well (a die cut by glare or a shadow). Every one of
``body_face.TURN_TRIALS`` (the halfway turns too), as a body's blob is tried: the 48 3-D tuning
sets read 645 rolls of 720 against 644 (OpenCV 4.6: 635 either way), their photos pooled by
eight and read with the first set's calibration (another set's dice, whose every peak the
templates tried at every turn) 403 against 402 (4.6: 405 either way) for a median frame of
22.3 against 18.1 ms (4.6: 22.7 against 20.4)."""
OFF_CENTRE = 0.4
"""A strong die-map peak at least this far from every die's centre, in die widths, but on a
die's body (within ``OVERLAP``) may be that die's top where the body path read a side face
(``recentred``)."""
RECENTRE_GAIN = 0.2
"""How much surer the read at such a peak must be, of another face, to replace the die."""
MAP_WIDTH_SLACK = 0.1
"""How much farther (in log ratio) a width read again may lie from the die map's width than
the width it replaces (``map_width``): the map's peaks and the body path's squares measure a
die differently (flat drawn dice 0.75 times as big as calibrated: mask 24 px, map 31 px,
calibrated 37 px). Without it, one of 80 rolls of the flat bench's camera switched to 640x480 in
hard light was lost; at 0.2 the 3-D tuning sets read 304 rolls of 360, at 0 and 0.1 307."""
MISSED_LOOKS = 8
"""Most peaks looked at, strongest first: a roll has at most six dice, and a frame of another
dice set (its bodies unknown to the mask) had up to 20 peaks, each costing about 30 ms. Looking
at every peak read 40 hard sets no better (0.941 exact either way)."""


def read_bodies(image: np.ndarray, look: Look, templates: Templates, *,
                rescale: bool = True, frame: FrameMap | None = None, lift: float = 1.0,
                ) -> list[BodyRead] | None:
    """Every die of the set in a BGR frame; None when the body colour does not single dice out
    (the surface looks like the dice): the caller then reads the frame by the networks
    (``set_reader``).

    The calibrated die width holds while the camera stays put. When the dice in the body mask
    look clearly bigger or smaller, within reason (the camera was raised or lowered, another
    sensor mode: ``RESCALE_BEYOND``, ``RESCALE_WITHIN``), the frame is read again at the width
    they show, and the reading with the more confident dice wins (a fragment of a tray rim in
    the body colour can fake a width; it cannot fake faces). Calibration's own size trials turn
    this off (``rescale``). With the frame's die map (``frame``, its input lifted by ``lift``:
    ``missed_dice``), the width read again must be nearer the width the map sees
    (``map_width``, within ``MAP_WIDTH_SLACK``).
    """
    calibrated = die = look.die_px(image.shape)
    first = _read_at_width(image, look, templates, die, measure=rescale, grown=rescale)
    if first is None or not rescale:
        return first[0] if first else None
    best, seen = first
    for round_ in range(1, RESCALE_ROUNDS + 1):
        if seen is None or abs(np.log(seen / die)) <= np.log(RESCALE_BEYOND) or (
                abs(np.log(seen / calibrated)) > np.log(RESCALE_WITHIN)):
            break
        if frame is not None and not _nearer(seen, die, map_width(frame, calibrated, lift)):
            break
        die = seen
        again = _read_at_width(image, look, templates, die, measure=round_ < RESCALE_ROUNDS,
                               grown=True)
        if again is None:
            break
        reads, seen = again
        if _evidence(reads) > _evidence(best):
            best = reads
    return _apart(best)


def map_width(frame: FrameMap, die: float, lift: float = 1.0) -> float | None:
    """The die width the die map sees in a frame: the median width of its strong peaks
    (``WEAK_PEAK``), found at about ``die`` frame pixels; None without one. The map knows dice
    by their shape and pips, where the body mask can fall apart into pieces of dice: on 3-D
    tuning set 5001 (photo 5) glare cut the mask's dice to 0.59 of their width, and read again
    at that width two 3s and a 4 became sure 1s (a pip each), while the map's peaks stayed as
    wide as the dice. Holding a width read again to the map's read the 24 3-D tuning sets 307
    rolls of 360 against 303, flat hard sets 0.952 either way."""
    return seen_width(frame.peaks(WEAK_PEAK, die, lift), WEAK_PEAK)


def _nearer(width: float, than: float, seen: float | None) -> bool:
    """Is ``width`` nearer (by ratio, within ``MAP_WIDTH_SLACK``) to the width ``seen`` than
    ``than`` is (True with nothing seen)?"""
    return seen is None or (
        abs(np.log(width / seen)) <= abs(np.log(than / seen)) + MAP_WIDTH_SLACK)


def _apart(reads: list[BodyRead]) -> list[BodyRead]:
    """The reading without dice that overlap a more confident one (dice do not overlap)."""
    kept: list[BodyRead] = []
    for r in sorted(reads, key=lambda r: -r.confidence):
        if not any(_overlap(r, k) for k in kept):
            kept.append(r)
    return [r for r in reads if r in kept]


def _evidence(reads: list[BodyRead]) -> float:
    """How well a reading explains a frame: confident dice count, doubtful ones cost (a die
    read at the wrong width falls apart into several doubtful pieces), and so does every pair
    of dice that overlap (a die read too small can fall apart into two confident halves)."""
    return sum(r.confidence - DOUBT for r in reads) - OVERLAP_COST * _overlaps(reads)


def _overlaps(reads: list[BodyRead]) -> int:
    """Pairs of dice that overlap: one of each pair is not a die."""
    return sum(_overlap(a, b) for a, b in combinations(reads, 2))


def _overlap(a: BodyRead, b: BodyRead) -> bool:
    """Centres closer than ``OVERLAP`` of the smaller width: dice do not overlap."""
    return bool(np.hypot(a.x - b.x, a.y - b.y) < OVERLAP * min(a.size, b.size))


def _read_at_width(image: np.ndarray, look: Look, templates: Templates, die: float, *,
                   measure: bool, grown: bool) -> tuple[list[BodyRead], float | None] | None:
    """The dice read with a die ``die`` frame pixels wide (a blob of a die that looks bigger
    still counts as one die if ``grown``), and (if ``measure``: another round may follow) the
    width the body mask shows, frame pixels; None when the body colour covers the frame."""
    small, scale = coarse(image, die)
    d = die * scale
    bodies, cores = die_masks(small, look.body, d, look.haze_less)
    if bodies.mean() > 0.4:
        return None
    out = []
    for (cx, cy), _, angle in die_rects(bodies, cores, d, grown=grown):
        box = cv2.boxPoints(((cx, cy), (0.7 * d, 0.7 * d), angle))
        if box.min() < 0 or (box[:, 0] > bodies.shape[1] - 1).any() or (
                box[:, 1] > bodies.shape[0] - 1).any():
            continue  # cut by the frame edge: not a whole die
        centre = ((cx + 0.5) / scale - 0.5, (cy + 0.5) / scale - 0.5)
        read = read_die(image, centre, die, angle, look, templates)
        if read is not None:
            out.append(read)
    seen = seen_die_width(bodies, d) if measure else None
    return out, (seen / scale if seen is not None else None)


class Placed(Protocol):
    """A die already found, by either path: its centre and width in frame pixels."""

    @property
    def x(self) -> float: ...
    @property
    def y(self) -> float: ...
    @property
    def size(self) -> float: ...


def recentred(frame: FrameMap, found: list[BodyRead], reads: TemplateReads,
              lift: float = 1.0) -> list[BodyRead]:
    """The body path's dice, each read again at a strong die-map peak that lies on its body but
    off every die's centre (``OFF_CENTRE``), and replaced where that reads another face surer
    by ``RECENTRE_GAIN``. A tilted die's blob takes in its side faces, so its square can sit
    between its top and a side face and read the side face: on 3-D tuning set 5009, photo 5,
    an orange 1 read as the fuel symbol on its side at 0.69, and at the map's peak on its top
    as a 1 at 1.0. On the 24 3-D tuning sets 301 -> 303 rolls of 360, flat hard sets 0.952
    either way; without the "off every die's centre" bar, a peak on a neighbouring die read
    again lost a flat hard roll. ``reads``, ``lift``: as ``missed_dice``."""
    if not found:
        return found
    die = float(np.median([r.size for r in found]))
    out = list(found)
    for peak in sorted(frame.peaks(WEAK_PEAK, die, lift), key=lambda p: -p.score):
        if any(np.hypot(peak.x - r.x, peak.y - r.y) < OFF_CENTRE * die for r in out):
            continue
        on = [i for i, r in enumerate(out) if on_die(peak, r, die)]
        if not on:
            continue  # off every die: ``missed_dice`` looks at it
        read = reads.at((peak.x, peak.y), die)
        if read is None:
            continue
        for i in on:
            if read.face != out[i].face and read.confidence > out[i].confidence + RECENTRE_GAIN:
                out[i] = read
                break
    return out


class Missed(NamedTuple):
    """What the die map adds to the body path: the dice read surely with the set's templates at
    its peaks away from every die found, and the peaks they could not read surely: the strong
    ones and those beside them (``unread``), and the weak ones on their own (``weak``)."""

    dice: list[BodyRead]
    unread: list[Peak]
    weak: list[Peak]


def missed_dice(frame: FrameMap, found: Sequence[Placed], reads: TemplateReads,
                lift: float = 1.0) -> Missed:
    """Dice the body masks missed (a dark die on a dark floor, a die cut in two by glare on its
    pips): the die map's peaks away from every die found, each read like any die of the set
    (``surest_read``), kept where that reading is sure enough. The map knows dice by their
    shape and pips, not by this set's colours, so it sees what the mask lost.

    A peak beside a stronger one left unread lies on the same die (its lit side face, where
    the stronger peak is its top): it goes unread with it, to the face networks, and is not
    read by the templates, which read a side face of a tilted 4 as a sure fuel symbol that
    then hid the 4 (tuning set 5018). Any other weak peak (``WEAK_PEAK``) must read surer,
    and is passed on apart (``Missed.weak``). ``reads``: the set's template reads of the frame;
    ``lift``: the gamma the map's frame is lifted by (``diemap.tone_lift``)."""
    die = dice_width(found, reads.look, frame.image.shape)
    extra: list[BodyRead] = []
    unread: list[Peak] = []
    weak_unread: list[Peak] = []
    peaks = sorted(frame.peaks(MISSED_PEAK, die, lift), key=lambda p: -p.score)
    for peak in peaks[:MISSED_LOOKS]:
        if any(on_die(peak, r, die) for r in [*found, *extra]):
            continue
        if any(np.hypot(peak.x - p.x, peak.y - p.y) < OVERLAP * die for p in unread):
            unread.append(peak)
            continue
        weak = peak.score < WEAK_PEAK
        best = reads.at((peak.x, peak.y), die)
        if best is not None and best.confidence >= (SURE if weak else MISSED_SURE):
            extra.append(best)
        else:
            (weak_unread if weak else unread).append(peak)
    return Missed(extra, unread, weak_unread)


def dice_width(dice: Sequence[Placed], look: Look, shape: tuple[int, ...]) -> float:
    """The frame's die width: the median of ``dice``, the calibrated width where there are
    none (a frame of ``shape``)."""
    return float(np.median([d.size for d in dice])) if dice else look.die_px(shape)


def on_die(peak: Peak | Placed, die: Placed, width: float) -> bool:
    """Does a map peak (or another reading's die) lie on a die found (within ``OVERLAP`` of its
    width, or of ``width``, the frame's die width, where that is larger)?"""
    return bool(np.hypot(peak.x - die.x, peak.y - die.y) < OVERLAP * max(die.size, width))


def surest_read(image: np.ndarray, centre: tuple[float, float], die: float, look: Look,
                templates: Templates) -> BodyRead | None:
    """A die found without a turn (by the die map or the face network) read with the set's own
    templates at the turn its edges show (``edge_turn``), or at the diagonal to it if that
    reads nothing (``EDGE_TURNS``)."""
    return read_die(image, centre, die, edge_turn(image, centre, die), look, templates,
                    EDGE_TURNS)


def edge_turn(image: np.ndarray, centre: tuple[float, float], die: float) -> float:
    """The turn of a die ``die`` pixels wide near ``centre`` (degrees, mod 90), from the
    directions of the edges around it: a square's edges run at its turn and a quarter turn
    from it, so the gradients' fourth circular harmonic points at the turn (weighted on a ring
    ``EDGE_AT`` from the centre, where the edges lie and the pips do not)."""
    h, w = image.shape[:2]
    r = int(EDGE_REACH * die) + 2
    x, y = int(centre[0] + 0.5), int(centre[1] + 0.5)  # centres lie in the frame
    x0, y0 = max(0, x - r), max(0, y - r)
    grey = cv2.cvtColor(image[y0:min(h, y + r), x0:min(w, x + r)], cv2.COLOR_BGR2GRAY)
    gx = cv2.Scharr(grey, cv2.CV_32F, 1, 0)
    gy = cv2.Scharr(grey, cv2.CV_32F, 0, 1)
    yy, xx = np.ogrid[y0 - y:y0 - y + grey.shape[0], x0 - x:x0 - x + grey.shape[1]]
    off = np.sqrt(xx * xx + yy * yy) / die - EDGE_AT
    weight = np.exp(-off * off / (2 * EDGE_SPREAD ** 2))
    # |g|^2 e^(4i angle of g) = g^4 / |g|^2, with g = gx + i gy
    c2, s2, m2 = gx * gx - gy * gy, 2 * gx * gy, gx * gx + gy * gy + 1e-6
    re = float(((c2 * c2 - s2 * s2) / m2 * weight).sum())
    im = float((2 * c2 * s2 / m2 * weight).sum())
    return float(np.degrees(np.arctan2(im, re)) / 4) % 90


class TemplateReads:
    """One dice set's template reads of one frame (``surest_read``), each place read once: the
    search for the dice the masks missed, the fuel search beside them and the networks' fuel
    search read many of the same die-map peaks at the same width: on the 48 3-D tuning sets 315
    of 2,902 reads were repeats (bench/results/2026-12-07-shared-reads.md)."""

    def __init__(self, image: np.ndarray, look: Look, templates: Templates) -> None:
        self.image = image
        self.look = look
        self.templates = templates
        self._done: dict[tuple[float, float, float], BodyRead | None] = {}

    def at(self, centre: tuple[float, float], die: float) -> BodyRead | None:
        """``surest_read`` of the die ``die`` pixels wide whose top face is near ``centre``."""
        key = (float(centre[0]), float(centre[1]), float(die))
        if key not in self._done:
            self._done[key] = surest_read(self.image, centre, die, self.look, self.templates)
        return self._done[key]
