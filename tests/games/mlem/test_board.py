"""Board files (MLEM-SPEC.md section 2.2): validation rules 1-5, warnings, the shipped
reconstruction (section 2.3), JSON and TOML files, and `companion board check`."""

from __future__ import annotations

import json
import re
from importlib import resources
from pathlib import Path
from typing import Any

import pytest

from companion.cli import main
from companion.games.mlem import Board, BoardError, load_board, parse_board
from companion.games.mlem.board import check_board, read_data_file

from .helpers import board_dict

SHIPPED = resources.files("companion.games.mlem") / "boards" / "reconstruction.toml"

# Section 2.3, row by row: index -> (faces, fuel value, [(moon, points)], planet)
RECONSTRUCTION: dict[int, tuple[set[str], int, list[tuple[str, int]], str | None]] = {
    0: ({"1", "2", "fuel"}, 1, [], None),
    1: ({"2", "3"}, 0, [], None),
    2: ({"1", "fuel"}, 1, [], None),
    3: ({"2", "4"}, 0, [], None),
    4: ({"3", "fuel"}, 1, [], None),
    5: ({"1", "4"}, 0, [], None),
    6: ({"2", "fuel"}, 2, [("M6a", 3), ("M6b", 2)], None),
    7: ({"1", "3"}, 0, [], "P1"),
    8: ({"4", "fuel"}, 2, [("M8", 3)], None),
    9: ({"2", "3"}, 0, [("M9a", 4), ("M9b", 3)], None),
    10: ({"1", "fuel"}, 2, [], "P2"),
    11: ({"2", "4"}, 0, [("M11", 4)], None),
    12: ({"3", "fuel"}, 2, [("M12a", 4), ("M12b", 3)], None),
    13: ({"1", "2"}, 0, [("M13", 5)], None),
    14: ({"4", "fuel"}, 2, [], "P3"),
    15: ({"2", "3"}, 0, [("M15a", 5), ("M15b", 4)], None),
    16: ({"1", "fuel"}, 3, [("M16", 5)], None),
    17: ({"2", "4"}, 0, [("M17a", 5), ("M17b", 4)], None),
    18: ({"3", "fuel"}, 3, [], "P4"),
    19: ({"1", "2"}, 0, [("M19", 6)], None),
    20: ({"4", "fuel"}, 3, [("M20a", 6), ("M20b", 5)], None),
    21: ({"2", "3"}, 0, [("M21", 6)], None),
    22: ({"1", "fuel"}, 3, [], "P5"),
    23: ({"2", "4"}, 0, [("M23a", 6), ("M23b", 5)], None),
    24: ({"3", "fuel"}, 3, [("M24", 6)], None),
    25: (set(), 0, [], None),
}
PLANETS = {"P1": (6, 3, 1), "P2": (8, 4, 2), "P3": (10, 5, 2), "P4": (12, 6, 3),
           "P5": (14, 7, 3)}


def errors_of(data: dict[str, Any]) -> list[str]:
    """The errors check_board finds; parse_board refuses the same board with all of them."""
    errors, _ = check_board(data)
    if errors:
        with pytest.raises(BoardError) as info:
            parse_board(data)
        assert info.value.problems == errors
    return errors


def one_error(data: dict[str, Any], pattern: str) -> None:
    """Exactly one error, matching `pattern`."""
    errors = errors_of(data)
    assert len(errors) == 1, errors
    assert re.search(pattern, errors[0]), errors[0]


# ------------------------------------------------------------------------- the five rules


def test_a_valid_test_board_has_no_errors_or_warnings() -> None:
    errors, warnings = check_board(board_dict())
    assert errors == [] and warnings == []
    assert isinstance(parse_board(board_dict()), Board)


def test_rule1_indices_without_gaps() -> None:
    data = board_dict()
    del data["spaces"][7]
    one_error(data, r"^spaces: indices must run 0\.\.25 in order with no gaps")
    swapped = board_dict()
    swapped["spaces"][3], swapped["spaces"][4] = swapped["spaces"][4], swapped["spaces"][3]
    one_error(swapped, "indices must run 0..25")
    short = board_dict(last_space=25)
    short["last_space"] = 26
    assert any("indices must run 0..26" in e for e in errors_of(short))


