"""Realistic synthetic top-down photos of dice in a tray, deterministic by seed.

The photos feed the tests, the demo mode and the simulated camera, and they make benchmark sets
in the shared dice-bench format (``write_dataset``). Two kinds of conditions: ``"normal"`` (even
light, plain tray floor, dice apart or just touching) and ``"hard"`` (light gradient, glare,
soft shadows, a busy printed mat, tilted dice showing a side, dark dice, blur, noise and JPEG
loss). Only OpenCV and NumPy calls that exist in OpenCV 4.6 and NumPy 1.24 are used.

Randomness comes from NumPy generators seeded by ``[seed, stream, ...]``: the tray, the light
and the dice set depend on ``seed`` alone, the throw on ``(seed, layout)``, so a simulated camera
can throw dice again and again onto the same tray.
"""

from __future__ import annotations

import json
import math
import random
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

import cv2
import numpy as np

from vision.pips import PIP_GRID

FloatImage = np.ndarray
BGR = tuple[int, int, int]

STANDARD_FACES: tuple[str, ...] = ("1", "2", "3", "4", "5", "6")
MLEM_FACES: tuple[str, ...] = ("1", "2", "2", "3", "4", "fuel")
FACES: tuple[str, ...] = (*STANDARD_FACES, "fuel")
CONDITIONS: tuple[str, ...] = ("normal", "hard")
MAX_DICE = 6
REFERENCE_WIDTH, REFERENCE_HEIGHT = 1280, 720
DIE_SIZE_RANGE = (50.0, 140.0)

_SHIFT = 4  # fixed-point bits for sub-pixel anti-aliased OpenCV drawing
_ONE = 1 << _SHIFT
_PIP_OFFSET = 0.27  # pip centre distance from the face centre, as a fraction of the die width

# (body, pip colours that read well on it); BGR
_LIGHT_SETS: tuple[tuple[BGR, tuple[BGR, ...]], ...] = (
    ((236, 236, 234), ((25, 25, 25), (160, 70, 20), (30, 30, 170))),  # white
    ((200, 228, 240), ((30, 30, 30), (30, 30, 150))),  # ivory
    ((40, 205, 235), ((25, 25, 25), (30, 30, 160))),  # yellow
    ((225, 190, 140), ((25, 25, 25), (245, 245, 245))),  # light blue
)
_MID_SETS: tuple[tuple[BGR, tuple[BGR, ...]], ...] = (
    ((40, 40, 195), ((245, 245, 245), (25, 25, 25))),  # red
    ((170, 90, 35), ((245, 245, 245), (40, 215, 240))),  # blue
    ((70, 150, 40), ((245, 245, 245), (25, 25, 25))),  # green
    ((30, 125, 235), ((25, 25, 25), (245, 245, 245))),  # orange
    ((140, 50, 120), ((245, 245, 245), (40, 215, 240))),  # purple
)
_DARK_SETS: tuple[tuple[BGR, tuple[BGR, ...]], ...] = (
    ((32, 32, 34), ((240, 240, 240), (40, 215, 240), (60, 60, 220))),  # black
    ((80, 35, 20), ((240, 240, 240), (40, 215, 240))),  # navy
    ((30, 70, 25), ((240, 240, 240), (40, 215, 240))),  # dark green
    ((25, 25, 105), ((240, 240, 240), (40, 215, 240))),  # burgundy
)
_ACCENTS: tuple[BGR, ...] = ((30, 40, 210), (20, 120, 240), (190, 100, 20), (40, 200, 240))


@dataclass(frozen=True)
class DiceStyle:
    """How one dice set looks: every die of a set (and of a dataset) shares it."""

    body: BGR
    pips: BGR
    fuel: BGR  # colour of the comet printed on the fuel face
    corner_radius: float  # as a fraction of the die width
    size: float  # top-face width in pixels at 1280x720; other resolutions scale it

    @classmethod
    def random(cls, rng: random.Random, *, conditions: str = "normal") -> DiceStyle:
        """A plausible dice set; dark bodies with light pips only under ``"hard"``."""
        _check_conditions(conditions)
        sets = _LIGHT_SETS + _MID_SETS + (_DARK_SETS if conditions == "hard" else ())
        body, pip_choices = rng.choice(sets)
        pips = rng.choice(pip_choices)
        fuel = rng.choice(
            [pips, *(c for c in _ACCENTS if abs(_luma(c) - _luma(body)) > 60)]
        )
        return cls(
            body=_jitter(body, rng, 12),
            pips=_jitter(pips, rng, 8),
            fuel=_jitter(fuel, rng, 8),
            corner_radius=rng.uniform(0.1, 0.22),
            size=rng.uniform(*DIE_SIZE_RANGE),
        )


@dataclass(frozen=True)
class RenderedDie:
    """Ground truth of one die: its top face and where that face is in the image."""

    face: str
    x: float
    y: float
    size: float


