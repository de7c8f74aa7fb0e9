"""The calibrated path: die bodies found by the set's colour, each top face read in a square.

With a profile the reader knows what this dice set looks like: body colour, ink colours (pips,
fuel symbol), die size relative to the frame, pip geometry and the fuel symbol itself. Then the
dice are best found as bodies, not as pips:

1. Body mask at a coarse scale (a die about ``COARSE_DIE_PX`` wide): pixels whose chromaticity is
   near the calibrated body's, whose lightness is within a broad band of it (light falls
   unevenly) and that are nearer the body colour than the bare surface around them. Holes
   (pips, the symbol, glare) are filled. The *cores* keep only pixels nearly as light as the
   body around them: the darker bevelled rims drop out, so touching dice come apart.
2. A body blob holds as many dice as its area says. A lone die is its blob's ``minAreaRect``;
   a blob of several is split between its cores (or by k-means). Each die is a square of the
   calibrated width.
3. The top face is warped to a canonical square of ``CANON`` px and turned into *ink* maps: how
   far each pixel has moved from the die's own body colour towards each calibrated ink colour.
4. The ink maps are matched (normalised cross-correlation, a few pixels of slack, all templates
   in one matrix product) against the pip layouts drawn with the calibrated pip geometry and
   against the calibrated fuel symbol in four rotations. The best template names the face; its
   score and its lead over the runner-up give the confidence.

Every size is a fraction of the die width; no per-pixel Python loops.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field, replace
from itertools import combinations

import cv2
import numpy as np

from vision.detect import background, components
from vision.pips import PIP_GRID

CANON = 32
"""Side of the canonical top face, px: pips are then about 5 px across."""
MARGIN = 5
"""Canonical pixels of slack around the face in the warped crop."""
TEMPLATE = 36
"""Side of the region matched against the templates (leaves +-3 px of shift)."""
INNER = 0.8
"""Part of the canonical face (the core) that can hold ink."""
COARSE_DIE_PX = 22.0
"""Die width the body mask is computed at."""
CHROMA_TOL = 0.16
"""Largest chromaticity distance (normalised rgb, grey = (1, 1, 1)) of a body pixel."""
CHROMA_FLOOR = 75.0
"""Lightness below which chromaticity is taken absolutely (grey levels over this floor)."""
LIGHT_BAND = (0.6, 1.9)
"""Lightness of a body pixel over the calibrated body lightness (uneven light, glare)."""
CORE_LIGHT = 0.86
"""Core pixels are at least this light relative to the body around them (rims are ~0.74)."""

CLIP_GAINS = (1.0, 1.3, 1.6, 2.0)
"""Body colour at these lights, clipped at 255, also counts as the body's chromaticity."""
CLIP_LEVEL = 240.0
"""A (blurred) pixel whose brightest channel reaches this may be clipped."""

HAZE_FRAC = 0.35
"""Most grey haze (a lamp's glare on the table), over a pixel's lightness, a body pixel may
carry."""
HAZE_LESS_TRIALS = (0.0, 0.35)
"""Most grey haze a body pixel may lack against the calibrated body colour, over its lightness,
as calibration tries it (in this order, keeping a later one only if it reads the shots back
better): a die in shade is deeper in colour than the dice under the lamp that set the body
colour, but allowing for it everywhere lets more of the surface in."""
HAZE_MIN_CHROMA = 0.12
"""Below this squared chromaticity (normalised rgb) a body is greyish: its haze cannot be told
from its light, so none is taken off."""
HAZE_BODY = 0.9
"""Under the haze a body pixel is still lit at least this much of the body's lightness (a pixel
half die, half floor at a die's edge is not)."""

CORE_NOISE = 5.0
"""Grey levels a core pixel may always fall below the body around it (noise on dark dice)."""

TURN_TRIALS = (0.0, 45.0, 22.5, -22.5)
"""Turns (degrees) added to a blob's angle while its face matches nothing."""
MAX_DRIFT = 0.2
"""Farthest a read's centre may move from its body's centre when the face is warped again
around the fit, in die widths: less than a pip's offset from the middle (0.25-0.3). Further on,
the fit has slid onto a corner pip: a 2 under glare read as a sure 1 centred on one of its
pips."""
RESCALE_BEYOND = 1.15
"""A frame's dice may look this much bigger or smaller than calibrated (the photos of a fixed
camera vary a few percent) before the masks are made again at the width they show."""
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
SINGLE_BLOB = (0.7, 1.5)
"""Area, in squared inscribed widths, of a blob taken for one die: a filled square has 1, two
touching dice about 2, a ragged fragment of a tray rim less than 1."""
ONE_BIG_DIE = (1.25, 0.85, 1.8)
"""A blob part that is square (long side at most 1.25 times the short), filled (at least 0.85
of its rectangle) and smaller than 1.8 dice by area is one die seen up to a third wider than
calibrated (a die nearer the camera, a body mask taking in its bevel), not two: two make an
oblong, three an L. A still bigger blob is split by area as before, and the frame's width is
measured again (``RESCALE_BEYOND``), which reads such dice better: with 3.5 here, 3 of 160
rolls after lowering the camera were lost."""
SUPERSET_PIPS = 2
"""Faces with more pips than this hold a smaller face's layout (3 and 4 hold the 2's, 5 and 6
the 4's): glare beside the smaller face fakes most of them, so every pip of theirs must be
there. Glare cannot take a pip away, so faces 1 and 2 are not asked."""
SPOT_RING = 1.8
"""Outer radius, in pip radii, of the ring that a pip's disc is compared with (a pip is a
compact disc; glare is a bigger or longer blob that spills into the ring)."""
SPOT_FULL = 0.12
"""Disc-over-ring ink contrast from which a pip counts fully (a clear pip reads 0.45..0.85,
a missing one about 0; a pip cut by the face window or blurred still reaches this)."""
GLARE_TWO = 0.5
"""Confidence of a 2 read where a 1 fitted best but both of the 2's pips are there: glare on
the middle of a light die with white pips is as big as a 1's pip and looks as white, but a 1
has nothing in its corners. Below the reader's 0.6, so the table asks."""
OFF_AXIS = 2.0
"""How much a pixel's ink is lowered per unit of its distance from the line between body and
ink colour (in lengths of that line) beyond ``OFF_AXIS_FREE``. White glare moves a black die
towards yellow pips only partly, and mostly off that line: without this a 1's pip with glare
beside it looked like the yellow fuel symbol, and cyan planets like a red one (hard sets 105
and 107). White pips lie on glare's own line, so there nothing changes."""
OFF_AXIS_FREE = 0.35
"""Distance off the line that costs nothing: small dice blur, and a camera's halved colour
resolution tints a small white pip with its body's colour. Without this allowance (and
``OFF_AXIS`` 1) an orange set with white pips read 3 of 20 rolls right at 640x480, against 9
before and with it."""
MIN_DIE_PX = 12.0
"""Narrowest die width calibration considers (frame pixels): a pip of such a die is a pixel or
two, nothing to read (dice-real's smallest dice are 25 px)."""
SIZE_TRIALS = (1.0, 0.8, 1.25, 1.6)
"""Multiples of the estimated die width that calibration tries, keeping the one that reads the
calibration shots best."""


