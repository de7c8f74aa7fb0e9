"""One die's top face read in a canonical square: its ink matched against the calibrated
templates.

The top face is warped to a canonical square of ``CANON`` px and turned into *ink* maps: how
far each pixel has moved from the die's own body colour towards each calibrated ink colour.
The ink maps are matched (normalised cross-correlation, a few pixels of slack, all templates
in one matrix product) against the pip layouts drawn with the calibrated pip geometry and
against the calibrated fuel symbol in four rotations. The best template names the face; its
score and its lead over the runner-up give the confidence.

What the path knows about a set (``Look``) and what it reports of a die (``BodyRead``) are
defined here, where they are first needed.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import NamedTuple

import cv2
import numpy as np

from vision.body_mask import HAZE_BODY, HAZE_FRAC, grey_axis, unit_colour
from vision.pips import PIP_GRID

CANON = 32
"""Side of the canonical top face, px: pips are then about 5 px across."""
MARGIN = 5
"""Canonical pixels of slack around the face in the warped crop."""
TEMPLATE = 36
"""Side of the region matched against the templates (leaves +-3 px of shift)."""
INNER = 0.8
"""Part of the canonical face (the core) that can hold ink."""

TURN_TRIALS = (0.0, 45.0, 22.5, -22.5)
"""Turns (degrees) added to a blob's angle while its face matches nothing."""
MAX_DRIFT = 0.2
"""Farthest a read's centre may move from its body's centre when the face is warped again
around the fit, in die widths: less than a pip's offset from the middle (0.25-0.3). Further on,
the fit has slid onto a corner pip: a 2 under glare read as a sure 1 centred on one of its
pips."""
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
has nothing in its corners. Below ``confidence.SURE``, so the table asks."""
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

    def die_px(self, shape: tuple[int, ...]) -> float:
        """The calibrated die width in a frame of ``shape``, frame pixels."""
        return self.die_frac * min(shape[:2])


@dataclass(frozen=True)
class BodyRead:
    """One die of the calibrated path, in frame pixels."""

    face: str | None
    confidence: float
    x: float
    y: float
    size: float


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

    @cached_property
    def paired(self) -> np.ndarray:
        """(TEMPLATE**2, 2n): ``unit`` and ``contrast`` side by side, for one matrix product."""
        return self._side_by_side(np.ones_like(self.fuel))

    @cached_property
    def pips_paired(self) -> np.ndarray:
        """``paired`` of the columns matched on the pips' ink map only."""
        return self._side_by_side(~self.fuel)

    @cached_property
    def fuel_paired(self) -> np.ndarray:
        """``paired`` of the symbol's columns only (``fuel``)."""
        return self._side_by_side(self.fuel)

    def _side_by_side(self, columns: np.ndarray) -> np.ndarray:
        """``unit`` and ``contrast`` of the ``columns`` (a bool mask) side by side."""
        return np.ascontiguousarray(np.hstack([self.unit[:, columns],
                                               self.contrast[:, columns]]))

    @cached_property
    def pip_places(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Every pip of every column as three flat arrays: its column, x and y (see ``pips``)."""
        cols = [j for j, pips in enumerate(self.pips) for _ in pips]
        xs = [x for pips in self.pips for x, _ in pips]
        ys = [y for pips in self.pips for _, y in pips]
        return np.array(cols, np.intp), np.array(xs, np.intp), np.array(ys, np.intp)


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
    # a symbol learned in weak light (ring light, glare) is faint; its shape is the template,
    # its strength is the ink map's to measure
    pairs.extend(("fuel", np.rot90(t / max(float(t.max()), 1e-6), k), [])
                 for t in look.fuel for k in range(4))
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
    unit = unit_colour(body)
    axis = grey_axis(unit)
    if axis is None:
        return 0.0
    grey, g2 = axis
    along = float((colour - unit * light) @ grey) / g2
    cap = min(HAZE_FRAC * light, light - HAZE_BODY * float(body.mean()))
    return min(max(along, 0.0), max(cap, 0.0))


def ink_maps(crop: np.ndarray, look: Look) -> list[np.ndarray]:
    """Per calibrated ink colour: how far each pixel went from this die's own body colour
    towards that ink (its colour scaled by the die's light), less how far it strayed off that
    way (``OFF_AXIS``), 0..1, inside the inner part of the face only (the bevelled rim and the
    surface are not ink). The die's body colour is the median of the face's middle; for the
    symbol's ink (a set's second), ``_symbol_body``."""
    f = crop.astype(np.float32)
    calibrated = np.array(look.body, np.float32)
    middle = np.median(f[_MIDDLE].reshape(-1, 3), axis=0)
    own = _DieLight.of(f, middle, calibrated)
    inks = [np.array(ink, np.float32) for ink in look.inks]
    out = [own.ink_map(ink) for ink in inks[:1]]
    for ink in inks[1:]:
        body = _symbol_body(f, middle, calibrated, ink)
        out.append((own if body is middle else _DieLight.of(f, body, calibrated)).ink_map(ink))
    return out


class _DieLight(NamedTuple):
    """A die's body colour in its light and what every ink map of a crop takes from it."""

    body: np.ndarray
    haze: float
    gain: np.ndarray
    moved: np.ndarray
    """The crop less the body colour."""
    moved2: np.ndarray
    """Each pixel's squared distance from the body colour."""

    @staticmethod
    def of(crop: np.ndarray, body: np.ndarray, calibrated: np.ndarray) -> _DieLight:
        haze = _haze(body, calibrated)
        moved = crop - body
        return _DieLight(body, haze, (body - haze) / np.maximum(calibrated, 1.0), moved,
                         cv2.transform(moved * moved, np.ones((1, 3), np.float32)))

    def ink_map(self, ink: np.ndarray) -> np.ndarray:
        """``ink_maps``' map of one ink."""
        axis = ink * self.gain + self.haze - self.body
        norm2 = max(float(axis @ axis), 100.0)
        proj = cv2.transform(self.moved, (axis / norm2).reshape(1, 3))
        off = np.sqrt(np.maximum(self.moved2 / norm2 - proj * proj, 0.0))
        stray = np.maximum(off - OFF_AXIS_FREE, 0.0)
        out: np.ndarray = _unit(proj - OFF_AXIS * stray) * _WINDOW
        return out


def _symbol_body(crop: np.ndarray, middle: np.ndarray, calibrated: np.ndarray,
                 ink: np.ndarray) -> np.ndarray:
    """The die's body colour as the symbol's ink map takes it: the median of the face's middle
    (``middle``), unless that is nearer the symbol's hue than the calibrated body's; then the
    median of the band inside the face's rim. A big fuel symbol covers the middle: on glossy
    red dice the middle's median was the yellow symbol itself, its ink map came out empty and
    no fuel die of the set was read."""
    unit = unit_colour(middle)
    if np.linalg.norm(unit - unit_colour(ink)) >= np.linalg.norm(unit - unit_colour(calibrated)):
        return middle
    band: np.ndarray = np.median(crop[_BAND], axis=0)
    return band


def _shifted(ink: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Every ``TEMPLATE`` square window of ``ink`` as matrix rows, and each row's norm about
    its mean (from the integral images: a sixth of the time of summing the rows)."""
    side = ink.shape[0] - TEMPLATE + 1
    win = np.lib.stride_tricks.as_strided(ink, (side, side, TEMPLATE, TEMPLATE), ink.strides * 2)
    rows = win.reshape(-1, TEMPLATE * TEMPLATE)
    sums, squares = cv2.integral2(ink)
    window_sum = _window_sums(sums)
    var = np.maximum(_window_sums(squares) - window_sum * window_sum / (TEMPLATE * TEMPLATE),
                     1e-6)
    return rows, np.sqrt(var).ravel().astype(np.float32)


def _matched(ink: np.ndarray, paired: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Every shift of ``ink`` against the columns of ``paired`` (as ``Templates.paired``): their
    normalised cross-correlations and ink contrasts, one row per shift."""
    rows, norms = _shifted(ink)
    both = rows @ paired
    n = paired.shape[1] // 2
    return both[:, :n] / norms[:, None], both[:, n:]


def _window_sums(integral: np.ndarray) -> np.ndarray:
    """The sum over every ``TEMPLATE`` square window, from an integral image."""
    t = TEMPLATE
    out: np.ndarray = integral[t:, t:] - integral[:-t, t:] - integral[t:, :-t] + integral[:-t, :-t]
    return out


def _weakest_pips(ink: np.ndarray, templates: Templates, at: np.ndarray) -> np.ndarray:
    """Per column at its best shift ``at``: its weakest pip, as disc-over-ring contrast of the
    pip ink. Columns without pips (the symbol) get 1."""
    side = ink.shape[0] - TEMPLATE + 1
    spot = cv2.dilate(cv2.filter2D(ink, -1, templates.spot, borderType=cv2.BORDER_CONSTANT),
                      np.ones((3, 3), np.uint8))
    cols, px, py = templates.pip_places
    y, x = np.divmod(at[cols], side)
    weakest = np.ones(len(templates.faces), np.float32)
    np.minimum.at(weakest, cols, spot[y + py, x + px])
    return weakest


def _spread(ink: np.ndarray) -> float:
    """The standard deviation of an ink map (OpenCV's, a fifth of NumPy's time on a crop)."""
    return float(cv2.meanStdDev(ink)[1][0, 0])


def _unit(values: np.ndarray) -> np.ndarray:
    """``values`` clipped to [0, 1]. ``np.clip`` spends 10 us a call on the Pi's NumPy 1.24
    checking its arguments, and the body path calls this about 170 times a slow frame: on the 48
    3-D tuning sets, 515 frames of 720 read within 25 ms against 508 with ``np.clip``."""
    out: np.ndarray = np.minimum(np.maximum(values, 0.0), 1.0)
    return out


def read_face(inks: list[np.ndarray], templates: Templates,
              ) -> tuple[str | None, float, tuple[float, float]]:
    """(face, confidence, centre shift in canonical px) by template correlation over a few
    pixels of shift. Pips are matched on the first ink map (pip colour), the fuel symbol on the
    last (its own colour)."""
    if _spread(inks[0]) < 0.03 and _spread(inks[-1]) < 0.03:
        return None, 0.0, (0.0, 0.0)
    side = inks[0].shape[0] - TEMPLATE + 1
    cols = templates.fuel
    if cols.any() and inks[-1] is not inks[0]:
        # each ink map against its own columns only, not both against all: half the product
        ncc = np.empty((side * side, len(cols)), np.float32)
        contrast = np.empty_like(ncc)
        ncc[:, ~cols], contrast[:, ~cols] = _matched(inks[0], templates.pips_paired)
        ncc[:, cols], contrast[:, cols] = _matched(inks[-1], templates.fuel_paired)
    else:
        ncc, contrast = _matched(inks[0], templates.paired)
    # correlation ignores amplitude: ask for ink about as strong as calibrated, so a faint echo
    # in another ink's map (a white pip seen in the blue symbol's map) loses
    score = ncc * _unit(contrast / 0.5)
    at = np.argmax(score, axis=0)
    col_best = score[at, np.arange(score.shape[1])]
    weakest = _weakest_pips(inks[0], templates, at) if templates.pips else None
    if weakest is not None:
        # glare beside a 4's pips fakes most of a 6: every pip of a face 3-6 must be there
        col_best = col_best * np.where(templates.asked, _unit(weakest / SPOT_FULL), 1.0)
    scores: dict[str, tuple[float, int]] = {}  # face: (score, its best column)
    for j, face in enumerate(templates.faces):
        if face not in scores or col_best[j] > scores[face][0]:
            scores[face] = (float(col_best[j]), j)
    ranked = sorted(scores.items(), key=lambda kv: kv[1][0], reverse=True)
    found: str | None
    found, (best, col) = ranked[0]
    runner = ranked[1][1][0] if len(ranked) > 1 else 0.0
    margin = best - runner
    conf = float(_unit(np.array([(best - 0.45) / 0.35, margin / 0.08])).prod())
    if best < 0.45:
        found, conf = None, 0.0
    elif found == "1" and weakest is not None and weakest[scores["2"][1]] >= SPOT_FULL:
        # glare as big as a 1's pip in the middle of a 2, whose corner pips are both there
        found, conf, col = "2", min(conf, GLARE_TWO), scores["2"][1]
    half = (side - 1) / 2
    pos = int(at[col])
    return found, conf, (pos % side - half, pos // side - half)


_WINDOW = _inner_window()
_MIDDLE = (slice(MARGIN + CANON // 2 - CANON // 3, MARGIN + CANON // 2 + CANON // 3),) * 2
"""The face's middle in a canonical crop: a third of the face each side of its centre."""
_BAND = (np.abs(np.mgrid[:CANON + 2 * MARGIN, :CANON + 2 * MARGIN] - (MARGIN + CANON // 2)
                ).max(axis=0) >= 0.3 * CANON) & (_WINDOW > 0)
"""The band inside a canonical face's rim: within ``INNER`` of the face, beyond 0.3 of it
from the centre (the corner pips' outer halves lie in it, a minority)."""


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
             look: Look, templates: Templates, turns: Sequence[float] = TURN_TRIALS
             ) -> BodyRead | None:
    """Read the face of the die whose top face is near ``centre``, turned by about ``angle``.

    The templates may shift a few pixels; when the best fit is at that limit (the blob was
    lopsided: one rim lit, the other in shade, a side face showing) the face is warped again
    around the new centre. A blob notched by pips and glare at its edge can give a turn that is
    off by up to 45 degrees, so a face that matches nothing is tried again at other turns
    (``turns``, added to ``angle`` in order until one reads).
    """
    for turn in turns:
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
