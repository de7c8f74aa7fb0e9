"""Find the dice in a frame: where each die lies and how big it is, before any face is read.

The pipeline is scale-free: a coarse pass estimates the die size from the foreground blobs, the
frame is then resampled so a die is about ``WORK_DIE_PX`` pixels wide, and every later threshold is
a fraction of that size. Dice are separated from the surface by their colour distance to a smooth
background estimate (a median far larger than a die), so felt, wood, paper and slow light gradients
all drop out; touching dice are split by k-means on the pixels of a blob, seeded from its
distance-transform peaks, with as many centres as the blob's area holds dice.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np
from numpy.typing import NDArray

Image = NDArray[np.uint8]

WORK_DIE_PX = 40.0
"""Die width the frame is resampled to: pips are then 5-8 px, enough to count, cheap to scan."""

COARSE_MAX_DIM = 400
"""Longest side of the frame for the first, size-finding pass."""


@dataclass(frozen=True)
class Blob:
    """One die-sized region of the working image: a die, or a part of a cluster of dice."""

    x: float
    y: float
    mask: Image
    """Full-size (working image) mask of the pixels that belong to this die."""


@dataclass(frozen=True)
class Scene:
    """The frame prepared for reading: the resampled image, its scale and the dice found in it."""

    work: Image
    lab: NDArray[np.float32]
    scale: float
    """Working pixels per frame pixel."""
    die_px: float
    """Die width in working pixels."""
    foreground: Image
    dice: tuple[Blob, ...]


def colour_distance(lab: NDArray[np.float32], ref: NDArray[np.float32]) -> NDArray[np.float32]:
    """Distance in Lab with lightness half-weighted, so shading counts less than a change of hue."""
    d = lab - ref
    out: NDArray[np.float32] = np.sqrt(0.25 * d[..., 0] ** 2 + d[..., 1] ** 2 + d[..., 2] ** 2)
    return out


def to_lab(image: Image) -> NDArray[np.float32]:
    """Lab in float32 (OpenCV's 8-bit scaling), the space every colour distance here uses."""
    out: NDArray[np.float32] = cv2.cvtColor(image, cv2.COLOR_BGR2LAB).astype(np.float32)
    return out


def background(image: Image, kernel_px: float) -> Image:
    """Estimate the bare surface by a median far wider than a die, computed on a small copy."""
    h, w = image.shape[:2]
    factor = min(1.0, 8.0 / max(kernel_px / 7.0, 1.0))
    small = cv2.resize(image, (max(8, round(w * factor)), max(8, round(h * factor))),
                       interpolation=cv2.INTER_AREA)
    k = max(3, int(kernel_px * factor) | 1)
    k = min(k, (min(small.shape[:2]) - 1) | 1)
    med = cv2.medianBlur(small, k)
    out: Image = cv2.resize(med, (w, h), interpolation=cv2.INTER_LINEAR)
    return out


def foreground_mask(lab: NDArray[np.float32], bg_lab: NDArray[np.float32],
                    close_px: int) -> Image:
    """Pixels that differ from the surface more than its own noise does, holes closed."""
    dist = colour_distance(lab, bg_lab)
    noise = float(np.median(dist))
    thresh = max(7.0, 3.5 * noise)
    mask = (dist > thresh).astype(np.uint8) * 255
    k = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (close_px, close_px))
    mask = cv2.morphologyEx(mask, cv2.MORPH_CLOSE, k)
    out: Image = cv2.morphologyEx(mask, cv2.MORPH_OPEN, k)
    return out


def estimate_die_size(mask: Image) -> float | None:
    """Die width from the blobs that look like one die: square-ish, solid, not tiny.

    Takes the median side of compact blobs, so clusters (counted once each) and specks pull less
    than the many single dice; returns None when nothing in the frame looks like a die.
    """
    n, _, stats, _ = cv2.connectedComponentsWithStats(mask, connectivity=8)
    h, w = mask.shape
    sides = []
    for i in range(1, n):
        bw, bh, area = stats[i, 2], stats[i, 3], stats[i, 4]
        if area < 16 or max(bw, bh) > 0.5 * min(h, w):
            continue
        aspect = max(bw, bh) / max(1, min(bw, bh))
        fill = area / float(bw * bh)
        if aspect < 1.6 and fill > 0.5:
            sides.append(np.sqrt(area))
    if not sides:
        return None
    sides_arr = np.array(sides)
    # Clusters inflate the upper tail: the median of the lower two thirds is a single die.
    sides_arr = np.sort(sides_arr)[: max(1, int(np.ceil(len(sides_arr) * 2 / 3)))]
    return float(np.median(sides_arr))


