"""The calibrated path's body mask: which pixels of a frame are the body of one of the set's dice.

The mask is made at a coarse scale (a die about ``COARSE_DIE_PX`` wide): pixels whose
chromaticity is near the calibrated body's, whose lightness is within a broad band of it (light
falls unevenly) and that are nearer the body colour than the bare surface around them. Holes
(pips, the symbol, glare) are filled. The *cores* keep only pixels nearly as light as the
body around them: the darker bevelled rims drop out, so touching dice come apart.
"""

from __future__ import annotations

import threading

import cv2
import numpy as np

from vision.detect import background

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
HAZE_MIN_CHROMA = 0.12
"""Below this squared chromaticity (normalised rgb) a body is greyish: its haze cannot be told
from its light, so none is taken off."""
HAZE_BODY = 0.9
"""Under the haze a body pixel is still lit at least this much of the body's lightness (a pixel
half die, half floor at a die's edge is not)."""

CORE_NOISE = 5.0
"""Grey levels a core pixel may always fall below the body around it (noise on dark dice)."""


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
    clipped = _brightest(f) >= np.float32(CLIP_LEVEL) if len(candidates) > 1 else None
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


def unit_colour(colour: np.ndarray) -> np.ndarray:
    """``colour`` over its lightness: the body colour at unit light."""
    unit: np.ndarray = colour / max(float(colour.mean()), 1.0)
    return unit


def grey_axis(unit: np.ndarray) -> tuple[np.ndarray, float] | None:
    """How one grey level of haze moves a pixel away from ``unit`` colour times its light, and
    that vector's squared length; None for a greyish body, whose haze cannot be told from its
    light (``HAZE_MIN_CHROMA``)."""
    grey: np.ndarray = np.float32(1.0) - unit
    g2 = float(grey @ grey)
    return None if g2 < HAZE_MIN_CHROMA else (grey, g2)


def _brightest(f: np.ndarray) -> np.ndarray:
    """Each pixel's brightest channel, as two elementwise maxima: NumPy's maximum over a
    3-long last axis took 5.5 ms on a 427x240 frame, these 0.24 ms."""
    out: np.ndarray = np.maximum(np.maximum(f[..., 0], f[..., 1]), f[..., 2])
    return out


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
    unit = unit_colour(colour)
    proj = np.eye(3, dtype=np.float32) - np.outer(unit, np.full(3, 1 / 3, np.float32))
    axis = grey_axis(unit)
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
