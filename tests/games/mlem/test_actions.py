"""Action text forms: every action type round-trips; malformed text is an InvalidActionError;
a roll with a 5 or 6, or with the wrong number of dice, is refused (P2, TC-38)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from companion.games.mlem import (
    ASTRONAUT_KINDS,
    Action,
    Crash,
    Discard,
    Draw,
    InvalidActionError,
    Land,
    Move,
    Place,
    Reroll,
    Roll,
    RulesError,
    Stay,
    normalize,
    parse_action,
)
from companion.games.mlem.dice import FACES, canonical

from .helpers import assert_refused, new_state, reach, takeoff

token_ids = st.text("ABEMPSXabz0123456789_-", min_size=1, max_size=8)
targets = st.one_of(st.sampled_from(["comet", "galaxy", "P1", "M6a"]), token_ids)
faces = st.lists(st.sampled_from(FACES), max_size=6).map(lambda fs: canonical(fs))
seats = st.lists(st.integers(0, 4), unique=True, max_size=5).map(lambda xs: tuple(sorted(xs)))

actions: st.SearchStrategy[Action] = st.one_of(
    st.sampled_from(ASTRONAUT_KINDS).map(Place),
    faces.map(Roll),
    token_ids.map(Draw),
    token_ids.map(Discard),
    st.builds(Move, faces, seats, st.booleans(), st.booleans()),
    st.just(Reroll()),
    st.just(Crash()),
    targets.map(Land),
    st.just(Stay()),
)


@settings(max_examples=200, deadline=None)
@given(actions)
def test_text_form_round_trips(action: Action) -> None:
    text = str(action)
    parsed = parse_action(text)
    assert parsed == action
    assert type(parsed) is type(action)
    assert str(parsed) == text
    assert normalize(action) == action


@settings(max_examples=100, deadline=None)
@given(st.lists(st.sampled_from(FACES), max_size=6), st.lists(st.integers(0, 4), max_size=5,
                                                               unique=True))
def test_any_word_order_parses_to_the_canonical_action(dice: list[str], dice1: list[int]) -> None:
    words = ["move", *reversed(dice), *(f"dice1:{s}" for s in reversed(dice1))]
    move = parse_action(" ".join(words))
    assert move == Move(canonical(dice), tuple(sorted(dice1)))
    assert normalize(Move(tuple(reversed(dice)), tuple(reversed(dice1)))) == move
    assert parse_action(" ".join(["roll", *reversed(dice)])) == Roll(canonical(dice))


@pytest.mark.parametrize(
    ("text", "action"),
    [
        ("place dice_1", Place("dice_1")),
        ("roll 4 fuel 1 2 2", Roll(("1", "2", "2", "4", "fuel"))),
        ("  roll   3  ", Roll(("3",))),
        ("ROLL 1", Roll(("1",))),
        ("draw E07", Draw("E07")),
        ("discard S03", Discard("S03")),
        ("move fuel 2 fuel dice1:3 dice1:1", Move(("2", "fuel", "fuel"), (1, 3))),
        ("move ufo", Move(ufo=True)),
        ("move 1 1 2 keep", Move(("1", "1", "2"), keep=True)),
        ("reroll", Reroll()),
        ("crash", Crash()),
        ("land M9a", Land("M9a")),
        ("stay", Stay()),
    ],
)
def test_examples_parse(text: str, action: Action) -> None:
    assert parse_action(text) == action


@pytest.mark.parametrize(
    ("text", "why"),
    [
        ("", "empty action"),
        ("   ", "empty action"),
        ("jump 3", "unknown action"),
        ("place", "expected 1 argument"),
        ("place dice_1 moon_x2", "expected 1 argument"),
        ("land", "expected 1 argument"),
        ("draw", "expected 1 argument"),
        ("discard a b", "expected 1 argument"),
        ("stay now", "expected 0 argument"),
        ("reroll 1 2", "expected 0 argument"),
        ("crash hard", "expected 0 argument"),
        ("roll 1 2 6", "face '6' does not exist"),
        ("roll 5", "face '5' does not exist"),
        ("roll 0", "face '0' does not exist"),
        ("roll one", "face 'one' does not exist"),
        ("move 6", "face '6' does not exist"),
        ("move 5 fuel", "face '5' does not exist"),
        ("move 7", "'7' is not a face, dice1:SEAT, ufo or keep"),
        ("move dice1:", "is not a face"),
        ("move dice1:x", "is not a face"),
        ("move dice1:-1", "is not a face"),
        ("move dice1:1 dice1:1", "named twice"),
        ("move UFO", "is not a face"),
    ],
)
def test_malformed_text_is_invalid(text: str, why: str) -> None:
    with pytest.raises(InvalidActionError, match=why):
        parse_action(text)


def test_invalid_action_is_a_rules_error() -> None:
    assert issubclass(InvalidActionError, RulesError)
    assert issubclass(InvalidActionError, ValueError)


def test_code_built_roll_with_a_bad_face_is_invalid() -> None:
    with pytest.raises(InvalidActionError, match="face '6' does not exist"):
        normalize(Roll(("1", "6")))
    with pytest.raises(InvalidActionError, match="face '5' does not exist"):
        normalize(Move(("5",)))
    with pytest.raises(InvalidActionError, match="named twice"):
        normalize(Move(("1",), (1, 1)))


def test_state_refuses_bad_rolls() -> None:
    """TC-38 at the state: with av 5 a roll of 4 (or 6) dice, or one with a 5 or 6, is refused
    with the reason, and the state is unchanged."""
    state = new_state()
    takeoff(state, "moon_x2", "planet_x2")
    reach(state, 1, available=5)
    for text, why in (
        ("roll 1 2 3 4", "a roll of 4 dice, but 5 are available"),
        ("roll 1 2 3 4 fuel fuel", "a roll of 6 dice, but 5 are available"),
        ("roll", "a roll of 0 dice"),
        ("roll 1 2 3 4 6", "face '6' does not exist on MLEM dice"),
        ("roll 5 2 3 4 1", "face '5' does not exist on MLEM dice"),
    ):
        assert_refused(state, text, why, InvalidActionError)
    for roll in (Roll(("1", "2", "3", "4", "6")), Roll(("1", "2", "3", "4"))):
        before = state.clone()
        with pytest.raises(InvalidActionError):
            state.apply_action(roll)
        assert state == before
    state.apply_action(Roll(("fuel", "4", "3", "2", "1")))  # any order: a multiset
    assert state.roll == ("1", "2", "3", "4", "fuel")
