"""The face network reads a calibrated MLEM set's fuel symbol with the set's own templates."""

from __future__ import annotations

import random
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from tests.vision.helpers import calibrated_reader, on_opencv_5_only, wild_roll
from vision import bodies, network_fuel, set_reader
from vision.bodies import TemplateReads, on_die, read_bodies
from vision.body_face import BodyRead, Look, Templates, pip_templates
from vision.confidence import SURE
from vision.diemap import Peak
from vision.network_fuel import fuel_at_peaks, with_fuel
from vision.reader import DiceReader
from vision.render import DiceStyle, render_roll
from vision.set_reader import FrameNetworks


def calibrated_set() -> tuple[DiceStyle, Look, Templates]:
    """A rendered MLEM set calibrated in normal light: its style, look and templates."""
    style = DiceStyle.random(random.Random(3), conditions="normal")
    look = calibrated_reader(style, "normal").profile.look()
    assert look is not None
    return style, look, pip_templates(look)


def test_the_network_reads_fuel_faces_by_the_sets_templates_and_leaves_ones_alone() -> None:
    """Twelve rolls of a rendered MLEM set, each with a fuel face, read by the network: without
    the templates it has no fuel face to give (it reads the symbol as a 1 or as no die)."""
    style = DiceStyle.random(random.Random(3), conditions="normal")
    network = DiceReader(replace(calibrated_reader(style, "normal").profile, network_reads=True))
    read_as: dict[str, list[str]] = {"fuel": [], "1": []}
    for seed in range(12):
        rng = random.Random(seed)
        more = rng.randint(0, 3)
        faces = ["fuel", "1", *(rng.choice(["2", "3", "4", "fuel"]) for _ in range(more))]
        scene = render_roll(faces, 7000 + seed, style=style)
        found = network.read(scene.image).dice
        for die in scene.dice:
            near = [d.face or "?" for d in found
                    if np.hypot(d.x - die.x, d.y - die.y) < 0.4 * die.size]
            if die.face in read_as:
                read_as[die.face].append(near[0] if near else "missed")
    fuel = read_as["fuel"]
    assert fuel.count("fuel") >= 0.75 * len(fuel), fuel
    assert "fuel" not in read_as["1"], read_as["1"]


