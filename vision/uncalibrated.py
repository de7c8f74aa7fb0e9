"""Reading dice no profile describes: a map network says where dice may be, the face network
says whether one is there and which face it shows.

The die map (``diemap.py``) looks at the whole frame once and marks the likely centres of dice
with a width for each, so hardly a die is missed (each of dice-real's 308 unseen dice has a
peak within a third of its width). Some peaks are specks, gaps or side faces; the face network,
shown each at a few crop sizes, keeps those it is sure are a die's top face, and of two
candidates on one die the surer wins. Each face is read from two views at three widths around
the die's own, and a face read with little confidence gets a closer look by a second network
working at a finer resolution.

Crops are sized from the frame's die width (the median of the map's surest widths), and from
each candidate's own width where the frame's width is wrong for it; a candidate turned down at
every width gets one more look a step beyond them, and then beside it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from vision.classify import (
    CLASSES,
    CLOSE_MODEL_PATH,
    CLOSE_PX,
    CROP_PX,
    MODEL_PATH,
    FaceNet,
    crops,
    turns,
)
from vision.detect import Image
from vision.diemap import DieMap, Peak, seen_width

CROP_SCALES = (0.5, 0.7, 1.0)
"""Crop widths tried, over the frame's die width. Chosen when that width came from the blobs,
which erred big; with the die map's width, steps of 0.7, 1.0 and 1.4, or the candidate's own
width alone, read the standard hard set worse (0.88 and 0.90 exact against 0.92; dice-real's
unseen photos 0.76 and 0.78 against 0.76, one roll). A candidate's own width covers dice the
frame's width is wrong for (``crop_widths``)."""

DIE_BELOW = 0.3
"""A candidate is a die when the network gives "no die" less than this (0.5 let specks on busy
mats through: rendered hard read 0.53 exact against 0.62)."""

MIN_GAP = 0.7
"""Closest two dice can be, in widths of the larger (touching, one slightly tilted)."""

CLOSER_LOOK_BELOW = 0.8
"""A die whose likeliest face has less than this in the finder's views (all ``VIEW_WIDTHS``)
is read by the closer-look network too, and the two answers are averaged (any threshold from
0.7 to 0.95 gave the same readings on dice-real and on rendered standard dice, with one width;
at 0.8 a fifth of dice-real's dice got a second look)."""

FINDER_VIEWS = 2
"""Views of each crop (``classify.turns``) the finder reads a face from: as it is and a quarter
turn on. With four (mirrored too) the 48 3-D tuning sets read 599 of their 720 rolls against
601, the flat hard sets 0.952 against 0.946, and a frame took a median 28.9 ms against 27.1
(bench/results/2026-12-04-two-views.md)."""

CLOSER_VIEWS = 4
"""Views of each crop the closer look reads: it sees only the dice the finder is unsure of, so
two more views cost little there; with two the 3-D tuning sets read 599 rolls against 601."""


BEYOND_STEP = 1.4
"""How much wider (or narrower) than the widths tried a turned-down candidate is looked at once
more. The frame's die width can be wrong by more than the steps cover: purple dice on a dark
mat read 0.7 of their width with no surely-read pips to correct it (with the single foreground
cut the estimate had then), and a busy mat's printed discs make it two to three times too big.
On 15 rendered standard dice sets per condition read uncalibrated, this found 0.85 -> 0.91
(hard) and 0.94 -> 0.96 (normal) of the dice; a second step found a little more there but put
a false die 2.4 dice wide on a dice-real photo."""

ASIDE = 0.25
"""How far beside a turned-down candidate, in widths of its surest crop, the finder looks once
more, in the eight directions (``_one_step_aside``). The map's peak on a tilted die can sit on
its side face, where no crop shows the top face whole: on the 48 3-D tuning sets these looks
read 634 rolls of 720 against 631; 0.35 aside read 631.
"""

VIEW_WIDTHS = (0.85, 1.0, 1.15)
"""Crop widths, over a die's chosen width, at which its face is read (``FINDER_VIEWS`` views at
each; eight when this was measured).
The width is chosen in steps the network takes 15 % off, so its crop may cut a pip or take in
a neighbour's; with the answers at 15 % either side too, standard dice in hard light read
0.84 exact against 0.81 (precision 0.984 against 0.973) and dice-real's 250 photos 0.744
against 0.728, for three times the crops a die (0.2 ms each)."""

MIN_OWN_WIDTH = 8.0
"""A candidate's own width hint below this (frame pixels) is no die: its pips would be 1 px."""

PEAK_ABOVE = 0.3
"""A peak of the die map scoring at least this is a candidate. At 0.1 the map also covered one
die more of the standard hard set's 376 but proposed six times the peaks on no die, and more
of them passed the finder: that set read 0.89 exact against 0.91 (precision 0.982 against
0.992), 15 more hard sets 0.904 against 0.917; dice-real's unseen photos read the same."""