def test_rule2_faces_non_empty_subset() -> None:
    one_error(board_dict({7: {"faces": []}}), r"^spaces\[7\] \(i=7\): faces must be a non-empty")
    one_error(board_dict({7: {"faces": ["2", "5"]}}),
              r"^spaces\[7\] \(i=7\): unknown faces \['5'\]")
    one_error(board_dict({7: {"faces": ["6"]}}), r"unknown faces \['6'\]")
    missing = board_dict()
    del missing["spaces"][9]["faces"]
    del missing["spaces"][9]["fuel"]
    one_error(missing, r"^spaces\[9\] \(i=9\): faces must be a non-empty list")


def test_rule3_fuel_value_iff_fuel_face() -> None:
    one_error(board_dict({7: {"faces": ["2", "fuel"], "fuel": None}}),
              r"^spaces\[7\] \(i=7\): fuel value must be an integer 1-3 exactly when")
    one_error(board_dict({7: {"faces": ["2", "3"], "fuel": 2}}), r"spaces\[7\].*fuel value")
    one_error(board_dict({7: {"faces": ["2", "fuel"], "fuel": 4}}), r"spaces\[7\].*fuel 4")
    one_error(board_dict({7: {"faces": ["2", "fuel"], "fuel": 0}}), r"spaces\[7\].*fuel 0")
    one_error(board_dict({7: {"faces": ["2", "fuel"], "fuel": True}}), r"spaces\[7\].*fuel")


def test_rule4_nothing_to_land_on_below_6() -> None:
    one_error(board_dict({4: {"moons": [("M4", 2)]}}),
              r"^spaces\[4\] \(i=4\): spaces below 6 have no moons or planets")
    one_error(board_dict({5: {"planet": "P1"}}), r"^spaces\[5\] \(i=5\): spaces below 6")
    assert errors_of(board_dict({6: {"moons": [("M6", 2)]}})) == []


def test_rule4_custom_no_landing_below() -> None:
    assert errors_of(board_dict({4: {"moons": [("M4", 2)]}}, no_landing_below=4)) == []
    one_error(board_dict({7: {"planet": "P1"}}, no_landing_below=8), "spaces below 8")


def test_rule5_planet_references_resolve() -> None:
    one_error(board_dict({7: {"planet": "P9"}}),
              r"^spaces\[7\] \(i=7\): planet 'P9' is not defined under \[planets\]")


def test_every_problem_is_listed_at_once() -> None:
    data = board_dict({4: {"moons": [("M4", 2)]}, 7: {"planet": "P9"},
                       8: {"faces": ["fuel"], "fuel": None}})
    errors = errors_of(data)
    assert [e.split(":")[0] for e in errors] == [
        "spaces[4] (i=4)", "spaces[7] (i=7)", "spaces[8] (i=8)"]


def test_other_data_errors() -> None:
    one_error(board_dict({7: {"moons": [("M7", 2)]}, 8: {"moons": [("M7", 2)]}}),
              r"^spaces\[8\] \(i=8\): target id 'M7' is used twice")
    one_error(board_dict({7: {"moons": [("P1", 2)]}}), "target id 'P1' is used twice")
    one_error(board_dict({25: {"faces": ["1"]}}), r"^spaces\[25\] \(i=25\): deep space has no")
    one_error(board_dict(satellite_start=30), "^satellite_start: 30 is off the track 0..25")
    one_error(board_dict(planets={"galaxy": (1, 1, 1)}), "reserved for deep space")
    one_error(board_dict(printed="yes"), "^printed: must be true or false")
    assert check_board({"board_id": "x"}) == (["last_space: missing", "spaces: missing"], [])


@pytest.mark.parametrize(
    ("change", "where"),
    [
        ({"spaces": "none"}, "spaces: must be a list of tables"),
        ({"spaces": [1, 2]}, "spaces: must be a list of tables"),
        ({"planets": ["P1"]}, "planets: must be a table"),
        ({"planets": {"P1": 6}}, "planets.P1: must be a table"),
        ({"deep_space": 7}, "deep_space: must be a table"),
        ({"last_space": "25"}, "last_space: must be an integer"),
        ({"ufo_start": "top"}, "ufo_start: must be an integer"),
    ],
)
def test_malformed_structure_is_reported_not_raised(change: dict[str, Any], where: str) -> None:
    """A file with the wrong shape gives errors with their location, never a traceback."""
    data = {**board_dict(), **change}
    errors, _ = check_board(data)
    assert any(e.startswith(where) for e in errors), errors
    with pytest.raises(BoardError):
        parse_board(data)


