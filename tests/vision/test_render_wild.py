"""Photos of 3-D dice from ``render_wild``: deterministic, labels true to what is drawn, valid
datasets."""

import math
from dataclasses import replace

import cv2
import numpy as np
import pytest

from vision.evaluate import load_dataset
from vision.render_wild import (
    LIGHTS,
    RESOLUTIONS,
    SURFACES,
    Table,
    WildSet,
    render_wild,
    series_table,
    write_wild_dataset,
)
from vision.wild_dice import place
from vision.wild_optics import DIE_MM, Camera, Hard

SMALL = (640, 480)
PLAIN = WildSet(mlem=False, body=(236, 236, 234), pips=(25, 25, 25), fuel=(30, 40, 210),
                fuel_design="drop", fuel_turn=0.0, rounding=0.12, opacity=1.0, gloss=60.0,
                shininess=100.0, dome=0.05, pip_radius=0.09, pip_offset=0.27, one_scale=1.3,
                pip_depth=1.0)
"""White dice with black pips: pips are the only dark marks on a top face."""


def _table(seed: int) -> Table:
    return Table.random(np.random.default_rng(seed), resolution=SMALL)


def test_same_seed_same_bytes_and_other_seed_differs() -> None:
    faces = ["1", "2", "fuel", "4"]
    a = render_wild(faces, 5, table=_table(5), shot=1)
    b = render_wild(faces, 5, table=_table(5), shot=1)
    c = render_wild(faces, 5, table=_table(5), shot=2)
    assert a.jpeg == b.jpeg
    assert a.scene.dice == b.scene.dice
    assert a.scene.image.shape == (480, 640, 3)
    assert c.jpeg != a.jpeg
    assert sorted(d.face for d in a.scene.dice) == sorted(faces)


@pytest.mark.parametrize(("tilt", "distortion"), [(0.0, 0.0), (20.0, 0.15), (12.0, -0.08)])
def test_labels_sit_on_top_faces_showing_their_pips(tilt: float, distortion: float) -> None:
    """Inside each labelled top face the dark blobs are exactly that face's pips, so the centre
    and the width follow the perspective, the leaning dice and the lens."""
    table = Table(surface="felt", light="ceiling", width=1280, height=720, tilt=tilt,
                  azimuth=30.0, roll=0.0, die_px=80.0, hfov=60.0, distortion=distortion)
    for seed in (1, 2):
        shot = render_wild(["1", "2", "3", "4", "5", "6"], seed, dice_set=PLAIN, table=table)
        grey = cv2.cvtColor(shot.scene.image, cv2.COLOR_BGR2GRAY)
        for die in shot.scene.dice:
            inside = np.zeros_like(grey)
            cv2.circle(inside, (round(die.x), round(die.y)), round(0.42 * die.size), 255, -1)
            dark = ((grey < 90) & (inside > 0)).astype(np.uint8)
            n, _, stats, _ = cv2.connectedComponentsWithStats(dark)
            pip_area = math.pi * (PLAIN.pip_radius * die.size) ** 2
            pips = sum(stats[i, cv2.CC_STAT_AREA] > 0.2 * pip_area for i in range(1, n))
            assert pips == int(die.face), (seed, die)
            assert grey[round(die.y), round(die.x)] < 90 if die.face in "135" else True


def test_dice_are_30_to_140_px_and_inside_the_frame() -> None:
    sizes = []
    for seed in range(12):
        shot = render_wild(["1", "2", "2", "3", "4", "fuel"], 100 + seed)
        h, w = shot.scene.image.shape[:2]
        for die in shot.scene.dice:
            sizes.append(die.size)
            assert die.size / 2 < die.x < w - die.size / 2
            assert die.size / 2 < die.y < h - die.size / 2
    assert min(sizes) >= 30 and max(sizes) <= 140
    assert max(sizes) / min(sizes) > 2  # the world does vary


def test_unknown_faces_and_counts_are_refused() -> None:
    with pytest.raises(ValueError, match="not on this set"):
        render_wild(["5"], 1, mlem=True)
    with pytest.raises(ValueError, match="1 to 6"):
        render_wild([], 1)
    with pytest.raises(ValueError, match="unknown"):
        Table.random(np.random.default_rng(1), surface="marble")