def test_the_fuel_search_leaves_the_dice_the_body_path_read_surely_alone(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The network's fuel search reads with the set's templates only the dice the body path
    has not already read surely with them. Of this roll's two fuel dice the network reads one
    as a 1, and finds the other only a step aside its die-map peak (``uncalibrated.ASIDE``),
    as a 1 at 1.4 times its width, where the templates do not read it: read again at the peak,
    it is fuel. The body path reads both surely, and neither is read again, where without the
    body path's dice the search finds both."""
    style, look, templates = calibrated_set()
    scene = render_roll(["fuel", "1", "3", "fuel"], 7101, style=style)
    frame = FrameNetworks(scene.image)
    body = read_bodies(scene.image, look, templates, frame=frame.map)
    assert body is not None
    sure = [d for d in body if d.confidence >= SURE and d.face == "fuel"]
    assert len(sure) == 2
    looked_at: list[tuple[float, float]] = []
    real_read = bodies.surest_read

    def recorded(image: np.ndarray, centre: tuple[float, float], *args: Any) -> Any:
        looked_at.append(centre)
        return real_read(image, centre, *args)

    monkeypatch.setattr(bodies, "surest_read", recorded)
    alone = with_fuel(frame.map, frame.dice(), TemplateReads(scene.image, look, templates))
    assert sum(d.face == "fuel" for d in alone) == 2
    assert any(on_die(Peak(x, y, 0.0, 1.0), d, 0.0) for x, y in looked_at for d in sure)
    looked_at.clear()
    beside = with_fuel(frame.map, frame.dice(), TemplateReads(scene.image, look, templates),
                       sure)
    assert not any(on_die(Peak(x, y, 0.0, 1.0), d, 0.0) for x, y in looked_at for d in sure)
    assert all(d.face != "fuel" or not any(on_die(d, s, 0.0) for s in sure) for d in beside)


def test_the_fuel_dice_at_peaks_are_read_once_each_and_never_on_a_die_already_read() -> None:
    """``fuel_at_peaks`` on a rendered MLEM roll: a peak on each fuel die finds it, a second
    peak on the same die adds nothing, a peak on a die already taken is not read, and a peak on
    a pip face finds no fuel there."""
    style, look, templates = calibrated_set()
    scene = render_roll(["fuel", "3", "fuel"], 7102, style=style)
    fuel = [d for d in scene.dice if d.face == "fuel"]
    die = float(np.median([d.size for d in scene.dice]))
    peaks = [Peak(d.x, d.y, d.size, 0.9) for d in scene.dice]
    peaks.append(Peak(fuel[0].x + 0.2 * die, fuel[0].y, die, 0.6))  # the same die again
    found = fuel_at_peaks(peaks, [], die, TemplateReads(scene.image, look, templates))
    assert len(found) == 2
    assert all(any(np.hypot(f.x - d.x, f.y - d.y) < 0.3 * die for f in found) for d in fuel)
    taken = [BodyRead("fuel", 1.0, fuel[0].x, fuel[0].y, die)]
    again = fuel_at_peaks(peaks, taken, die, TemplateReads(scene.image, look, templates))
    assert len(again) == 1 and np.hypot(again[0].x - fuel[1].x, again[0].y - fuel[1].y) < 0.3 * die


def test_a_fuel_die_beside_its_peak_is_found_around_it_and_a_narrow_peak_is_no_die(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A peak 0.45 of a width off a fuel die's centre (a die seen at a slant: its peak between
    its top and a side face) finds the die by looking around the peak (``FUEL_AROUND``), and
    not at the peak alone; a peak a third of a die wide on the die (a printed star) is not
    read."""
    style, look, templates = calibrated_set()
    scene = render_roll(["fuel", "3"], 7103, style=style)
    [fuel] = [d for d in scene.dice if d.face == "fuel"]
    die = float(np.median([d.size for d in scene.dice]))
    off = [Peak(fuel.x + 0.45 * die, fuel.y, die, 0.9)]
    [found] = fuel_at_peaks(off, [], die, TemplateReads(scene.image, look, templates))
    assert np.hypot(found.x - fuel.x, found.y - fuel.y) < 0.2 * die
    narrow = [Peak(fuel.x, fuel.y, 0.35 * die, 0.9)]
    assert fuel_at_peaks(narrow, [], die, TemplateReads(scene.image, look, templates)) == []
    monkeypatch.setattr(network_fuel, "FUEL_AROUND", 0.0)
    assert fuel_at_peaks(off, [], die, TemplateReads(scene.image, look, templates)) == []


@pytest.mark.slow
@on_opencv_5_only("OpenCV 4.6 writes this photo's JPEG otherwise: its fuel die reads without "
                  "this search")
def test_a_fuel_die_beside_a_stronger_unread_peak_is_read_by_the_templates(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """3-D tuning set 5029, photo 2 (ivory dice on laminate under a lamp, the camera tilted):
    the die map has two peaks on the fuel die, the stronger on its edge, which neither the
    templates nor the networks read. The body path passes the weaker one on unread with it,
    and the networks know no fuel symbol; read by the templates (``fuel_at_peaks``: beside the
    body path's dice, and in the networks' reading merged with them), it is a sure fuel die,
    and the roll is read whole."""
    roll = wild_roll(tmp_path, 0, 5029, surface="laminate", light="lamp", resolution=(1280, 720))
    assert "fuel" in roll.truth
    assert "fuel" not in [d.face for d in roll.by_bodies]
    assert DiceReader(roll.profile, max_dice=64).read(roll.image).key == roll.truth
    monkeypatch.setattr(set_reader, "fuel_at_peaks", lambda *_: [])
    monkeypatch.setattr(network_fuel, "fuel_at_peaks", lambda *_: [])
    assert DiceReader(roll.profile, max_dice=64).read(roll.image).key != roll.truth


@pytest.mark.slow
def test_a_set_reads_each_place_of_a_frame_with_its_templates_once(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The roll of the test above: the search beside the body path's dice and the networks'
    fuel search both read the peaks the templates could not read, at the same places; each
    place is read once a frame (``bodies.TemplateReads``), where before each search read it
    again (9 reads, 4 of them repeats, on either OpenCV version), and the roll reads whole."""
    roll = wild_roll(tmp_path, 0, 5029, surface="laminate", light="lamp", resolution=(1280, 720))
    places: list[tuple[float, float, float]] = []
    real_read = bodies.surest_read

    def recorded(image: np.ndarray, centre: tuple[float, float], die: float, *args: Any) -> Any:
        places.append((centre[0], centre[1], die))
        return real_read(image, centre, die, *args)

    monkeypatch.setattr(bodies, "surest_read", recorded)
    assert DiceReader(roll.profile, max_dice=64).read(roll.image).key == roll.truth
    assert places and len(set(places)) == len(places), places
