"""Prompts as one viewer sees them: the table's (the OLED's) never names a secret mission.

Seeded bot games with the missions variant: at every step, the public prompt's title and labels
(exactly what the OLED draws) name no token of any hand, and during the deal and the discards no
mission target either (later a target is just a place to land); the owner's own prompt names
every target of their hand, with the same actions in the same order as the table's "Mission n".
"""

from __future__ import annotations

import random
import re

import pytest

from companion.games.mlem import Action, Game, GameConfig, State
from companion.games.mlem.bots import make_bot
from companion.games.mlem.simulate import play_game
from companion.games.mlem.state import Phase
from companion.prompts import Prompt, prompt_for

MISSION_PHASES = (Phase.DEAL_MISSIONS, Phase.DISCARD_MISSION)
GAMES = 10


def oled_text(prompt: Prompt) -> str:
    """What the display draws for a prompt: its title and its options' labels."""
    return "\n".join([prompt.title, *(o.label for o in prompt.options)])


def names(text: str, word: str) -> bool:
    return re.search(rf"(?<![\w-]){re.escape(word)}(?![\w-])", text) is not None


def check(state: State) -> int:
    """The rules above for one state; returns how many discard prompts it checked (0 or 1)."""
    public = prompt_for(state)
    text = oled_text(public)
    tokens = state.game.tokens
    for owner, held in enumerate(state.mission_hands):
        for token in held:
            assert not names(text, token), (text, owner, token)
            target = tokens.mission_by_id(token).target
            if state.phase in MISSION_PHASES:
                assert not names(text, target), (text, owner, target)
    if state.phase is Phase.DEAL_MISSIONS:  # the pile is secret too: it tells what was dealt
        assert not any(names(text, m.id) for m in tokens.missions), text
        assert public.options == () and public.sealed
    if state.phase is not Phase.DISCARD_MISSION:
        return 0
    seat = state.current_player()
    own = prompt_for(state, seat)
    held = state.mission_hands[seat]
    assert all(names(oled_text(own), tokens.mission_by_id(t).target) for t in held)
    assert [o.label for o in public.options] == [f"Mission {n}" for n in range(1, len(held) + 1)]
    assert [o.action for o in own.options] == [o.action for o in public.options]
    assert public.sealed and not own.sealed
    return 1


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_the_tables_prompt_never_names_a_secret_mission(players: int) -> None:
    variants = frozenset({"missions", "ufo", "exploration"} if players % 2 else {"missions"})
    game = Game(GameConfig(players=tuple("ABCDE"[:players]), variants=variants))
    discards = 0

    def observe(state: State, _action: Action) -> None:
        nonlocal discards
        discards += check(state)

    for seed in range(GAMES):
        final = play_game(game, [make_bot("random")] * players, random.Random(seed), observe)
        check(final)
    assert discards == GAMES * players


def test_the_deal_is_no_choice_for_anyone() -> None:
    state = Game(GameConfig(players=("Anna", "Ben"), variants=frozenset({"missions"}))
                 ).new_initial_state()
    for viewer in (None, 0, 1):
        prompt = prompt_for(state, viewer)
        assert prompt.kind == "draw" and prompt.options == () and prompt.sealed
        assert prompt.key == "ask.deal" and "phone" in prompt.title


def test_other_prompts_are_the_same_for_every_viewer() -> None:
    state = Game(GameConfig(players=("Anna", "Ben"))).new_initial_state()
    assert prompt_for(state) == prompt_for(state, 0) == prompt_for(state, 1)
    assert not prompt_for(state).sealed
