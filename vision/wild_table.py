"""The table of ``render_wild``: its surface, an optional tray with walls, light and shadows.

The surface is made once per table as a texture on the table plane (``table_setting``), so
every shot of a dataset shows the same felt or mat, and projected through each shot's camera.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass
from typing import TYPE_CHECKING

import cv2
import numpy as np

from vision.render import floor_texture, grain, low_noise, tint
from vision.wild_optics import BGR, DIE_MM, Camera, Light, fixed, unit

if TYPE_CHECKING:
    from vision.render_wild import Table


def jitter(c: BGR, rng: np.random.Generator, amount: int) -> BGR:
    """``c`` with each channel moved by up to ``amount``: no two sets or trays alike."""
    b, g, r = (int(np.clip(v + rng.integers(-amount, amount + 1), 0, 255)) for v in c)
    return (b, g, r)


@dataclass(frozen=True, eq=False)
class Tray:
    """A rectangular tray: inner half-sizes along two table axes, and its walls."""

    axes: np.ndarray  # (2, 2): the tray's x and y directions on the table
    half: tuple[float, float]
    wall: float  # height, mm
    thickness: float
    colour: BGR

    def inside(self, xy: np.ndarray, margin: float) -> np.ndarray:
        """Which table points (n, 2) lie on the floor, ``margin`` mm from the walls."""
        local = np.abs(np.asarray(xy, np.float32).reshape(-1, 2) @ self.axes.T)
        return np.asarray((local[:, 0] <= self.half[0] - margin)
                          & (local[:, 1] <= self.half[1] - margin))

    def wall_distance(self, xy: np.ndarray) -> np.ndarray:
        """How far inside the nearest wall each table point (n, 2) lies, mm."""
        local = np.abs(np.asarray(xy, np.float32).reshape(-1, 2) @ self.axes.T)
        return np.asarray(np.minimum(self.half[0] - local[:, 0], self.half[1] - local[:, 1]))


@dataclass(frozen=True, eq=False)
class Setting:
    """A table's unlit texture over [-reach, reach]^2 mm, and its tray if it has one."""

    texture: np.ndarray
    reach: float
    tray: Tray | None


@functools.lru_cache(maxsize=4)
def table_setting(seed: int, table: Table) -> Setting:
    """The table texture, made once per table: every shot of a dataset shares it."""
    rng = np.random.default_rng([seed, 2])
    cam = Camera.of(table, None)
    reach = float(np.abs(cam.corners_on_table(1.3)[:, :2]).max())
    n = int(min(2 * reach * 0.7 * table.die_px / DIE_MM, 1400))  # the camera blur hides the rest
    mm_px = n / (2 * reach)
    surface = table.surface
    tray = None
    if surface == "tray":
        tray = _tray(cam, rng)
        inner = _surface(("felt", "neoprene")[int(rng.integers(2))], rng, n, mm_px)
        outer = _surface(("wood", "laminate")[int(rng.integers(2))], rng, n, mm_px)
        grid = (np.arange(n, dtype=np.float32) + 0.5) / mm_px - reach
        xy = np.stack(np.meshgrid(grid, grid), axis=-1).reshape(-1, 2)
        inside = tray.inside(xy, 0).reshape(n, n)
        texture = np.where(inside[..., None], inner, outer).astype(np.float32)
    else:
        texture = _surface(surface, rng, n, mm_px)
    texture.flags.writeable = False
    return Setting(texture, reach, tray)


def _tray(cam: Camera, rng: np.random.Generator) -> Tray:
    """A tray square to the frame whose walls stand near its edges, so some are in view."""
    ex = unit(cam.axes[:2, 0])
    axes = np.array([ex, (-ex[1], ex[0])], np.float32)
    half = np.abs(cam.corners_on_table()[:, :2] @ axes.T).min(axis=0) * rng.uniform(0.7, 0.95, 2)
    colours = ((35, 35, 38), (60, 90, 130), (40, 60, 25), (150, 150, 150))
    return Tray(axes, (float(half[0]), float(half[1])), float(rng.uniform(12, 30)),
                float(rng.uniform(6, 15)), jitter(colours[int(rng.integers(4))], rng, 10))


