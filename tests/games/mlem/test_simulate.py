"""Simulated games: an exact dice sampler, games that end, reproducible and consistent figures."""

from __future__ import annotations

import random
from collections import Counter
from fractions import Fraction

import pytest

from companion.games.mlem import Action, Draw, Game, GameConfig, Phase, Roll, State
from companion.games.mlem.bots import RandomBot
from companion.games.mlem.dice import roll_distribution
from companion.games.mlem.simulate import (
    _roll_table,
    parse_list,
    play_game,
    sample_chance,
    seat_bots,
    simulate,
)

ALL = ("ufo", "exploration", "missions")


@pytest.mark.parametrize("n", range(1, 7))
def test_roll_table_has_the_exact_multinomial_probabilities(n: int) -> None:
    table = _roll_table(n)
    counts = Counter(roll.faces for roll in table)
    assert {faces: Fraction(c, len(table)) for faces, c in counts.items()} == dict(
        roll_distribution(n))


def test_sampled_chance_outcomes_are_in_the_engine_support() -> None:
    """Every sampled draw is one of chance_outcomes(), whose draws are uniform (one pile)."""
    game = Game(GameConfig(players=("A", "B", "C", "D"), variants=frozenset(ALL)))
    seen = Counter[str]()

    def check(state: State, action: Action) -> None:
        if not state.is_chance_node():
            return
        if isinstance(action, Draw):
            outcomes = state.chance_outcomes()
            assert action in [a for a, _ in outcomes]
            assert len({p for _, p in outcomes}) == 1
            seen[state.phase.value] += 1
        else:
            assert state.phase is Phase.ROLL and isinstance(action, Roll)
            assert len(action.faces) == state.available

    for seed in range(4):
        play_game(game, [RandomBot()] * 4, random.Random(seed), check)
    assert set(seen) == {"deal_missions", "reveal_exploration", "reveal_expedition"}


def test_sample_chance_refuses_player_decisions() -> None:
    state = Game(GameConfig(players=("A", "B"))).new_initial_state()
    with pytest.raises(ValueError, match="not a token draw"):
        sample_chance(state, random.Random(0))


def test_play_game_reaches_the_end_and_replays() -> None:
    game = Game(GameConfig(players=("A", "B", "C"), variants=frozenset(ALL)))
    final = play_game(game, [RandomBot()] * 3, random.Random(4))
    assert final.is_terminal() and final.end_reason
    replay = game.new_initial_state()
    for action in final.history:
        replay.apply_action(action)
    assert replay == final
    with pytest.raises(ValueError, match="2 bots for 3 seats"):
        play_game(game, [RandomBot()] * 2, random.Random(0))


def test_same_seed_same_figures() -> None:
    first = simulate(12, 3, ALL, seed=5, bots=("greedy", "random"))
    second = simulate(12, 3, ALL, seed=5, bots=("greedy", "random"))
    assert first == second  # timing fields are excluded from comparison
    assert first.to_json(timing=False) == second.to_json(timing=False)
    assert simulate(12, 3, ALL, seed=6).to_json(timing=False) != first.to_json(timing=False)


def test_figures_are_consistent() -> None:
    s = simulate(20, 4, ALL, seed=1, bots=("greedy", "cautious", "random"))
    assert s.games == 20 and s.bots == ("greedy", "cautious", "random", "greedy")
    assert s.min_score <= s.mean_score <= s.mean_winning_score <= s.max_score
    assert 0 <= s.crash_end_share <= 1 and 0 <= s.shared_win_share <= 1
    assert s.mean_expeditions >= 1 and s.mean_actions > s.mean_expeditions
    assert s.mean_crashes <= 11
    assert sum(s.win_share_by_seat) == pytest.approx(1)
    assert sum(s.win_share_by_bot.values()) == pytest.approx(1)
    assert s.win_share_by_bot["greedy"] == pytest.approx(s.win_share_by_seat[0]
                                                         + s.win_share_by_seat[3])
    assert s.games_per_second > 0 and s.seconds > 0
    data = s.to_json()
    assert {"games_per_second", "mean_expeditions", "crash_end_share", "mean_score",
            "max_score"} <= set(data)


def test_crash_share_matches_end_reasons() -> None:
    game = Game(GameConfig(players=("A", "B")))
    track = game.board.crash_track_length
    rng = random.Random(3)
    ends = Counter[bool]()
    for _ in range(12):
        final = play_game(game, [RandomBot()] * 2, rng)
        ends[final.end_reason.startswith("crash")] += 1
        assert final.end_reason.startswith("crash") == (final.crash_count == track)
    assert ends[True] and ends[False]  # both endings occur, so the share is a real figure


def test_bad_arguments() -> None:
    with pytest.raises(ValueError, match="unknown bot"):
        simulate(1, 2, bots=("nobody",))
    with pytest.raises(ValueError, match="at least one game"):
        simulate(0, 2)
    assert parse_list("ufo, missions") == ("ufo", "missions")
    assert parse_list("all") == ALL
    assert seat_bots(("greedy", "random"), 3) == ("greedy", "random", "greedy")
