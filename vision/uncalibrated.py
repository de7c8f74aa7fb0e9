"""Reading dice no profile describes: spot groups say where a die may be, the face network says
whether one is there and which face it shows.

Every group of pip-like spots found at two likely die scales is a candidate, and so is the middle
of every blob that stands out from the surface, so hardly a die is missed (98 % of dice-real's
dice have a candidate within a fifth of a die width). Most candidates are pieces of dice, side
faces or specks; the network, shown each at a few crop sizes, keeps those it is sure are a die's
top face, and of two candidates on one die the surer wins. Each face is read from eight views
at three widths around the die's own, and a face read with little confidence gets a closer
look by a second network working at a finer resolution.

Crops are sized from the frame's die width, and from each candidate's own width (its pips'
spread, its blob's width) where the frame's width is wrong for it; a candidate turned down at
every width gets one more look a step beyond them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

import cv2
import numpy as np

from vision.classify import CLASSES, FaceNet, FaceNets, crops, turns
from vision.detect import (
    PIP_ROUNDNESS,
    Foreground,
    Image,
    Spot,
    die_size_candidates,
    foreground,
    group_spots,
    prepare,
)
from vision.faces import best_reads
from vision.profile import Profile

CROP_SCALES = (0.5, 0.7, 1.0)
"""Crop widths tried, over the frame's die width. The blob estimate is mostly right or up to
twice too big (touching dice merge into one blob); where it is too small, the pips' spread
corrects it (``candidates``), and a candidate's own width covers the rest (``crop_widths``).
The network takes a die 15 % off its width, so three steps cover the range (six read no
better on dice-real's unseen photos, at 1.4 times the time)."""

SAME_SPOT = 0.1
"""Candidates closer than this (in estimated die widths) are read once: the network takes a
shift of a sixth of a die in its stride."""

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


BEYOND_STEP = 1.4
"""How much wider (or narrower) than the widths tried a turned-down candidate is looked at once
more. The frame's die width can be wrong by more than the steps cover: purple dice on a dark
mat read 0.7 of their width with no surely-read pips to correct it (with the single foreground
cut the estimate had then), and a busy mat's printed discs make it two to three times too big.
On 15 rendered standard dice sets per condition read uncalibrated, this found 0.85 -> 0.91
(hard) and 0.94 -> 0.96 (normal) of the dice; a second step found a little more there but put
a false die 2.4 dice wide on a dice-real photo."""

VIEW_WIDTHS = (0.85, 1.0, 1.15)
"""Crop widths, over a die's chosen width, at which its face is read (eight views at each).
The width is chosen in steps the network takes 15 % off, so its crop may cut a pip or take in
a neighbour's; with the answers at 15 % either side too, standard dice in hard light read
0.84 exact against 0.81 (precision 0.984 against 0.973) and dice-real's 250 photos 0.744
against 0.728, for 24 crops a die instead of 8 (0.2 ms each)."""

MIN_OWN_WIDTH = 8.0
"""A candidate's own width hint below this (frame pixels) is no die: its pips would be 1 px."""

PIP_SPREAD = 0.75
"""Distance of a face's farthest two pips over the die width (two corners of the layout; pip
offsets of 0.25-0.3 die put it at 0.7-0.85)."""

SURE_GROUP = 0.5
"""A group of three or more pips read with this confidence is a whole face: its spread sizes
the frame's dice better than the blobs do."""


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


def candidates(image: Image) -> tuple[list[Candidate], float]:
    """Where a die may be centred, and the frame's die width (frame pixels): every spot group
    at the blob estimate and a smaller scale, and the middle of every blob that stands out from
    the surface (a die whose pips were not all found, such as a two under glare).

    The blob estimate fails where dice hardly stand out from the surface (cream dice on
    striped wood read half their width); when the surely-read pip groups spread wider, their
    median width is taken instead.
    """
    fg = foreground(image)
    sizes = die_size_candidates(image, fg)
    default = Profile()
    found: list[Candidate] = []
    spreads: list[float] = []
    # the blob estimate errs big (touching dice merge), so its bigger step adds nothing
    for die_frame in sizes[:2]:
        frame = prepare(image, die_frame)
        pips = [s for s in frame.spots if s.roundness >= PIP_ROUNDNESS]
        for group in group_spots(pips, frame.die_px):
            spots = [pips[i] for i in group]
            width = _spread(spots) / (PIP_SPREAD * frame.scale)
            reads = best_reads(spots, frame.die_px, default)
            found += [Candidate(r.x / frame.scale, r.y / frame.scale, width) for r in reads]
            if len(reads) == 1 and len(spots) >= 3 and reads[0].confidence >= SURE_GROUP:
                spreads.append(width)
    found += _blob_middles(fg, sizes[0])
    die_px = max(sizes[0], float(np.median(spreads))) if spreads else sizes[0]
    return _distinct(found, SAME_SPOT * die_px), die_px


def _spread(spots: list[Spot]) -> float:
    """Distance between the two farthest spots of a group."""
    pts = np.array([(s.x, s.y) for s in spots], np.float64)
    return float(np.sqrt(((pts[:, None] - pts[None]) ** 2).sum(axis=2).max()))


def _blob_middles(fg: Foreground, die_px: float) -> list[Candidate]:
    """Local peaks of the foreground's distance transform at least a quarter die from an edge:
    the middle of a lone die, and of each die in a row of touching ones. A peak's width hint is
    its blob's inscribed width."""
    dt = fg.distance
    reach = max(3, round(0.5 * die_px * fg.scale) | 1)
    peaks = (dt >= cv2.dilate(dt, np.ones((reach, reach), np.uint8))) & (
        dt >= 0.25 * die_px * fg.scale)
    ys, xs = np.nonzero(peaks)
    return [Candidate((x + 0.5) / fg.scale - 0.5, (y + 0.5) / fg.scale - 0.5,
                      2.0 * float(dt[y, x]) / fg.scale)
            for x, y in zip(xs.tolist(), ys.tolist(), strict=True)]


def _distinct(found: list[Candidate], gap: float) -> list[Candidate]:
    """The candidates without near repeats (one die's group is found again at each scale)."""
    kept: list[Candidate] = []
    for c in found:
        if all((c.x - k.x) ** 2 + (c.y - k.y) ** 2 > gap * gap for k in kept):
            kept.append(c)
    return kept


def crop_widths(c: Candidate, die_px: float) -> list[float]:
    """The crop widths to look at a candidate with: the frame's steps, and its own width hint
    where no step comes within the 15 % the network takes."""
    widths = [die_px * f for f in CROP_SCALES]
    if c.width >= MIN_OWN_WIDTH and not 0.85 * min(widths) <= c.width <= 1.15 * max(widths):
        widths.append(c.width)
    return widths


def read_candidates(image: Image, found: list[Candidate], die_px: float,
                    nets: FaceNets) -> list[Seen]:
    """The dice among the candidates: each looked at with every crop width (and one step
    beyond them where that may help), kept at the width the finder network is surest of a
    die, one per die, then read."""
    looks = [(c.x, c.y, width) for c in found for width in crop_widths(c, die_px)]
    surest: dict[tuple[float, float], Looked] = {}
    _look(image, looks, nets.finder, surest)
    _look(image, _one_step_beyond(surest), nets.finder, surest)
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
    """A look one ``BEYOND_STEP`` past the widths tried, at each candidate the finder turned
    down at every width, on the side its surest width lies: the frame's die width can be off by
    more than the steps cover."""
    out = []
    for (x, y), p in surest.items():
        if p.no_die < DIE_BELOW:
            continue
        if p.width == p.widest:
            out.append((x, y, p.width * BEYOND_STEP))
        elif p.width == p.narrowest and p.width / BEYOND_STEP >= MIN_OWN_WIDTH:
            out.append((x, y, p.width / BEYOND_STEP))
    return out


def read_faces(image: Image, places: list[tuple[float, float, float, float]],
               nets: FaceNets) -> list[Seen]:
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
    by_width = view_probabilities(image, places, nets.finder)
    probs = by_width.mean(axis=1)
    die = probs[:, 0] < probs[:, 1:].max(axis=1)
    places, by_width, probs = ([p for p, d in zip(places, die, strict=True) if d],
                               by_width[die], probs[die])
    unsure = np.flatnonzero(probs[:, 1:].max(axis=1) < CLOSER_LOOK_BELOW)
    if len(unsure):
        closer = view_probabilities(image, [places[i] for i in unsure], nets.close)
        by_width[unsure] = 0.5 * (by_width[unsure] + closer)
        probs = by_width.mean(axis=1)
    own = by_width[:, VIEW_WIDTHS.index(1.0)]
    out = []
    for (p_die, x, y, size), p, sure in zip(places, probs, own, strict=True):
        face = int(np.argmax(p[1:])) + 1
        out.append(Seen(CLASSES[face], float(sure[face]), x, y, size, p_die))
    return out


def view_probabilities(image: Image, places: list[tuple[float, float, float, float]],
                       net: FaceNet) -> np.ndarray:
    """Class probabilities of each place at each of ``VIEW_WIDTHS``, as a (places, widths,
    classes) array: each the mean of the network's answers on the crop's eight turns and
    mirror images (a die has no up, and one view's quirk is outvoted by the others)."""
    looks = [(x, y, size * k) for _, x, y, size in places for k in VIEW_WIDTHS]
    views = np.stack([v for square in crops(image, looks, net.px) for v in turns(square)])
    by_view = net.probabilities(views).reshape(len(places), len(VIEW_WIDTHS), -1, len(CLASSES))
    mean: np.ndarray = by_view.mean(axis=2)
    return mean


def read_unknown_dice(image: Image, nets: FaceNets) -> list[Seen]:
    """Find and read the dice of a frame without a profile."""
    found, die_px = candidates(image)
    return read_candidates(image, found, die_px, nets)