@dataclass(frozen=True)
class Scene:
    """A rendered photo with its ground truth and the tags written to dataset lines."""

    image: np.ndarray
    dice: tuple[RenderedDie, ...]
    tags: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class _Look:
    """Scene-wide conditions: light, shadows and camera, drawn once per seed."""

    hard: bool
    background: str
    light: tuple[float, float]  # unit vector in the image plane pointing towards the light
    shadow_len: float  # shadow offset, in die widths
    shadow_blur: float  # in die widths
    shadow_strength: float
    gradient: float  # light falloff across the tray
    glare: float  # chance that a die shows a specular spot
    tilt: float  # chance that a die leans and shows a side face
    blur: float  # camera blur sigma in px at 1280x720
    noise: int  # sensor noise amplitude in grey levels
    jpeg: int  # JPEG quality, 0 = none


@dataclass(frozen=True)
class _Pose:
    """Where a die lies: top-face centre, rotation, size and lean (top minus base offset)."""

    x: float
    y: float
    angle: float
    size: float
    lean: tuple[float, float]

    def body(self) -> np.ndarray:
        """Outline of the whole die as seen from above: top face and base hull."""
        top = _square(self.x, self.y, self.size, self.angle)
        if self.lean == (0.0, 0.0):
            return top
        base = top - np.array(self.lean, dtype=np.float32)
        hull = cv2.convexHull(np.vstack([top, base]).astype(np.float32))
        return np.asarray(hull, dtype=np.float32).reshape(-1, 2)


def random_faces(rng: random.Random, n: int, *, mlem: bool = True) -> list[str]:
    """Faces of ``n`` thrown dice: MLEM dice (1, 2, 2, 3, 4, fuel) or standard d6.

    :raises ValueError: if ``n`` is not 1..6.
    """
    _check_count(n)
    return [rng.choice(MLEM_FACES if mlem else STANDARD_FACES) for _ in range(n)]


def render_roll(
    faces: Sequence[str],
    seed: int,
    *,
    width: int = REFERENCE_WIDTH,
    height: int = REFERENCE_HEIGHT,
    conditions: str = "normal",
    style: DiceStyle | None = None,
    layout: int = 0,
) -> Scene:
    """Photograph ``faces`` thrown into a tray; same arguments give the same bytes.

    ``seed`` fixes the tray, light and (without ``style``) the dice set; ``layout`` picks another
    throw onto that same tray, as a camera watching successive rolls would see.

    :raises ValueError: for 0 or more than 6 dice, an unknown face or unknown conditions.
    """
    faces = list(faces)
    _check_count(len(faces))
    unknown = sorted(set(faces) - set(FACES))
    if unknown:
        raise ValueError(f"unknown faces {unknown}; expected some of {FACES}")
    _check_conditions(conditions)
    style = style or DiceStyle.random(random.Random(seed), conditions=conditions)
    look, image, interior, shade = _tray(seed, width, height, conditions)
    rng = np.random.default_rng([seed, 1, layout])
    scale = _scale(width, height)
    poses = _place(rng, len(faces), style.size * scale, interior, look)
    for pose in poses:
        _shadow(image, pose, look)
    for pose, face in zip(poses, faces, strict=True):
        _draw_die(image, pose, face, style, look, rng)
    final = _finish(image, shade, look, np.random.default_rng([seed, 2, layout]), scale)
    dice = tuple(RenderedDie(f, float(p.x), float(p.y), float(p.size))
                 for p, f in zip(poses, faces, strict=True))
    return Scene(final, dice, _tags(look))


def render_empty(
    seed: int,
    *,
    width: int = REFERENCE_WIDTH,
    height: int = REFERENCE_HEIGHT,
    conditions: str = "normal",
    layout: int = 0,
) -> np.ndarray:
    """The tray of ``render_roll(..., seed)`` with no dice in it (the dice were picked up)."""
    _check_conditions(conditions)
    look, image, _, shade = _tray(seed, width, height, conditions)
    rng = np.random.default_rng([seed, 2, layout])
    return _finish(image, shade, look, rng, _scale(width, height))


