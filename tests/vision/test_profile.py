"""Profiles: JSON round trip, file round trip, calibration from rendered shots."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from vision.body_face import TEMPLATE
from vision.calibration import calibrate
from vision.profile import FuelShape, LabelledDie, Profile, body_match
from vision.render import DiceStyle, render_roll

SAMPLE = Profile(bodies=((230.0, 1.0, -2.0),), pips=((20.0, 0.0, 0.0),),
                 fuel=FuelShape((0.6, 1.6, 2.4, 2.9), 0.33, 0.08), faces_seen=("1", "fuel"),
                 body_bgr=(236.0, 236.0, 234.0), inks_bgr=((25.0, 25.0, 25.0), (30.0, 40.0, 210.0)),
                 die_frac=0.1, pip_offset=0.28, pip_radius=0.09, one_radius=0.12,
                 fuel_templates=(tuple(0.5 for _ in range(TEMPLATE * TEMPLATE)),),
                 self_check=(9, 10), table_marks=((0.48, 0.27, 0.16),))


def test_json_round_trip() -> None:
    assert Profile.from_json(SAMPLE.to_json()) == SAMPLE
    chosen = replace(SAMPLE, network_reads=True, haze_less=0.35)
    assert Profile.from_json(chosen.to_json()) == chosen
    assert Profile.from_json(Profile().to_json()) == Profile()
    look = Profile.from_json(SAMPLE.to_json()).look()
    assert look is not None and len(look.fuel) == 1 and look.fuel[0].shape == (TEMPLATE, TEMPLATE)


def test_a_households_sets_round_trip_and_read_one_by_one() -> None:
    other = replace(SAMPLE, body_bgr=(40.0, 40.0, 195.0), network_reads=True)
    household = replace(SAMPLE, more_sets=(other,))
    assert Profile.from_json(household.to_json()) == household
    assert household.sets() == (SAMPLE, other)
    assert SAMPLE.sets() == (SAMPLE,)


def test_a_sets_lights_round_trip_and_read_with_it() -> None:
    """A set learned again from each shot alone reads with the set it belongs to."""
    dim, bright = (replace(SAMPLE, body_bgr=(b, b, b)) for b in (120.0, 250.0))
    other = replace(SAMPLE, body_bgr=(40.0, 40.0, 195.0))
    household = replace(SAMPLE, lights=(dim, bright), more_sets=(other,))
    assert Profile.from_json(household.to_json()) == household
    assert household.readers() == ((SAMPLE, dim, bright), (other,))
    assert [len(p.lights) for p in household.sets()] == [2, 0]


def test_version_one_profiles_still_load_without_the_body_path() -> None:
    old = Profile.from_json('{"version": 1, "bodies": [[230, 1, -2]], "pips": [], "fuel": null}')
    assert old.bodies == ((230.0, 1.0, -2.0),)
    assert old.look() is None


def test_file_round_trip(tmp_path: Path) -> None:
    path = tmp_path / "dice.json"
    SAMPLE.save(path)
    assert Profile.load(path) == SAMPLE


@pytest.mark.parametrize("text", ['{"version": 99}', '{"version": 1, "fuel": {"hu": [1]}}',
                                  '{"version": 2, "haze_less": 5}',
                                  '{"version": 2, "haze_less": null}',
                                  '{"version": 3, "more_sets": [[1, 2]]}',
                                  '{"version": 3, "more_sets": [{"haze_less": 2}]}',
                                  '{"version": 3, "table_marks": [[0.5, 0.5]]}',
                                  '{"version": 3, "lights": [{"die_frac": "wide"}]}'])
def test_bad_documents_are_refused(text: str) -> None:
    with pytest.raises(ValueError):
        Profile.from_json(text)


def test_body_colours_gate_spots_only_when_calibrated() -> None:
    assert body_match(Profile(), (0.0, 90.0, 90.0))
    assert body_match(SAMPLE, (200.0, 3.0, 0.0))
    assert not body_match(SAMPLE, (60.0, -40.0, 80.0))


def test_calibration_learns_the_fuel_symbol(plain_style: DiceStyle) -> None:
    faces = ["1", "2", "3", "4", "fuel"]
    shots = []
    for seed in (1, 2):
        scene = render_roll(faces, seed, style=plain_style)
        shots.append((scene.image, [LabelledDie(d.face, d.x, d.y) for d in scene.dice]))
    profile = calibrate(shots)
    assert profile.fuel is not None
    assert profile.fuel.roundness < 0.6
    assert "fuel" in profile.faces_seen
    assert profile.bodies and profile.pips
    # the body path: colours, size (the style's 100 px die at 1280x720) and the symbol
    look = profile.look()
    assert look is not None
    assert max(abs(a - b) for a, b in zip(look.body, plain_style.body, strict=True)) < 25
    assert look.die_frac * 720 == pytest.approx(plain_style.size, rel=0.15)
    assert 0.2 < look.pip_offset < 0.36
    assert len(look.fuel) == 2
    # the shots read back with what was learned: 10 labelled dice, most of them right
    assert profile.self_check is not None
    right, dice = profile.self_check
    assert dice == 10 and right >= 8
    assert profile.calibration_warning() is None


@pytest.mark.parametrize(("self_check", "warned"), [((9, 10), False), ((5, 10), False),
                                                    ((4, 10), True), ((-2, 10), True),
                                                    (None, False)])
def test_a_calibration_that_reads_its_own_dice_poorly_is_reported(
        self_check: tuple[int, int] | None, warned: bool) -> None:
    warning = replace(SAMPLE, self_check=self_check).calibration_warning()
    assert (warning is not None) == warned
    if warning:
        assert f"only {max(self_check[0], 0)} of 10" in warning  # type: ignore[index]
        assert "contrasts with the dice" in warning


def test_a_set_the_body_path_could_not_learn_is_reported() -> None:
    warning = replace(SAMPLE, body_bgr=None, self_check=(0, 10)).calibration_warning()
    assert warning is not None and "could not be told from the surface" in warning
    # an uncalibrated profile, or a file from before the self-check, says nothing
    assert Profile().calibration_warning() is None
    assert replace(SAMPLE, body_bgr=None, self_check=None).calibration_warning() is None
    # a set the face network reads well needs no body colour
    assert replace(SAMPLE, body_bgr=None, self_check=(14, 16),
                   network_reads=True).calibration_warning() is None
