"""Read a die's top face from its picture: a small convolutional network, run by OpenCV's dnn.

The uncalibrated path finds dice by their pips, but counting those pips fails on the designs a
table meets in the wild (marbled bodies as busy as their pips, pips only 4 px wide, dice tilted
against each other). A network trained on real photos of many designs reads the face from the
whole crop instead. It also answers "no die here", so stray spot groups on a die's side or on the
mat are dropped rather than read.

The crop is the same in training (``tools/train_faces.py``) and here: a square of
``CROP_SPAN`` die widths around the centre, turned, resampled to ``CROP_PX`` and normalised by
its own brightness and contrast, so neither the die colour nor the light matters.
"""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np

CLASSES = ("none", "1", "2", "3", "4", "5", "6")
"""What the network answers: no die centred here, or a top face."""

CROP_PX = 32
"""Side of the network's input, in pixels: a pip of a 39 px die is then about 3-4 px."""

CROP_SPAN = 1.25
"""Side of the crop in die widths: the whole top face and a rim of what surrounds it."""

MODEL_PATH = Path(__file__).with_name("models") / "faces.onnx"


def warp(image: np.ndarray, x: float, y: float, size: float, angle: float = 0.0) -> np.ndarray:
    """The square of ``CROP_SPAN`` widths around a die of width ``size`` centred at (x, y),
    turned by ``angle`` degrees and resampled to CROP_PX x CROP_PX (float32 BGR)."""
    m = cv2.getRotationMatrix2D((float(x), float(y)), angle, CROP_PX / (CROP_SPAN * size))
    m[:, 2] += np.array((CROP_PX / 2 - x, CROP_PX / 2 - y))
    out: np.ndarray = cv2.warpAffine(image, m, (CROP_PX, CROP_PX), flags=cv2.INTER_LINEAR,
                                     borderMode=cv2.BORDER_REPLICATE).astype(np.float32)
    return out


def normalise(patch: np.ndarray) -> np.ndarray:
    """Zero mean and unit contrast, so neither the die colour nor the light matters."""
    out: np.ndarray = (patch - patch.mean()) / (patch.std() + 8.0)
    return out


def crop(image: np.ndarray, x: float, y: float, size: float) -> np.ndarray:
    """The network's input for one die: its warped square, normalised."""
    return normalise(warp(image, x, y, size))


def turns(patch: np.ndarray) -> list[np.ndarray]:
    """The eight views of a square crop that show the same die: four quarter turns, mirrored
    or not (every pip layout is its own mirror image up to a turn)."""
    mirrored = patch[:, ::-1]
    return [np.ascontiguousarray(np.rot90(p, k)) for p in (patch, mirrored) for k in range(4)]


class FaceNet:
    """The trained network: crops in, one probability per class of ``CLASSES`` out."""

    def __init__(self, path: Path = MODEL_PATH) -> None:
        if not path.is_file():
            raise OSError(f"no face model at {path}")
        self._net = cv2.dnn.readNetFromONNX(str(path))

    def probabilities(self, crops: np.ndarray) -> np.ndarray:
        """Class probabilities, one row per crop of an (N, CROP_PX, CROP_PX, 3) stack."""
        if len(crops) == 0:
            return np.zeros((0, len(CLASSES)), np.float32)
        self._net.setInput(np.ascontiguousarray(crops.transpose(0, 3, 1, 2)))
        logits = self._net.forward().reshape(len(crops), len(CLASSES))
        e = np.exp(logits - logits.max(axis=1, keepdims=True))
        out: np.ndarray = (e / e.sum(axis=1, keepdims=True)).astype(np.float32)
        return out
