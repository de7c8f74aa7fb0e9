"""Where a frame's dice are, from one pass of a small fully convolutional network.

The spot search that proposes candidates to the face network costs most of the uncalibrated
path's time (two scales of top-hats, labelling and per-spot statistics). This network instead
looks at the whole frame once, shrunk so its longest side is ``WORK_SIDE`` pixels, and marks on
a grid of ``STRIDE`` pixels how likely each cell holds a die's centre, where in the cell that
centre lies, and how wide the die is: the peaks of that map are the candidates, each with its
own width.

Input and output conventions are shared with training (``tools/train_diemap.py``): the frame is
resized with ``work_scale``, padded to a multiple of ``PAD_TO`` and normalised by ``normalised``.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from functools import cache
from pathlib import Path
from typing import NamedTuple

import cv2
import numpy as np

from vision.onnx_session import load_session

WORK_SIDE = 320
"""Longest side of the frame the network sees: dice-real's 39 px dice in 640 px photos are
then 20 px wide, rendered 50-140 px dice at 1280x720 12-35 px. Training covers 8-64 px, which
the network's receptive field (about 120 px) takes in whole."""

KNOWN_DIE_PX = 20.0
"""Width a die is shrunk to, about, when the frame's die width is known (a calibrated set): where
dice-real's dice fall, well inside training's 8-64 px. The frame is shrunk by a whole factor,
which OpenCV's area averaging does three times faster (0.7 against 1.9 ms for a 1280x720
frame), and to no more than twice ``WORK_SIDE``."""

THREADS = 2
"""Threads the map network runs on: a whole frame (320 x 184 working pixels) is the one piece
of a frame's work big enough to share out. On this 2-core x86 machine a 1280x720 frame's run
took a median 1.9 ms against 3.3 on one thread; with another process keeping one core busy,
3.4 against 3.3 (``bench/results/2026-12-07-shared-reads.md``). The face networks' batches
gain little (66 crops: 3.9 against 4.1 ms) and stay on one thread."""

STRIDE = 4
"""Pixels of the working frame per cell of the map."""

PAD_TO = 8
"""The working frame's sides are padded to a multiple of this (the network halves it thrice)."""

LIFTED_BODY = 0.35
"""Lightness (of full scale) a dark dice set's body is lifted to in the working frame where the
body path looks for the dice its mask missed (``tone_lift``). The map is normalised by the
frame's contrast as a whole, so dark dice on a dark floor, their edges and pips all in the low
tones, barely stand out: on the 24 3-D rendered MLEM tuning sets the map (peaks from 0.4) found
no peak on 52 of 1241 dice, 27 of them black dice on a dark playmat under a ring light; with the
dark sets lifted (gamma from 0.48 to 0.89) 31, for 37 peaks on no die against 30."""

MODEL_PATH = Path(__file__).with_name("models") / "diemap.onnx"


class Peak(NamedTuple):
    """A place the map says a die is centred: frame pixels, its width, and the map's score."""

    x: float
    y: float
    width: float
    score: float

    @property
    def size(self) -> float:
        """Its width, under the name every placed die gives it (``bodies.Placed``)."""
        return self.width


def seen_width(peaks: Sequence[Peak], above: float) -> float | None:
    """The die width the map sees in a frame: the median width of its peaks scoring at least
    ``above``; None without one."""
    widths = [p.width for p in peaks if p.score >= above]
    return float(np.median(widths)) if widths else None


def work_scale(shape: tuple[int, ...], die_px: float | None = None) -> float:
    """Working-frame pixels per frame pixel: the longest side shrunk to ``WORK_SIDE``, or,
    where the die width ``die_px`` (frame pixels) is known, shrunk by the whole factor that
    brings that width nearest ``KNOWN_DIE_PX``, and by enough that the longest side is at most
    twice ``WORK_SIDE``."""
    if die_px is None:
        return WORK_SIDE / max(shape[:2])
    return 1.0 / whole_factor(shape, die_px)


def whole_factor(shape: tuple[int, ...], die_px: float) -> int:
    """The whole factor a frame of dice ``die_px`` wide is shrunk by (see ``work_scale``)."""
    return max(1, round(die_px / KNOWN_DIE_PX), math.ceil(max(shape[:2]) / (2 * WORK_SIDE)))


def normalised(image: np.ndarray) -> np.ndarray:
    """A (3, h, w) float32 array: each channel less its mean, over the frame's contrast, so
    neither exposure nor body colour sets the scale. The contrast is the root of the channels'
    mean variance, the spread of the centred frame as one, from OpenCV's ``meanStdDev`` (a
    320x180 frame: 0.6 ms, 1.0 with NumPy's per-channel mean and spread). Each channel is
    centred straight into its plane: converting, centring and transposing the frame as a
    whole took three times as long, for the same figures bit for bit."""
    mean, spread = cv2.meanStdDev(image)
    out = np.empty((3, *image.shape[:2]), np.float32)
    for c in range(3):
        np.subtract(image[..., c], np.float32(mean[c, 0]), out=out[c], dtype=np.float32)
    out /= float(np.sqrt(np.mean(spread ** 2))) + 8.0
    return out


def padded(image: np.ndarray) -> np.ndarray:
    """The image with its bottom and right edges mirrored out to a multiple of ``PAD_TO``."""
    h, w = image.shape[:2]
    return cv2.copyMakeBorder(image, 0, -h % PAD_TO, 0, -w % PAD_TO, cv2.BORDER_REFLECT)


