"""The OLED is the table's screen: every prompt it draws is the public one, so a secret mission
never shows on it, while its owner can still discard one with the buttons, by slot."""

from __future__ import annotations

import random
import re
import time
from collections.abc import Callable
from typing import Any

import pytest

from companion.games.mlem import GameConfig, State
from companion.games.mlem.observation import hand
from companion.games.mlem.simulate import sample_draw
from companion.games.mlem.state import Phase
from hardware import screens
from hardware.base import ButtonEvent

from .conftest import Rig

MISSIONS = GameConfig(players=("Anna", "Ben", "Chi"), variants=frozenset({"missions"}))


@pytest.fixture
def drawn(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The text of every prompt screen drawn (title and option labels), in order."""
    texts: list[str] = []
    real = screens.prompt_screen

    def record(title: str, options: Any, highlighted: int) -> Any:
        texts.append("\n".join([title, *options]))
        return real(title, options, highlighted)

    monkeypatch.setattr(screens, "prompt_screen", record)
    return texts


def secrets_of(state: State) -> set[str]:
    """Every mission token and target in a hand now."""
    tokens = state.game.tokens
    return {word for held in state.mission_hands for t in held
            for word in (t, tokens.mission_by_id(t).target)}


def named(texts: list[str], words: set[str]) -> set[str]:
    return {w for w in words for text in texts
            if re.search(rf"(?<![\w-]){re.escape(w)}(?![\w-])", text)}


def table_state(rig: Rig) -> State:
    state = rig.daemon.table.state_copy()
    assert state is not None
    return state


def test_the_owner_discards_by_slot_and_the_oled_never_names_a_mission(
        make_rig: Callable[..., Rig], drawn: list[str]) -> None:
    rig = make_rig(camera=False)
    table, display = rig.daemon.table, rig.daemon.display
    assert table.new_game(MISSIONS).ok
    rng = random.Random(7)
    while (state := table_state(rig)).phase is Phase.DEAL_MISSIONS:
        display.compose()
        assert table.act(str(sample_draw(state, rng)), "phone:draw").ok  # a phone's Draw
    for slot in (2, 4, 1):  # each player's choice, read off their phone's numbered list
        state = table_state(rig)
        seat = state.current_player()
        token = hand(state, seat, seat)[slot - 1].token
        display.compose()
        assert drawn[-1].splitlines()[1:] == ["Mission 1", "Mission 2", "Mission 3",
                                              "Mission 4"]
        for _ in range(slot - 1):
            rig.press(ButtonEvent.NEXT)
        rig.press(ButtonEvent.OK)
        after = table_state(rig)
        assert token not in after.mission_hands[seat] and len(after.mission_hands[seat]) == 3
    display.compose()
    assert table_state(rig).phase is Phase.PLACE
    assert named(drawn, secrets_of(table_state(rig))) == set()


def test_bots_deal_and_discard_through_the_table_and_nothing_secret_is_drawn(
        make_rig: Callable[..., Rig], drawn: list[str]) -> None:
    rig = make_rig(camera=False)
    table = rig.daemon.table
    assert table.new_game(MISSIONS).ok
    bots = rig.bots(seed=3, bots=("random",))
    bots.start()
    deadline = time.monotonic() + 20
    while table_state(rig).phase in (Phase.DEAL_MISSIONS, Phase.DISCARD_MISSION):
        assert time.monotonic() < deadline, table.snapshot().prompt
        time.sleep(0.02)
    bots.stop()
    assert bots.error is None
    state = table_state(rig)
    assert [len(held) for held in state.mission_hands] == [3, 3, 3]
    sources = rig.daemon.store._db.execute(
        "SELECT source FROM actions WHERE game_id = ? ORDER BY seq LIMIT 15",
        (table.snapshot().game_id,)).fetchall()
    assert [s for (s,) in sources] == ["phone:draw"] * 12 + ["button"] * 3
    assert named(drawn, secrets_of(state)) == set()