def write_dataset(
    folder: Path,
    count: int,
    seed: int,
    *,
    conditions: str = "normal",
    mlem: bool = True,
    width: int = REFERENCE_WIDTH,
    height: int = REFERENCE_HEIGHT,
    calibration_shots: int = 2,
    shot_per_face: bool = False,
) -> Path:
    """Write a dice-bench dataset (FORMAT.md): calibration shots, then ``count`` test photos.

    One dice set (style) is used throughout, as with a real owner's dice; the die size varies by
    a few percent between photos. Each calibration shot shows every distinct face once, or with
    ``shot_per_face`` one die per shot, one shot per distinct face (``calibration_shots`` is
    then ignored). Returns the path of ``labels.jsonl``.
    """
    rng = random.Random(seed)
    style = DiceStyle.random(rng, conditions=conditions)
    distinct = list(dict.fromkeys(MLEM_FACES if mlem else STANDARD_FACES))
    if shot_per_face:
        calibration_shots = len(distinct)
    (folder / "img").mkdir(parents=True, exist_ok=True)
    lines = []
    for i in range(calibration_shots + count):
        calibration = i < calibration_shots
        if calibration:
            faces = [distinct[i]] if shot_per_face else rng.sample(distinct, len(distinct))
        else:
            faces = random_faces(rng, rng.randint(1, MAX_DICE), mlem=mlem)
        shot_style = replace(style, size=style.size * rng.uniform(0.93, 1.07))
        scene = render_roll(faces, rng.randrange(2**31), width=width, height=height,
                            conditions=conditions, style=shot_style)
        name = f"img/{'cal' if calibration else 'test'}_{i:04d}.jpg"
        cv2.imwrite(str(folder / name), scene.image, [cv2.IMWRITE_JPEG_QUALITY, 92])
        lines.append(label_line(name, "calibration" if calibration else "test", scene))
    labels = folder / "labels.jsonl"
    labels.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    return labels


def label_line(name: str, split: str, scene: Scene) -> dict[str, object]:
    """One labels.jsonl line for ``scene``; ``size`` on a die is an extra key readers may use.

    Public so every renderer (``render_wild`` too) writes the same dice-bench lines.
    """
    dice = [
        {"face": d.face, "x": round(d.x, 2), "y": round(d.y, 2), "size": round(d.size, 2)}
        for d in scene.dice
    ]
    return {"image": name, "split": split, "dice": dice, **scene.tags, "note": "rendered"}


# --- checks and small helpers ------------------------------------------------------------------


def _check_count(n: int) -> None:
    if not 1 <= n <= MAX_DICE:
        raise ValueError(f"need 1 to {MAX_DICE} dice, got {n}")


def _check_conditions(conditions: str) -> None:
    if conditions not in CONDITIONS:
        raise ValueError(f"unknown conditions {conditions!r}; expected one of {CONDITIONS}")


def _luma(c: BGR) -> float:
    return 0.114 * c[0] + 0.587 * c[1] + 0.299 * c[2]


def _jitter(c: BGR, rng: random.Random, amount: int) -> BGR:
    b, g, r = (min(255, max(0, v + rng.randint(-amount, amount))) for v in c)
    return (b, g, r)


def _scale(width: int, height: int) -> float:
    """Dice scale with the resolution as a camera with the same framing would see them."""
    return min(width / REFERENCE_WIDTH, height / REFERENCE_HEIGHT)


def _tags(look: _Look) -> dict[str, str]:
    return {
        "conditions": "hard" if look.hard else "normal",
        "lighting": "uneven_glare" if look.hard else "even",
        "background": look.background,
    }


def _square(x: float, y: float, size: float, angle: float) -> np.ndarray:
    """Corners of a die face (a plain square) for overlap tests."""
    c, s = math.cos(angle), math.sin(angle)
    h = size / 2
    local = np.array([[-h, -h], [h, -h], [h, h], [-h, h]], dtype=np.float32)
    rot = np.array([[c, s], [-s, c]], dtype=np.float32)
    return local @ rot + np.array([x, y], dtype=np.float32)


def _overlap(a: np.ndarray, b: np.ndarray, tolerance: float = 0.3) -> bool:
    """Separating-axis test for convex polygons; touching within ``tolerance`` px is allowed."""
    for poly in (a, b):
        edges = np.roll(poly, -1, axis=0) - poly
        normals = np.stack([-edges[:, 1], edges[:, 0]], axis=1)
        normals /= np.maximum(np.linalg.norm(normals, axis=1, keepdims=True), 1e-9)
        pa, pb = a @ normals.T, b @ normals.T
        gap = np.maximum(pa.min(0) - pb.max(0), pb.min(0) - pa.max(0))
        if np.any(gap > -tolerance):
            return False
    return True


def _fixed(points: np.ndarray) -> np.ndarray:
    """Float pixel coordinates to the fixed-point int32 form OpenCV draws with ``shift``."""
    return np.round(points * _ONE).astype(np.int32).reshape(-1, 1, 2)


def _mask(shape: tuple[int, int], polys: Sequence[np.ndarray]) -> np.ndarray:
    """Anti-aliased filled polygons as a float mask in [0, 1]."""
    out = np.zeros(shape, np.uint8)
    for poly in polys:  # one call each: a single call would cut overlaps out (even-odd rule)
        cv2.fillPoly(out, [_fixed(poly)], 255, cv2.LINE_AA, _SHIFT)
    return out.astype(np.float32) / 255.0


