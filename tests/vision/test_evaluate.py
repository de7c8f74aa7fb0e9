"""The FORMAT.md protocol: matching, scoring, and a whole run on a tiny rendered dataset."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from vision.evaluate import Found, Label, Line, evaluate, load_dataset, match, score
from vision.render import write_dataset


def test_matching_is_greedy_nearest_first_and_one_to_one() -> None:
    labels = [Label("1", 100.0, 100.0, 40.0), Label("2", 130.0, 100.0, 40.0)]
    found = [Found("2", 118.0, 100.0, 40.0), Found("1", 104.0, 100.0, 40.0)]
    assert sorted(match(found, labels)) == [(0, 1), (1, 0)]


def test_matching_radius_is_half_the_labelled_width() -> None:
    labels = [Label("3", 0.0, 0.0, 40.0)]
    assert match([Found("3", 19.0, 0.0, 10.0)], labels) == [(0, 0)]
    assert match([Found("3", 21.0, 0.0, 10.0)], labels) == []
    # without a labelled width the detection's own size is used
    assert match([Found("3", 21.0, 0.0, 50.0)], [Label("3", 0.0, 0.0, None)]) == [(0, 0)]


def test_scores_follow_the_format(tmp_path: Path) -> None:
    line = Line(tmp_path / "a.png", "test",
                (Label("1", 10.0, 10.0, 20.0), Label("5", 60.0, 10.0, 20.0)), {"background": "x"})
    answers = [Found("1", 11.0, 10.0, 20.0), Found("4", 61.0, 9.0, 20.0, True),
               Found("2", 200.0, 200.0, 20.0)]
    result = score([line], lambda image: answers, load=lambda path: None)  # type: ignore[arg-type]
    assert result["exact_match"] == 0.0
    assert result["die_precision"] == pytest.approx(2 / 3, abs=1e-3)
    assert result["die_recall"] == 1.0
    assert result["face_accuracy"] == 0.5
    assert result["uncertain"] == 1
    assert result["face_accuracy_by_face"] == {"1": 1.0, "5": 0.0}
    assert result["by_tag"]["background"]["x"]["images"] == 1
    assert result["rolls_asked"] == 1.0  # three dice seen where two were thrown


@pytest.mark.parametrize(("answers", "asked", "wrong_unasked"), [
    ([Found("1", 10.0, 10.0, 20.0), Found("5", 60.0, 10.0, 20.0)], 0.0, 0.0),   # right
    ([Found("1", 10.0, 10.0, 20.0), Found("4", 60.0, 10.0, 20.0)], 0.0, 1.0),   # wrong, unasked
    ([Found("1", 10.0, 10.0, 20.0), Found("4", 60.0, 10.0, 20.0, True)], 1.0, 0.0),  # asked
    ([Found("1", 10.0, 10.0, 20.0)], 1.0, 0.0),   # a die missing: the count is off, asked
])
def test_rolls_the_table_would_ask_about(tmp_path: Path, answers: list[Found], asked: float,
                                         wrong_unasked: float) -> None:
    """The table knows how many dice were thrown: a roll with an uncertain die or the wrong
    count is asked about; a wrong roll that is not is the error players would meet."""
    line = Line(tmp_path / "a.png", "test",
                (Label("1", 10.0, 10.0, 20.0), Label("5", 60.0, 10.0, 20.0)), {})
    result = score([line], lambda image: answers, load=lambda path: None)  # type: ignore[arg-type]
    assert (result["rolls_asked"], result["rolls_wrong_unasked"]) == (asked, wrong_unasked)


def test_whole_protocol_on_a_tiny_rendered_set(tmp_path: Path) -> None:
    write_dataset(tmp_path, 4, 5, conditions="normal")
    lines = load_dataset(tmp_path)
    assert {line.split for line in lines} == {"calibration", "test"}
    result = evaluate(tmp_path)
    assert result["images"] == 4 and result["calibrated"]
    for key in ("exact_match", "die_precision", "die_recall", "face_accuracy",
                "ms_per_image_median"):
        assert 0.0 <= result[key] <= (1.0 if key != "ms_per_image_median" else 10_000.0)
    json.dumps(result)


def test_missing_keys_are_reported(tmp_path: Path) -> None:
    (tmp_path / "labels.jsonl").write_text('{"image": "a.png"}\n', encoding="utf-8")
    with pytest.raises(ValueError, match="line 1"):
        load_dataset(tmp_path)