def _surface(name: str, rng: np.random.Generator, n: int, mm_px: float) -> np.ndarray:
    """An unlit n x n texture; the playmat gets stars and dots as big as pips."""
    if name == "laminate":
        colour = rng.uniform(185, 235) * rng.uniform(0.93, 1.0, 3)
        streaks = cv2.resize(low_noise(rng, n, 8, max(2, n // 40)), (n, n))
        shade = (1 + 0.025 * low_noise(rng, n, n, n // 6) + grain(rng, n, n, 0.02)
                 + 0.015 * streaks)
        return tint(shade, colour.tolist())
    texture = floor_texture("mat" if name == "playmat" else name, rng, n, n)
    if name == "playmat":
        texture = np.ascontiguousarray(texture)
        pip = 0.09 * DIE_MM * mm_px
        for _ in range(int(rng.integers(150, 400) * (n / mm_px / 400) ** 2) + 40):
            x, y = rng.uniform(0, n, 2)
            r = pip * rng.uniform(0.4, 1.3)
            ink = ((235, 235, 240), (120, 220, 250), (250, 200, 170))[int(rng.integers(3))]
            if rng.random() < 0.5:
                cv2.circle(texture, (round(x * 16), round(y * 16)), round(r * 16), ink, -1,
                           cv2.LINE_AA, 4)
            else:
                t = np.linspace(0, 2 * math.pi, 10, endpoint=False) + rng.uniform(0, 2)
                radii = np.where(np.arange(10) % 2 == 0, 1.4 * r, 0.55 * r)
                star = np.stack([x + radii * np.cos(t), y + radii * np.sin(t)], axis=1)
                cv2.fillPoly(texture, [fixed(star)], ink, cv2.LINE_AA, 4)
    return np.asarray(texture, np.float32)


def lit_table(setting: Setting, cam: Camera, light: Light,
              casters: list[tuple[np.ndarray, float]]) -> np.ndarray:
    """The table projected into the frame and lit; each caster (a die's corners, mm, and its
    pixels per mm) casts a shadow and darkens the table where it stands."""
    w, h = cam.width, cam.height
    mm_px = setting.texture.shape[0] / (2 * setting.reach)
    from_texture = np.array([[1 / mm_px, 0, 0.5 / mm_px - setting.reach],
                             [0, 1 / mm_px, 0.5 / mm_px - setting.reach], [0, 0, 1]])
    image = cv2.warpPerspective(setting.texture, cam.table_homography() @ from_texture, (w, h),
                                flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REFLECT)
    # smooth light at 1/8 resolution: falloff from the sources, and the tray walls' shade
    gw, gh = w // 8 + 2, h // 8 + 2
    gx, gy = np.meshgrid(np.linspace(0, w - 1, gw), np.linspace(0, h - 1, gh))
    points = cam.to_table(np.stack([gx, gy], axis=-1).reshape(-1, 2))
    up = np.array([0, 0, 1], np.float32)
    direct = light.direct(points, np.broadcast_to(up, points.shape))
    near_wall = np.ones(len(points), np.float32)
    if setting.tray is not None:
        d = setting.tray.wall_distance(points[:, :2])
        near_wall = np.where(d > 0, 1 - 0.35 * np.exp(-d / setting.tray.wall), 1)

    def small(a: np.ndarray) -> np.ndarray:
        return np.asarray(cv2.resize(a.reshape(gh, gw).astype(np.float32), (w, h)))

    direct_map, wall_map = small(direct), small(near_wall)
    shadow = np.zeros((h, w), np.float32)
    contact = np.zeros((h, w), np.float32)
    source = light.shadow_source()
    for corners, px_mm in casters:
        lift = np.clip(corners[:, 2:3] / np.maximum(source[2] - corners[:, 2:3], 1e-3), 0, 50)
        cast = corners + (corners - source) * lift
        _soft_poly(shadow, cam.project(cast), light.blur * px_mm)
        foot = corners.copy()
        foot[:, 2] = 0
        _soft_poly(contact, cam.project(foot), 0.12 * DIE_MM * px_mm)
    occlusion = 1 - 0.6 * contact
    lit = (light.ambient * occlusion + direct_map * (1 - shadow) * occlusion) * wall_map
    return cv2.multiply(image, cv2.merge([lit * c for c in light.colour]))


def _soft_poly(mask: np.ndarray, points: np.ndarray, sigma: float) -> None:
    """Raise ``mask`` to a blurred filled convex hull of ``points``, in a window around it."""
    hull = cv2.convexHull(points.astype(np.float32)).reshape(-1, 2)
    pad = int(3 * sigma) + 2
    h, w = mask.shape
    x0, y0 = (max(0, int(v) - pad) for v in hull.min(axis=0))
    x1, y1 = (min(s, int(v) + pad + 1) for v, s in zip(hull.max(axis=0), (w, h), strict=True))
    if x1 <= x0 or y1 <= y0:
        return
    window = np.zeros((y1 - y0, x1 - x0), np.float32)
    cv2.fillConvexPoly(window, fixed(hull - (x0, y0)), 1.0, cv2.LINE_AA, 4)
    if sigma > 0.3:
        window = cv2.GaussianBlur(window, (0, 0), sigma)
    np.maximum(mask[y0:y1, x0:x1], window, out=mask[y0:y1, x0:x1])


@dataclass(frozen=True, eq=False)
class Wall:
    """One face of a tray wall: its corners, outward normal and whether it hides the floor."""

    corners: np.ndarray
    normal: np.ndarray
    near: bool
    colour: BGR


def walls(tray: Tray, cam: Camera) -> list[Wall]:
    """The visible faces of the four walls; a wall whose inside the camera cannot see stands
    between it and the floor (``near``) and is drawn over the dice."""
    out = []
    ex, ey = (np.append(a, 0).astype(np.float32) for a in tray.axes)
    for axis, other, half, span in ((ex, ey, tray.half[0], tray.half[1] + tray.thickness),
                                    (ey, ex, tray.half[1], tray.half[0])):
        for sign in (1, -1):
            inward = -sign * axis
            near = float(np.dot(cam.centre - sign * half * axis, inward)) < 0
            lo, hi = sign * half * axis, sign * (half + tray.thickness) * axis
            box = np.array([base + s * span * other + z * np.array([0, 0, 1], np.float32)
                            for base in (lo, hi) for s in (-1, 1) for z in (0, tray.wall)],
                           np.float32)
            centre = box.mean(axis=0)
            for normal in (inward, -inward, other, -other, np.array([0, 0, 1], np.float32)):
                side = box[(box - centre) @ normal > 1e-3]
                if float(np.dot(cam.centre - side.mean(axis=0), normal)) > 0:
                    ordered = _around(side, normal)
                    out.append(Wall(ordered, normal, near, tray.colour))
    return out


def _around(points: np.ndarray, normal: np.ndarray) -> np.ndarray:
    """Four coplanar corners in order round their centre."""
    u = np.array([0, 0, 1] if abs(normal[2]) < 0.5 else [1, 0, 0], np.float32)
    v = np.cross(normal, u)
    rel = points - points.mean(axis=0)
    return points[np.argsort(np.arctan2(rel @ v, rel @ u))]


def draw_wall(image: np.ndarray, wall: Wall, cam: Camera, light: Light) -> None:
    """Fill a wall face, lit as a flat surface."""
    centre = wall.corners.mean(axis=0, keepdims=True)
    shade = light.ambient + float(light.direct(centre, wall.normal[None])[0])
    colour = [float(c) * shade * float(g) for c, g in zip(wall.colour, light.colour, strict=True)]
    cv2.fillConvexPoly(image, fixed(cam.project(wall.corners)), colour, cv2.LINE_AA, 4)

