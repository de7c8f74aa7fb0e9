"""Read a die's top face from its picture: a small convolutional network, run by ONNX Runtime.

Counting pips fails on the designs a table meets in the wild (marbled bodies as busy as their
pips, pips only 4 px wide, dice tilted against each other). A network trained on real photos of
many designs reads the face from the whole crop instead. It also answers "no die here", so the
die map's peaks on a die's side, between dice or on the mat are dropped rather than read.

The crop is the same in training (``tools/train_faces.py``) and here: a square of
``CROP_SPAN`` die widths around the centre, turned, resampled to ``CROP_PX`` and normalised by
its own brightness and contrast, so neither the die colour nor the light matters.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import cv2
import numpy as np

from vision.onnx_session import load_session

CLASSES = ("none", "1", "2", "3", "4", "5", "6")
"""What the network answers: no die centred here, or a top face."""

CROP_PX = 32
"""Side of the network's input, in pixels: a pip of a 39 px die is then about 3-4 px."""

CLOSE_PX = 48
"""Side of the closer look's input: a 39 px die at full resolution, pips 5-6 px."""

CROP_SPAN = 1.25
"""Side of the crop in die widths: the whole top face and a rim of what surrounds it."""

TRAINED_PATH = Path(__file__).with_name("models") / "faces.onnx"
TRAINED_CLOSE_PATH = TRAINED_PATH.with_name("faces48.onnx")
"""The networks as ``tools/train_faces.py`` writes them, in 32-bit floats: what
``tools/quantize_faces.py`` quantizes (and what a test holds the quantized ones against)."""
MODEL_PATH = TRAINED_PATH.with_name("faces.int8.onnx")
CLOSE_MODEL_PATH = TRAINED_PATH.with_name("faces48.int8.onnx")
"""The networks the reader runs: quantized to 8-bit integers (``tools/quantize_faces.py``), 1.6
and 1.7 times as fast as in floats; the 48 3-D tuning sets and four households of eight read
within three rolls of 1,200 of the floats (bench/results/2026-12-06-faces-int8.md, which also
gives the held-out figures on both OpenCV versions). On a CPU that does not compute 8 bits
exactly their arithmetic runs in floats (``onnx_session.exact_int8``)."""


def warp(image: np.ndarray, x: float, y: float, size: float, angle: float = 0.0,
         px: int = CROP_PX) -> np.ndarray:
    """The square of ``CROP_SPAN`` widths around a die of width ``size`` centred at (x, y),
    turned by ``angle`` degrees and resampled to ``px`` x ``px`` (float32 BGR)."""
    m = cv2.getRotationMatrix2D((float(x), float(y)), angle, px / (CROP_SPAN * size))
    m[:, 2] += np.array((px / 2 - x, px / 2 - y))
    out: np.ndarray = cv2.warpAffine(image, m, (px, px), flags=cv2.INTER_LINEAR,
                                     borderMode=cv2.BORDER_REPLICATE).astype(np.float32)
    return out


def normalise(patches: np.ndarray) -> np.ndarray:
    """Zero mean and unit contrast, so neither the die colour nor the light matters. Takes one
    patch or a stack of them, each normalised on its own (one call for a frame's crops)."""
    axes = (-3, -2, -1)
    mean = patches.mean(axis=axes, keepdims=True)
    out: np.ndarray = (patches - mean) / (patches.std(axis=axes, keepdims=True) + 8.0)
    return out


def crops(image: np.ndarray, places: Sequence[tuple[float, float, float]],
          px: int = CROP_PX) -> np.ndarray:
    """The network's inputs for dice of width ``size`` centred at each (x, y, size): their
    warped squares, normalised, as an (N, px, px, 3) stack."""
    return normalise(np.stack([warp(image, x, y, size, px=px) for x, y, size in places]))


def turns(patch: np.ndarray, count: int) -> list[np.ndarray]:
    """The first ``count`` (1-4) of four views of a square crop that show the same die: as it
    is, mirrored across a diagonal (the die a quarter turn on: every pip layout is its own
    mirror image up to a turn), mirrored, and a quarter turn on. The other four turns and mirror
    images read no better (bench/results/2026-11-30-vision-uncalibrated.md); how many each
    network sees: ``uncalibrated.FINDER_VIEWS``, ``CLOSER_VIEWS``."""
    turned = np.rot90(patch)
    views = (patch, turned[:, ::-1], patch[:, ::-1], turned)
    return [np.ascontiguousarray(p) for p in views[:count]]


class FaceNet:
    """A trained network: crops of ``px`` x ``px`` in, one probability per class of
    ``CLASSES`` out.

    ONNX Runtime ran it in floats at 0.20 ms a 32 px crop, OpenCV's dnn at 0.66 ms (0.9 in the
    batches of eight of one die's views), when the network was most of the uncalibrated path's
    time (``load_session``: one thread). In 8 bits a batch of 44 crops takes 2.7 ms against
    4.4 in floats, a batch of twelve 48 px crops 1.6 against 2.8 (``MODEL_PATH``).
    """

    def __init__(self, path: Path = MODEL_PATH, px: int = CROP_PX) -> None:
        self._session, self._input = load_session(path, "face")
        self.px = px

    def probabilities(self, crops: np.ndarray) -> np.ndarray:
        """Class probabilities, one row per crop of an (N, px, px, 3) stack."""
        if len(crops) == 0:
            return np.zeros((0, len(CLASSES)), np.float32)
        batch = np.ascontiguousarray(crops.transpose(0, 3, 1, 2), np.float32)
        logits = self._session.run(None, {self._input: batch})[0].reshape(len(crops), len(CLASSES))
        e = np.exp(logits - logits.max(axis=1, keepdims=True))
        out: np.ndarray = (e / e.sum(axis=1, keepdims=True)).astype(np.float32)
        return out
