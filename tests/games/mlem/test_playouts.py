"""Random playouts with invariants at every step, after OpenSpiel's games_sim_test.

Seeded random games over 2-5 players and all 8 variant combinations. At every step: the clone
equals the original (and again after the same action), chance outcomes are unique with exact
probabilities summing to 1, the dice counters, score bounds, goal and moon ownership, astronaut
conservation, every legal action applies on a clone, and a sample of illegal actions is refused
without changing the state. At sampled steps and at the end: the record round-trips and undo
matches the earlier states. Every game ends within a bound with a winner and no legal actions.

The fast run (unmarked) plays a hundred games; the slow run (`-m slow`) a thousand more.
"""

from __future__ import annotations

import itertools
import json
import random
from collections import Counter
from fractions import Fraction

import pytest
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, precondition, rule

from companion.games.mlem import (
    CHANCE,
    TERMINAL,
    VARIANTS,
    Action,
    Crash,
    Discard,
    Draw,
    Game,
    GameConfig,
    Land,
    Move,
    Place,
    Reroll,
    Roll,
    RulesError,
    State,
    Stay,
    normalize,
)
from companion.games.mlem.record import replay, write_record
from companion.games.mlem.scoring import GOALS
from companion.games.mlem.state import Phase

from .helpers import DIE, random_action

VARIANT_SETS = [frozenset(c) for k in range(4) for c in itertools.combinations(VARIANTS, k)]
PLAYER_COUNTS = (2, 3, 4, 5)
MAX_STEPS = 3000
"""A game never gets near this: 11 crashes or 8 placements end it (about 180 steps on average)."""
RECORD_SAMPLES = 2
"""Record round-trips per game at random steps, besides the end (a replay costs a board load)."""


