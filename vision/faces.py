"""Read the top face of one die: count its pips, or recognise the calibrated fuel symbol."""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.detect import Blob, Image, Scene


@dataclass(frozen=True)
class Spot:
    """A blob on a die's top face that differs from the body: a pip or part of a symbol."""

    x: float
    y: float
    area: float
    roundness: float


@dataclass(frozen=True)
class FaceRead:
    face: str | None
    confidence: float
    x: float
    y: float
    size: float


def spots(scene: Scene, blob: Blob) -> list[Spot]:
    """Blobs inside the die that contrast with its body colour, in working-image pixels."""
    d = scene.die_px
    ys, xs = np.nonzero(blob.mask)
    pad = int(0.2 * d)
    h, w = blob.mask.shape
    x0, x1 = max(0, xs.min() - pad), min(w, xs.max() + pad + 1)
    y0, y1 = max(0, ys.min() - pad), min(h, ys.max() + pad + 1)
    m = blob.mask[y0:y1, x0:x1]
    lab = scene.lab[y0:y1, x0:x1]
    ek = max(3, int(0.12 * d) | 1)
    inner = cv2.erode(m, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (ek, ek)))
    if not inner.any():
        inner = m
    body = np.median(lab[inner > 0], axis=0)
    diff = lab - body
    dist = np.sqrt((diff**2).sum(axis=2))
    vals = dist[inner > 0]
    t = max(18.0, float(np.percentile(vals, 50)) * 3.0)
    pip = ((dist > t) & (inner > 0)).astype(np.uint8)
    n, _, stats, cents = cv2.connectedComponentsWithStats(pip, connectivity=8)
    out = []
    for i in range(1, n):
        area = float(stats[i, 4])
        if area < 0.004 * d * d or area > 0.08 * d * d:
            continue
        bw, bh = stats[i, 2], stats[i, 3]
        r = 0.5 * max(bw, bh)
        roundness = area / (np.pi * r * r)
        if roundness < 0.4:
            continue
        out.append(Spot(float(cents[i, 0] + x0), float(cents[i, 1] + y0), area, roundness))
    return out


def read_face(scene: Scene, blob: Blob) -> FaceRead:
    """Count the pips of one die; the confidence falls when the count is outside 1..6."""
    found = spots(scene, blob)
    n = len(found)
    s = scene.scale
    face = str(n) if 1 <= n <= 6 else None
    conf = 0.9 if face else 0.0
    return FaceRead(face, conf, blob.x / s, blob.y / s, scene.die_px / s)


def pip_positions(found: list[Spot]) -> NDArray[np.float32]:
    """Spot centres as an (n, 2) array."""
    return np.array([(p.x, p.y) for p in found], dtype=np.float32).reshape(-1, 2)


__all__ = ["FaceRead", "Image", "Spot", "pip_positions", "read_face", "spots"]
