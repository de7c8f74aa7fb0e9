"""The dice of ``render_wild``: rounded cubes at rest, their faces shaded per pixel.

A die is a cube with rounded edges (the convex hull of balls at its inset corners); each face
is drawn as a texture (rounded outline, bevel and dome normals, drilled pips or a printed fuel
symbol, Lambert light and Blinn-Phong glare) warped onto its projected square.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import cv2
import numpy as np

from vision.pips import PIP_GRID
from vision.render import MLEM_FACES, STANDARD_FACES
from vision.wild_optics import BGR, DIE_MM, Camera, Light, fixed, rotation, unit
from vision.wild_table import Tray, Wall, jitter

SIZE_RANGE = (30.0, 140.0)  # labelled top-face widths, px
FUEL_DESIGNS: tuple[str, ...] = ("drop", "flame", "comet", "triple")

# the die's local axes and which face each shows: opposite standard faces sum to 7; the MLEM
# die (1, 2, 2, 3, 4, fuel) has one fixed layout too, its two 2s side by side
_AXES = np.array([(0, 0, 1), (0, 0, -1), (1, 0, 0), (-1, 0, 0), (0, 1, 0), (0, -1, 0)], np.float32)
_STANDARD_LAYOUT = ("1", "6", "2", "5", "3", "4")
_MLEM_LAYOUT = ("1", "4", "2", "3", "2", "fuel")
_CUBE = np.array(list(np.ndindex(2, 2, 2)), np.float32) - 0.5  # corners of a unit cube

_BODIES: tuple[BGR, ...] = (
    (236, 236, 234), (200, 228, 240), (40, 205, 235), (225, 190, 140), (190, 160, 240),  # light
    (40, 40, 195), (30, 125, 235), (70, 150, 40), (170, 90, 35), (140, 50, 120),  # mid
    (140, 130, 20), (120, 120, 118), (30, 55, 95),
    (32, 32, 34), (80, 35, 20), (30, 70, 25), (25, 25, 105),  # dark
)
_TRANSLUCENT: tuple[BGR, ...] = (
    (40, 40, 200), (190, 90, 30), (60, 160, 40), (150, 50, 130), (70, 70, 70), (215, 215, 210),
    (30, 150, 230),
)
_INKS: tuple[BGR, ...] = (
    (25, 25, 25), (240, 240, 240), (30, 30, 190), (160, 70, 20), (40, 190, 230), (50, 150, 40),
    (190, 190, 190),
)


@dataclass(frozen=True)
class WildSet:
    """One dice set: colours, fuel symbol, rounding, gloss and pips shared by all its dice."""

    mlem: bool
    body: BGR
    pips: BGR
    fuel: BGR
    fuel_design: str
    fuel_turn: float  # radians: where the symbol points on its face
    rounding: float  # edge radius as a fraction of the side
    opacity: float  # 1 for an opaque body; translucent bodies let the table and far pips through
    gloss: float  # peak grey levels the glare adds
    shininess: float  # Blinn-Phong exponent: higher is a smaller, sharper glare
    dome: float  # how much the faces bulge (real faces are not flat; spreads the glare)
    pip_radius: float  # as a fraction of the side
    pip_offset: float  # pip centre distance from the face centre, fraction of the side
    one_scale: float  # the single pip of a 1 is often larger
    pip_depth: float  # steepness of a drilled pip's wall

    @classmethod
    def random(cls, rng: np.random.Generator, *, mlem: bool = True) -> WildSet:
        """Any body with any ink it contrasts with: light pips on dark and mid bodies too."""
        translucent = rng.random() < 0.2
        bodies = _TRANSLUCENT if translucent else _BODIES
        body = bodies[int(rng.integers(len(bodies)))]
        inks = [c for c in _INKS if math.dist(c, body) > 100]
        pips = inks[int(rng.integers(len(inks)))]
        fuel = inks[int(rng.integers(len(inks)))] if rng.random() < 0.5 else pips
        return cls(
            mlem=mlem, body=jitter(body, rng, 10), pips=jitter(pips, rng, 8),
            fuel=jitter(fuel, rng, 8),
            fuel_design=FUEL_DESIGNS[int(rng.integers(len(FUEL_DESIGNS)))],
            fuel_turn=float(rng.uniform(0, 2 * math.pi)),
            rounding=float(rng.uniform(0.08, 0.2)),
            opacity=float(rng.uniform(0.35, 0.6)) if translucent else 1.0,
            gloss=float(rng.uniform(60, 230)), shininess=float(rng.uniform(30, 300)),
            dome=float(rng.uniform(0.0, 0.25)), pip_radius=float(rng.uniform(0.07, 0.1)),
            pip_offset=float(rng.uniform(0.24, 0.29)), one_scale=float(rng.uniform(1.0, 1.6)),
            pip_depth=float(rng.uniform(0.6, 1.4)),
        )

    @property
    def faces(self) -> tuple[str, ...]:
        return MLEM_FACES if self.mlem else STANDARD_FACES


def _cube_turns() -> list[np.ndarray]:
    """The 24 rotations of a cube onto itself."""
    turns = []
    for perm in ((0, 1, 2), (0, 2, 1), (1, 0, 2), (1, 2, 0), (2, 0, 1), (2, 1, 0)):
        for signs in np.ndindex(2, 2, 2):
            m = np.zeros((3, 3), np.float32)
            for row, (col, s) in enumerate(zip(perm, signs, strict=True)):
                m[row, col] = 1 - 2 * s
            if np.linalg.det(m) > 0:
                turns.append(m)
    return turns


_TURNS = _cube_turns()
_SPHERE = unit(np.array([(x, y, z) for x in (-1, 0, 1) for y in (-1, 0, 1) for z in (-1, 0, 1)
                          if (x, y, z) != (0, 0, 0)], np.float32))


@dataclass(frozen=True, eq=False)
class Die:
    """A die at rest: which face is up, its turn (local to world) and centre, mm."""

    face: str
    turn: np.ndarray
    centre: np.ndarray
    layout: tuple[str, ...]
    rounding: float

    def corners(self, scale: float = 1.0) -> np.ndarray:
        """The cube's eight corners, mm, the cube first scaled about its centre."""
        return np.asarray(self.centre + (_CUBE * DIE_MM * scale) @ self.turn.T, np.float32)

    def faces(self) -> list[tuple[str, np.ndarray, np.ndarray, np.ndarray]]:
        """(face, outward normal, u, v) of each side, in world directions."""
        out = []
        for axis, face in zip(_AXES, self.layout, strict=True):
            u, v = _face_frame(axis)
            out.append((face, self.turn @ axis, self.turn @ u, self.turn @ v))
        return out

    def top(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Centre, four corners and normal of the face that looks up (the labelled face)."""
        _, n, u, v = max(self.faces(), key=lambda f: float(f[1][2]))
        centre = self.centre + n * DIE_MM / 2
        return centre, _square(centre, u, v), n

    def outline(self) -> np.ndarray:
        """Points whose convex hull is the rounded cube: balls at the inset corners."""
        r = self.rounding * DIE_MM
        inset = self.corners(1 - 2 * self.rounding)
        return (inset[:, None, :] + r * _SPHERE[None]).reshape(-1, 3)

    def px_mm(self, cam: Camera) -> float:
        """About how many pixels a millimetre at the die spans."""
        distance = float(np.linalg.norm(self.centre - cam.centre))
        return cam.focal / distance


def _face_frame(axis: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Two in-face directions (u, v) with u x v = ``axis``, a face's outward axis of the cube."""
    u = np.array((0, 1, 0) if abs(axis[0]) > 0.5 else (1, 0, 0), np.float32)
    return u, np.cross(axis, u).astype(np.float32)


def _square(centre: np.ndarray, u: np.ndarray, v: np.ndarray) -> np.ndarray:
    """Corners of the face at ``centre`` spanned by ``u`` and ``v``, in drawing order."""
    return np.array([centre + (a * u + b * v) * DIE_MM / 2
                     for a, b in ((-1, -1), (1, -1), (1, 1), (-1, 1))], np.float32)


def _px_size(cam: Camera, corners: np.ndarray) -> float:
    """Width in pixels of a projected square face: the root of its area."""
    return math.sqrt(abs(cv2.contourArea(cam.project(corners).astype(np.float32))))


def place(faces: list[str], dice_set: WildSet, cam: Camera, tray: Tray | None,
          near: list[Wall], rng: np.random.Generator, flush: float = 0.0) -> list[Die]:
    """Rest poses by rejection sampling: apart (or leaning on a neighbour, or with chance
    ``flush`` pushed against one), in frame, top face visible and 30-140 px wide, clear of
    tray walls that stand in front of the floor."""
    blocked = np.zeros((cam.height, cam.width), np.uint8)
    for wall in near:
        cv2.fillConvexPoly(blocked, fixed(cam.project(wall.corners)), 1, cv2.LINE_8, 4)
    for _ in range(30):
        dice: list[Die] = []
        for face in faces:
            for _ in range(200):
                die, against = _thrown_flush(face, dice_set, dice, rng, flush)
                if die is None:
                    die = _throw(face, dice_set, cam, dice, tray, rng)
                if _fits(die, cam, dice, tray, blocked, against):
                    dice.append(die)
                    break
            else:
                break
        if len(dice) == len(faces):
            return dice
    raise RuntimeError(f"could not place {len(faces)} dice")  # pragma: no cover


def _throw(face: str, dice_set: WildSet, cam: Camera, placed: list[Die], tray: Tray | None,
           rng: np.random.Generator) -> Die:
    """A die with ``face`` up at a random yaw: anywhere in view, or beside a placed die and
    sometimes leaning on it, or leaning on a tray wall; resting on its lowest rounded edge."""
    layout, upright = _face_up(face, dice_set, rng)
    yaw = float(rng.uniform(0, 2 * math.pi))
    if placed and rng.random() < 0.35:  # beside a neighbour, maybe leaning on it
        other = placed[int(rng.integers(len(placed)))]
        a = rng.uniform(0, 2 * math.pi)
        lean = math.radians(rng.uniform(8, 20)) if rng.random() < 0.4 else 0.0
        gap = DIE_MM * (rng.uniform(1.45, 1.7) + math.sin(lean))
        xy = other.centre[:2] + gap * np.array([math.cos(a), math.sin(a)], np.float32)
        toward = (-math.cos(a), -math.sin(a))
    elif tray is not None and rng.random() < 0.2:  # against a wall, leaning on it
        side, sign = int(rng.integers(2)), float(rng.choice((-1.0, 1.0)))
        lean = math.radians(rng.uniform(8, 20))
        across = tray.half[side] - DIE_MM / 2 * (math.cos(lean) + math.sin(lean))
        along = rng.uniform(-1, 1) * (tray.half[1 - side] - DIE_MM)
        xy = sign * across * tray.axes[side] + along * tray.axes[1 - side]
        toward = (sign * float(tray.axes[side][0]), sign * float(tray.axes[side][1]))
        yaw = math.atan2(toward[1], toward[0]) + float(rng.uniform(-0.03, 0.03))  # square on
    else:
        pixel = rng.uniform(cam.pad, (cam.width - cam.pad, cam.height - cam.pad))
        xy = cam.to_table(pixel)[0, :2]
        lean = math.radians(rng.uniform(4, 12)) if rng.random() < 0.08 else 0.0
        b = rng.uniform(0, 2 * math.pi)
        toward = (math.cos(b), math.sin(b))
    turn = rotation((0, 0, 1), yaw) @ upright
    if lean:
        turn = rotation((-toward[1], toward[0], 0), lean) @ turn
    rounding = dice_set.rounding
    lowest = float((_CUBE * DIE_MM * (1 - 2 * rounding) @ turn.T)[:, 2].min())
    centre = np.array([xy[0], xy[1], -lowest + rounding * DIE_MM], np.float32)
    return Die(face, turn.astype(np.float32), centre, layout, rounding)


def _face_up(face: str, dice_set: WildSet, rng: np.random.Generator
             ) -> tuple[tuple[str, ...], np.ndarray]:
    """The set's face layout and a random turn of the cube that puts ``face`` on top."""
    layout = _MLEM_LAYOUT if dice_set.mlem else _STANDARD_LAYOUT
    up = [_AXES[i] for i, f in enumerate(layout) if f == face]
    axis = up[int(rng.integers(len(up)))]
    turns = [t for t in _TURNS if (t @ axis)[2] > 0.5]
    return layout, turns[int(rng.integers(len(turns)))]


def _thrown_flush(face: str, dice_set: WildSet, placed: list[Die], rng: np.random.Generator,
                  flush: float) -> tuple[Die | None, Die | None]:
    """With chance ``flush``, a die with ``face`` up pushed square against a side of a placed
    die that stands upright, slid along it by up to 0.4 of a side: (die, the die it touches),
    else (None, None)."""
    if not placed or not flush or rng.random() >= flush:
        return None, None
    other = placed[int(rng.integers(len(placed)))]
    sides = [n for _, n, _, _ in other.faces() if abs(float(n[2])) < 0.05]
    if len(sides) != 4:  # leaning: no side stands square
        return None, None
    normal = sides[int(rng.integers(4))]
    along = np.array([-normal[1], normal[0]], np.float32)
    xy = (other.centre[:2] + DIE_MM * rng.uniform(1.0, 1.06) * normal[:2]
          + DIE_MM * rng.uniform(-0.4, 0.4) * along)
    layout, upright = _face_up(face, dice_set, rng)
    yaw = math.atan2(float(normal[1]), float(normal[0])) + float(rng.uniform(-0.03, 0.03))
    turn = rotation((0, 0, 1), yaw) @ upright
    centre = np.array([xy[0], xy[1], DIE_MM / 2], np.float32)
    return Die(face, turn.astype(np.float32), centre, layout, dice_set.rounding), other


def _fits(die: Die, cam: Camera, placed: list[Die], tray: Tray | None,
          blocked: np.ndarray, against: Die | None = None) -> bool:
    for other in placed:
        apart = (0.98 if other is against else 1.45) * DIE_MM
        if float(np.linalg.norm(die.centre[:2] - other.centre[:2])) < apart:
            return False
    if tray is not None and not tray.inside(die.outline()[:, :2], -0.02 * DIE_MM).all():
        return False
    centre, corners, normal = die.top()
    if float(np.dot(unit(cam.centre - centre), normal)) < 0.3:
        return False
    size = _px_size(cam, corners)
    if not SIZE_RANGE[0] * 1.05 <= size <= SIZE_RANGE[1] * 0.95:
        return False
    hull = cam.project(die.outline())
    x0, y0 = hull.min(axis=0)
    x1, y1 = hull.max(axis=0)
    edge = cam.pad + 0.03 * max(cam.width, cam.height)
    if x0 < edge or y0 < edge or x1 > cam.width - edge or y1 > cam.height - edge:
        return False
    return not blocked[int(y0):int(y1) + 1, int(x0):int(x1) + 1].any()


def draw_die(image: np.ndarray, die: Die, dice_set: WildSet, cam: Camera,
             light: Light) -> None:
    """Composite one die: its rounded silhouette, then each face warped from a shaded texture
    (a translucent body draws its far faces first, seen through the near ones)."""
    hull = cv2.convexHull(cam.project(die.outline()).astype(np.float32)).reshape(-1, 2)
    h, w = image.shape[:2]
    x0, y0 = (max(0, int(v) - 2) for v in hull.min(axis=0))
    x1, y1 = (min(s, int(v) + 3) for v, s in zip(hull.max(axis=0), (w, h), strict=True))
    window = image[y0:y1, x0:x1]
    shape = (y1 - y0, x1 - x0)
    faces = []
    for face, n, u, v in die.faces():
        centre = die.centre + n * DIE_MM / 2
        faces.append((float(np.dot(unit(cam.centre - centre), n)), face, centre, n, u, v))
    opaque = dice_set.opacity >= 1
    if opaque:  # the rounded edges and corners between the faces
        silhouette = np.zeros(shape, np.float32)
        cv2.fillConvexPoly(silhouette, fixed(hull - (x0, y0)), 1.0, cv2.LINE_AA, 4)
        edge = light.ambient + 0.5 * float(light.direct(die.centre[None], np.array(
            [[0, 0, 1]], np.float32))[0])
        rim = [float(c) * edge * float(g) for c, g in
               zip(dice_set.body, light.colour, strict=True)]
        _composite(window, cv2.merge([silhouette * c for c in rim]), silhouette)
    for facing, face, centre, n, u, v in sorted(faces, key=lambda f: f[0]):
        if facing <= 0.02 and opaque:
            continue
        quad = cam.project(_square(centre, u, v))
        side = float(np.max(np.linalg.norm(quad - np.roll(quad, 1, axis=0), axis=1)))
        t = int(np.clip(1.2 * side + 4, 12, 150))
        colour, alpha = _face_texture(face, t, centre, n, u, v, dice_set, light, cam,
                                      front=facing > 0)
        src = np.array([(-0.5, -0.5), (t - 0.5, -0.5), (t - 0.5, t - 0.5), (-0.5, t - 0.5)],
                       np.float32)
        warp = cv2.getPerspectiveTransform(src, (quad - (x0, y0)).astype(np.float32))
        size = (shape[1], shape[0])
        layer = cv2.warpPerspective(np.dstack([colour, alpha]), warp, size,
                                    flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT)
        _composite(window, layer[..., :3], layer[..., 3])


def _composite(window: np.ndarray, premultiplied: np.ndarray, alpha: np.ndarray) -> None:
    window[:] = cv2.multiply(window, cv2.merge([1 - alpha] * 3)) + premultiplied


def _face_texture(face: str, t: int, centre: np.ndarray, n: np.ndarray, u: np.ndarray,
                  v: np.ndarray, dice_set: WildSet, light: Light, cam: Camera, *,
                  front: bool) -> tuple[np.ndarray, np.ndarray]:
    """A t x t face, premultiplied BGR and alpha: rounded outline, bevel and dome normals,
    drilled pips or the printed fuel symbol, lit per pixel with glare."""
    g = (np.arange(t, dtype=np.float32) + 0.5) / t - 0.5
    fu, fv = np.meshgrid(g, g)
    r = dice_set.rounding
    qu, qv = np.maximum(np.abs(fu) - (0.5 - r), 0), np.maximum(np.abs(fv) - (0.5 - r), 0)
    alpha = np.clip((r - np.hypot(qu, qv)) * t + 0.5, 0, 1)
    # normals in face coordinates: rounded edges turn 45 degrees by the rim, a slight dome
    nu = np.tan(np.clip(qu / r, 0, 1) * (math.pi / 4)) * np.sign(fu) + dice_set.dome * fu
    nv = np.tan(np.clip(qv / r, 0, 1) * (math.pi / 4)) * np.sign(fv) + dice_set.dome * fv
    ink = np.zeros((t, t), np.float32)
    hollow = np.ones((t, t), np.float32)
    if face == "fuel":
        ink = _fuel_mask(dice_set, t)
    else:
        radius = dice_set.pip_radius * (dice_set.one_scale if face == "1" else 1.0)
        for gx, gy in PIP_GRID[face]:
            du = (fu - gx * dice_set.pip_offset) / radius
            dv = (fv - gy * dice_set.pip_offset) / radius
            d2 = du * du + dv * dv
            inside = d2 < 1
            ink = np.maximum(ink, np.clip((1 - np.sqrt(d2)) * radius * t + 0.5, 0, 1))
            nu -= np.where(inside, dice_set.pip_depth * du, 0)
            nv -= np.where(inside, dice_set.pip_depth * dv, 0)
            hollow *= np.where(inside, 0.55 + 0.45 * d2, 1)  # the drilled hole's floor
    normals = unit(nu[..., None] * u + nv[..., None] * v + n)
    points = centre + (fu[..., None] * u + fv[..., None] * v) * DIE_MM
    ink_colour = dice_set.fuel if face == "fuel" else dice_set.pips
    if front:
        lit = (light.ambient + light.direct(points, normals)) * hollow
        glare = light.specular(points, normals, cam.centre, dice_set.shininess)
        glare *= np.float32(dice_set.gloss) * alpha
    else:  # a far face seen through a translucent body: dim, no glare
        lit = np.full((t, t), 0.6 * light.ambient + 0.15, np.float32)
        glare = np.zeros((t, t), np.float32)
    cover = alpha * (dice_set.opacity + (1 - dice_set.opacity) * ink)
    planes = [(b + (p - b) * ink) * lit * g * cover + glare * g
              for b, p, g in zip(dice_set.body, ink_colour, light.colour, strict=True)]
    return cv2.merge([np.asarray(p, np.float32) for p in planes]), cover.astype(np.float32)


def _fuel_mask(dice_set: WildSet, t: int) -> np.ndarray:
    """The set's fuel symbol on a t x t face, 0..1: a drop, a hollow flame, a comet or three
    flame tongues (the game's symbol is a stylised fuel drop; sets draw it differently)."""
    shapes, holes = _fuel_shapes(dice_set.fuel_design)
    c, s = math.cos(dice_set.fuel_turn), math.sin(dice_set.fuel_turn)
    turn = np.array([[c, s], [-s, c]], np.float32)
    out = np.zeros((t, t), np.uint8)
    for polys, value in ((shapes, 255), (holes, 0)):
        for poly in polys:
            px = (poly @ turn + 0.5) * t - 0.5
            cv2.fillPoly(out, [fixed(px)], value, cv2.LINE_AA, 4)
    return out.astype(np.float32) / 255


def _drop(scale: float, tip: float = 0.0) -> np.ndarray:
    """A teardrop pointing up, ``scale`` tall; ``tip`` bends its point sideways like a flame."""
    a = np.linspace(0, 2 * math.pi, 40, endpoint=False)
    x = 0.36 * np.sin(a) * np.sin(a / 2)
    y = -0.5 * np.cos(a)
    x = x + tip * (0.5 - y) ** 2 - tip * 0.25
    return np.stack([x, y + 0.1], axis=1).astype(np.float32) * scale


def _fuel_shapes(design: str) -> tuple[list[np.ndarray], list[np.ndarray]]:
    """Filled polygons and holes of a fuel design, in face units about the centre."""
    if design == "drop":
        return [_drop(0.62)], []
    if design == "flame":
        return [_drop(0.68, 0.12)], [_drop(0.3) + np.array((0.0, 0.1), np.float32)]
    if design == "comet":
        head, r = np.array([0.1, 0.1], np.float32), 0.15
        k = np.linspace(0, 1, 20, dtype=np.float32)[:, None]
        spine = head + k * np.array([-0.38, -0.38], np.float32) + np.sin(k * math.pi) * np.array(
            [0.06, -0.06], np.float32)
        side = np.array([0.7071, -0.7071], np.float32) * r * (1 - k) ** 1.2
        a = np.linspace(0, 2 * math.pi, 32, endpoint=False)
        disc = head + r * np.stack([np.cos(a), np.sin(a)], axis=1).astype(np.float32)
        return [np.vstack([spine + side, (spine - side)[::-1]]), disc], []
    tongues = []
    for turn, scale in ((0.0, 0.62), (-0.6, 0.42), (0.6, 0.42)):
        c, s = math.cos(turn), math.sin(turn)
        root = np.array((0, 0.6 * scale), np.float32)  # the drop's round end
        tongues.append((_drop(scale) - root) @ np.array([[c, s], [-s, c]], np.float32)
                       + np.array((0, 0.3), np.float32))
    return tongues, []