def to_cell(v: np.ndarray | float) -> np.ndarray | float:
    """A working-frame coordinate in map cells (a cell's centre is at half a cell)."""
    return (v + 0.5) / STRIDE


def from_cell(u: np.ndarray | float) -> np.ndarray | float:
    """A map coordinate in working-frame pixels (the inverse of ``to_cell``)."""
    return u * STRIDE - 0.5


def tone_lift(body_bgr: tuple[float, float, float]) -> float:
    """The gamma that lifts a calibrated body colour's lightness to ``LIFTED_BODY``; 1 for a
    body at least that light, which is left as it is."""
    lightness = max(float(np.mean(body_bgr)), 1.0) / 255.0
    return 1.0 if lightness >= LIFTED_BODY else math.log(LIFTED_BODY) / math.log(lightness)


@cache
def _tone_table(gamma: float) -> np.ndarray:
    """The 8-bit lookup table of a gamma curve."""
    return np.array([round(255.0 * (v / 255.0) ** gamma) for v in range(256)], np.uint8)


def work_input(image: np.ndarray, die_px: float | None = None, lift: float = 1.0
               ) -> tuple[np.ndarray, float]:
    """The network's input for a frame, a (1, 3, h, w) batch, and the working scale (see
    ``work_scale``); ``lift``: a gamma the working frame's tones are lifted by
    (``tone_lift``)."""
    scale = work_scale(image.shape, die_px)
    if die_px is not None:  # the rows and columns short of one working pixel are left out
        factor = whole_factor(image.shape, die_px)
        image = image[:image.shape[0] // factor * factor, :image.shape[1] // factor * factor]
    h, w = image.shape[:2]
    size = (max(1, round(w * scale)), max(1, round(h * scale)))
    small = cv2.resize(image, size, interpolation=cv2.INTER_AREA)
    if lift != 1.0:
        small = cv2.LUT(small, _tone_table(lift))
    return normalised(padded(small))[None], scale


def scored(raw: np.ndarray) -> np.ndarray:
    """The network's raw (4, h, w) output with its first channel made a probability: centre
    score, the centre's offset within its cell (x, y), log of the die width in working pixels."""
    out = raw.copy()
    out[0] = 1.0 / (1.0 + np.exp(-raw[0]))
    return out


class DieMap:
    """The trained map network: a frame in, the peaks of its die-centre map out."""

    def __init__(self, path: Path = MODEL_PATH) -> None:
        self._session, self._input = load_session(path, "die map", THREADS)

    def outputs(self, image: np.ndarray, die_px: float | None = None, lift: float = 1.0
                ) -> tuple[np.ndarray, float]:
        """The network's (4, h / STRIDE, w / STRIDE) map of the frame (see ``scored``) and the
        working scale (``work_scale``), its tones lifted by ``lift`` (``work_input``)."""
        batch, scale = work_input(image, die_px, lift)
        return scored(self._session.run(None, {self._input: batch})[0][0]), scale

    def peaks(self, image: np.ndarray, above: float, die_px: float | None = None) -> list[Peak]:
        """Every local maximum of the frame's centre map scoring at least ``above`` (the frame
        shrunk for dice ``die_px`` wide where that is known)."""
        return map_peaks(*self.outputs(image, die_px), above, image.shape)


class FrameMap:
    """One frame's die map, run at most once per working scale and tone lift however many
    readers look for dice the map found: the body path, the networks' fuel search and each set
    of a household shrink a frame by the same whole factor for dice of about one width
    (``work_scale``)."""

    def __init__(self, diemap: DieMap, image: np.ndarray) -> None:
        self.image = image
        self._diemap = diemap
        self._maps: dict[tuple[float, float], tuple[np.ndarray, float]] = {}

    def peaks(self, above: float, die_px: float | None = None, lift: float = 1.0
              ) -> list[Peak]:
        """``DieMap.peaks`` of this frame, its tones lifted by ``lift`` (``work_input``)."""
        key = (work_scale(self.image.shape, die_px), lift)
        if key not in self._maps:
            self._maps[key] = self._diemap.outputs(self.image, die_px, lift)
        return map_peaks(*self._maps[key], above, self.image.shape)


def map_peaks(out: np.ndarray, scale: float, above: float, shape: tuple[int, ...]) -> list[Peak]:
    """The local maxima of a map (as ``DieMap.outputs`` gives it) scoring at least ``above``,
    in frame pixels, within the frame of ``shape`` (not on its padding)."""
    heat = out[0]
    local = (heat >= cv2.dilate(heat, np.ones((3, 3), np.uint8))) & (heat >= above)
    ys, xs = np.nonzero(local)
    wx = from_cell(xs + out[1, ys, xs])
    wy = from_cell(ys + out[2, ys, xs])
    widths = np.exp(out[3, ys, xs]) / scale
    h, w = shape[:2]
    fx, fy = (np.asarray(wx) + 0.5) / scale - 0.5, (np.asarray(wy) + 0.5) / scale - 0.5
    return [Peak(float(x), float(y), float(d), float(s))
            for x, y, d, s in zip(fx, fy, widths, heat[ys, xs], strict=True)
            if 0 <= x < w and 0 <= y < h]
