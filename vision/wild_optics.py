"""The camera and the light of ``render_wild``: a pinhole camera over the table, point
sources for lamp, ceiling, window and ring light, and the camera's own faults (``develop``).

The world is in millimetres, the table is the plane z = 0 and the die's side (``DIE_MM``)
sets the scale.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

import cv2
import numpy as np

if TYPE_CHECKING:
    from vision.render_wild import Table

BGR = tuple[int, int, int]
DIE_MM = 16.0


def unit(v: np.ndarray) -> np.ndarray:
    """Vectors along the last axis scaled to length 1 (float32)."""
    v = np.asarray(v, np.float32)
    return np.asarray(v / np.sqrt(np.einsum("...i,...i->...", v, v))[..., None], np.float32)


def rotation(axis: Sequence[float], angle: float) -> np.ndarray:
    """Rotation matrix about ``axis`` by ``angle`` radians (Rodrigues)."""
    matrix, _ = cv2.Rodrigues(unit(np.array(axis, np.float32)).reshape(3, 1) * angle)
    return np.asarray(matrix, np.float32)


def fixed(points: np.ndarray) -> np.ndarray:
    """Pixel coordinates to OpenCV's 4-bit fixed point, for anti-aliased sub-pixel drawing."""
    return np.round(np.asarray(points) * 16).astype(np.int32).reshape(-1, 1, 2)


# --- the camera ---------------------------------------------------------------------------------


@dataclass(frozen=True, eq=False)
class Camera:
    """A pinhole camera over the table (z = 0, mm), its axis meeting the table at the origin."""

    axes: np.ndarray  # columns: the camera's x, y (image right, down) and viewing direction
    centre: np.ndarray
    focal: float
    width: int  # of the rendered image: the frame and ``pad`` pixels round it
    height: int
    pad: int

    @classmethod
    def of(cls, table: Table, rng: np.random.Generator | None, pad: int = 0) -> Camera:
        """The table's mount, jittered a little by ``rng`` (None: as mounted), rendering
        ``pad`` pixels beyond each side of the frame."""

        def j(a: float) -> float:
            return float(rng.uniform(-a, a)) if rng is not None else 0.0

        tilt = math.radians(float(np.clip(table.tilt + j(1.5), 0, 25)))
        azimuth, roll = math.radians(table.azimuth + j(3)), math.radians(table.roll + j(2))
        down = np.array([[1, 0, 0], [0, -1, 0], [0, 0, -1]], np.float32).T
        axes = rotation((math.cos(azimuth), math.sin(azimuth), 0), tilt) @ rotation(
            (0, 0, 1), roll) @ down
        focal = table.width / 2 / math.tan(math.radians(table.hfov) / 2)
        distance = focal * DIE_MM / (table.die_px * (1 + j(0.04))) + DIE_MM
        return cls(axes, -distance * axes[:, 2], focal, table.width + 2 * pad,
                   table.height + 2 * pad, pad)

    def project(self, points: np.ndarray) -> np.ndarray:
        """World points (n, 3) to pixel coordinates (n, 2), pixel centres at integers."""
        c = (np.asarray(points, np.float32).reshape(-1, 3) - self.centre) @ self.axes
        return np.stack([self.focal * c[:, 0] / c[:, 2] + (self.width - 1) / 2,
                         self.focal * c[:, 1] / c[:, 2] + (self.height - 1) / 2], axis=1)

    def to_table(self, pixels: np.ndarray) -> np.ndarray:
        """Pixel coordinates (n, 2) to the table points (n, 3) they show."""
        p = np.asarray(pixels, np.float32).reshape(-1, 2)
        rays = np.stack([(p[:, 0] - (self.width - 1) / 2) / self.focal,
                         (p[:, 1] - (self.height - 1) / 2) / self.focal,
                         np.ones(len(p), np.float32)], axis=1) @ self.axes.T
        return np.asarray(self.centre - rays * (self.centre[2] / rays[:, 2:3]), np.float32)

    def table_homography(self) -> np.ndarray:
        """Table (x, y) in mm to pixels."""
        k = np.array([[self.focal, 0, (self.width - 1) / 2], [0, self.focal, (self.height - 1) / 2],
                      [0, 0, 1]], np.float64)
        r = self.axes.T.astype(np.float64)
        return np.asarray(k @ np.column_stack([r[:, 0], r[:, 1], -r @ self.centre]))

    def corners_on_table(self, grow: float = 1.0) -> np.ndarray:
        """The table under the frame's corners, the frame first grown ``grow`` times about its
        centre."""
        w, h = self.width - 1, self.height - 1
        middle = np.array([w / 2, h / 2], np.float32)
        corners = np.array([(0, 0), (w, 0), (w, h), (0, h)], np.float32) - middle
        return self.to_table(corners * grow + middle)


# --- the light ---------------------------------------------------------------------------------


