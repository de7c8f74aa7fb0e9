"""Read the top face of one die from its group of spots: pips by layout, or the fuel symbol."""

from __future__ import annotations

from dataclasses import dataclass
from itertools import combinations

import numpy as np

from vision.detect import Spot
from vision.pips import PIP_GRID
from vision.profile import Profile


def _layout_distances(grid: tuple[tuple[int, int], ...]) -> np.ndarray:
    """Sorted pairwise pip distances of one layout of ``PIP_GRID``, in units of the pip offset."""
    return np.sort([float(np.hypot(ax - bx, ay - by))
                    for (ax, ay), (bx, by) in combinations(grid, 2)])


LAYOUT_DISTANCES: dict[int, np.ndarray] = {
    len(grid): _layout_distances(grid) for grid in PIP_GRID.values() if len(grid) > 1}
"""The layouts of 2..6 pips, as sorted pairwise distances (a rotation-free signature)."""

OFFSET_RANGE = (0.12, 0.36)
"""Pip offset over the estimated die width that any standard die design falls inside."""
DISC_ROUNDNESS = 0.78
"""Roundness (area over the area of the circle on the longest box side) of a drawn disc."""


@dataclass(frozen=True)
class FaceRead:
    """One die as read: face (None if unreadable), centre and width in working pixels."""

    face: str | None
    confidence: float
    x: float
    y: float
    size: float
    spots: int
    """How many spots the reading rests on: more spots, more evidence that a die is there."""


def layout_fit(points: np.ndarray) -> tuple[float, float]:
    """Fit the standard layout for ``len(points)`` pips: (relative residual, pip offset px).

    Rotation-free: compares sorted pairwise distances with the layout's, after the best scale.
    """
    n = len(points)
    d = np.sort([float(np.hypot(*(points[i] - points[j]))) for i, j in combinations(range(n), 2)])
    ref = LAYOUT_DISTANCES[n]
    offset = float(d @ ref / (ref @ ref))
    resid = float(np.sqrt(np.mean((d - offset * ref) ** 2))) / max(offset, 1e-6)
    return resid, offset


def _pips_read(spots: list[Spot], die_px: float) -> FaceRead:
    """A group of 2..6 pips: the count, trusted as far as the layout and size fit."""
    pts = np.array([(s.x, s.y) for s in spots], np.float64)
    cx, cy = pts.mean(axis=0)
    resid, offset = layout_fit(pts)
    # pip offsets differ between dice designs (0.17 to 0.3 of the die): accept that whole range
    ratio = offset / die_px
    off_range = max(0.0, OFFSET_RANGE[0] / ratio - 1.0, ratio / OFFSET_RANGE[1] - 1.0)
    scale_fit = float(np.clip(1.0 - off_range * 3.0, 0.0, 1.0))
    conf = float(np.clip(1.0 - max(0.0, resid - 0.05) * 3.0, 0.0, 1.0)) * scale_fit
    return FaceRead(str(len(spots)), conf, float(cx), float(cy), die_px, len(spots))


def _single_read(spot: Spot, die_px: float, profile: Profile) -> FaceRead:
    """One spot alone: a big pip (face 1), the fuel symbol, or clutter (confidence 0)."""
    area = spot.area / (die_px * die_px)
    fuel = profile.fuel
    if fuel is not None and spot.hu and (
            abs(spot.roundness - fuel.roundness) < abs(spot.roundness - DISC_ROUNDNESS)):
        size_fit = float(np.clip(1.0 - max(0.0, abs(np.log(area / fuel.area)) - 0.3) * 2.0,
                                 0.0, 1.0))
        shape_fit = float(np.clip(1.0 - abs(spot.hu[0] - fuel.hu[0]) / 0.3, 0.0, 1.0))
        plain = 1.0 if spot.spread <= 0.25 * spot.contrast else 0.4
        return FaceRead("fuel", 0.9 * size_fit * shape_fit * plain, spot.x, spot.y, die_px, 1)
    strong = min(1.0, spot.contrast / 60.0) * min(1.0, area / 0.03) ** 2
    plain = 1.0 if spot.spread <= 0.3 * spot.contrast else 0.5
    conf = 0.9 * strong * plain * min(1.0, spot.roundness / 0.65)
    return FaceRead("1", conf, spot.x, spot.y, die_px, 1)


def read_group(spots: list[Spot], die_px: float, profile: Profile) -> FaceRead:
    """Name the face shown by one group of spots and say how sure that is."""
    if len(spots) == 1:
        return _single_read(spots[0], die_px, profile)
    pts = np.array([(s.x, s.y) for s in spots], np.float64)
    cx, cy = pts.mean(axis=0)
    if len(spots) > 6:
        return FaceRead(None, 0.0, float(cx), float(cy), die_px, len(spots))
    return _pips_read(spots, die_px)


def best_reads(spots: list[Spot], die_px: float, profile: Profile) -> list[FaceRead]:
    """Read a group, repairing the usual grouping faults: one stray spot joined to a die, or
    two dice joined into one group (split in two along their longest spread)."""
    first = read_group(spots, die_px, profile)
    if first.confidence >= 0.5 or len(spots) < 3:
        return [first]
    candidates = [first]
    if len(spots) <= 7:
        for drop in range(len(spots)):
            rest = spots[:drop] + spots[drop + 1:]
            r = read_group(rest, die_px, profile)
            candidates.append(r)
    best = max(candidates, key=lambda r: r.confidence)
    if best.confidence >= 0.5 or len(spots) < 4:
        return [best]
    halves = _split(spots)
    if halves is None:
        return [best]
    reads = [r for half in halves for r in best_reads(half, die_px, profile)]
    if min(r.confidence for r in reads) > best.confidence:
        return reads
    return [best]


def _split(spots: list[Spot]) -> tuple[list[Spot], list[Spot]] | None:
    """Two-means on spot positions, seeded at the two spots farthest apart."""
    pts = np.array([(s.x, s.y) for s in spots], np.float64)
    d = ((pts[:, None] - pts[None]) ** 2).sum(axis=2)
    i, j = np.unravel_index(int(np.argmax(d)), d.shape)
    centres = pts[[i, j]].copy()
    labels = np.zeros(len(pts), int)
    for _ in range(6):
        labels = np.argmin(((pts[:, None] - centres[None]) ** 2).sum(axis=2), axis=1)
        if labels.min() == labels.max():
            return None
        centres = np.array([pts[labels == k].mean(axis=0) for k in (0, 1)])
    a = [s for s, k in zip(spots, labels, strict=True) if k == 0]
    b = [s for s, k in zip(spots, labels, strict=True) if k == 1]
    return a, b
