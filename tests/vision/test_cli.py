"""`companion vision read|eval|calibrate` through the `companion` entry point."""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import pytest

from companion.cli import main
from tests.vision.helpers import household_dataset
from vision.profile import Profile
from vision.render import DiceStyle, render_roll, write_dataset
from vision.render_wild import write_wild_dataset


def test_read_prints_json_and_annotates(tmp_path: Path, plain_style: DiceStyle,
                                        capsys: pytest.CaptureFixture[str]) -> None:
    image = tmp_path / "roll.png"
    cv2.imwrite(str(image), render_roll(["4", "5", "6"], 1, style=plain_style).image)
    out = tmp_path / "annotated.png"
    assert main(["vision", "read", str(image), "--json", "--annotate", str(out)]) == 0
    printed = json.loads(capsys.readouterr().out)
    assert printed["key"] == ["4", "5", "6"]
    assert printed["error"] is None
    assert cv2.imread(str(out)).shape == cv2.imread(str(image)).shape


def test_too_many_dice_is_an_error(tmp_path: Path, plain_style: DiceStyle,
                                   capsys: pytest.CaptureFixture[str]) -> None:
    image = tmp_path / "roll.png"
    cv2.imwrite(str(image), render_roll(["4", "5", "6"], 1, style=plain_style).image)
    assert main(["vision", "read", str(image), "--max-dice", "2"]) == 1
    assert "3 dice seen, at most 2" in capsys.readouterr().out


def test_calibrate_then_eval(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data = tmp_path / "set"
    write_dataset(data, 3, 11, conditions="normal")
    profile = tmp_path / "dice.json"
    assert main(["vision", "calibrate", "--dataset", str(data), "--out", str(profile)]) == 0
    assert Profile.load(profile).faces_seen
    said = capsys.readouterr().out
    assert "calibration dice read back right" in said and "warning" not in said
    assert "fuel symbol learned" in said and "read by its body colour" in said
    assert main(["vision", "eval", str(data), "--profile", str(profile), "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["images"] == 3


def test_a_second_dice_set_is_added_to_the_households_profile(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    first, second, profile = tmp_path / "a", tmp_path / "b", tmp_path / "dice.json"
    write_dataset(first, 0, 11, conditions="normal")
    write_dataset(second, 0, 12, conditions="normal")
    assert main(["vision", "calibrate", "--dataset", str(second), "--out", str(profile),
                 "--add"]) == 2
    assert "dice.json" in capsys.readouterr().err  # nothing to add to yet
    assert main(["vision", "calibrate", "--dataset", str(first), "--out", str(profile)]) == 0
    assert main(["vision", "calibrate", "--dataset", str(second), "--out", str(profile),
                 "--add"]) == 0
    assert "now holds 2 dice sets" in capsys.readouterr().out
    sets = Profile.load(profile).sets()
    assert len(sets) == 2 and sets[0].body_bgr != sets[1].body_bgr


def test_a_dataset_of_two_sets_calibrates_each_on_its_own_shots(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data, profile = household_dataset(tmp_path / "pool", (3, 11), 0), tmp_path / "dice.json"
    assert main(["vision", "calibrate", "--dataset", str(data), "--out", str(profile)]) == 0
    said = capsys.readouterr().out
    assert "the shots show 2 dice sets" in said
    assert "set 1: self-check" in said and "set 2: self-check" in said
    assert len(Profile.load(profile).sets()) == 2


def test_unreadable_image_is_reported(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["vision", "read", str(tmp_path / "missing.png")]) == 2
    assert "no image file" in capsys.readouterr().err
    junk = tmp_path / "junk.jpg"
    junk.write_bytes(b"not a picture")
    assert main(["vision", "read", str(junk)]) == 2
    assert "cannot read image" in capsys.readouterr().err


def test_malformed_profile_is_reported(tmp_path: Path, plain_style: DiceStyle,
                                       capsys: pytest.CaptureFixture[str]) -> None:
    image = tmp_path / "roll.png"
    cv2.imwrite(str(image), render_roll(["4"], 1, style=plain_style).image)
    profile = tmp_path / "dice.json"
    profile.write_text("{", encoding="utf-8")
    assert main(["vision", "read", str(image), "--profile", str(profile)]) == 2
    assert "is not a dice profile" in capsys.readouterr().err


def test_missing_dataset_is_reported(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["vision", "eval", str(tmp_path / "nothing"), "--json"]) == 2
    assert capsys.readouterr().err.startswith("error: ")


def test_a_set_learned_from_each_shot_too_says_so(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Hard 3-D tuning set 5011 reads none of its calibration dice back, its shots' light
    differing (``calibration._lights``): the owner hears what calibration did about it."""
    data, profile = tmp_path / "set", tmp_path / "dice.json"
    write_wild_dataset(data, 0, 5011, surface="laminate", light="window",
                       resolution=(640, 480), hard=True)
    assert main(["vision", "calibrate", "--dataset", str(data), "--out", str(profile)]) == 0
    assert "learned again from each of its 2 shots alone" in capsys.readouterr().out
    assert len(Profile.load(profile).lights) == 2
