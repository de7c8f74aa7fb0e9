"""Peer baseline: the classical reader most public dice projects use, written by us.

OpenCV's SimpleBlobDetector finds dark and light pips on the grey image, then pips are clustered
into dice by distance (DBSCAN-like single linkage, in numpy) and each cluster's size is its face.
The blob size limits and the linkage distance scale from the median pip size, so it has a fair
chance at any resolution. It knows no fuel symbol.
"""

from __future__ import annotations

import cv2
import numpy as np

from vision.evaluate import Found


def _detector(dark: bool) -> cv2.SimpleBlobDetector:
    params = cv2.SimpleBlobDetector_Params()
    params.filterByColor = True
    params.blobColor = 0 if dark else 255
    params.minThreshold, params.maxThreshold, params.thresholdStep = 20, 235, 15
    params.filterByArea = True
    params.minArea, params.maxArea = 6, 2500
    params.filterByCircularity = True
    params.minCircularity = 0.6
    params.filterByInertia = True
    params.minInertiaRatio = 0.4
    params.filterByConvexity = True
    params.minConvexity = 0.8
    return cv2.SimpleBlobDetector_create(params)


def _cluster(points: np.ndarray, eps: float) -> list[np.ndarray]:
    """Single-linkage clusters: points closer than ``eps`` share a cluster (DBSCAN, min 1)."""
    n = len(points)
    labels = -np.ones(n, int)
    d = np.sqrt(((points[:, None] - points[None]) ** 2).sum(axis=2))
    current = 0
    for i in range(n):
        if labels[i] >= 0:
            continue
        stack = [i]
        labels[i] = current
        while stack:
            j = stack.pop()
            for k in np.nonzero((d[j] < eps) & (labels < 0))[0]:
                labels[k] = current
                stack.append(int(k))
        current += 1
    return [np.nonzero(labels == c)[0] for c in range(current)]


class PeerBlobReader:
    """SimpleBlobDetector pips + distance clustering; callable like the evaluation's readers."""

    def __init__(self) -> None:
        self._dark = _detector(True)
        self._light = _detector(False)

    def __call__(self, image_bgr: np.ndarray) -> list[Found]:
        grey = cv2.cvtColor(image_bgr, cv2.COLOR_BGR2GRAY)
        found = []
        for detector in (self._dark, self._light):
            keys = detector.detect(grey)
            if not keys:
                continue
            pts = np.array([k.pt for k in keys], np.float64)
            sizes = np.array([k.size for k in keys])
            pip = float(np.median(sizes))
            keep = (sizes > 0.5 * pip) & (sizes < 2.2 * pip)
            pts = pts[keep]
            # a pip is about 0.17 of a die; pips of one die lie within ~0.4 die of each other
            eps = 2.6 * pip
            for members in _cluster(pts, eps):
                if len(members) > 6:
                    continue
                cx, cy = pts[members].mean(axis=0)
                found.append(Found(str(len(members)), float(cx), float(cy), pip / 0.17))
        return found