SURE_PEAK = 0.5
"""Peaks scoring at least this set the frame's die width (all peaks do when none is so sure)."""

INSIDE = 0.5
"""A peak closer than this of a stronger peak's width to its centre lies on that die, not on a
die of its own (two dice's centres lie most of a width apart, ``MIN_GAP``). The pips of a
light green 4 on green felt peaked weakly at 0.35 and 0.39, 15 px wide, beside the die's own
peak of 0.79; the finder, surer of a die in the crops around them than around the die, read
two sure 1s and no 4. Without those peaks: dice-real, the bench's rendered sets and the 24
3-D MLEM tuning sets read the same (one die fewer found on a busy mat in a roll read wrong
either way)."""


class Networks(NamedTuple):
    """The uncalibrated path's three networks: the map that finds where dice may be, the face
    network that says which are dice and reads them, and the closer look at the faces it is
    unsure of. At 48 px the closer look reads more real dice right, but it also takes specks on
    busy mats for dice, so it only reads, it never finds."""

    diemap: DieMap
    finder: FaceNet
    close: FaceNet

    @classmethod
    def load(cls) -> Networks:
        """The shipped networks."""
        return cls(DieMap(), FaceNet(MODEL_PATH, CROP_PX), FaceNet(CLOSE_MODEL_PATH, CLOSE_PX))


class Candidate(NamedTuple):
    """A place a die may be centred, and the die width its own evidence suggests (frame pixels;
    0 when it suggests none)."""

    x: float
    y: float
    width: float


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


def candidates(image: Image, diemap: DieMap) -> tuple[list[Candidate], float]:
    """Where a die may be centred in the frame (``candidates_at``)."""
    return candidates_at(diemap.peaks(image, PEAK_ABOVE))


def candidates_at(peaks: Sequence[Peak]) -> tuple[list[Candidate], float]:
    """The die map's peaks as candidates, each with the width the map gives it, but those on a
    stronger peak's die (``INSIDE``), and the frame's die width (frame pixels; 0 for a frame
    without a candidate)."""
    if not peaks:
        return [], 0.0
    width = seen_width(peaks, SURE_PEAK) or float(np.median([p.width for p in peaks]))
    own = [p for p in peaks if not any(
        q.score > p.score and np.hypot(p.x - q.x, p.y - q.y) < INSIDE * q.width for q in peaks)]
    return [Candidate(p.x, p.y, p.width) for p in own], width


def crop_widths(c: Candidate, die_px: float) -> list[float]:
    """The crop widths to look at a candidate with: the frame's steps, and its own width hint
    where no step comes within the 15 % the network takes."""
    widths = [die_px * f for f in CROP_SCALES]
    if c.width >= MIN_OWN_WIDTH and not 0.85 * min(widths) <= c.width <= 1.15 * max(widths):
        widths.append(c.width)
    return widths


def surest_centre(image: Image, places: list[Candidate], finder: FaceNet) -> Candidate:
    """The place the finder is surest holds a die centred in its crop, each looked at its own
    width only."""
    none = finder.probabilities(crops(image, [(c.x, c.y, c.width) for c in places], finder.px))
    return places[int(np.argmin(none[:, 0]))]


def read_candidates(image: Image, found: list[Candidate], die_px: float,
                    nets: Networks) -> list[Seen]:
    """The dice among the candidates: each looked at with every crop width (and, where that
    finds no die, one step beyond them and then a step aside), kept at the place and width the
    finder network is surest of a die, one per die, then read."""
    looks = [(c.x, c.y, width) for c in found for width in crop_widths(c, die_px)]
    surest: dict[tuple[float, float], Looked] = {}
    _look(image, looks, nets.finder, surest)
    _look(image, _one_step_beyond(surest), nets.finder, surest)
    _look(image, _one_step_aside(surest), nets.finder, surest)
    places = [(1.0 - p.no_die, x, y, p.width) for (x, y), p in surest.items()
              if p.no_die < DIE_BELOW]
    kept: list[tuple[float, float, float, float]] = []
    for place in sorted(places, reverse=True):
        _, x, y, size = place
        if all(np.hypot(x - kx, y - ky) > MIN_GAP * max(size, ks) for _, kx, ky, ks in kept):
            kept.append(place)
    return read_faces(image, kept, nets)


class Looked(NamedTuple):
    """What the finder made of one candidate: p(no die) at its surest width, and the widths
    tried."""

    no_die: float
    width: float
    narrowest: float
    widest: float


