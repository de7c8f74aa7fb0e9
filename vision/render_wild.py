"""Photographs of real 3-D dice at a table: a wider world than ``render.py`` draws (issue 19).

``render.py`` draws flat dice from straight above, and the reader reads those almost perfectly,
while hidden sets from a ray tracer (rounded dice, perspective, a tilted camera, other mats and
lights) read at 0.09-0.81. This renderer is a second, independent world to measure (and later
train) how far the reader generalises. Each die is a cube with rounded edges resting on the
table (now and then leaning on a neighbour by up to 20 degrees), seen through a pinhole camera
tilted up to 25 degrees, so the top face is foreshortened and one or two side faces show their
own pips. Faces are shaded per pixel (Lambert light, Blinn-Phong glare, slightly domed faces,
drilled pips), bodies may be translucent, the table is one of six surfaces under one of four
lights, and the camera adds lens distortion, white-balance error, blur, noise and JPEG loss.
A hard table (``Table.hard``) adds a harsher light, a worse camera and dice pushed flush
together (``wild_optics.Hard``).

A dataset (``write_wild_dataset``) is one dice set on one table, as an owner's camera sees it:
the surface, light kind, frame size and camera mount are fixed by its seed, each photo jitters
them a little. Deterministic by seed; OpenCV 4.6 and NumPy 1.24 calls only.
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from vision.render import MAX_DICE, RenderedDie, Scene, label_line
from vision.wild_dice import Die, WildSet, draw_die, place
from vision.wild_optics import Camera, Hard, Light, develop, distort
from vision.wild_table import draw_wall, lit_table, table_setting, walls

__all__ = ["LIGHTS", "RESOLUTIONS", "SURFACES", "Table", "WildSet", "WildShot", "render_wild",
           "series_table", "write_wild_dataset"]

SURFACES: tuple[str, ...] = ("felt", "wood", "neoprene", "playmat", "laminate", "tray")
LIGHTS: tuple[str, ...] = ("lamp", "ceiling", "window", "ring")
RESOLUTIONS: tuple[tuple[int, int], ...] = ((640, 480), (1280, 720))


def series_table(i: int) -> tuple[str, str, tuple[int, int]]:
    """The surface, light and frame size of the ``i``-th set of a series of sets on different
    tables (the held-out bench's, the tuning sets', the quantizer's): surface i mod 6, light
    i mod 4, and the frame size so chosen that both sizes meet every light once four sets are
    drawn."""
    return (SURFACES[i % len(SURFACES)], LIGHTS[i % len(LIGHTS)],
            RESOLUTIONS[(i + i // 4) % len(RESOLUTIONS)])


@dataclass(frozen=True)
class Table:
    """Where a set is photographed: surface, light kind, frame and camera mount."""

    surface: str
    light: str
    width: int
    height: int
    tilt: float  # camera axis from straight down, degrees
    azimuth: float  # which way it tilts, degrees
    roll: float  # the camera's turn about its axis, degrees
    die_px: float  # top-face width where the axis meets the table
    hfov: float  # horizontal field of view, degrees
    distortion: float  # radial: > 0 barrel, < 0 pincushion
    hard: bool = False  # harsher light, worse camera, dice flush together (``wild_optics.Hard``)

    @classmethod
    def random(cls, rng: np.random.Generator, *, surface: str | None = None,
               light: str | None = None, resolution: tuple[int, int] | None = None,
               hard: bool = False) -> Table:
        """A random table; ``surface``, ``light`` and ``resolution`` pin those choices.

        :raises ValueError: for an unknown surface or light.
        """
        for value, known in ((surface, SURFACES), (light, LIGHTS)):
            if value is not None and value not in known:
                raise ValueError(f"unknown {value!r}; expected one of {known}")
        width, height = resolution or RESOLUTIONS[int(rng.integers(len(RESOLUTIONS)))]
        small = width < 1000
        return cls(
            surface=surface or SURFACES[int(rng.integers(len(SURFACES)))],
            light=light or LIGHTS[int(rng.integers(len(LIGHTS)))],
            width=width, height=height, tilt=float(rng.uniform(0, 25)),
            azimuth=float(rng.uniform(0, 360)), roll=float(rng.uniform(0, 360)),
            die_px=float(rng.uniform(38, 72) if small else rng.uniform(48, 118)),
            hfov=float(rng.uniform(50, 72)), distortion=float(rng.uniform(-0.08, 0.15)),
            hard=hard,
        )

    def tags(self) -> dict[str, str]:
        """Condition tags of a dataset line (the tilt in three bands)."""
        band = "0-9" if self.tilt < 10 else "10-17" if self.tilt < 18 else "18-25"
        return {"conditions": "hard" if self.hard else "normal",
                "surface": self.surface, "light": self.light,
                "resolution": f"{self.width}x{self.height}", "tilt": band, "renderer": "wild"}


@dataclass(frozen=True)
class WildShot:
    """A photo as the camera stored it (``jpeg``) and decoded, with its labels (``scene``)."""

    scene: Scene
    jpeg: bytes


def render_wild(faces: Sequence[str], seed: int, *, dice_set: WildSet | None = None,
                table: Table | None = None, shot: int = 0, mlem: bool = True) -> WildShot:
    """Photograph ``faces`` thrown on a table; the same arguments give the same bytes.

    ``seed`` fixes the table texture and (unless given) the dice set and table; ``shot`` is
    another throw in the same place, with the camera and light jittered a little.

    :raises ValueError: for 0 or more than 6 dice or a face the set does not have.
    """
    faces = list(faces)
    if not 1 <= len(faces) <= MAX_DICE:
        raise ValueError(f"need 1 to {MAX_DICE} dice, got {len(faces)}")
    own = np.random.default_rng([seed, 0])
    dice_set = dice_set or WildSet.random(own, mlem=mlem)
    table = table or Table.random(own)
    unknown = sorted(set(faces) - set(dice_set.faces))
    if unknown:
        raise ValueError(f"faces {unknown} are not on this set's dice {dice_set.faces}")
    setting = table_setting(seed, table)
    rng = np.random.default_rng([seed, 1, shot])
    distortion = table.distortion + float(rng.uniform(-0.02, 0.02))
    # barrel distortion pulls in what lies beyond the frame: render a margin for it
    pad = int(max(0.0, distortion) * math.hypot(table.width, table.height) / 2) + 2
    cam = Camera.of(table, rng, pad)
    light = Light.of(table.light, rng, cam)
    hard = Hard.random(np.random.default_rng([seed, 4, shot])) if table.hard else None
    if hard is not None:
        light = light.harsher(hard)
    sides = walls(setting.tray, cam) if setting.tray else []
    near = [wall for wall in sides if wall.near]
    dice = place(faces, dice_set, cam, setting.tray, near, rng, hard.flush if hard else 0.0)
    image = lit_table(setting, cam, light, [(d.corners(0.97), d.px_mm(cam)) for d in dice])
    for wall in sides:
        if not wall.near:
            draw_wall(image, wall, cam, light)
    for die in sorted(dice, key=lambda d: -float(np.linalg.norm(d.centre - cam.centre))):
        draw_die(image, die, dice_set, cam, light)
    for wall in near:
        draw_wall(image, wall, cam, light)
    photo, jpeg = develop(image, cam, distortion, rng, hard)
    labels = tuple(_label(die, cam, distortion, table) for die in dice)
    return WildShot(Scene(photo, labels, table.tags()), jpeg)


def write_wild_dataset(folder: Path, count: int, seed: int, *, mlem: bool = True,
                       surface: str | None = None, light: str | None = None,
                       resolution: tuple[int, int] | None = None, hard: bool = False) -> Path:
    """Write a dice-bench dataset (FORMAT.md) of one dice set on one table.

    Two calibration shots each show every distinct face once, then ``count`` test photos of 1
    to 6 dice. ``surface``, ``light`` and ``resolution`` pin the table's (otherwise drawn from
    ``seed``); ``hard`` photographs the same set on the same table in hard conditions, the
    calibration shots too (an owner calibrates under the light they play in). Returns the
    path of ``labels.jsonl``.
    """
    rng = np.random.default_rng([seed, 0])
    dice_set = WildSet.random(rng, mlem=mlem)
    table = Table.random(rng, surface=surface, light=light, resolution=resolution, hard=hard)
    distinct = list(dict.fromkeys(dice_set.faces))
    throws = np.random.default_rng([seed, 3])
    (folder / "img").mkdir(parents=True, exist_ok=True)
    lines = []
    for i in range(2 + count):
        calibration = i < 2
        if calibration:
            faces = [distinct[k] for k in throws.permutation(len(distinct))]
        else:
            n = int(throws.integers(1, MAX_DICE + 1))
            faces = [dice_set.faces[int(k)] for k in throws.integers(0, 6, n)]
        photo = render_wild(faces, seed, dice_set=dice_set, table=table, shot=i)
        name = f"img/{'cal' if calibration else 'test'}_{i:04d}.jpg"
        (folder / name).write_bytes(photo.jpeg)
        lines.append(label_line(name, "calibration" if calibration else "test", photo.scene))
    labels = folder / "labels.jsonl"
    labels.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    return labels


def _label(die: Die, cam: Camera, distortion: float, table: Table) -> RenderedDie:
    """The die's top face as labelled: its centre and width in the stored photo."""
    top, corners, _ = die.top()
    points = distort(cam.project(np.vstack([top[None], corners])) - cam.pad, distortion,
                     table.width, table.height)
    size = math.sqrt(abs(cv2.contourArea(points[1:])))
    return RenderedDie(die.face, float(points[0, 0]), float(points[0, 1]), size)