@dataclass(frozen=True)
class Look:
    """What the calibrated path needs to know about a dice set (built from a Profile)."""

    body: tuple[float, float, float]
    """Body colour, BGR."""
    inks: tuple[tuple[float, float, float], ...]
    """Pip and symbol colours, BGR."""
    die_frac: float
    """Core die width over the frame's shorter side, as calibrated."""
    pip_offset: float = 0.27
    """Pip offset from the face centre over the core width."""
    pip_radius: float = 0.09
    one_radius: float = 0.12
    fuel: tuple[np.ndarray, ...] = ()
    """Calibrated fuel ink maps, ``TEMPLATE`` square, float32."""
    haze_less: float = 0.0
    """Most grey haze a body pixel may lack against ``body``, over its lightness."""


@dataclass(frozen=True)
class BodyRead:
    """One die of the calibrated path, in frame pixels."""

    face: str | None
    confidence: float
    x: float
    y: float
    size: float


def coarse(image: np.ndarray, die: float) -> tuple[np.ndarray, float]:
    """The image shrunk by a whole factor so a die is about ``COARSE_DIE_PX`` wide (area
    averaging by a whole factor is fast), and the scale (coarse over frame pixels)."""
    factor = max(1, round(die / COARSE_DIE_PX))
    if factor == 1:
        return image, 1.0
    h, w = image.shape[:2]
    return cv2.resize(image, (w // factor, h // factor), interpolation=cv2.INTER_AREA), 1 / factor


_LOCAL = threading.local()


def _scratch(name: str, shape: tuple[int, ...]) -> np.ndarray:
    """A float32 work array kept between frames of one thread (same frame size: no new pages
    to fault in)."""
    store: dict[tuple[str, tuple[int, ...]], np.ndarray] = _LOCAL.__dict__.setdefault("a", {})
    key = (name, shape)
    if key not in store:
        if len(store) > 40:
            store.clear()
        store[key] = np.empty(shape, np.float32)
    return store[key]


# --- masks ------------------------------------------------------------------------------------


def body_mask(image: np.ndarray, body: tuple[float, float, float],
              surface: np.ndarray, haze_less: float = 0.0) -> tuple[np.ndarray, np.ndarray]:
    """(loose body mask uint8, lightness float32) of a BGR image for a body colour.

    A body pixel has about the body's chromaticity (its colour is the body colour times some
    light), a lightness within a broad band of the body's, and is nearer the body colour than
    the bare surface around it (``surface``, a wide median): white dice stand out from a grey
    floor of the same hue that way. Chromaticity deviations are taken over the lightness, but
    never over less than ``CHROMA_FLOOR``: the hue of a dark colour is mostly noise. A pixel
    may carry grey haze the body colour lacks, or lack up to ``haze_less`` of the body's.
    """
    # Written for few large temporaries: every fresh megabyte costs page faults (about as much
    # as the arithmetic), so results are computed in place where they can be.
    h, w = image.shape[:2]
    f = _scratch("f", (h, w, 3))
    np.copyto(f, cv2.blur(image, (3, 3)), casting="unsafe")  # noise and JPEG chroma blocks
    sf = _scratch("sf", (h, w, 3))
    np.copyto(sf, surface, casting="unsafe")
    third = np.full((1, 3), 1 / 3, np.float32)
    ones = np.ones((1, 3), np.float32)
    light = cv2.transform(f, third, dst=_scratch("light", (h, w)))
    s_light = cv2.transform(sf, third, dst=_scratch("s_light", (h, w)))
    np.maximum(s_light, 1.0, out=s_light)
    b = np.array(body, np.float32)
    lb = max(float(b.mean()), 1.0)
    inv = np.maximum(light, np.float32(CHROMA_FLOOR), out=_scratch("inv", (h, w)))
    np.divide(np.float32(1.0), inv, out=inv)
    # deviation from "this chromaticity at this pixel's lightness", for body and surface
    # a brightly lit die clips its strongest channel at 255, which pulls its chromaticity
    # towards grey: the body is also compared with its own colour brightened and clipped
    to_body = _scratch("to_body", (h, w))
    candidates = [np.minimum(b * np.float32(gain), np.float32(255.0)) for gain in CLIP_GAINS
                  if gain == 1.0 or float(b.max()) * gain > 255.0]
    # only where a channel is (nearly) clipped: elsewhere the plain body chromaticity holds
    clipped = (f.max(axis=2) >= np.float32(CLIP_LEVEL)) if len(candidates) > 1 else None
    for k, cb in enumerate(candidates):
        d2 = _hazy_deviation(f, light, cb, lb, haze_less,
                             _scratch("d2", (h, w)) if k else to_body)
        if k:
            np.minimum(to_body, d2, out=to_body, where=clipped)
    cv2.sqrt(to_body, to_body)
    np.multiply(to_body, inv, out=to_body)
    ratio = np.divide(light, s_light, out=_scratch("ratio", (h, w)))
    ds = cv2.merge([ratio, ratio, ratio], dst=_scratch("dev", (h, w, 3)))
    np.multiply(ds, sf, out=ds)
    np.subtract(f, ds, out=ds)
    np.multiply(ds, ds, out=ds)
    to_surface = cv2.transform(ds, ones, dst=_scratch("to_surface", (h, w)))
    cv2.sqrt(to_surface, to_surface)
    np.multiply(to_surface, inv, out=to_surface)
    # lightness differences as log ratios: |log L - log Lb| and |log L - log Ls|
    log_l = np.maximum(light, np.float32(1.0), out=_scratch("log_l", (h, w)))
    cv2.log(log_l, log_l)
    cv2.log(s_light, s_light)
    np.subtract(log_l, s_light, out=s_light)
    np.abs(s_light, out=s_light)
    np.add(to_surface, s_light, out=to_surface)
    np.subtract(log_l, np.float32(np.log(lb)), out=log_l)
    np.abs(log_l, out=log_l)
    np.add(log_l, to_body, out=log_l)
    lo, hi = LIGHT_BAND[0] * lb, LIGHT_BAND[1] * lb
    mask = (to_body < CHROMA_TOL) & (light > lo) & (light < hi) & (log_l < to_surface)
    return mask.astype(np.uint8), light


def _unit_colour(colour: np.ndarray) -> np.ndarray:
    """``colour`` over its lightness: the body colour at unit light."""
    unit: np.ndarray = colour / max(float(colour.mean()), 1.0)
    return unit


def _grey_axis(unit: np.ndarray) -> tuple[np.ndarray, float] | None:
    """How one grey level of haze moves a pixel away from ``unit`` colour times its light, and
    that vector's squared length; None for a greyish body, whose haze cannot be told from its
    light (``HAZE_MIN_CHROMA``)."""
    grey: np.ndarray = np.float32(1.0) - unit
    g2 = float(grey @ grey)
    return None if g2 < HAZE_MIN_CHROMA else (grey, g2)


def _hazy_deviation(f: np.ndarray, light: np.ndarray, colour: np.ndarray, body_light: float,
                    haze_less: float, out: np.ndarray) -> np.ndarray:
    """Squared distance of each BGR pixel from ``colour`` times some light plus some grey haze.

    A lamp's glare on the table adds grey light to everything under it: a die there is its
    body colour paled towards white. The haze that fits best is taken off, but never more than
    ``HAZE_FRAC`` of the pixel's lightness (a grey floor is not a pale die), and none from a
    greyish body. A die in shade can be deeper in colour than ``colour``: up to ``haze_less``
    of the pixel's lightness may be missing.
    """
    h, w = light.shape
    unit = _unit_colour(colour)
    proj = np.eye(3, dtype=np.float32) - np.outer(unit, np.full(3, 1 / 3, np.float32))
    axis = _grey_axis(unit)
    grey, g2 = axis if axis is not None else (np.zeros(3, np.float32), 1.0)
    dev = cv2.transform(f, proj, dst=_scratch("dev", (h, w, 3)))
    along = cv2.transform(dev, (grey / g2).reshape(1, 3), dst=_scratch("along", (h, w)))
    np.multiply(dev, dev, out=dev)
    cv2.transform(dev, np.ones((1, 3), np.float32), dst=out)
    cap = np.multiply(light, np.float32(HAZE_FRAC), out=_scratch("haze", (h, w)))
    np.minimum(cap, light - np.float32(HAZE_BODY * body_light), out=cap)
    np.maximum(cap, np.float32(0.0), out=cap)  # bounds added haze, never forces haze off
    haze = np.minimum(along, cap, out=cap)
    floor = np.multiply(light, np.float32(-haze_less), out=_scratch("less", (h, w))) \
        if haze_less else np.float32(0.0)
    np.maximum(haze, floor, out=haze)
    # |dev - c grey|^2 = |dev|^2 - c (2 along - c) |grey|^2
    np.multiply(along, np.float32(2.0), out=along)
    np.subtract(along, haze, out=along)
    np.multiply(along, haze, out=along)
    np.multiply(along, np.float32(g2), out=along)
    np.subtract(out, along, out=out)
    np.maximum(out, np.float32(0.0), out=out)
    return out


def _fill_holes(mask: np.ndarray, max_area: float) -> np.ndarray:
    """Fill the enclosed holes of ``mask`` smaller than ``max_area`` (pips, symbol, glare).

    A flood fill from the border finds what is not enclosed; only when the holes add up to
    more than a few small ones are they measured one by one (a ring of dice around the floor).
    """
    h, w = mask.shape
    pad = cv2.copyMakeBorder(mask, 1, 1, 1, 1, cv2.BORDER_CONSTANT, value=0)
    cv2.floodFill(pad, None, (0, 0), 1)
    holes = (1 - pad[1:h + 1, 1:w + 1]).astype(np.uint8)
    if cv2.countNonZero(holes) > 8 * max_area:
        _n, labels, stats, _ = cv2.connectedComponentsWithStats(holes, connectivity=4)
        small = stats[:, cv2.CC_STAT_AREA] < max_area
        small[0] = False
        holes = small[labels].astype(np.uint8)
    out: np.ndarray = cv2.bitwise_or(mask, holes)
    return out


def die_masks(image: np.ndarray, body: tuple[float, float, float], die_px: float,
              haze_less: float = 0.0) -> tuple[np.ndarray, np.ndarray]:
    """(bodies, cores) of a coarse BGR image, uint8 masks with holes filled.

    Bodies are every pixel of the set's colour: whole top faces (and some of a tilted die's
    side). Cores keep only pixels nearly as light as the body around them: the darker bevelled
    rims drop out, so touching dice fall apart into one core each.
    """
    loose, light = body_mask(image, body, background(image, 6.0 * die_px), haze_less)
    k = max(3, int(die_px) | 1)
    lm = loose.astype(np.float32)
    local = cv2.boxFilter(light * lm, -1, (k, k)) / np.maximum(cv2.boxFilter(lm, -1, (k, k)),
                                                                1e-3)
    # relative to the body around it, but never finer than the noise of a dark die
    core = (loose > 0) & (light > local - np.maximum((1 - CORE_LIGHT) * local, CORE_NOISE))
    kernel = np.ones((3, 3), np.uint8)
    hole = 0.3 * die_px * die_px
    # closing first seals pips and glare that reach a die's edge, so they fill as holes
    closed = cv2.morphologyEx(loose, cv2.MORPH_CLOSE, kernel)
    bodies = cv2.morphologyEx(_fill_holes(closed, hole), cv2.MORPH_OPEN, kernel)
    cores = cv2.morphologyEx(_fill_holes(core.astype(np.uint8), hole), cv2.MORPH_OPEN, kernel)
    return bodies, cores


# --- faces in the canonical square ------------------------------------------------------------


def _disc_template(points: list[tuple[float, float, float]], size: int) -> np.ndarray:
    """Anti-aliased discs (x, y, r in canonical px from the face centre), ``size`` square."""
    up = 4
    canvas = np.zeros((size * up, size * up), np.uint8)
    c = size / 2
    for x, y, r in points:
        cv2.circle(canvas, (round((c + x) * up), round((c + y) * up)), max(1, round(r * up)), 255,
                   -1, cv2.LINE_AA)
    small = cv2.resize(canvas, (size, size), interpolation=cv2.INTER_AREA)
    out: np.ndarray = cv2.GaussianBlur(small.astype(np.float32) / 255.0, (0, 0), 0.6)
    return out


@dataclass(frozen=True)
class Templates:
    """Every face's templates as matrix columns, ready for one matrix product per die."""

    faces: tuple[str, ...]
    """The face of each column."""
    unit: np.ndarray
    """(TEMPLATE**2, n) float32: each template less its mean, over its norm (for NCC)."""
    contrast: np.ndarray
    """(TEMPLATE**2, n) float32: mean over the template's ink minus mean over its bare body."""
    fuel: np.ndarray
    """(n,) bool: columns matched on the symbol's ink map rather than the pips'."""
    pips: tuple[tuple[tuple[int, int], ...], ...] = ()
    """Per column, its pips' centres (x, y) in ``TEMPLATE`` pixels (none for the symbol)."""
    spot: np.ndarray = field(default_factory=lambda: np.zeros((0, 0), np.float32))
    """Kernel whose response is high on a compact disc of the pip's radius and low on a bigger
    or longer blob of ink (glare): mean ink in the disc less mean ink in the ring around it."""

    @property
    def asked(self) -> np.ndarray:
        """(n,) bool: columns whose every pip must be there (faces of more than
        ``SUPERSET_PIPS`` pips: glare can fake most of them, never take a pip away)."""
        return np.array([len(p) > SUPERSET_PIPS for p in self.pips])


def pip_templates(look: Look) -> Templates:
    """Every face's templates in the canonical frame: pip layouts in each distinct orientation,
    the fuel symbol in four rotations."""
    pairs: list[tuple[str, np.ndarray, list[tuple[float, float, float]]]] = []
    off = look.pip_offset * CANON
    for face, grid in PIP_GRID.items():
        r = (look.one_radius if face == "1" else look.pip_radius) * CANON
        variants: list[np.ndarray] = []
        for swap in (False, True):
            pts = [((gy if swap else gx) * off, (-gx if swap else gy) * off, r) for gx, gy in grid]
            t = _disc_template(pts, TEMPLATE)
            if not any(np.abs(t - v).max() < 0.05 for v in variants):
                variants.append(t)
                pairs.append((face, t, pts))
    pairs.extend(("fuel", np.rot90(t, k), []) for t in look.fuel for k in range(4))
    unit, contrast = [], []
    for _, t, _ in pairs:
        v = t.astype(np.float32).ravel()
        c = v - v.mean()
        unit.append(c / max(float(np.linalg.norm(c)), 1e-6))
        on, bare = (v > 0.5).astype(np.float32), (v < 0.1).astype(np.float32)
        contrast.append(on / max(float(on.sum()), 1.0) - bare / max(float(bare.sum()), 1.0))
    centre = TEMPLATE / 2
    pips = tuple(tuple((round(centre + x - 0.5), round(centre + y - 0.5)) for x, y, _ in pts)
                 for _, _, pts in pairs)
    return Templates(tuple(f for f, _, _ in pairs), np.stack(unit, axis=1),
                     np.stack(contrast, axis=1), np.array([f == "fuel" for f, _, _ in pairs]),
                     pips, _spot_kernel(look.pip_radius * CANON))


def _spot_kernel(radius: float) -> np.ndarray:
    """Mean over a disc of ``radius`` less mean over the ring out to ``SPOT_RING`` radii."""
    half = int(np.ceil(SPOT_RING * radius + 1))
    yy, xx = np.mgrid[-half:half + 1, -half:half + 1].astype(np.float32)
    d = np.hypot(xx, yy)
    disc = (d <= radius).astype(np.float32)
    ring = ((d > radius + 0.7) & (d <= SPOT_RING * radius + 0.7)).astype(np.float32)
    kernel: np.ndarray = disc / max(float(disc.sum()), 1.0) - ring / max(float(ring.sum()), 1.0)
    return kernel


def canonical(image: np.ndarray, rect: tuple[tuple[float, float], tuple[float, float], float],
              ) -> tuple[np.ndarray, np.ndarray]:
    """The top face in ``rect`` (image pixels) warped to a ``CANON + 2 MARGIN`` square, and the
    affine map from image to canonical pixels."""
    box = cv2.boxPoints(rect).astype(np.float32)
    side = CANON + 2 * MARGIN
    dst = np.array([[MARGIN, MARGIN + CANON], [MARGIN, MARGIN], [MARGIN + CANON, MARGIN]],
                   np.float32)
    m = cv2.getAffineTransform(box[:3], dst)
    out: np.ndarray = cv2.warpAffine(image, m, (side, side), flags=cv2.INTER_LINEAR,
                                     borderMode=cv2.BORDER_REPLICATE)
    return out, m


def _inner_window() -> np.ndarray:
    side = CANON + 2 * MARGIN
    win = np.zeros((side, side), np.float32)
    a = MARGIN + round(0.5 * (1 - INNER) * CANON)
    win[a:side - a, a:side - a] = 1.0
    return win


def _haze(colour: np.ndarray, body: np.ndarray) -> float:
    """Grey haze on a die whose body reads ``colour``: the part of the light that is grey, not
    body colour (a lamp's glare on the table pales the pips and the symbol as much as the
    body). Nothing on a grey body, whose haze cannot be told from its light."""
    light = float(colour.mean())
    unit = _unit_colour(body)
    axis = _grey_axis(unit)
    if axis is None:
        return 0.0
    grey, g2 = axis
    along = float((colour - unit * light) @ grey) / g2
    cap = min(HAZE_FRAC * light, light - HAZE_BODY * float(body.mean()))
    return float(np.clip(along, 0.0, max(cap, 0.0)))


def ink_maps(crop: np.ndarray, look: Look) -> list[np.ndarray]:
    """Per calibrated ink colour: how far each pixel went from this die's own body colour
    towards that ink (its colour scaled by the die's light), less how far it strayed off that
    way (``OFF_AXIS``), 0..1, inside the inner part of the face only (the bevelled rim and the
    surface are not ink)."""
    f = crop.astype(np.float32)
    c = CANON // 2 + MARGIN
    q = CANON // 3
    centre = f[c - q:c + q, c - q:c + q].reshape(-1, 3)
    body = np.median(centre, axis=0)
    haze = _haze(body, np.array(look.body, np.float32))
    gain = (body - haze) / np.maximum(np.array(look.body, np.float32), 1.0)
    out = []
    moved = f - body
    moved2 = cv2.transform(moved * moved, np.ones((1, 3), np.float32))
    for ink in look.inks:
        axis = np.array(ink, np.float32) * gain + haze - body
        norm2 = max(float(axis @ axis), 100.0)
        proj = cv2.transform(moved, (axis / norm2).reshape(1, 3))
        off = np.sqrt(np.maximum(moved2 / norm2 - proj * proj, 0.0))
        stray = np.maximum(off - OFF_AXIS_FREE, 0.0)
        out.append(np.clip(proj - OFF_AXIS * stray, 0.0, 1.0) * _WINDOW)
    return out


def _shifted(ink: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Every ``TEMPLATE`` square window of ``ink`` as matrix rows, and each row's norm about
    its mean."""
    win = np.lib.stride_tricks.sliding_window_view(ink, (TEMPLATE, TEMPLATE))
    rows = win.reshape(-1, TEMPLATE * TEMPLATE)
    n = TEMPLATE * TEMPLATE
    sums = rows.sum(axis=1)
    var = np.maximum((rows * rows).sum(axis=1) - sums * sums / n, 1e-6)
    return rows, np.sqrt(var)


def _weakest_pips(ink: np.ndarray, templates: Templates, at: np.ndarray) -> np.ndarray:
    """Per column at its best shift ``at``: its weakest pip, as disc-over-ring contrast of the
    pip ink. Columns without pips (the symbol) get 1."""
    side = ink.shape[0] - TEMPLATE + 1
    spot = cv2.dilate(cv2.filter2D(ink, -1, templates.spot, borderType=cv2.BORDER_CONSTANT),
                      np.ones((3, 3), np.uint8))
    weakest = np.ones(len(templates.faces), np.float32)
    for j, pips in enumerate(templates.pips):
        if pips:
            y, x = divmod(int(at[j]), side)
            weakest[j] = min(float(spot[y + py, x + px]) for px, py in pips)
    return weakest


def read_face(inks: list[np.ndarray], templates: Templates,
              ) -> tuple[str | None, float, tuple[float, float]]:
    """(face, confidence, centre shift in canonical px) by template correlation over a few
    pixels of shift. Pips are matched on the first ink map (pip colour), the fuel symbol on the
    last (its own colour)."""
    if float(inks[0].std()) < 0.03 and float(inks[-1].std()) < 0.03:
        return None, 0.0, (0.0, 0.0)
    side = inks[0].shape[0] - TEMPLATE + 1
    rows, norms = _shifted(inks[0])
    ncc = (rows @ templates.unit) / norms[:, None]
    contrast = rows @ templates.contrast
    if templates.fuel.any() and inks[-1] is not inks[0]:
        frows, fnorms = _shifted(inks[-1])
        cols = templates.fuel
        ncc[:, cols] = (frows @ templates.unit[:, cols]) / fnorms[:, None]
        contrast[:, cols] = frows @ templates.contrast[:, cols]
    # correlation ignores amplitude: ask for ink about as strong as calibrated, so a faint echo
    # in another ink's map (a white pip seen in the blue symbol's map) loses
    score = ncc * np.clip(contrast / 0.5, 0.0, 1.0)
    at = np.argmax(score, axis=0)
    col_best = score[at, np.arange(score.shape[1])]
    weakest = _weakest_pips(inks[0], templates, at) if templates.pips else None
    if weakest is not None:
        # glare beside a 4's pips fakes most of a 6: every pip of a face 3-6 must be there
        col_best = col_best * np.where(templates.asked, np.clip(weakest / SPOT_FULL, 0.0, 1.0), 1.0)
    scores: dict[str, tuple[float, int]] = {}  # face: (score, its best column)
    for j, face in enumerate(templates.faces):
        if face not in scores or col_best[j] > scores[face][0]:
            scores[face] = (float(col_best[j]), j)
    ranked = sorted(scores.items(), key=lambda kv: kv[1][0], reverse=True)
    found: str | None
    found, (best, col) = ranked[0]
    runner = ranked[1][1][0] if len(ranked) > 1 else 0.0
    margin = best - runner
    conf = float(np.clip((best - 0.45) / 0.35, 0.0, 1.0) * np.clip(margin / 0.08, 0.0, 1.0))
    if best < 0.45:
        found, conf = None, 0.0
    elif found == "1" and weakest is not None and weakest[scores["2"][1]] >= SPOT_FULL:
        # glare as big as a 1's pip in the middle of a 2, whose corner pips are both there
        found, conf, col = "2", min(conf, GLARE_TWO), scores["2"][1]
    half = (side - 1) / 2
    pos = int(at[col])
    return found, conf, (pos % side - half, pos // side - half)


_WINDOW = _inner_window()


def _face_crop(image: np.ndarray, centre: tuple[float, float], side: float, angle: float,
               ) -> tuple[np.ndarray, np.ndarray]:
    """The canonical crop of a face of ``side`` frame px; big faces are first shrunk (area
    average) in a window around them so the warp does not alias. Returns the crop and the map
    from frame to canonical pixels."""
    shrink = int(side / (1.5 * CANON))
    if shrink < 2:
        return canonical(image, (centre, (side, side), angle))
    h, w = image.shape[:2]
    r = int(0.8 * side) + shrink
    x0 = max(0, int(centre[0]) - r) // shrink * shrink
    y0 = max(0, int(centre[1]) - r) // shrink * shrink
    x1, y1 = min(w, int(centre[0]) + r), min(h, int(centre[1]) + r)
    win = image[y0:y1, x0:x1]
    small = cv2.resize(win, (win.shape[1] // shrink, win.shape[0] // shrink),
                       interpolation=cv2.INTER_AREA)
    k = 1.0 / shrink
    crop, m = canonical(small, (((centre[0] - x0) * k, (centre[1] - y0) * k),
                                (side * k, side * k), angle))
    # frame -> window -> small -> canonical
    to_small = np.array([[k, 0, -x0 * k], [0, k, -y0 * k], [0, 0, 1]])
    full = m @ to_small
    return crop, full


def read_die(image: np.ndarray, centre: tuple[float, float], side: float, angle: float,
             look: Look, templates: Templates) -> BodyRead | None:
    """Read the face of the die whose top face is near ``centre``, turned by about ``angle``.

    The templates may shift a few pixels; when the best fit is at that limit (the blob was
    lopsided: one rim lit, the other in shade, a side face showing) the face is warped again
    around the new centre. A blob notched by pips and glare at its edge can give a turn that is
    off by up to 45 degrees, so a face that matches nothing is tried again at other turns.
    """
    for turn in TURN_TRIALS:
        read = _read_at(image, centre, side, angle + turn, look, templates)
        if read is not None:
            return read
    return None


def _read_at(image: np.ndarray, centre: tuple[float, float], side: float, angle: float,
             look: Look, templates: Templates) -> BodyRead | None:
    """The most confident of up to 3 reads, each warped around the centre the last one found
    (an asymmetric symbol can pull the fit of a 1 one way and of itself the other), among those
    that stay within ``MAX_DRIFT`` of the body's centre; none when the last read finds no
    face."""
    limit = (CANON + 2 * MARGIN - TEMPLATE) / 2
    c = MARGIN + CANON / 2
    x, y = centre
    best: BodyRead | None = None
    for _ in range(3):
        crop, m = _face_crop(image, (x, y), side, angle)
        face, conf, (sx, sy) = read_face(ink_maps(crop, look), templates)
        # the template's shift moves the centre: back from canonical to frame pixels
        x, y = (float(v) for v in cv2.invertAffineTransform(m) @ np.array([c + sx, c + sy, 1]))
        drift = np.hypot(x - centre[0], y - centre[1])
        if face is not None and drift <= MAX_DRIFT * side and (
                best is None or conf > best.confidence):
            best = BodyRead(face, conf, x, y, side)
        if max(abs(sx), abs(sy)) < limit:
            break
    return best if face is not None else None  # the last fit, nearest the die, says if one is


# --- the frame --------------------------------------------------------------------------------


Rect = tuple[tuple[float, float], tuple[float, float], float]


def _kmeans(pts: np.ndarray, k: int) -> np.ndarray:
    """Labels of ``pts`` split into ``k`` clusters (seeded: a frame reads the same every time)."""
    cv2.setRNGSeed(0)
    crit = (cv2.TERM_CRITERIA_EPS + cv2.TERM_CRITERIA_MAX_ITER, 20, 0.1)
    _, lab, _ = cv2.kmeans(pts, k, np.zeros(0, np.int32), crit, 2, cv2.KMEANS_PP_CENTERS)
    out: np.ndarray = lab.ravel()
    return out


def _squares(part: np.ndarray, die: float, grown: bool, depth: int = 0) -> list[Rect]:
    """The die square of a part of a blob (coarse pixels), or the squares of its pieces when it
    is as big as two dice or more: two cores can stand for a chain of three touching dice, when
    the rim between two of them stays light."""
    (cx, cy), (rw, rh), angle = cv2.minAreaRect(part)
    k = _dice_in(len(part), (rw, rh), die, grown)
    if depth or k < 2:
        long, short = max(rw, rh), min(rw, rh)
        square = long <= 1.8 * short and long <= 1.8 * die and short >= 0.4 * die
        return [((cx, cy), (die, die), angle)] if square else []
    lab = _kmeans(part, k)
    return [sq for j in range(k) if (lab == j).sum() >= 0.3 * die * die
            for sq in _squares(part[lab == j], die, grown, depth + 1)]


def _dice_in(area: float, sides: tuple[float, float], die: float, grown: bool) -> int:
    """How many dice a blob part of ``area`` coarse pixels, whose ``minAreaRect`` has ``sides``,
    holds: its area over a die's, or, if dice may have ``grown``, one when it is a single die
    seen bigger than calibrated (``ONE_BIG_DIE``)."""
    if grown:
        long, short = max(sides), min(sides)
        aspect, filled, most = ONE_BIG_DIE
        if area < most * die * die and long <= aspect * short and area >= filled * long * short:
            return 1
    return round(area / (die * die))


def _rects(bodies: np.ndarray, cores: np.ndarray, die: float, *, grown: bool) -> list[Rect]:
    """One rotated square per die, ``die`` wide (coarse pixels). Dice may have ``grown`` (look
    bigger than ``die``) unless the width is being calibrated: a width too small must then
    fail.

    A body blob holds as many dice as its area says. A lone die is its blob's rectangle. A blob
    of several dice is split between its cores when they number as many as its area says (the
    rims between touching dice are darker, so cores come apart), else by k-means. A part still
    too long for one die is split again by its area.
    """
    single = die * die
    n, labels, stats, _ = components(bodies)
    out: list[Rect] = []
    for i in range(1, n):
        area = float(stats[i, cv2.CC_STAT_AREA])
        if area < 0.4 * single or area > 12.5 * single:
            continue
        x, y, bw, bh = (int(v) for v in stats[i, :4])
        mine = (labels[y:y + bh, x:x + bw] == i).astype(np.uint8)
        nc, _, cstats, cents = components(cores[y:y + bh, x:x + bw] * mine)
        seeds = [j for j in range(1, nc) if cstats[j, cv2.CC_STAT_AREA] >= 0.3 * single]
        ys, xs = np.nonzero(mine)
        pts = np.stack([xs + x, ys + y], axis=1).astype(np.float32)
        _, (rw, rh), _ = cv2.minAreaRect(pts)
        k = max(1, _dice_in(area, (rw, rh), die, grown))
        parts: list[np.ndarray] = []
        if 2 <= len(seeds) <= area / single + 0.7:
            k = len(seeds)  # the cores say how many dice touch here
        if k == 1:
            parts.append(pts)
        else:
            if len(seeds) == k:  # each body pixel goes to the nearest core
                centres = np.array([cents[j] for j in seeds], np.float32)
                centres += np.array([x, y], np.float32)
                lab = np.argmin(((pts[:, None, :] - centres[None]) ** 2).sum(axis=2), axis=1)
            else:
                lab = _kmeans(pts, k)
            parts.extend(pts[lab == j] for j in range(k) if (lab == j).sum() >= 0.3 * single)
        for part in parts:
            out.extend(_squares(part, die, grown))
    return out


def seen_die_width(bodies: np.ndarray, die: float) -> float | None:
    """The die width the body mask shows (coarse pixels), or None when no blob looks like one
    die.

    A blob of one die is a filled square: its area is about its inscribed width squared (a row
    of touching dice has the same width but more area, a ragged fragment of the tray less).
    Blobs touching the frame edge are cut and say nothing. The median over the biggest of the
    rest.
    """
    n, labels, stats, _ = components(bodies)
    dist = cv2.distanceTransform(bodies, cv2.DIST_L2, 5)
    peaks = np.zeros(n, np.float32)
    np.maximum.at(peaks, np.asarray(labels, np.int64).ravel(), dist.ravel())
    h, w = bodies.shape
    x, y, bw, bh, area = (stats[1:, k].astype(np.float32) for k in range(5))
    widths = 2.0 * peaks[1:]
    square = area / np.maximum(widths * widths, 1.0)
    one_die = ((x > 0) & (y > 0) & (x + bw < w) & (y + bh < h) & (widths >= 2.0)
               & (area >= 0.15 * die * die)
               & (square >= SINGLE_BLOB[0]) & (square <= SINGLE_BLOB[1]))
    if not one_die.any():
        return None
    # specks and fragments are smaller than dice: the biggest blobs say the most
    big = one_die & (area >= 0.5 * area[one_die].max())
    return float(np.median(widths[big]))


def read_bodies(image: np.ndarray, look: Look, templates: Templates, *,
                rescale: bool = True) -> list[BodyRead] | None:
    """Every die of the set in a BGR frame; None when the body colour does not single dice out
    (the surface looks like the dice): the caller then falls back to the pip-first path.

    The calibrated die width holds while the camera stays put. When the dice in the body mask
    look clearly bigger or smaller (the camera was raised or lowered, another sensor mode), the
    frame is read again at the width they show, and the reading with the more confident dice
    wins (a fragment of a tray rim in the body colour can fake a width; it cannot fake faces).
    Calibration's own size trials turn this off (``rescale``).
    """
    h, w = image.shape[:2]
    die = look.die_frac * min(h, w)
    first = _read_at_width(image, look, templates, die, measure=rescale, grown=rescale)
    if first is None or not rescale:
        return first[0] if first else None
    best, seen = first
    for round_ in range(1, RESCALE_ROUNDS + 1):
        if seen is None or abs(np.log(seen / die)) <= np.log(RESCALE_BEYOND):
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
    for (cx, cy), _, angle in _rects(bodies, cores, d, grown=grown):
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


# --- calibration ------------------------------------------------------------------------------


@dataclass(frozen=True)
class Learned:
    """What calibration learns for this path (stored in the Profile), and how well it reads."""

    look: Look
    read_back: int = 0
    """Calibration dice this reads back right from the shots, less dice it sees that are not
    there (``_self_check``)."""


def _bgr(v: np.ndarray) -> tuple[float, float, float]:
    return (round(float(v[0]), 1), round(float(v[1]), 1), round(float(v[2]), 1))


def learn(shots: list[tuple[np.ndarray, list[tuple[str, float, float]]]],
          die_guess: list[float]) -> Learned | None:
    """Learn body and ink colours, die size, pip geometry and the fuel symbol from labelled
    shots (face, x, y in frame pixels); ``die_guess`` is a rough die width per shot.

    Each allowance of ``HAZE_LESS_TRIALS`` is learned with in turn, while the last reads back
    fewer than every die; a later one is kept only if it reads the shots back better.
    """
    # one camera: the largest rough guess stands for every shot (a guess too small breaks the
    # surface estimate, one too large costs nothing)
    die_guess = [max(die_guess)] * len(die_guess)
    # 1. body colour: the median of the pixels around all labelled centres together (a centre
    # may sit on a pip or the symbol; over all dice the body is most of it), taken again once
    # the die size is known
    pooled = _body_colour(shots, die_guess, pooled=True)
    if pooled is None:
        return None
    labelled = sum(len(dice) for _, dice in shots)
    best: Learned | None = None
    for haze_less in HAZE_LESS_TRIALS:
        found = _learn_allowing(shots, die_guess, pooled, haze_less)
        if found is not None and (best is None or found.read_back > best.read_back):
            best = found
        if best is not None and best.read_back == labelled:
            break
    return best


def _learn_allowing(shots: list[tuple[np.ndarray, list[tuple[str, float, float]]]],
                    die_guess: list[float], pooled: np.ndarray, haze_less: float
                    ) -> Learned | None:
    """``learn`` from the ``pooled`` body colour, with body pixels allowed to lack
    ``haze_less`` of the body colour's haze."""
    fracs = [_settle_size(image, dice, pooled, s0, haze_less) / min(image.shape[:2])
             for (image, dice), s0 in zip(shots, die_guess, strict=True)]
    settled = [float(np.median(fracs)) * min(image.shape[:2]) for image, _ in shots]
    body = _body_colour(shots, settled, pooled=False)
    if body is None:
        return None
    # one camera, one die size (as a fraction of the frame): each shot proposes one
    fracs = [_settle_size(image, dice, body, s0, haze_less) / min(image.shape[:2])
             for (image, dice), s0 in zip(shots, settled, strict=True)]
    side = min(min(image.shape[:2]) for image, _ in shots)
    proposals = sorted({round(f, 4) for f in [*fracs, float(np.median(fracs))]
                        if f * side >= MIN_DIE_PX})
    # each proposal, and a few multiples of it, is checked by reading the calibration shots
    # back: glare, a dark die on a dark floor or a crowd can mislead one estimate
    best: tuple[int, bool, float, Learned] | None = None
    # and each with the body colour of windows its own width as well: one shot's misread width
    # pulls the settled width, and the windows of the settled body colour, off every die
    trials = [(frac, body) for frac in proposals]
    for frac in proposals:
        own = _body_colour(shots, [frac * min(image.shape[:2]) for image, _ in shots],
                           pooled=False)
        if own is not None and not np.array_equal(own, body):
            trials.append((frac, own))
    for frac, trial_body in trials:
        for factor in SIZE_TRIALS:
            sizes = [frac * factor * min(image.shape[:2]) for image, _ in shots]
            found = _learn_at(shots, trial_body, sizes, haze_less)
            if found is None:
                continue
            score = _self_check(shots, found.look)
            # ties: the settled body colour, then the unscaled estimate
            key = (score, trial_body is body, -abs(float(np.log(factor))))
            if best is None or key > best[:3]:
                best = (*key, found)
    return None if best is None else replace(best[3], read_back=best[0])


def _body_colour(shots: list[tuple[np.ndarray, list[tuple[str, float, float]]]],
                 sizes: list[float], pooled: bool) -> np.ndarray | None:
    """Median colour within a third of a die of the labelled centres: of all those pixels
    together (``pooled``: robust when the size is unsure and a window may sit on ink), else the
    median of each window's median (robust to glare on a few dice)."""
    pixels = []
    for (image, dice), size in zip(shots, sizes, strict=True):
        r = max(2, int(0.3 * size))
        for _, x, y in dice:
            win = image[max(0, int(y) - r):int(y) + r + 1, max(0, int(x) - r):int(x) + r + 1]
            if win.size:
                pixels.append(win.reshape(-1, 3))
    if not pixels:
        return None
    if pooled:
        out: np.ndarray = np.median(np.concatenate(pixels), axis=0)
    else:
        out = np.median(np.array([np.median(p, axis=0) for p in pixels]), axis=0)
    return out


def _settle_size(image: np.ndarray, dice: list[tuple[str, float, float]], body: np.ndarray,
                 s0: float, haze_less: float) -> float:
    """Die width in one shot: twice the distance from each labelled centre to the edge of its
    body blob (alone or touching others); the masks depend on the size, so a few rounds."""
    size = s0
    for _ in range(4):
        small, scale = coarse(image, size)
        bodies, _ = die_masks(small, _bgr(body), size * scale, haze_less)
        dist = cv2.distanceTransform(bodies, cv2.DIST_L2, 3)
        peaks = []
        r = max(1, int(0.3 * size * scale))
        for _, x, y in dice:
            win = dist[max(0, int(y * scale) - r):int(y * scale) + r + 1,
                       max(0, int(x * scale) - r):int(x * scale) + r + 1]
            if win.size and win.max() > 1:
                peaks.append(float(win.max()))
        if not peaks:
            break
        new = 2.0 * float(np.median(peaks)) / scale
        done = abs(new - size) < 0.04 * size
        size = new
        if done:
            break
    return size


def _self_check(shots: list[tuple[np.ndarray, list[tuple[str, float, float]]]],
                look: Look) -> int:
    """How many labelled dice of the calibration shots a reader with ``look`` gets right,
    less the dice it sees that are not there."""
    templates = pip_templates(look)
    return sum(read_back([(r.face, r.x, r.y, r.size)
                          for r in read_bodies(image, look, templates, rescale=False) or []],
                         dice)
               for image, dice in shots)


def read_back(reads: list[tuple[str | None, float, float, float]],
              dice: list[tuple[str, float, float]]) -> int:
    """Labelled dice (face, x, y) that reads (face, x, y, width) got right, less the reads of
    dice that are not there or read wrong: a read counts for a label within 0.4 of its width."""
    score = 0
    for face, rx, ry, size in reads:
        hit = [f for f, x, y in dice if np.hypot(rx - x, ry - y) < 0.4 * size]
        score += 1 if hit and hit[0] == face else -1
    return score


def _learn_at(shots: list[tuple[np.ndarray, list[tuple[str, float, float]]]], body: np.ndarray,
              sizes: list[float], haze_less: float) -> Learned | None:
    """Learn the rest of the set given the die width in each shot."""
    fracs = []
    rects: list[tuple[np.ndarray, str, Rect]] = []
    for (image, dice), size in zip(shots, sizes, strict=True):
        h, w = image.shape[:2]
        small, scale = coarse(image, size)
        bodies, cores = die_masks(small, _bgr(body), size * scale, haze_less)
        d = size * scale
        fracs.append(size / min(h, w))
        found = _rects(bodies, cores, d, grown=False)
        for face, x, y in dice:
            near = [rc for rc in found
                    if np.hypot(rc[0][0] - x * scale, rc[0][1] - y * scale) < 0.4 * d]
            if len(near) == 1:
                (cx, cy), _, a = near[0]
                rects.append((image, face, (((cx + 0.5) / scale - 0.5, (cy + 0.5) / scale - 0.5),
                                             (size, size), a)))
    if not fracs:
        return None
    die_frac = float(np.median(fracs))
    # 3. ink colours: what is far from the body on each face
    inks = []
    crops = []
    for image, face, rect in rects:
        crop, _ = canonical(image, rect)
        inner = int(0.37 * CANON)
        c = MARGIN + CANON // 2
        f = crop[c - inner:c + inner, c - inner:c + inner].reshape(-1, 3).astype(np.float32)
        d = np.linalg.norm(f - body, axis=1)
        # the farthest few percent: the ink itself, not the shading around pips
        far = f[d >= max(40.0, float(np.percentile(d, 96)))]
        if len(far) >= 4:
            inks.append((face, np.median(far, axis=0)))
        crops.append((face, crop))
    pip_inks = [c for f, c in inks if f != "fuel"]
    fuel_inks = [c for f, c in inks if f == "fuel"]
    colours = []
    for group in (pip_inks, fuel_inks):
        if group:
            colours.append(_bgr(np.median(np.array(group), axis=0)))
    if not colours:
        return None
    look = Look(_bgr(body), tuple(colours), die_frac, haze_less=haze_less)
    # 4. pip geometry and the fuel symbol from the ink maps
    offsets, radii, ones, fuel = [], [], [], []
    c0 = MARGIN + CANON / 2
    for face, crop in crops:
        maps = ink_maps(crop, look)
        ink = maps[-1] if face == "fuel" else maps[0]
        if face == "fuel":
            m = (CANON + 2 * MARGIN - TEMPLATE) // 2
            fuel.append(np.ascontiguousarray(ink[m:m + TEMPLATE, m:m + TEMPLATE]))
            continue
        inner = int(0.45 * CANON)
        core = np.zeros(ink.shape, np.uint8)
        core[int(c0) - inner:int(c0) + inner, int(c0) - inner:int(c0) + inner] = 1
        n, _, stats, cents = components((ink > 0.5).astype(np.uint8) & core)
        blobs = [(cents[i], stats[i, cv2.CC_STAT_AREA]) for i in range(1, n)
                 if stats[i, cv2.CC_STAT_AREA] >= 4]
        if len(blobs) != int(face):
            continue
        # the pips' centroid is the face centre (faces 2..6): offsets free of a lopsided crop
        mx, my = (float(v) for v in np.mean([b[0] for b in blobs], axis=0)) if face != "1" \
            else (c0, c0)
        for (bx, by), area in blobs:
            rad = float(np.sqrt(area / np.pi)) / CANON
            off = max(abs(bx - mx), abs(by - my)) / CANON
            if face == "1":
                ones.append(rad)
            elif off > 0.1:
                offsets.append(off)
                radii.append(rad)
    pip_offset = float(np.median(offsets)) if offsets else 0.27
    pip_radius = float(np.median(radii)) if radii else 0.09
    one_radius = float(np.median(ones)) if ones else pip_radius * 1.3
    return Learned(replace(look, pip_offset=pip_offset, pip_radius=pip_radius,
                           one_radius=one_radius, fuel=tuple(fuel)))
