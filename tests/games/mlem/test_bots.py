"""Bots choose only legal actions, deterministically, and play to their character."""

from __future__ import annotations

import random

import pytest

from companion.games.mlem import (
    Action,
    Crash,
    Game,
    GameConfig,
    Land,
    Move,
    Phase,
    Place,
    Reroll,
    Roll,
    State,
    Stay,
)
from companion.games.mlem.bots import (
    BOTS,
    Bot,
    CautiousBot,
    GreedyBot,
    RandomBot,
    make_bot,
    target_value,
)
from companion.games.mlem.simulate import play_game, sample_chance

PLAYERS = ("Blue", "Red", "Green", "Yellow", "Purple")
ALL = frozenset({"ufo", "exploration", "missions"})


def checked_game(game: Game, bots: list[Bot], seed: int) -> tuple[State, int]:
    """Play a game, asserting every bot action is in legal_actions() when it is chosen."""
    decisions = 0

    def check(state: State, action: Action) -> None:
        nonlocal decisions
        if not state.is_chance_node():
            decisions += 1
            assert action in state.legal_actions(), f"{action} illegal at {state}"

    return play_game(game, bots, random.Random(seed), check), decisions


@pytest.mark.parametrize("name", sorted(BOTS))
@pytest.mark.parametrize(("players", "variants"), [
    (2, frozenset()), (3, ALL), (4, frozenset({"ufo"})), (5, ALL),
])
def test_bots_choose_only_legal_actions(name: str, players: int, variants: frozenset[str]) -> None:
    game = Game(GameConfig(players=PLAYERS[:players], variants=variants))
    for seed in range(2):
        final, decisions = checked_game(game, [make_bot(name) for _ in range(players)], seed)
        assert final.is_terminal()
        assert decisions > 10


def test_mixed_table_many_seeds() -> None:
    game = Game(GameConfig(players=PLAYERS[:4], variants=ALL))
    bots: list[Bot] = [GreedyBot(), CautiousBot(), RandomBot(), GreedyBot()]
    for seed in range(6):
        final, _ = checked_game(game, bots, seed)
        assert final.is_terminal() and final.winners()


@pytest.mark.parametrize("name", sorted(BOTS))
def test_same_rng_same_game(name: str) -> None:
    game = Game(GameConfig(players=PLAYERS[:3], variants=ALL))
    bots = [make_bot(name) for _ in range(3)]
    first = play_game(game, bots, random.Random(11))
    second = play_game(game, bots, random.Random(11))
    assert first.history == second.history
    assert first.history != play_game(game, bots, random.Random(12)).history


def choose_state(roll: str, kinds: tuple[str, str] = ("parachute", "moon_x2")) -> State:
    """TC-01: space 0 (1, 2, fuel=1), six dice, the roll given."""
    state = Game(GameConfig(players=PLAYERS[:2])).new_initial_state()
    for kind in kinds:
        state.apply_action(Place(kind))
    state.apply_action(roll)
    assert state.phase is Phase.CHOOSE
    return state


def test_greedy_goes_far_cautious_keeps_dice() -> None:
    state = choose_state("roll fuel fuel 1 1 2 4")
    rng = random.Random(0)
    greedy = GreedyBot().choose(state, rng)
    cautious = CautiousBot().choose(state, rng)
    context = state.travel_context()
    assert isinstance(greedy, Move) and isinstance(cautious, Move)
    assert context.distance(greedy) == 6  # {fuel, 1, 2}
    assert cautious == Move(("fuel", "fuel"))  # distance 2, no die removed
    assert context.dice_consumed(cautious) == 0


def test_no_move_means_reroll_if_possible_else_crash() -> None:
    state = Game(GameConfig(players=PLAYERS[:2], variants=frozenset({"ufo"}))).new_initial_state()
    reroll = next(t for t in state.game.tokens.expedition if t.ability == "reroll")
    state.apply_action(f"draw {reroll.id}")
    state.apply_action("place satellite")  # space 3: faces 2 and 4
    state.apply_action("place moon_x2")
    state.apply_action(Roll(("1",) * reroll.dice))
    assert state.legal_actions() == [Reroll(), Crash()]
    for bot in (GreedyBot(), CautiousBot()):
        assert bot.choose(state, random.Random(0)) == Reroll()


def test_greedy_captain_takes_the_comet_doubler() -> None:
    state = Game(GameConfig(players=PLAYERS[:3])).new_initial_state()
    assert GreedyBot().choose(state, random.Random(0)) == Place("deep_space_x2")
    state.apply_action("place satellite")
    assert GreedyBot().choose(state, random.Random(0)) != Place("satellite")  # one is enough


def landing(seed: int) -> State:
    rng = random.Random(seed)
    game = Game(GameConfig(players=PLAYERS[:4]))
    state = game.new_initial_state()
    while not (state.phase is Phase.LANDING and state.legal_actions() != [Stay()]):
        if state.is_terminal():
            state = game.new_initial_state()
        elif state.is_chance_node():
            state.apply_action(sample_chance(state, rng))
        else:
            state.apply_action(RandomBot().choose(state, rng))
    return state


def test_cautious_lands_at_once_on_the_best_target() -> None:
    for seed in range(5):
        state = landing(seed)
        action = CautiousBot().choose(state, random.Random(0))
        assert isinstance(action, Land)
        seat = state.current_player()
        kind = next(k for s, k in state.rocket if s == seat)
        best = max(target_value(state, seat, kind, a.target)
                   for a in state.legal_actions() if isinstance(a, Land))
        assert target_value(state, seat, kind, action.target) == best


def test_bots_refuse_chance_nodes_and_unknown_names() -> None:
    state = Game(GameConfig(players=PLAYERS[:2], variants=ALL)).new_initial_state()
    assert state.is_chance_node()
    with pytest.raises(ValueError, match="not here"):
        RandomBot().choose(state, random.Random(0))
    with pytest.raises(ValueError, match="known: random, cautious, greedy"):
        make_bot("clever")