_LOOKS = {  # ambient range, colour (BGR gains), glare weight, glare sharpness, penumbra (mm)
    "lamp": ((0.15, 0.35), (0.8, 0.95, 1.1), 1.0, 1.0, 0.8),
    "ceiling": ((0.5, 0.7), (0.95, 1.0, 1.02), 0.7, 0.5, 6.0),
    "window": ((0.25, 0.4), (1.1, 1.0, 0.9), 1.0, 2.0, 1.5),
    "ring": ((0.1, 0.25), (1.0, 1.0, 1.0), 0.35, 4.0, 3.0),
}


@dataclass(frozen=True, eq=False)
class Light:
    """Point sources (a window is one far away, a ring light eight round the lens)."""

    sources: np.ndarray  # (n, 3) mm
    ambient: float  # light from everywhere: what a shadow keeps
    scale: float  # direct light is 1 - ambient on the table where the camera looks
    colour: np.ndarray  # BGR gains: warm lamp, cool window
    glare: float  # weight of each source's glare
    sharpness: float  # small sources (sun, ring LEDs) give tighter glare than a ceiling panel
    blur: float  # shadow penumbra, mm

    @classmethod
    def of(cls, kind: str, rng: np.random.Generator, cam: Camera) -> Light:
        """A ``kind`` of light placed at random round the table."""
        a = rng.uniform(0, 2 * math.pi)
        if kind == "window":  # the sun or sky through a window: far away, low
            e = rng.uniform(math.radians(20), math.radians(45))
            far = 1e5 * np.array([math.cos(a) * math.cos(e), math.sin(a) * math.cos(e),
                                  math.sin(e)])
            sources = far.reshape(1, 3).astype(np.float32)
        elif kind == "ring":  # LEDs round the lens
            t = np.linspace(0, 2 * math.pi, 8, endpoint=False) + a
            ring = np.cos(t)[:, None] * cam.axes[:, 0] + np.sin(t)[:, None] * cam.axes[:, 1]
            sources = (cam.centre + rng.uniform(35, 70) * ring).astype(np.float32)
        else:  # a desk lamp beside the table or a ceiling light high above
            d, h = (rng.uniform(150, 450), rng.uniform(250, 550)) if kind == "lamp" else (
                rng.uniform(0, 700), rng.uniform(1800, 2600))
            sources = np.array([(d * math.cos(a), d * math.sin(a), h)], np.float32)
        (lo, hi), colour, glare, sharp, blur = _LOOKS[kind]
        ambient = float(rng.uniform(lo, hi))
        to = sources.astype(np.float64)
        at_origin = float(np.sum(to[:, 2] / np.linalg.norm(to, axis=1) ** 3))
        gains = np.array(colour, np.float32) * rng.uniform(0.95, 1.05, 3).astype(np.float32)
        return cls(sources, ambient, (1 - ambient) / at_origin, gains, glare, sharp, blur)

    def direct(self, points: np.ndarray, normals: np.ndarray) -> np.ndarray:
        """Lambert light reaching surface ``points`` (..., 3) facing ``normals``."""
        out = np.zeros(points.shape[:-1], np.float32)
        for s in self.sources:
            d = s - points
            dist2 = np.einsum("...i,...i->...", d, d)
            out += np.maximum(np.einsum("...i,...i->...", d, normals), 0) / (dist2 * np.sqrt(dist2))
        return out * np.float32(self.scale)

    def specular(self, points: np.ndarray, normals: np.ndarray, eye: np.ndarray,
                 shininess: float) -> np.ndarray:
        """Blinn-Phong glare of every source, 0..1 per source at its peak."""
        view = unit(eye - points)
        out = np.zeros(points.shape[:-1], np.float32)
        for s in self.sources:
            half = unit(unit(s - points) + view)
            out += np.maximum(np.einsum("...i,...i->...", half, normals), 0) ** (
                shininess * self.sharpness)
        return out * np.float32(self.glare)

    def shadow_source(self) -> np.ndarray:
        return np.asarray(self.sources.mean(axis=0), np.float32)

    def harsher(self, hard: Hard) -> Light:
        """This light with less ambient (darker shadows) and brighter glare, the table where
        the camera looks as bright as before."""
        ambient = self.ambient * hard.ambient
        return replace(self, ambient=ambient, scale=self.scale * (1 - ambient) / (1 - self.ambient),
                       glare=self.glare * hard.glare)


# --- hard photos --------------------------------------------------------------------------------