def _look(image: Image, looks: list[tuple[float, float, float]], finder: FaceNet,
          surest: dict[tuple[float, float], Looked]) -> None:
    """Show the finder each (x, y, width) and update ``surest`` for each centre."""
    if not looks:
        return
    none = finder.probabilities(crops(image, looks, finder.px))[:, 0]
    for (x, y, width), p in zip(looks, none.tolist(), strict=True):
        was = surest.get((x, y), Looked(1.0, width, width, width))
        no_die, surest_width = (p, width) if p < was.no_die else (was.no_die, was.width)
        surest[(x, y)] = Looked(no_die, surest_width, min(was.narrowest, width),
                                max(was.widest, width))


def _one_step_beyond(surest: dict[tuple[float, float], Looked]) -> list[tuple[float, float, float]]:
    """A look one ``BEYOND_STEP`` past the widths tried, on both sides, at each candidate the
    finder turned down at every width: the frame's die width can be off by more than the steps
    cover. Both sides, because the surest of the turned-down widths can point the wrong way: a
    lone 1 whose width the map gives too small looks surest at the narrowest crop, which holds
    its pip."""
    out = []
    for (x, y), p in surest.items():
        if p.no_die < DIE_BELOW:
            continue
        out.append((x, y, p.widest * BEYOND_STEP))
        if p.narrowest / BEYOND_STEP >= MIN_OWN_WIDTH:
            out.append((x, y, p.narrowest / BEYOND_STEP))
    return out


def _one_step_aside(surest: dict[tuple[float, float], Looked]) -> list[tuple[float, float, float]]:
    """A look ``ASIDE`` beside each candidate the finder turned down at every width (and a step
    beyond them), in the eight directions, at its surest width; a place that holds the die is
    kept like any candidate, and of two on one die the surer wins (``MIN_GAP``)."""
    out: list[tuple[float, float, float]] = []
    for (x, y), p in surest.items():
        if p.no_die < DIE_BELOW:
            continue
        step = ASIDE * p.width
        out.extend((x + i * step, y + j * step, p.width)
                   for i in (-1, 0, 1) for j in (-1, 0, 1) if i or j)
    return out


def read_faces(image: Image, places: list[tuple[float, float, float, float]],
               nets: Networks) -> list[Seen]:
    """Each die's face from the finder's answers, averaged with the closer look's where the
    finder is unsure. A place whose views the finder finds likelier bare than any face is
    dropped: the one view that found it is outvoted.

    The face is what the views at all of ``VIEW_WIDTHS`` say; its confidence is how sure the
    views at the die's own width are of it. The widths either side add votes but, seeing a
    face cut or crowded, less sure ones: as the confidence they made the table ask about a
    tenth more rolls in hard light (0.41 against 0.30 of standard dice) for one roll of a
    hundred less read wrong without asking.
    """
    if not places:
        return []
    by_width = view_probabilities(image, places, nets.finder, FINDER_VIEWS)
    probs = by_width.mean(axis=1)
    die = probs[:, 0] < probs[:, 1:].max(axis=1)
    places, by_width, probs = ([p for p, d in zip(places, die, strict=True) if d],
                               by_width[die], probs[die])
    unsure = np.flatnonzero(probs[:, 1:].max(axis=1) < CLOSER_LOOK_BELOW)
    if len(unsure):
        closer = view_probabilities(image, [places[i] for i in unsure], nets.close, CLOSER_VIEWS)
        by_width[unsure] = 0.5 * (by_width[unsure] + closer)
        probs = by_width.mean(axis=1)
    own = by_width[:, VIEW_WIDTHS.index(1.0)]
    out = []
    for (p_die, x, y, size), p, sure in zip(places, probs, own, strict=True):
        face = int(np.argmax(p[1:])) + 1
        out.append(Seen(CLASSES[face], float(sure[face]), x, y, size, p_die))
    return out


def view_probabilities(image: Image, places: list[tuple[float, float, float, float]],
                       net: FaceNet, views: int) -> np.ndarray:
    """Class probabilities of each place at each of ``VIEW_WIDTHS``, as a (places, widths,
    classes) array: each the mean of the network's answers on the crop's first ``views``
    ``turns`` (a die has no up, and one view's quirk is outvoted by the others)."""
    looks = [(x, y, size * k) for _, x, y, size in places for k in VIEW_WIDTHS]
    squares = np.stack([v for square in crops(image, looks, net.px) for v in turns(square, views)])
    by_view = net.probabilities(squares).reshape(len(places), len(VIEW_WIDTHS), -1, len(CLASSES))
    mean: np.ndarray = by_view.mean(axis=2)
    return mean


def read_unknown_dice(image: Image, nets: Networks, peaks: Sequence[Peak] | None = None
                      ) -> list[Seen]:
    """Find and read the dice of a frame without a profile; ``peaks``: the die map's peaks
    scoring ``PEAK_ABOVE`` or more where the caller has them (``set_reader.FrameNetworks``)."""
    found, die_px = (candidates(image, nets.diemap) if peaks is None
                     else candidates_at(peaks))
    return read_candidates(image, found, die_px, nets)