def split_blob(points: NDArray[np.float32], count: int, seeds: NDArray[np.float32]) -> NDArray[
        np.int32]:
    """Label each pixel of a blob with one of ``count`` dice by k-means seeded at DT peaks."""
    centres = seeds[:count].copy()
    labels = np.zeros(len(points), dtype=np.int32)
    for _ in range(8):
        d = ((points[:, None, :] - centres[None, :, :]) ** 2).sum(axis=2)
        labels = np.argmin(d, axis=1).astype(np.int32)
        for k in range(count):
            sel = points[labels == k]
            if len(sel):
                centres[k] = sel.mean(axis=0)
    return labels


def dt_peaks(mask: Image, die_px: float) -> NDArray[np.float32]:
    """Distance-transform maxima, strongest first, no two closer than about half a die."""
    dt = cv2.distanceTransform(mask, cv2.DIST_L2, 3)
    k = max(3, int(die_px * 0.5) | 1)
    dil = cv2.dilate(dt, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k, k)))
    ys, xs = np.nonzero((dt >= dil) & (dt > die_px * 0.2))
    order = np.argsort(-dt[ys, xs])
    chosen: list[tuple[float, float]] = []
    for i in order:
        p = (float(xs[i]), float(ys[i]))
        if all((p[0] - q[0]) ** 2 + (p[1] - q[1]) ** 2 > (0.55 * die_px) ** 2 for q in chosen):
            chosen.append(p)
    return np.array(chosen, dtype=np.float32).reshape(-1, 2)


def blobs_of_component(comp: Image, die_px: float) -> list[Blob]:
    """Cut one connected foreground region into die-sized pieces."""
    area = float(np.count_nonzero(comp))
    count = max(1, round(area / (die_px * die_px * 1.1)))
    ys, xs = np.nonzero(comp)
    if count == 1:
        return [Blob(float(xs.mean()), float(ys.mean()), comp)]
    points = np.stack([xs, ys], axis=1).astype(np.float32)
    seeds = dt_peaks(comp, die_px)
    if len(seeds) < count:
        extra = points[np.random.default_rng(0).choice(len(points), count - len(seeds))]
        seeds = np.vstack([seeds, extra])
    labels = split_blob(points, count, seeds)
    out = []
    for k in range(count):
        sel = labels == k
        if not sel.any():
            continue
        m = np.zeros_like(comp)
        m[ys[sel], xs[sel]] = 255
        out.append(Blob(float(xs[sel].mean()), float(ys[sel].mean()), m))
    return out


def find_blobs(mask: Image, die_px: float) -> list[Blob]:
    """Every die-sized piece of the foreground; specks and slivers are dropped."""
    n, labels, stats, _ = cv2.connectedComponentsWithStats(mask, connectivity=8)
    out: list[Blob] = []
    for i in range(1, n):
        if stats[i, 4] < 0.3 * die_px * die_px:
            continue
        comp = (labels == i).astype(np.uint8) * 255
        out.extend(blobs_of_component(comp, die_px))
    return out


def prepare(image: Image) -> Scene:
    """Estimate the die size, resample the frame to the working scale and find the dice in it."""
    h, w = image.shape[:2]
    coarse_scale = min(1.0, COARSE_MAX_DIM / max(h, w))
    coarse = cv2.resize(image, None, fx=coarse_scale, fy=coarse_scale,
                        interpolation=cv2.INTER_AREA) if coarse_scale < 1 else image
    c_lab = to_lab(coarse)
    c_bg = to_lab(background(coarse, 0.25 * min(coarse.shape[:2])))
    c_mask = foreground_mask(c_lab, c_bg, 3)
    die_c = estimate_die_size(c_mask)
    die_frame = (die_c / coarse_scale) if die_c else WORK_DIE_PX
    scale = min(1.0, WORK_DIE_PX / die_frame)
    work = cv2.resize(image, None, fx=scale, fy=scale,
                      interpolation=cv2.INTER_AREA) if scale < 1 else image
    die_px = die_frame * scale
    lab = to_lab(work)
    bg = to_lab(background(work, 4.0 * die_px))
    mask = foreground_mask(lab, bg, max(3, int(die_px * 0.2) | 1))
    return Scene(work, lab, scale, die_px, mask, tuple(find_blobs(mask, die_px)))
