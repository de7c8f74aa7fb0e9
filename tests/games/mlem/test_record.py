"""The game record: canonical layout, round-trips, refusals that name the line and the reason."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from companion.games.mlem import Game, GameConfig, RuleOptions, RulesError, State
from companion.games.mlem.record import (
    FORMAT,
    VERSION,
    RecordError,
    dump_record,
    parse_record,
    read_record,
    record_summary,
    replay,
    write_record,
)

GOLDEN = Path(__file__).parent / "golden" / "seed-34.json"


def new_state(**config: object) -> State:
    players = config.pop("players", ("Ann", "Bob"))
    return Game(GameConfig(players=players, **config)).new_initial_state()  # type: ignore[arg-type]


def short_game() -> State:
    """Two placements, a roll, a move: the rocket on 2 with four dice left."""
    state = new_state()
    for action in ("place dice_1", "place moon_x2", "roll 1 1 3 3 4 4", "move 1 1"):
        state.apply_action(action)
    return state


def line_of(text: str, needle: str) -> int:
    return next(n for n, line in enumerate(text.splitlines(), start=1) if needle in line)


# ---------------------------------------------------------------------------- the layout


def test_layout_is_fixed_one_action_per_line() -> None:
    text = write_record(short_game())
    assert text == """{
 "format": "mlem-game-record",
 "version": 1,
 "setup": {
  "players": ["Ann", "Bob"],
  "starter": 0,
  "variants": [],
  "board": "reconstruction",
  "board_id": "mlem-reconstruction-v0",
  "tokens": "reconstruction",
  "astronaut_set": ["satellite", "plus_minus_1", "parachute", "moon_x2", "planet_x2", \
"deep_space_x2", "dice_x", "dice_1"],
  "rules": {"ability_units_optional": true, "end_timing": "end_of_expedition", \
"ufo_reshuffle": true, "goal_check": "every_placement"}
 },
 "actions": [
  "place dice_1",
  "place moon_x2",
  "roll 1 1 3 3 4 4",
  "move 1 1"
 ]
}
"""
    data = json.loads(text)
    assert data["format"] == FORMAT and data["version"] == VERSION


def test_empty_record() -> None:
    state = new_state()
    text = write_record(state)
    assert '"actions": []' in text
    assert replay(text) == state
    assert write_record(replay(text)) == text


def test_names_keep_their_letters() -> None:
    state = new_state(players=("Jürgen", "さくら"))
    text = write_record(state)
    assert "Jürgen" in text and "さくら" in text
    assert replay(text).game.config.players == ("Jürgen", "さくら")


# -------------------------------------------------------------------------- round-trips


def test_round_trip_mid_game() -> None:
    state = short_game()
    text = write_record(state)
    again = replay(text)
    assert again == state
    assert write_record(again) == text
    assert again.space == 2 and again.available == 4


def test_round_trip_golden_game() -> None:
    text = GOLDEN.read_text("utf-8")
    state = replay(text)
    assert state.is_terminal() and state.winners()
    assert write_record(state) == text


def test_round_trip_every_setup_field() -> None:
    rules = RuleOptions(ability_units_optional=False, end_timing="immediate", ufo_reshuffle=False,
                        goal_check="landing_phase")
    state = new_state(players=("A", "B", "C"), starter=2, variants=frozenset({"ufo"}),
                      astronaut_set=("dice_1", "dice_1", "satellite"), rules=rules)
    state.apply_action("draw E03")
    text = write_record(state)
    again = replay(text)
    assert again.game.config == state.game.config
    assert write_record(again) == text


def test_read_record_returns_game_and_actions() -> None:
    game, actions = read_record(write_record(short_game()))
    assert game.config.players == ("Ann", "Bob")
    assert [str(a) for a in actions] == ["place dice_1", "place moon_x2", "roll 1 1 3 3 4 4",
                                         "move 1 1"]


def test_hand_written_record_is_canonicalised() -> None:
    """Any JSON layout and action spelling is read; writing gives the canonical form."""
    text = json.dumps({"format": FORMAT, "version": 1, "setup": {"players": ["A", "B"]},
                       "actions": ["place dice_1", "place moon_x2", "roll 4 3 1 4 3 1",
                                   "MOVE 1 1"]})
    state = replay(text)
    canonical = write_record(state)
    assert '"roll 1 1 3 3 4 4"' in canonical and '"move 1 1"' in canonical
    assert write_record(replay(canonical)) == canonical


def test_dump_record_of_a_game_and_actions() -> None:
    state = short_game()
    assert dump_record(state.game, state.history) == write_record(state)


def test_replay_limit() -> None:
    text = write_record(short_game())
    assert replay(text, limit=2).history == short_game().history[:2]
    assert replay(text, limit=0) == new_state()
    assert replay(text, limit=99) == short_game()


def test_summary() -> None:
    summary = record_summary(short_game())
    assert summary == {"format": FORMAT, "version": 1, "board_id": "mlem-reconstruction-v0",
                       "actions": 4, "finished": False}


def test_parse_record_gives_each_action_line() -> None:
    text = write_record(short_game())
    record = parse_record(text)
    assert record.action_lines == (15, 16, 17, 18)
    assert record.version == 1


# ---------------------------------------------------------------------------- refusals


def refused(text: str) -> RecordError:
    with pytest.raises(RecordError) as info:
        replay(text)
    error = info.value
    assert isinstance(error, ValueError) and isinstance(error, RulesError)
    assert str(error) == f"line {error.line}: {error.reason}"
    return error


def test_illegal_action_names_line_and_engine_reason() -> None:
    text = write_record(short_game()).replace('"move 1 1"', '"move 1"')
    error = refused(text)
    assert error.line == line_of(text, '"move 1"')
    assert "action 4 'move 1' is illegal" in error.reason
    assert "whole groups only" in error.reason


def test_action_out_of_turn() -> None:
    text = write_record(short_game()).replace('"place moon_x2"', '"roll 1 1 1 1 1 1"')
    error = refused(text)
    assert error.line == 16
    assert "Bob to place an astronaut" in error.reason


def test_action_after_the_end() -> None:
    text = GOLDEN.read_text("utf-8").replace('"\n ]', '",\n  "stay"\n ]')
    error = refused(text)
    assert error.line == len(text.splitlines()) - 2  # the added last action
    assert "the game is over" in error.reason


def test_unparsable_action() -> None:
    text = write_record(short_game()).replace('"roll 1 1 3 3 4 4"', '"roll 1 1 3 3 4 6"')
    error = refused(text)
    assert error.line == 17
    assert "does not parse" in error.reason and "'6'" in error.reason


def test_action_not_a_string() -> None:
    text = write_record(short_game()).replace('"move 1 1"', '["move", 1]')
    error = refused(text)
    assert error.line == 18 and "must be a string" in error.reason


def test_not_json() -> None:
    text = write_record(short_game()).replace('"move 1 1"', '"move 1 1",')
    error = refused(text)
    assert error.line == 19  # the JSON parser's line: where it finds "]" after the comma
    assert error.reason.startswith("not JSON")


def test_not_an_object() -> None:
    assert refused("[1, 2]").line == 1
    assert "JSON object" in refused("[]").reason


@pytest.mark.parametrize(("old", "new", "line", "words"), [
    ('"format": "mlem-game-record"', '"format": "chess-pgn"', 2, "not a game record"),
    ('"version": 1', '"version": 2', 3, "unsupported version 2"),
    ('"version": 1', '"version": "1"', 3, "unsupported version '1'"),
    ('"version": 1', '"version": true', 3, "unsupported version True"),
    ('"starter": 0', '"starter": 0, "colour": "red"', 6, "unknown keys ['colour']"),
    ('"players": ["Ann", "Bob"]', '"players": ["Ann"]', 4, "1 players; MLEM takes 2 to 5"),
    ('"players": ["Ann", "Bob"]', '"players": ["Ann", "Ann"]', 4, "distinct"),
    ('"players": ["Ann", "Bob"]', '"players": "Ann Bob"', 5, "players has the wrong type"),
    ('"starter": 0', '"starter": 5', 4, "starter seat 5 is not a seat"),
    ('"starter": 0', '"starter": "0"', 6, "starter has the wrong type"),
    ('"variants": []', '"variants": ["cats"]', 4, "unknown variants ['cats']"),
    ('"board": "reconstruction"', '"board": "no-such-board"', 8, "cannot load board"),
    ('"board_id": "mlem-reconstruction-v0"', '"board_id": "printed-v1"', 9,
     "made on board 'printed-v1'"),
    ('"ufo_reshuffle": true', '"ufo_reshuffle": "yes"', 12, "must be a bool"),
    ('"ufo_reshuffle": true', '"shuffle": true', 12, "unknown rule 'shuffle'"),
    ('"end_timing": "end_of_expedition"', '"end_timing": "never"', 4, "end_timing must be"),
    ('"astronaut_set": [', '"astronaut_set": ["robot", ', 4, "unknown kinds ['robot']"),
])
def test_bad_setup_or_header(old: str, new: str, line: int, words: str) -> None:
    text = write_record(short_game())
    assert old in text
    error = refused(text.replace(old, new, 1))
    assert words in error.reason
    assert error.line == line


def test_missing_parts() -> None:
    good = json.loads(write_record(short_game()))
    for key in ("setup", "actions"):
        data = dict(good)
        del data[key]
        assert f"'{key}' is missing" in refused(json.dumps(data)).reason
    data = dict(good, setup={"starter": 0})
    assert "'players' is missing" in refused(json.dumps(data)).reason
    data = dict(good, actions="place dice_1")
    assert "must be a list" in refused(json.dumps(data)).reason
    data = dict(good, setup=["A", "B"])
    assert "'setup' must be an object" in refused(json.dumps(data)).reason
    data = dict(good, comment="hi")
    assert "unknown keys ['comment']" in refused(json.dumps(data)).reason


def test_lines_in_any_layout() -> None:
    """Lines are found in hand-written layouts too: several actions on one line, odd spacing."""
    text = ('{"format": "mlem-game-record", "version": 1,\n'
            '"setup": {"players": ["A", "B"]},\n'
            '"actions": ["place dice_1", "place moon_x2",\n'
            '\n'
            '   "roll 1 1 3 3 4 4" ,  "move 2"]}\n')
    error = refused(text)
    assert error.line == 5 and "action 4 'move 2'" in error.reason


def test_duplicate_keys_last_wins_as_in_json() -> None:
    text = ('{"format": "mlem-game-record", "version": 1, "setup": {"players": ["A", "B"]},\n'
            '"actions": ["stay"],\n'
            '"actions": ["place dice_1",\n "place planet"]}\n')
    error = refused(text)
    assert error.line == 4 and "no planet in this player's supply" in error.reason


def test_record_ending_mid_game_is_fine() -> None:
    state = replay(write_record(short_game()))
    assert not state.is_terminal()
    assert state.expecting() == "a roll of 4 dice"
