"""Named events: what one action changed, with the data the OLED, the page and the narrator use."""

from __future__ import annotations

import random

from companion.events import EVENT_NAMES, Event, events_between
from companion.games.mlem import Action, Game, GameConfig, State, parse_action
from companion.games.mlem.bots import make_bot
from companion.games.mlem.simulate import play_game
from companion.narrate import describe


def step(state: State, action: Action | str) -> tuple[State, dict[str, Event]]:
    """Apply `action` to a copy; the events by name (every name a declared one)."""
    action = parse_action(action) if isinstance(action, str) else action
    new = state.clone()
    new.apply_action(action)
    events = events_between(state, action, new)
    assert all(event.name in EVENT_NAMES for event in events)
    return new, {event.name: event for event in events}


def at_the_roll() -> State:
    state = Game(GameConfig(players=("Blue", "Red"))).new_initial_state()
    state.apply_action("place satellite")
    state.apply_action("place moon_x2")
    return state


def test_boarding_and_the_satellite_start() -> None:
    state = Game(GameConfig(players=("Blue", "Red"))).new_initial_state()
    state, events = step(state, "place satellite")
    assert events["placed"].data == {"seat": 0, "kind": "satellite", "captain": True}
    _, events = step(state, "place moon_x2")
    assert events["placed"].data["captain"] is False
    assert events["launched"].data == {"space": 3}


def test_a_move_says_how_far_with_which_dice() -> None:
    state, events = step(at_the_roll(), "roll 1 2 2 3 4 fuel")
    assert events["roll_read"].data["only_reroll"] is False
    _, events = step(state, state.legal_actions()[-1])
    moved = events["moved"]
    assert moved.text == "Rocket 3 -> 11"
    assert moved.data["distance"] == 8 and moved.data["dice"] == ["2", "2", "4"]
    assert (moved.data["dice_before"], moved.data["dice_after"]) == (6, 3)


def test_a_crash_is_not_a_move() -> None:
    _, events = step(at_the_roll(), "roll 1 1 3 3 fuel fuel")  # space 3 takes 2 and 4
    assert "moved" not in events
    assert events["crashed"].text == "CRASH 1/11"
    assert events["crashed"].data["parachutes"] == []
    assert events["expedition_over"].data == {"expedition": 1, "next": 2}


def test_the_narrator_tells_a_parachute_after_a_crash() -> None:
    """A crash with a parachute aboard names who may open it (found in a few seeded games)."""
    told: list[str] = []

    def listen(state: State, action: Action) -> None:
        new = state.clone()
        new.apply_action(action)
        if any(e.name == "crashed" and e.data["parachutes"]
               for e in events_between(state, action, new)):
            told.append(describe(state, action, new))

    for seed in range(40):
        play_game(Game(GameConfig(players=("Blue", "Red", "Green"))), [make_bot("random")] * 3,
                  random.Random(seed), listen)
        if told:
            break
    assert told and "may open the parachute; everyone else aboard returns" in told[0]