def test_malformed_space_fields_are_reported() -> None:
    data = board_dict({9: {"planet": ["P1"]}})
    data["spaces"][7]["faces"] = "12"
    data["spaces"][8]["moons"] = "M8"
    errors = errors_of(data)
    assert any(e.startswith("spaces[7] (i=7): faces must be a list") for e in errors)
    assert any(e.startswith("spaces[8] (i=8): moons must be a list") for e in errors)
    assert any(e.startswith("spaces[9] (i=9): planet must be a planet id") for e in errors)


# ------------------------------------------------------------------------------- warnings


def test_warning_moon_points_not_non_increasing() -> None:
    data = board_dict({7: {"moons": [("M7a", 2), ("M7b", 3)]}})
    errors, warnings = check_board(data)
    assert errors == []
    assert warnings == ["spaces[7] (i=7): moon points [2, 3] are not listed highest first"]
    board = parse_board(data)  # still loads
    assert board.warnings == tuple(warnings)
    assert [m.id for m in board.spaces[7].moons] == ["M7a", "M7b"]  # listed order kept
    equal = board_dict({7: {"moons": [("M7a", 3), ("M7b", 3)]}})
    assert check_board(equal) == ([], [])


def test_warning_planet_count_not_5() -> None:
    data = board_dict()
    del data["planets"]["P5"]
    errors, warnings = check_board(data)
    assert errors == []
    assert warnings == ["planets: 4 planets; the printed mat has 5"]
    assert parse_board(data).warnings == tuple(warnings)
    six = board_dict(planets={"P6": (1, 1, 1)})
    assert check_board(six)[1] == ["planets: 6 planets; the printed mat has 5"]


def test_moon_body_defaults_to_id() -> None:
    data = board_dict({7: {"moons": [{"id": "M7a", "points": 3, "body": "Big"},
                                     {"id": "M7b", "points": 2}]}})
    moons = parse_board(data).moons
    assert moons["M7a"].body == "Big"
    assert moons["M7b"].body == "M7b"


# --------------------------------------------------------------- TC-39, the reconstruction


def test_tc39_board_validation() -> None:
    """TC-39: `fuel` in faces without a fuel value is refused; so is a moon on space 4; the
    section 2.3 reconstruction loads with printed false and no warnings."""
    with pytest.raises(BoardError, match="fuel value must be an integer 1-3"):
        parse_board(board_dict({9: {"faces": ["1", "fuel"], "fuel": None}}))
    with pytest.raises(BoardError, match="spaces below 6 have no moons or planets"):
        parse_board(board_dict({4: {"moons": [("M4", 2)]}}))
    board = load_board()
    assert board.printed is False
    assert board.warnings == ()


def test_shipped_board_is_the_section_2_3_reconstruction() -> None:
    board = load_board("reconstruction")
    assert board.board_id == "mlem-reconstruction-v0"
    assert (board.last_space, board.no_landing_below, board.satellite_start, board.ufo_start,
            board.crash_track_length, board.comet_points, board.galaxy_points) == (
        25, 6, 3, 25, 11, 7, 5)
    assert {p.id: (p.gold, p.silver, p.bronze) for p in board.planets.values()} == PLANETS
    actual = {s.index: (set(s.faces), s.fuel, [(m.id, m.points) for m in s.moons], s.planet)
              for s in board.spaces}
    assert actual == RECONSTRUCTION
    assert len(board.moons) == 21


