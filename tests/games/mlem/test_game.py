"""Game configuration: JSON round trip and refusals that name the offending key."""

from __future__ import annotations

from typing import Any

import pytest

from companion.games.mlem import Game, GameConfig, RuleOptions
from companion.games.mlem.errors import RulesError, SetupError


def test_config_json_round_trip() -> None:
    config = GameConfig(players=("Anna", "Ben", "Chi"), starter=2,
                        variants=frozenset({"ufo", "missions"}),
                        rules=RuleOptions(end_timing="immediate", goal_check="landing_phase"))
    assert GameConfig.from_json(config.to_json()) == config


@pytest.mark.parametrize(("setup", "key"), [
    ({"players": "Abc"}, "players"),
    ({"players": ["A", 2]}, "players"),
    ({"players": ["A", "B"], "starter": True}, "starter"),
    ({"players": ["A", "B"], "variants": "ufo"}, "variants"),
    ({"players": ["A", "B"], "rules": {"ufo_reshuffle": "no"}}, "rules"),
    ({"players": ["A", "B"], "rules": {"house_rule": True}}, "rules"),
    ({"players": ["A", "B"], "colour": "red"}, "colour"),
    ({"starter": 0}, "players"),
])
def test_malformed_setups_name_the_key(setup: dict[str, Any], key: str) -> None:
    with pytest.raises(SetupError) as refused:
        GameConfig.from_json(setup)
    assert refused.value.key == key


@pytest.mark.parametrize("config", [
    GameConfig(players=("Solo",)),
    GameConfig(players=("A", "A")),
    GameConfig(players=("A", "B"), starter=2),
    GameConfig(players=("A", "B"), variants=frozenset({"aliens"})),
    GameConfig(players=("A", "B"), rules=RuleOptions(end_timing="never")),
    GameConfig(players=("A", "B"), rules=RuleOptions(goal_check="sometimes")),
])
def test_games_refuse_impossible_configurations(config: GameConfig) -> None:
    with pytest.raises(RulesError):
        Game(config)