def make_game(seed: int) -> Game:
    """Player count and variants cycle with the seed, so every combination is covered evenly."""
    rng = random.Random(seed)
    n = PLAYER_COUNTS[seed % len(PLAYER_COUNTS)]
    variants = VARIANT_SETS[(seed // len(PLAYER_COUNTS)) % len(VARIANT_SETS)]
    names = tuple(f"P{i}" for i in range(n))
    return Game(GameConfig(players=names, starter=rng.randrange(n), variants=variants))


# ------------------------------------------------------------------------------ invariants


class Tracker:
    """What may only grow during a game: goal owners, moon occupants, crashes, placements."""

    def __init__(self) -> None:
        self.goals: dict[str, int] = {}
        self.moons: dict[str, int] = {}
        self.crashes = 0
        self.placements = 0
        self.max_score = 0

    def check(self, state: State) -> None:
        game = state.game
        n = game.num_players
        # who acts
        player = state.current_player()
        if state.is_terminal():
            assert player == TERMINAL
        elif state.is_chance_node():
            assert player == CHANCE
        else:
            assert 0 <= player < n
        # dice counters
        assert 1 <= state.available <= 6
        assert state.available + state.removed == 6
        # scores within the declared bounds
        bound = self.max_score = self.max_score or game.max_score()
        for b in state.scores():
            assert min(b.moons, b.deep_space, b.planets, b.goals, b.ufo, b.exploration,
                       b.missions) >= 0
            assert 0 <= b.total <= bound
        # goals: claimed once, never change owner
        assert set(state.goals) <= set(GOALS)
        assert all(0 <= seat < n for seat in state.goals.values())
        assert self.goals.items() <= state.goals.items()
        self.goals = dict(state.goals)
        # moons: at most one astronaut each, never vacated or changed
        moons = game.board.moons
        on_moons = Counter(p.target for p in state.placements if p.target in moons)
        assert all(count == 1 for count in on_moons.values())
        assert set(on_moons) == set(state.moon_occupant)
        assert self.moons.items() <= state.moon_occupant.items()
        self.moons = dict(state.moon_occupant)
        # crashes and placements only grow; placements are numbered 1..k
        assert self.crashes <= state.crash_count <= game.board.crash_track_length
        self.crashes = state.crash_count
        assert [p.seq for p in state.placements] == list(range(1, len(state.placements) + 1))
        assert len(state.placements) >= self.placements
        self.placements = len(state.placements)
        # astronaut conservation, per player and per kind; at most one per player aboard
        aboard = Counter(seat for seat, _ in state.rocket)
        assert all(count == 1 for count in aboard.values())
        have = [dict(supply) for supply in state.supply]
        for seat, kind in state.rocket:
            have[seat][kind] += 1
        for p in state.placements:
            have[p.seat][p.kind] += 1
        kinds = Counter(game.config.astronaut_set)
        assert all(h == kinds for h in have), (have, kinds)
        # chance outcomes: unique, each in (0, 1], exactly 1 in total
        if state.phase is Phase.ROLL:
            if state.available not in _CHECKED_ROLLS:  # the roll distribution is cached
                check_outcomes(state.chance_outcomes())
                _CHECKED_ROLLS.add(state.available)
        elif state.is_chance_node():
            check_outcomes(state.chance_outcomes())
        else:
            assert state.chance_outcomes() == []
        # the terminal state and only it has no legal actions (at a roll: its outcomes, above)
        if state.phase is not Phase.ROLL:
            assert bool(state.legal_actions()) != state.is_terminal()


_CHECKED_ROLLS: set[int] = set()


def check_outcomes(outcomes: list[tuple[Action, Fraction]]) -> None:
    """Unique outcomes, each with probability in (0, 1], exactly 1 in total."""
    assert outcomes
    actions = [a for a, _ in outcomes]
    assert len(set(actions)) == len(actions)
    assert all(Fraction(0) < p <= 1 for _, p in outcomes)
    assert sum(p for _, p in outcomes) == 1


def illegal_candidates(state: State) -> list[Action]:
    """Actions of every kind; those not legal now must be refused without changing the state."""
    return [
        Stay(), Crash(), Reroll(), Place("satellite"), Place("dice_1"), Land("galaxy"),
        Land("comet"), Land("M6a"), Land("P5"), Land("nowhere"), Draw("E01"), Draw("X01"),
        Draw("nothing"), Discard("nothing"), Move(), Move(("4", "4")), Move(("2",)),
        Move(("fuel",), keep=True), Move(("1",), (0,)), Move((), (), ufo=True),
        Roll(("1",) * state.available), Roll(("2",) * (state.available + 1)),
    ]


def check_legal_and_illegal(
    state: State, rng: random.Random, roll_samples: int, illegal_samples: int = 5
) -> None:
    """Every legal action applies on a clone; illegal ones raise and leave the state unchanged."""
    legal = state.legal_actions()
    assert len(set(legal)) == len(legal)
    if state.phase is Phase.ROLL and len(legal) > roll_samples:
        to_try = rng.sample(legal, roll_samples)
    else:
        to_try = legal
    for action in to_try:
        assert normalize(action) == action
        other = state.clone()
        other.apply_action(action)
    legal_set = set(legal)
    before = state.clone()
    for action in rng.sample(illegal_candidates(state), illegal_samples):
        if normalize(action) in legal_set:
            continue
        try:
            state.apply_action(action)
        except RulesError:
            pass
        else:
            raise AssertionError(f"{action} is not listed as legal but was applied")
    assert state == before, "a refused action changed the state"


def check_record(state: State) -> None:
    """Write, replay, write again: the same state and byte-identical text."""
    text = write_record(state)
    again = replay(text)
    assert again == state
    assert write_record(again) == text


def play(
    seed: int, *, roll_samples: int = 4, snapshots: int = 3, record_samples: int = RECORD_SAMPLES
) -> State:
    """Play one seeded game, checking every invariant at every step."""
    game = make_game(seed)
    rng = random.Random(seed * 7919 + 1)
    check_rng = random.Random(seed)
    state = game.new_initial_state()
    assert state == game.new_initial_state()
    tracker = Tracker()
    saved: dict[int, State] = {}
    snapshot_steps = set(check_rng.sample(range(1, 200), snapshots))
    record_steps = set(check_rng.sample(range(1, 200), record_samples))
    steps = 0
    while not state.is_terminal():
        assert steps < MAX_STEPS, f"seed {seed}: no end after {MAX_STEPS} steps"
        tracker.check(state)
        check_legal_and_illegal(state, check_rng, roll_samples)
        action = random_action(state, rng)
        twin = state.clone()
        assert twin == state
        state.apply_action(action)
        twin.apply_action(str(action))  # the text form takes the same path
        assert twin == state
        steps += 1
        if steps in snapshot_steps:
            saved[steps] = state.clone()
        if steps in record_steps:
            check_record(state)
    tracker.check(state)
    check_legal_and_illegal(state, check_rng, roll_samples)
    assert state.legal_actions() == []
    assert state.winners()
    assert set(state.winners()) <= set(range(game.num_players))
    assert state.end_reason
    json.dumps(state.to_json())
    check_record(state)
    # undo: back to each saved state, and all the way to the start
    for at, earlier in saved.items():
        if at <= len(state.history):
            undone = state.clone()
            undone.undo(len(state.history) - at)
            assert undone == earlier
    start = state.clone()
    start.undo(len(state.history))
    assert start == game.new_initial_state()
    return state


@pytest.mark.parametrize("chunk", range(4))
def test_random_playouts_fast(chunk: int) -> None:
    """A hundred games: every player count with every variant combination, about three times."""
    for seed in range(chunk * 25, chunk * 25 + 25):
        play(seed)


@pytest.mark.slow
@pytest.mark.parametrize("chunk", range(10))
def test_random_playouts_slow(chunk: int) -> None:
    """1,000 more games (seeds 1000-1999, 0.1 s each), in 10 chunks so pytest-xdist can share
    them."""
    start = 1000 + chunk * 100
    for seed in range(start, start + 100):
        play(seed, roll_samples=2, snapshots=1, record_samples=1)


def test_every_combination_is_covered() -> None:
    """The seed cycle reaches each of the 4 player counts x 8 variant sets in 32 games."""
    combos = {(make_game(s).num_players, make_game(s).config.variants) for s in range(32)}
    assert len(combos) == 32


# ------------------------------------------------------------------ hypothesis: stateful


class PlayMachine(RuleBasedStateMachine):
    """Random action sequences with undo in between; a failure shrinks to the shortest case."""

    @initialize(players=st.integers(2, 5), variants=st.sampled_from(VARIANT_SETS),
                starter=st.integers(0, 4))
    def setup(self, players: int, variants: frozenset[str], starter: int) -> None:
        names = tuple(f"P{i}" for i in range(players))
        self.game = Game(GameConfig(players=names, starter=starter % players, variants=variants))
        self.state = self.game.new_initial_state()
        self.past: list[State] = [self.state.clone()]
        self.tracker = Tracker()

    @precondition(lambda self: not self.state.is_terminal())
    @rule(pick=st.integers(0, 10_000), faces=st.lists(st.sampled_from(DIE), min_size=6,
                                                        max_size=6))
    def act(self, pick: int, faces: list[str]) -> None:
        state = self.state
        if state.phase is Phase.ROLL:
            action: Action = Roll(tuple(faces[: state.available]))
        else:
            legal = state.legal_actions()
            action = legal[pick % len(legal)]
        state.apply_action(action)
        self.past.append(state.clone())

    @precondition(lambda self: len(self.state.history) > 0)
    @rule(steps=st.integers(1, 5))
    def undo(self, steps: int) -> None:
        steps = min(steps, len(self.state.history))
        self.state.undo(steps)
        del self.past[len(self.past) - steps:]
        assert self.state == self.past[-1]
        self.tracker = Tracker()  # undo may take back what the tracker saw grow

    @rule(pick=st.integers(0, 21))
    def refuse(self, pick: int) -> None:
        action = illegal_candidates(self.state)[pick]
        if normalize(action) in set(self.state.legal_actions()):
            return
        before = self.state.clone()
        with pytest.raises(RulesError):
            self.state.apply_action(action)
        assert self.state == before

    @invariant()
    def state_invariants(self) -> None:
        self.tracker.check(self.state)

    @rule()
    def record_round_trips(self) -> None:
        check_record(self.state)


PlayMachine.TestCase.settings = settings(
    max_examples=20, stateful_step_count=50, deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
TestPlayMachine = PlayMachine.TestCase