def test_json_and_toml_board_files_load(tmp_path: Path) -> None:
    data = read_data_file(Path(str(SHIPPED)))
    as_json = tmp_path / "mat.json"
    as_json.write_text(json.dumps(data), encoding="utf-8")
    assert load_board(as_json) == load_board()
    assert load_board(str(as_json)) == load_board()
    small = tmp_path / "small.json"
    small.write_text(json.dumps(board_dict({7: {"moons": [("M7", 4)]}})), encoding="utf-8")
    assert load_board(small).moons["M7"].points == 4
    toml = tmp_path / "mat.toml"
    toml.write_text(Path(str(SHIPPED)).read_text(encoding="utf-8"), encoding="utf-8")
    assert load_board(toml) == load_board()


def test_unreadable_board_files(tmp_path: Path) -> None:
    broken = tmp_path / "broken.json"
    broken.write_text("{not json", encoding="utf-8")
    with pytest.raises(BoardError, match=r"broken\.json: not valid json"):
        load_board(broken)
    listed = tmp_path / "list.json"
    listed.write_text("[1, 2]", encoding="utf-8")
    with pytest.raises(BoardError, match="top level must be a table"):
        load_board(listed)
    bad = tmp_path / "bad.toml"
    bad.write_text("last_space = ", encoding="utf-8")
    with pytest.raises(BoardError, match=r"bad\.toml: not valid toml"):
        load_board(bad)


# ----------------------------------------------------------------- `companion board check`


def test_board_check_shipped_board_exits_0(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["board", "check", str(SHIPPED)]) == 0
    out = capsys.readouterr().out
    assert "ok: board 'mlem-reconstruction-v0', spaces 0..25" in out
    assert "a reconstruction, not checked" in out
    assert "error" not in out


def test_board_check_lists_every_problem_and_exits_1(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = board_dict({4: {"moons": [("M4", 2)]}, 7: {"planet": "P9"},
                       8: {"faces": ["fuel"], "fuel": None}, 9: {"moons": [("a", 1), ("b", 2)]}})
    path = tmp_path / "mat.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    assert main(["board", "check", str(path)]) == 1
    lines = capsys.readouterr().out.splitlines()
    errors = [line for line in lines if ": error: " in line]
    assert errors == [
        f"{path}: error: spaces[4] (i=4): spaces below 6 have no moons or planets",
        f"{path}: error: spaces[7] (i=7): planet 'P9' is not defined under [planets]",
        f"{path}: error: spaces[8] (i=8): fuel value must be an integer 1-3 exactly when faces"
        " include fuel (faces ['fuel'], fuel None)",
    ]
    assert f"{path}: warning: spaces[9] (i=9): moon points [1, 2] are not listed highest first" \
        in lines
    assert lines[-1] == f"{path}: 3 error(s), 1 warning(s): board refused"


def test_board_check_warnings_only_exits_0(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = board_dict()
    del data["planets"]["P5"]
    path = tmp_path / "four.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    assert main(["board", "check", str(path)]) == 0
    out = capsys.readouterr().out
    assert f"{path}: warning: planets: 4 planets; the printed mat has 5" in out


def test_board_check_malformed_and_missing_files(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    shaped = tmp_path / "shape.json"
    shaped.write_text(json.dumps({**board_dict(), "spaces": [1, 2]}), encoding="utf-8")
    assert main(["board", "check", str(shaped)]) == 1
    assert "error: spaces: must be a list of tables" in capsys.readouterr().out
    broken = tmp_path / "broken.toml"
    broken.write_text("spaces = [", encoding="utf-8")
    assert main(["board", "check", str(broken)]) == 1
    assert "not valid toml" in capsys.readouterr().out
    assert main(["board", "check", str(tmp_path / "nowhere.toml")]) == 1
    assert "cannot read" in capsys.readouterr().out


def latin1_board(tmp_path: Path) -> Path:
    """The shipped board saved by an editor in Latin-1, with an accent in a comment."""
    path = tmp_path / "mat.toml"
    path.write_bytes("# Café edition\n".encode("latin-1") + SHIPPED.read_bytes())
    return path


def test_a_file_that_is_not_utf8_is_a_board_error_naming_it(tmp_path: Path) -> None:
    with pytest.raises(BoardError, match=r"mat\.toml: not UTF-8 text"):
        load_board(latin1_board(tmp_path))


def test_board_check_a_file_that_is_not_utf8(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["board", "check", str(latin1_board(tmp_path))]) == 1
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 1 and "mat.toml: not UTF-8 text" in lines[0], lines
