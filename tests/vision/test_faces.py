"""Layout fitting and single-spot reading: the geometry that names a face."""

from __future__ import annotations

import math

import cv2
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from vision.body_face import CANON, MARGIN, TEMPLATE, Look, pip_templates, read_face
from vision.detect import Spot
from vision.faces import LAYOUT_DISTANCES, best_reads, layout_fit, read_group
from vision.pips import PIP_GRID
from vision.profile import FuelShape, Profile

GRID = {
    2: ((-1, -1), (1, 1)),
    3: ((-1, -1), (0, 0), (1, 1)),
    4: ((-1, -1), (1, -1), (-1, 1), (1, 1)),
    5: ((-1, -1), (1, -1), (0, 0), (-1, 1), (1, 1)),
    6: ((-1, -1), (-1, 0), (-1, 1), (1, -1), (1, 0), (1, 1)),
}


def pips(n: int, *, size: float = 40.0, angle: float = 0.0, x: float = 100.0,
         y: float = 100.0, offset: float = 0.27) -> list[Spot]:
    """Ideal pip spots of face ``n`` on a die of ``size`` px turned by ``angle``."""
    c, s = math.cos(angle), math.sin(angle)
    out = []
    for gx, gy in GRID[n]:
        px, py = gx * offset * size, gy * offset * size
        out.append(Spot(x + c * px - s * py, y + s * px + c * py, 0.02 * size * size, 0.8, False,
                        (30.0, 0.0, 0.0), (230.0, 0.0, 0.0), 3.0, ()))
    return out


@pytest.mark.parametrize("n", sorted(LAYOUT_DISTANCES))
def test_ideal_layouts_fit_exactly(n: int) -> None:
    resid, offset = layout_fit(np.array([(p.x, p.y) for p in pips(n)]))
    assert resid < 1e-6
    assert offset == pytest.approx(0.27 * 40.0)


@settings(max_examples=60, deadline=None)
@given(n=st.integers(2, 6), angle=st.floats(0, 2 * math.pi), size=st.floats(20, 200),
       offset=st.floats(0.18, 0.3))
def test_reading_is_free_of_rotation_and_scale(n: int, angle: float, size: float,
                                               offset: float) -> None:
    read = read_group(pips(n, size=size, angle=angle, offset=offset), size, Profile())
    assert read.face == str(n)
    assert read.confidence > 0.9
    assert read.x == pytest.approx(100.0) and read.y == pytest.approx(100.0)


def test_wrong_shape_is_not_trusted() -> None:
    line = [Spot(10.0 * i, 0.0, 8.0, 0.8, False, (30.0, 0, 0), (230.0, 0, 0), 3.0, ())
            for i in range(4)]
    assert read_group(line, 40.0, Profile()).confidence < 0.5


def test_two_dice_in_one_group_are_split() -> None:
    joined = pips(4, x=100.0) + pips(5, x=145.0)
    reads = best_reads(joined, 40.0, Profile())
    assert sorted(r.face for r in reads) == ["4", "5"]


def test_fuel_needs_a_calibrated_shape() -> None:
    comet = Spot(50.0, 50.0, 0.08 * 1600, 0.33, False, (30.0, 0, 0), (230.0, 0, 0), 3.0,
                 (0.62, 1.6, 2.4, 2.9))
    assert read_group([comet], 40.0, Profile()).face != "fuel"
    profile = Profile(fuel=FuelShape((0.62, 1.6, 2.4, 2.9), 0.33, 0.08))
    read = read_group([comet], 40.0, profile)
    assert read.face == "fuel" and read.confidence > 0.8


# --- the calibrated path: a face read in the canonical square ---------------------------------

LOOK = Look(body=(236.0, 236.0, 234.0), inks=((25.0, 25.0, 25.0),), die_frac=0.1)


def canonical_ink(face: str, *, turn: int, dx: int, dy: int) -> np.ndarray:
    """An ideal ink map of ``face`` as the body path sees it: pips drawn with the look's
    geometry in the canonical square, turned by ``turn`` quarter turns and shifted."""
    side = CANON + 2 * MARGIN
    grid = np.array(PIP_GRID[face], float)
    r = (LOOK.one_radius if face == "1" else LOOK.pip_radius) * CANON
    canvas = np.zeros((side * 4, side * 4), np.uint8)
    for gx, gy in grid:
        x = side / 2 + dx + gx * LOOK.pip_offset * CANON
        y = side / 2 + dy + gy * LOOK.pip_offset * CANON
        cv2.circle(canvas, (round(x * 4), round(y * 4)), round(r * 4), 255, -1, cv2.LINE_AA)
    ink = cv2.resize(canvas, (side, side), interpolation=cv2.INTER_AREA).astype(np.float32) / 255
    return np.ascontiguousarray(np.rot90(ink, turn))


@settings(max_examples=40, deadline=None)
@given(face=st.sampled_from(sorted(PIP_GRID)), turn=st.integers(0, 3), dx=st.integers(-2, 2),
       dy=st.integers(-2, 2))
def test_canonical_faces_are_read_in_any_quarter_turn(face: str, turn: int, dx: int,
                                                      dy: int) -> None:
    ink = canonical_ink(face, turn=turn, dx=dx, dy=dy)
    read, conf, _ = read_face([ink], pip_templates(LOOK))
    assert read == face
    assert conf > 0.6


def test_a_bare_face_is_no_die() -> None:
    side = CANON + 2 * MARGIN
    assert read_face([np.zeros((side, side), np.float32)], pip_templates(LOOK))[0] is None


def test_the_fuel_symbol_is_matched_on_its_own_ink() -> None:
    side = CANON + 2 * MARGIN
    symbol = np.zeros((side, side), np.uint8)
    cv2.ellipse(symbol, (side // 2 + 4, side // 2 - 4), (6, 6), 0, 0, 360, 255, -1)
    cv2.ellipse(symbol, (side // 2 - 3, side // 2 + 3), (10, 3), 45, 0, 360, 255, -1)
    ink = symbol.astype(np.float32) / 255
    m = (side - TEMPLATE) // 2
    look = Look(LOOK.body, ((25.0, 25.0, 25.0), (30.0, 40.0, 210.0)), 0.1,
                fuel=(np.ascontiguousarray(ink[m:m + TEMPLATE, m:m + TEMPLATE]),))
    blank = np.zeros_like(ink)
    turned = np.ascontiguousarray(np.rot90(ink, 1))
    assert read_face([blank, turned], pip_templates(look))[0] == "fuel"
    # the same shape in the pip ink is no symbol: a pip reading or nothing
    assert read_face([turned, blank], pip_templates(look))[0] != "fuel"