def low_noise(rng: np.random.Generator, h: int, w: int, cell: int) -> np.ndarray:
    """Smooth noise in about [-1, 1] with features about ``cell`` px wide, cheap at any size.

    Public: ``render_wild`` builds its table textures from the same pieces.
    """
    small = rng.standard_normal((max(2, h // cell + 2), max(2, w // cell + 2))).astype(np.float32)
    return cv2.resize(small, (w, h), interpolation=cv2.INTER_CUBIC)


# --- the tray ---------------------------------------------------------------------------------


def _look(rng: np.random.Generator, hard: bool) -> _Look:
    angle = rng.uniform(0, 2 * math.pi)
    backgrounds = ("mat", "mat", "mat", "felt", "wood", "neoprene") if hard else (
        "felt", "wood", "neoprene")
    return _Look(
        hard=hard,
        background=str(rng.choice(backgrounds)),
        light=(math.cos(angle), math.sin(angle)),
        shadow_len=rng.uniform(0.08, 0.22) if hard else rng.uniform(0.03, 0.07),
        shadow_blur=rng.uniform(0.08, 0.16) if hard else rng.uniform(0.04, 0.07),
        shadow_strength=rng.uniform(0.4, 0.6) if hard else rng.uniform(0.28, 0.4),
        gradient=rng.uniform(0.25, 0.45) if hard else rng.uniform(0.0, 0.08),
        glare=rng.uniform(0.4, 0.8) if hard else 0.0,
        tilt=rng.uniform(0.3, 0.7) if hard else 0.0,
        blur=rng.uniform(0.7, 1.5) if hard else rng.uniform(0.3, 0.6),
        noise=int(rng.integers(6, 13)) if hard else int(rng.integers(2, 5)),
        jpeg=int(rng.integers(35, 70)) if hard else 0,
    )


def _tray(
    seed: int, width: int, height: int, conditions: str
) -> tuple[_Look, FloatImage, tuple[float, ...], np.ndarray]:
    """The tray without dice: float BGR image, interior box and the walls' shade on the floor.

    The shade is applied with the light falloff in ``_finish``, in one pass over the image.
    """
    if width < 160 or height < 120:
        raise ValueError(f"image too small: {width}x{height}")
    rng = np.random.default_rng([seed, 0])
    look = _look(rng, conditions == "hard")
    # textures are made at half resolution: the camera blur hides it and it is 4x cheaper
    half = _BACKGROUNDS[look.background](rng, height // 2, width // 2)
    image = cv2.resize(half, (width, height), interpolation=cv2.INTER_LINEAR)
    m = min(width, height)
    rims = [rng.uniform(0.02, 0.07) * m for _ in range(4)]  # left, top, right, bottom
    interior = (rims[0], rims[1], width - rims[2], height - rims[3])
    x0, y0, x1, y1 = (round(v) for v in interior)
    # the walls shade the floor next to them: blur the interior mask, at 1/8 resolution
    inside = np.zeros((height // 8 + 1, width // 8 + 1), np.float32)
    inside[y0 // 8:y1 // 8, x0 // 8:x1 // 8] = 1.0
    occlusion = cv2.GaussianBlur(inside, (0, 0), 0.025 * m / 8)
    shade = cv2.resize(0.72 + 0.28 * np.minimum(occlusion * 2, 1.0), (width, height))
    colour = rng.uniform(20, 90, 3) if rng.random() < 0.6 else rng.uniform(150, 220, 3)
    rim = 1 + 0.06 * low_noise(rng, height, width, max(4, m // 30))
    bands = ((slice(None), slice(0, x0)), (slice(None), slice(x1, None)),
             (slice(0, y0), slice(x0, x1)), (slice(y1, None), slice(x0, x1)))
    for band in bands:
        image[band] = tint(rim[band], colour.tolist())
        shade[band] = 1.0
    return look, image, interior, shade


def tint(shade: np.ndarray, colour: Sequence[float]) -> FloatImage:
    """A one-channel brightness map coloured ``colour`` (BGR); faster than broadcasting."""
    return cv2.merge([shade * np.float32(c) for c in colour])


def _modulate(image: FloatImage, shade: np.ndarray) -> FloatImage:
    """Multiply every channel of ``image`` by the one-channel ``shade``."""
    return cv2.multiply(image, cv2.cvtColor(shade.astype(np.float32), cv2.COLOR_GRAY2BGR))


def _felt(rng: np.random.Generator, h: int, w: int) -> FloatImage:
    colours = ((60, 105, 40), (110, 60, 30), (70, 70, 72), (40, 40, 120), (30, 30, 32))
    shade = 1 + 0.05 * low_noise(rng, h, w, min(h, w) // 9) + grain(rng, h, w, 0.05)
    return tint(shade, colours[int(rng.integers(len(colours)))])


def _neoprene(rng: np.random.Generator, h: int, w: int) -> FloatImage:
    colours = ((40, 40, 40), (90, 50, 25), (55, 60, 58), (120, 125, 125))
    shade = 1 + 0.03 * low_noise(rng, h, w, min(h, w) // 6) + grain(rng, h, w, 0.035)
    return tint(shade, colours[int(rng.integers(len(colours)))])


def _wood(rng: np.random.Generator, h: int, w: int) -> FloatImage:
    light = np.array([rng.uniform(120, 160), rng.uniform(170, 200), rng.uniform(200, 230)])
    dark = light * rng.uniform(0.55, 0.75)
    angle = rng.uniform(0, math.pi)
    ys = np.arange(h, dtype=np.float32)[:, None]
    xs = np.arange(w, dtype=np.float32)[None, :]
    m = min(h, w)
    warp = m / 25 * low_noise(rng, h, w, m // 2) + m / 200 * low_noise(rng, h, w, m // 40)
    across = xs * math.sin(angle) - ys * math.cos(angle) + warp
    rings = 0.5 + 0.5 * np.sin(across * np.float32(rng.uniform(70, 140) / m))
    t = rings * rings * rings * (1 + grain(rng, h, w, 0.1))
    planes = [np.float32(lc) + t * np.float32(dc - lc) for lc, dc in zip(light, dark, strict=True)]
    return np.asarray(cv2.merge(planes))


def _mat(rng: np.random.Generator, h: int, w: int) -> FloatImage:
    """A busy printed space mat: nebula colours, stars, planets, orbits and printed text."""
    base = np.array([rng.uniform(40, 90), rng.uniform(15, 40), rng.uniform(15, 50)], np.float32)
    cell = min(h, w) // 4
    small = base + 45 * np.maximum(rng.standard_normal((h // cell + 2, w // cell + 2, 3)), -0.3)
    nebula = cv2.resize(small.astype(np.float32), (w, h), interpolation=cv2.INTER_CUBIC)
    canvas = cv2.convertScaleAbs(nebula)
    m = min(h, w)
    for _ in range(int(rng.integers(3, 7))):  # planets and orbit rings
        centre = (int(rng.integers(w)), int(rng.integers(h)))
        radius = int(rng.uniform(0.03, 0.12) * m)
        colour = tuple(int(v) for v in rng.integers(60, 230, 3))
        cv2.circle(canvas, centre, radius, colour, -1, cv2.LINE_AA)
        cv2.circle(canvas, centre, int(radius * rng.uniform(1.6, 3.5)), colour, 1, cv2.LINE_AA)
    for _ in range(int(rng.integers(4, 10))):  # printed labels: rows of short strokes
        x, y = int(rng.integers(w)), int(rng.integers(h))
        for k in range(int(rng.integers(4, 12))):
            x0 = x + k * int(0.012 * m)
            cv2.line(canvas, (x0, y), (x0 + int(0.007 * m), y), (210, 210, 200), 1, cv2.LINE_AA)
    for sx, sy in rng.integers(0, [w, h], (int(rng.integers(150, 400)), 2)):
        cv2.circle(canvas, (int(sx), int(sy)), int(rng.integers(0, 2)), (235, 235, 245), -1,
                   cv2.LINE_AA)
    return _modulate(canvas.astype(np.float32), 1 + grain(rng, h, w, 0.04))


def grain(rng: np.random.Generator, h: int, w: int, amount: float) -> np.ndarray:
    """Fine per-pixel texture (fibres, print dots), uniform in [-amount, amount]."""
    noise = np.frombuffer(rng.bytes(h * w), np.uint8).reshape(h, w).astype(np.float32)
    return noise * np.float32(2 * amount / 255) - np.float32(amount)


_BACKGROUNDS = {"felt": _felt, "wood": _wood, "neoprene": _neoprene, "mat": _mat}


def floor_texture(name: str, rng: np.random.Generator, h: int, w: int) -> FloatImage:
    """An unlit ``h`` x ``w`` float BGR texture of a tray floor (``felt``, ``wood``,
    ``neoprene`` or the printed ``mat``), for renderers that light and project it themselves."""
    return _BACKGROUNDS[name](rng, h, w)


# --- placing the dice -------------------------------------------------------------------------


def _place(rng: np.random.Generator, n: int, size: float, interior: tuple[float, ...],
           look: _Look) -> list[_Pose]:
    """Non-overlapping poses by rejection sampling; some dice touch a neighbour or the wall."""
    for _ in range(50):
        poses: list[_Pose] = []
        for _ in range(n):
            pose = _place_one(rng, poses, size, interior, look)
            if pose is None:
                break
            poses.append(pose)
        if len(poses) == n:
            return poses
    raise RuntimeError(f"could not place {n} dice of {size:.0f} px")  # pragma: no cover


def _place_one(rng: np.random.Generator, placed: list[_Pose], size: float,
               interior: tuple[float, ...], look: _Look) -> _Pose | None:
    x0, y0, x1, y1 = interior
    margin = 0.0 if look.hard else 0.25 * size
    for _ in range(200):
        s = size * rng.uniform(0.98, 1.02)
        lean = (0.0, 0.0)
        if rng.random() < look.tilt:
            a, r = rng.uniform(0, 2 * math.pi), rng.uniform(0.05, 0.13) * s
            lean = (r * math.cos(a), r * math.sin(a))
        pose = _Pose(rng.uniform(x0, x1), rng.uniform(y0, y1), rng.uniform(0, 2 * math.pi), s,
                     lean)
        if placed and rng.random() < (0.5 if look.hard else 0.3):
            pose = _against(pose, placed[int(rng.integers(len(placed)))], rng)
        elif look.hard and rng.random() < 0.35:
            pose = _against_wall(pose, interior, rng)
        body = pose.body()
        inside = (body[:, 0].min() >= x0 + margin and body[:, 1].min() >= y0 + margin
                  and body[:, 0].max() <= x1 - margin and body[:, 1].max() <= y1 - margin)
        if inside and not any(_collides(pose, p) for p in placed):
            return pose
    return None


def _collides(a: _Pose, b: _Pose) -> bool:
    """Whether two dice overlap; dice farther apart than their circumcircles are skipped."""
    reach = (a.size + b.size) * 0.7072 + math.hypot(*a.lean) + math.hypot(*b.lean)
    if math.hypot(a.x - b.x, a.y - b.y) > reach:
        return False
    return _overlap(a.body(), b.body())


def _against(pose: _Pose, anchor: _Pose, rng: np.random.Generator) -> _Pose:
    """Slide ``pose`` along a random direction until it just touches ``anchor``."""
    a = rng.uniform(0, 2 * math.pi)
    d = (math.cos(a), math.sin(a))
    near, far = 0.5 * anchor.size, 2.5 * anchor.size
    body = anchor.body()
    for _ in range(9):
        mid = (near + far) / 2
        moved = replace(pose, x=anchor.x + d[0] * mid, y=anchor.y + d[1] * mid)
        near, far = (mid, far) if _overlap(moved.body(), body) else (near, mid)
    return replace(pose, x=anchor.x + d[0] * far, y=anchor.y + d[1] * far)


def _against_wall(pose: _Pose, interior: tuple[float, ...], rng: np.random.Generator) -> _Pose:
    """Push ``pose`` flat against one tray wall."""
    body = pose.body()
    side = int(rng.integers(4))
    x0, y0, x1, y1 = interior
    shift = float((x0 - body[:, 0].min(), y0 - body[:, 1].min(), x1 - body[:, 0].max(),
                   y1 - body[:, 1].max())[side])
    if side in (0, 2):
        return replace(pose, x=pose.x + shift)
    return replace(pose, y=pose.y + shift)


# --- drawing a die ----------------------------------------------------------------------------


def _patch(image: FloatImage, pose: _Pose, reach: float) -> tuple[slice, slice, float, float]:
    """Window of ``image`` around ``pose``, and the die centre in window coordinates."""
    h, w = image.shape[:2]
    x0, y0 = max(0, int(pose.x - reach)), max(0, int(pose.y - reach))
    x1, y1 = min(w, int(pose.x + reach) + 1), min(h, int(pose.y + reach) + 1)
    return slice(y0, y1), slice(x0, x1), pose.x - x0, pose.y - y0


def _shadow(image: FloatImage, pose: _Pose, look: _Look) -> None:
    """Darken the floor under and beside the die: a soft cast shadow and a contact shadow."""
    s = pose.size
    reach = s * (0.8 + look.shadow_len + 3 * look.shadow_blur)
    ys, xs, cx, cy = _patch(image, pose, reach)
    local = replace(pose, x=cx, y=cy)
    shape = (ys.stop - ys.start, xs.stop - xs.start)
    lx, ly = look.light
    base = local.body() - np.array(local.lean, np.float32) * 0.5
    cast = _mask(shape, [base - np.array([lx, ly], np.float32) * look.shadow_len * s])
    cast = _soft(cast, look.shadow_blur * s)
    contact = cv2.GaussianBlur(_mask(shape, [local.body()]), (0, 0), 0.03 * s + 0.5)
    dark = np.maximum(cast * look.shadow_strength, contact * 0.45)
    image[ys, xs] = _modulate(image[ys, xs], 1 - dark)


def _rounded(x: float, y: float, size: float, angle: float, radius: float) -> np.ndarray:
    """Outline of a rounded square face, rotated by ``angle`` about its centre."""
    h, r = size / 2, max(radius * size, 1.0)
    points = []
    for cxs, cys, start in ((1, 1, 0), (-1, 1, 90), (-1, -1, 180), (1, -1, 270)):
        for k in range(9):
            t = math.radians(start + k * 90 / 8)
            points.append((cxs * (h - r) + r * math.cos(t), cys * (h - r) + r * math.sin(t)))
    return _to_image(np.array(points, np.float32), x, y, angle)


def _to_image(local: np.ndarray, x: float, y: float, angle: float) -> np.ndarray:
    c, s = math.cos(angle), math.sin(angle)
    rot = np.array([[c, s], [-s, c]], dtype=np.float32)
    return local @ rot + np.array([x, y], dtype=np.float32)


def _pip_mask(shape: tuple[int, int], face: str, pose: _Pose) -> np.ndarray:
    """Anti-aliased discs of the standard pip layout, turned with the die."""
    out = np.zeros(shape, np.uint8)
    s = pose.size
    radius = s * (0.12 if face == "1" else 0.085)
    local = np.array(PIP_GRID[face], np.float32) * _PIP_OFFSET * s
    for px, py in _to_image(local, pose.x, pose.y, pose.angle):
        centre = (round(float(px) * _ONE), round(float(py) * _ONE))
        cv2.circle(out, centre, round(radius * _ONE), 255, -1, cv2.LINE_AA, _SHIFT)
    return out.astype(np.float32) / 255.0


def _comet(pose: _Pose) -> list[np.ndarray]:
    """The fuel symbol: a filled disc with a curved, tapering tail, in die-local units."""
    s = pose.size
    head, r = np.array([0.12, -0.12]) * s, 0.14 * s
    t = np.linspace(0.0, 1.0, 24)
    direction, normal = np.array([-0.7071, 0.7071]), np.array([0.7071, 0.7071])
    centre = head + np.outer(t * 0.5 * s, direction) + np.outer(np.sin(t * math.pi) * 0.07 * s,
                                                                  normal)
    width = r * (1 - t) ** 1.3
    tail = np.vstack([centre + np.outer(width, normal), (centre - np.outer(width, normal))[::-1]])
    angles = np.linspace(0, 2 * math.pi, 32, endpoint=False)
    disc = head + r * np.stack([np.cos(angles), np.sin(angles)], axis=1)
    return [_to_image(p.astype(np.float32), pose.x, pose.y, pose.angle) for p in (tail, disc)]


def _soft(mask: np.ndarray, sigma: float) -> np.ndarray:
    """Gaussian blur; wide kernels run at reduced resolution, which the smooth result hides."""
    k = int(sigma / 3)
    if k < 2:
        return cv2.GaussianBlur(mask, (0, 0), sigma)
    h, w = mask.shape
    small = cv2.resize(mask, (max(1, w // k), max(1, h // k)), interpolation=cv2.INTER_AREA)
    small = cv2.GaussianBlur(small, (0, 0), sigma / k)
    return cv2.resize(small, (w, h), interpolation=cv2.INTER_LINEAR)


def _relief(soft: np.ndarray, sigma: float, light: tuple[float, float]) -> np.ndarray:
    """How much a step blurred by ``sigma`` faces the light, about -1..1 (emboss shading)."""
    gx = cv2.Sobel(soft, cv2.CV_32F, 1, 0, ksize=3) / 8
    gy = cv2.Sobel(soft, cv2.CV_32F, 0, 1, ksize=3) / 8
    return (gx * light[0] + gy * light[1]) * (sigma * 2.5)


def _draw_die(image: FloatImage, pose: _Pose, face: str, style: DiceStyle, look: _Look,
              rng: np.random.Generator) -> None:
    """Composite one die: side face if leaning, bevelled top, concave pips or printed comet."""
    s = pose.size
    ys, xs, cx, cy = _patch(image, pose, 0.75 * s + math.hypot(*pose.lean) + 4)
    local = replace(pose, x=cx, y=cy)
    shape = (ys.stop - ys.start, xs.stop - xs.start)
    top_outline = _rounded(cx, cy, s, pose.angle, style.corner_radius)
    top = _mask(shape, [top_outline])
    body = top
    if pose.lean != (0.0, 0.0):
        base = top_outline - np.array(pose.lean, np.float32)
        hull = np.asarray(cv2.convexHull(np.vstack([top_outline, base])), np.float32)
        body = np.maximum(_mask(shape, [hull.reshape(-1, 2)]), top)
    pips = _pip_mask(shape, face, local) if face != "fuel" else np.zeros(shape, np.float32)
    fuel = _mask(shape, _comet(local)) if face == "fuel" else np.zeros(shape, np.float32)
    # shading: rounded bevel darker at the rim, lit on the side facing the light; pits concave
    bevel = _soft(top, 0.05 * s)
    light = look.light
    shade = 0.74 + 0.26 * np.clip((bevel - 0.5) * 2, 0, 1) - 0.35 * _relief(bevel, 0.05 * s, light)
    pit = 0.02 * s + 0.3
    shade += 0.5 * _relief(cv2.GaussianBlur(pips + 0.6 * fuel, (0, 0), pit), pit, light)
    across = ((np.arange(shape[1], dtype=np.float32) - cx)[None, :] * light[0]
              + (np.arange(shape[0], dtype=np.float32) - cy)[:, None] * light[1])
    lit_top = shade * (1 + np.float32(0.05 / s) * across) * top
    if rng.random() < look.glare:
        glare = _glare(shape, local, light, rng) * top
    else:
        glare = np.zeros(shape, np.float32)
    lean = np.array(pose.lean)
    facing = float(np.dot(lean, light)) / max(float(np.linalg.norm(lean)), 1e-6)
    sides = body - top
    channels = []  # per channel: 2-D arrays are much faster than broadcasting over BGR
    for window, b, p, f in zip(cv2.split(image[ys, xs]), style.body, style.pips, style.fuel,
                               strict=True):
        colour = b + (p - b) * pips + (f - b) * fuel
        side = b * (0.6 + 0.2 * facing)
        channels.append(window * (1 - body) + colour * lit_top + side * sides + glare)
    image[ys, xs] = cv2.merge(channels)


def _glare(shape: tuple[int, int], pose: _Pose, light: tuple[float, float],
           rng: np.random.Generator) -> np.ndarray:
    """A soft specular spot on the glossy top face, on the side towards the light."""
    s = pose.size
    offset = rng.uniform(0.1, 0.3) * s
    centre = (pose.x + light[0] * offset, pose.y + light[1] * offset)
    spot = np.zeros(shape, np.float32)
    axes = (max(1, int(rng.uniform(0.08, 0.2) * s)), max(1, int(rng.uniform(0.04, 0.1) * s)))
    cv2.ellipse(spot, (int(centre[0]), int(centre[1])), axes, math.degrees(math.atan2(
        light[1], light[0])) + 90, 0, 360, 1.0, -1, cv2.LINE_AA)
    return cv2.GaussianBlur(spot, (0, 0), 0.04 * s) * rng.uniform(90, 200)


# --- the camera -------------------------------------------------------------------------------


def _finish(image: FloatImage, shade: np.ndarray, look: _Look, rng: np.random.Generator,
            scale: float) -> np.ndarray:
    """Light falloff and ``shade``, lamp glare, blur, sensor noise, JPEG loss; uint8 BGR."""
    h, w = image.shape[:2]
    out = cv2.convertScaleAbs(_modulate(image, shade * _falloff(look, h, w)))
    if look.hard:
        out = cv2.add(out, cv2.cvtColor(_hotspot(rng, h, w), cv2.COLOR_GRAY2BGR))
    out = cv2.GaussianBlur(out, (0, 0), look.blur * max(scale, 0.5))
    # uniform sensor noise in [-noise, noise]: random bytes mapped by a lookup table (fast)
    table = ((np.arange(256) * (2 * look.noise + 1)) >> 8).astype(np.uint8)
    noise = cv2.LUT(np.frombuffer(rng.bytes(h * w * 3), np.uint8).reshape(h, w, 3), table)
    out = cv2.addWeighted(out, 1.0, noise, 1.0, -float(look.noise))
    if look.jpeg:
        _, data = cv2.imencode(".jpg", out, [cv2.IMWRITE_JPEG_QUALITY, look.jpeg])
        out = np.asarray(cv2.imdecode(data, cv2.IMREAD_COLOR))
    return out


def _falloff(look: _Look, h: int, w: int) -> np.ndarray:
    """Illumination across the frame: a gradient along the light direction and a vignette."""
    sh, sw = h // 8 + 1, w // 8 + 1
    ys = (np.arange(sh, dtype=np.float32)[:, None] + 0.5) / sh - 0.5
    xs = (np.arange(sw, dtype=np.float32)[None, :] + 0.5) / sw - 0.5
    along = (xs * w * look.light[0] + ys * h * look.light[1]) / max(w, h)
    vignette = 1 - (0.35 if look.hard else 0.12) * (xs**2 + ys**2)
    small = (1 + look.gradient * along) * vignette
    return cv2.resize(small.astype(np.float32), (w, h), interpolation=cv2.INTER_LINEAR)


def _hotspot(rng: np.random.Generator, h: int, w: int) -> np.ndarray:
    """A lamp's broad glare reflected by the mat."""
    disc = np.zeros((h // 8 + 1, w // 8 + 1), np.float32)
    centre = (int(rng.integers(disc.shape[1])), int(rng.integers(disc.shape[0])))
    cv2.circle(disc, centre, int(rng.uniform(0.05, 0.15) * disc.shape[1]), 1.0, -1)
    spot = cv2.GaussianBlur(disc, (0, 0), 0.06 * disc.shape[1])
    return cv2.convertScaleAbs(cv2.resize(spot, (w, h)), alpha=rng.uniform(30, 70))