def test_written_dataset_loads(tmp_path) -> None:  # type: ignore[no-untyped-def]
    write_wild_dataset(tmp_path, 2, 7, surface="playmat", light="ring", resolution=SMALL)
    lines = load_dataset(tmp_path)
    assert [line.split for line in lines] == ["calibration"] * 2 + ["test"] * 2
    for line in lines[:2]:
        assert sorted(d.face for d in line.dice) == ["1", "2", "3", "4", "fuel"]
    for line in lines:
        assert line.image.is_file()
        assert cv2.imread(str(line.image)).shape == (480, 640, 3)
        assert line.tags["surface"] == "playmat" and line.tags["light"] == "ring"
        assert line.tags["resolution"] == "640x480" and "tilt" in line.tags
        assert all(d.width is not None and 30 <= d.width <= 140 for d in line.dice)


def test_a_series_of_eight_tables_meets_each_light_at_both_frame_sizes() -> None:
    """The held-out bench's eight sets of a kind (and the quantizer's twelve) cycle surfaces and
    lights; every light is photographed once at each frame size in eight sets."""
    tables = [series_table(i) for i in range(8)]
    assert [surface for surface, _, _ in tables[:6]] == list(SURFACES)
    assert sorted((light, size) for _, light, size in tables) == sorted(
        (light, size) for light in LIGHTS for size in RESOLUTIONS)


def test_flush_dice_touch_a_neighbour_and_never_overlap_it() -> None:
    """Hard tables push dice square against each other: footprints meet, never cross."""
    table = Table(surface="felt", light="lamp", width=1280, height=720, tilt=10.0,
                  azimuth=0.0, roll=0.0, die_px=60.0, hfov=60.0, distortion=0.0)
    cam = Camera.of(table, None)
    touching = 0
    for seed in range(6):
        dice = place(["1", "2", "3", "4", "5", "6"], PLAIN, cam, None, [],
                     np.random.default_rng(seed), flush=1.0)
        for i, a in enumerate(dice):
            for b in dice[:i]:
                gap = float(np.linalg.norm(a.centre[:2] - b.centre[:2])) / DIE_MM
                assert gap >= 0.98
                touching += gap < 1.1
                feet = [cv2.convexHull(d.corners()[:, :2].astype(np.float32)) for d in (a, b)]
                crossed, _ = cv2.intersectConvexConvex(*feet)
                assert crossed < 0.03 * DIE_MM**2, (seed, gap)
    assert touching >= 6


def test_hard_photos_show_the_same_set_and_table_and_say_so(tmp_path) -> None:  # type: ignore[no-untyped-def]
    normal = load_dataset(write_wild_dataset(tmp_path / "n", 1, 11, resolution=SMALL).parent)
    hard = load_dataset(write_wild_dataset(tmp_path / "h", 1, 11, resolution=SMALL,
                                           hard=True).parent)
    assert [line.tags["conditions"] for line in normal] == ["normal"] * 3
    assert [line.tags["conditions"] for line in hard] == ["hard"] * 3
    for a, b in zip(normal, hard, strict=True):
        assert {t: a.tags[t] for t in ("surface", "light", "resolution", "tilt")} == {
            t: b.tags[t] for t in ("surface", "light", "resolution", "tilt")}
        assert sorted(d.face for d in a.dice) == sorted(d.face for d in b.dice)
        assert a.image.read_bytes() != b.image.read_bytes()


def test_a_shaken_camera_smears_a_point_along_its_angle() -> None:
    still = Hard(ambient=0.5, glare=2.0, gains=(1.0, 1.0, 1.0), defocus=0.01, shake=0.0,
                 shake_angle=0.0, noise=5.0, jpeg=50, flush=0.5)
    dot = np.zeros((41, 41, 3), np.uint8)
    dot[20, 20] = 255
    for angle, along in ((0.0, (0, 1)), (90.0, (1, 0))):
        smear = replace(still, shake=9.0, shake_angle=angle).spoil(dot, 1.0)[..., 0]
        ys, xs = np.nonzero(smear)
        spread = (int(np.ptp(ys)), int(np.ptp(xs)))
        assert spread[along[1]] >= 6 and spread[along[0]] <= 2, (angle, spread)
    assert np.count_nonzero(still.spoil(dot, 1.0)) == 3  # no shake: the dot stays put
    brighter = replace(still, gains=(1.2, 1.0, 0.8)).spoil(np.full((3, 3, 3), 100, np.uint8), 1.0)
    assert brighter[1, 1].tolist() == [120, 100, 80]
