"""The body path's masks, splits and ink maps on drawn scenes with known answers."""

from __future__ import annotations

import cv2
import numpy as np

from vision.bodies import (
    CANON,
    MARGIN,
    TEMPLATE,
    Look,
    _rects,
    die_masks,
    ink_maps,
    pip_templates,
    read_face,
)

ORANGE = (24.0, 124.0, 216.0)
"""An orange body, BGR (the rendered hard set's seed 2024)."""
BLACK = (21.0, 21.0, 28.0)
BLUE = (196.0, 107.0, 30.0)
"""The comet on the fuel face."""


def test_a_die_paled_by_a_lamps_glare_is_still_body() -> None:
    """Grey light added on top of an orange die (and its red channel clipped) keeps it in the
    body mask; the grey floor under the same glare stays out."""
    die = 40
    image = np.full((480, 480, 3), 110, np.uint8)
    hazy = np.minimum(np.array(ORANGE) * 1.1 + 55, 255)
    image[100:140, 100:140] = hazy.astype(np.uint8)
    image[300:340, 300:340] = np.array(ORANGE, np.uint8)
    bodies, _ = die_masks(image, ORANGE, die)
    assert bodies[120, 120] and bodies[320, 320]
    assert not bodies[200, 200]


def test_three_touching_dice_with_two_cores_are_three_dice() -> None:
    """When the rim between two dice of a chain stays light, one core covers both: the part
    too long for one die is split again."""
    die = 20
    bodies = np.zeros((60, 100), np.uint8)
    bodies[20:40, 20:80] = 1
    cores = np.zeros_like(bodies)
    cores[23:37, 23:37] = 1
    cores[23:37, 43:77] = 1
    centres = sorted(rect[0][0] for rect in _rects(bodies, cores, die))
    assert len(centres) == 3  # each near a die: reading re-centres the face
    assert all(abs(c - want) < 0.25 * die for c, want in zip(centres, (30, 50, 70), strict=True))


def _fuel_face(haze: float) -> np.ndarray:
    """A canonical crop of an orange fuel face (blue comet), with grey haze added."""
    side = CANON + 2 * MARGIN
    crop = np.zeros((side, side, 3), np.float32)
    crop[:] = ORANGE
    comet = np.zeros((side, side), np.uint8)
    cv2.circle(comet, (side // 2 - 3, side // 2 - 3), 5, 255, -1)
    cv2.ellipse(comet, (side // 2 + 2, side // 2 + 4), (9, 3), 60, 0, 360, 255, -1)
    crop[comet > 0] = BLUE
    out: np.ndarray = np.clip(crop + haze, 0, 255).astype(np.uint8)
    return out


def test_a_hazy_fuel_face_keeps_its_symbol() -> None:
    """Haze pales the symbol as much as the body: the ink maps take it off first, else the
    paled comet is too faint in its own ink and the big pip of a 1 wins (hard set, seed
    2024)."""
    m = (CANON + 2 * MARGIN - TEMPLATE) // 2
    look = Look(ORANGE, (BLACK, BLUE), 0.1)
    symbol = ink_maps(_fuel_face(0.0), look)[-1]
    look = Look(ORANGE, (BLACK, BLUE), 0.1,
                fuel=(np.ascontiguousarray(symbol[m:m + TEMPLATE, m:m + TEMPLATE]),))
    templates = pip_templates(look)
    for haze in (0.0, 30.0, 60.0):
        inks = ink_maps(_fuel_face(haze), look)
        assert inks[-1].max() > 0.8
        face, confidence, _ = read_face(inks, templates)
        assert face == "fuel" and confidence > 0.8
