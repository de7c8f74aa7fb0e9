"""Body blobs split into dice, one square of the calibrated width each, and the die width the
blobs show.

A body blob holds as many dice as its area says. A lone die is its blob's ``minAreaRect``;
a blob of several is split between its cores (or by k-means). Each die is a square of the
calibrated width.
"""

from __future__ import annotations

import cv2
import numpy as np

from vision.detect import blob_maxima, components

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
        return [((cx, cy), (die, die), square_turn(angle))] if square else []
    lab = _kmeans(part, k)
    return [sq for j in range(k) if (lab == j).sum() >= 0.3 * die * die
            for sq in _squares(part[lab == j], die, grown, depth + 1)]


def square_turn(angle: float) -> float:
    """A die square's turn in degrees, in [-90, 0) whichever OpenCV measured it.

    ``cv2.minAreaRect`` gives a square's turn in [-90, 0) on OpenCV 5.1, but in (0, 90] on
    the Pi's OpenCV 4.6. The two are the same square a quarter turn apart.

    ``cv2.boxPoints`` starts at another corner for each of them. So the die's canonical crop
    (``body_face.canonical``) was turned a quarter, and calibration learned other fuel
    templates and ink colours on OpenCV 4.6. Profiles calibrated on 4.6 read worse on either
    version: 5.1 read 7 of set 5005's 15 hard rolls with one against 11 with its own.

    With one turn, the 48 hard 3-D tuning sets read 533 rolls of 720 on 4.6 against 523 (wrong
    without asking 27 against 37), and 540 on 5.1 as before."""
    return angle % 90 - 90


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


def die_rects(bodies: np.ndarray, cores: np.ndarray, die: float, *, grown: bool) -> list[Rect]:
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
    _, labels, stats, _ = components(bodies)
    h, w = bodies.shape
    x, y, bw, bh, area = (stats[:, k].astype(np.float32) for k in range(5))
    whole = (x > 0) & (y > 0) & (x + bw < w) & (y + bh < h) & (area >= 0.15 * die * die)
    whole[0] = False  # the background
    dist = cv2.distanceTransform(bodies, cv2.DIST_L2, 5)
    widths = 2.0 * blob_maxima(labels, stats, dist, whole)
    square = area / np.maximum(widths * widths, 1.0)
    one_die = (whole & (widths >= 2.0)
               & (square >= SINGLE_BLOB[0]) & (square <= SINGLE_BLOB[1]))
    if not one_die.any():
        return None
    # specks and fragments are smaller than dice: the biggest blobs say the most
    big = one_die & (area >= 0.5 * area[one_die].max())
    return float(np.median(widths[big]))