@dataclass(frozen=True)
class Hard:
    """What a hard photo adds to a normal one (the 3-D counterpart of ``render``'s "hard"
    conditions): a harsher light, exposure and white balance further off, a missed focus, a
    camera shaken in some shots, a noisier sensor, JPEG quality 35-70, and dice pushed flush
    against a neighbour. Drawn per shot from its own random stream, so normal photos stay
    the same bytes."""

    ambient: float  # fraction of the light's ambient kept
    glare: float  # times the light's glare
    gains: tuple[float, float, float]  # BGR: exposure and white balance on top of the normal
    defocus: float  # Gaussian sigma added to the normal blur, px at 1280 wide
    shake: float  # motion blur length, px at 1280 wide (0: held still)
    shake_angle: float  # degrees
    noise: float  # sensor noise sigma, grey levels
    jpeg: int  # quality
    flush: float  # chance a die is thrown against a neighbour rather than apart

    @classmethod
    def random(cls, rng: np.random.Generator) -> Hard:
        exposure = float(rng.uniform(0.65, 1.35))
        b, g, r = (exposure * float(v) for v in rng.uniform(0.85, 1.15, 3))
        return cls(ambient=float(rng.uniform(0.35, 0.7)), glare=float(rng.uniform(1.5, 2.5)),
                   gains=(b, g, r), defocus=float(rng.uniform(0.4, 1.4)),
                   shake=float(rng.uniform(3, 9)) if rng.random() < 0.4 else 0.0,
                   shake_angle=float(rng.uniform(0, 180)), noise=float(rng.uniform(5, 12)),
                   jpeg=int(rng.integers(35, 71)), flush=0.5)

    def spoil(self, photo: np.ndarray, scale: float) -> np.ndarray:
        """The photo with this shot's exposure, focus and shake (``scale``: frame width over
        1280, at least 0.6)."""
        out = cv2.convertScaleAbs(photo.astype(np.float32) * np.array(self.gains, np.float32))
        out = cv2.GaussianBlur(out, (0, 0), self.defocus * scale)
        if self.shake:
            length = max(2, round(self.shake * scale))
            line = np.zeros((length, length), np.float32)
            line[length // 2] = 1
            turn = cv2.getRotationMatrix2D(((length - 1) / 2, (length - 1) / 2),
                                           self.shake_angle, 1.0)
            kernel = cv2.warpAffine(line, turn, (length, length))
            out = cv2.filter2D(out, -1, kernel / kernel.sum())
        return np.asarray(out)


# --- the camera's own faults ------------------------------------------------------------------


def develop(image: np.ndarray, cam: Camera, k: float, rng: np.random.Generator,
            hard: Hard | None = None) -> tuple[np.ndarray, bytes]:
    """The photo the camera stores, decoded and as JPEG bytes: vignette, white balance and
    exposure errors, lens distortion ``k`` (cropping the camera's margin), blur, sensor noise
    and JPEG loss at quality 60-95; ``hard`` spoils it further."""
    h, w = image.shape[:2]
    gx, gy = np.meshgrid(np.linspace(-1, 1, w // 8 + 2), np.linspace(-1, 1, h // 8 + 2))
    vignette = cv2.resize((1 - rng.uniform(0.05, 0.3) * (gx**2 + gy**2) / 2).astype(np.float32),
                          (w, h))
    gains = rng.uniform(0.85, 1.15, 3) * rng.uniform(0.85, 1.15)
    out = cv2.convertScaleAbs(cv2.multiply(image, cv2.merge([vignette * np.float32(g)
                                                             for g in gains])))
    w, h = cam.width - 2 * cam.pad, cam.height - 2 * cam.pad
    centre, half = _lens(w, h)
    xs, ys = np.meshgrid(np.arange(w, dtype=np.float32), np.arange(h, dtype=np.float32))
    dx, dy = (xs - centre[0]) / half, (ys - centre[1]) / half
    stretch = 1 + np.float32(k) * (dx * dx + dy * dy)
    out = cv2.remap(out, dx * stretch * half + centre[0] + cam.pad,
                    dy * stretch * half + centre[1] + cam.pad, cv2.INTER_LINEAR,
                    borderMode=cv2.BORDER_REFLECT_101)
    scale = max(w / 1280, 0.6)
    out = cv2.GaussianBlur(out, (0, 0), rng.uniform(0.3, 1.0) * scale)
    if hard is not None:
        out = hard.spoil(out, scale)
    noise = rng.standard_normal((h, w, 3), dtype=np.float32) * np.float32(
        hard.noise if hard is not None else rng.uniform(1.5, 6))
    out = cv2.convertScaleAbs(out.astype(np.float32) + noise)
    quality = hard.jpeg if hard is not None else int(rng.integers(60, 96))
    _, data = cv2.imencode(".jpg", out, [cv2.IMWRITE_JPEG_QUALITY, quality])
    return np.asarray(cv2.imdecode(data, cv2.IMREAD_COLOR)), data.tobytes()


def distort(points: np.ndarray, k: float, width: int, height: int) -> np.ndarray:
    """Where ``develop``'s lens moves ``points`` of the frame: solve p (1 + k |p|^2) = q."""
    centre, half = _lens(width, height)
    q = (points - centre) / half
    p = q.copy()
    for _ in range(20):
        p = q / (1 + k * np.sum(p * p, axis=1, keepdims=True))
    return np.asarray(p * half + centre, np.float32)


def _lens(width: int, height: int) -> tuple[np.ndarray, float]:
    """The distortion's centre and unit radius (half the frame's diagonal)."""
    return np.array([(width - 1) / 2, (height - 1) / 2], np.float32), math.hypot(width, height) / 2
