"""Seeded simulated games: a fast dice sampler, complete games played by bots, aggregate figures.

The engine never rolls (P1); here the simulator plays the dice. A roll samples each available die
over its six sides and canonicalises the faces, which is exact and far cheaper than enumerating
`chance_outcomes()` (up to 252 multisets with Fractions) at every roll. Token draws are uniform over
the pile the state is drawing from, the same support as `chance_outcomes()`.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import cache
from itertools import product
from typing import Any

from .actions import Action, Draw, Roll
from .bots import Bot, make_bot
from .dice import FACES
from .game import VARIANTS, Game, GameConfig
from .state import Phase, State

DIE_SIDES: tuple[str, ...] = ("1", "2", "2", "3", "4", "fuel")
"""The six printed sides of an MLEM die (the 2 twice)."""
SEAT_NAMES = ("Blue", "Red", "Green", "Yellow", "Purple")
MAX_ACTIONS = 20_000
"""A game longer than this is an engine bug (a loop), not a long game."""
_ORDER = {face: i for i, face in enumerate(FACES)}

Observer = Callable[[State, Action], None]


@cache
def _roll_table(available: int) -> tuple[Roll, ...]:
    """Every ordered roll of `available` dice (6^n, the index read in base 6) as its Roll: one
    random number then picks a roll with its true probability."""
    rolls: dict[tuple[str, ...], Roll] = {}
    table = []
    for ordered in product(DIE_SIDES, repeat=available):
        faces = tuple(sorted(ordered, key=_ORDER.__getitem__))
        roll = rolls.get(faces)
        if roll is None:
            roll = rolls[faces] = Roll(faces)
        table.append(roll)
    return tuple(table)


def sample_roll(available: int, rng: random.Random) -> Roll:
    """Roll `available` dice: each die uniform over its six sides, faces in canonical order."""
    table = _roll_table(available)
    return table[rng.randrange(len(table))]


def sample_draw(state: State, rng: random.Random) -> Draw:
    """A uniform token draw from the pile the state draws from (as in `chance_outcomes()`)."""
    pile = state.draw_pile()
    if not pile:
        raise ValueError(f"not a token draw: the state waits for {state.expecting()}")
    return Draw(rng.choice(pile))


def sample_chance(state: State, rng: random.Random) -> Action:
    """One chance outcome with its true probability: a roll or a token draw."""
    if state.phase is Phase.ROLL:
        return sample_roll(state.available, rng)
    return sample_draw(state, rng)


def play_game(
    game: Game,
    bots: Sequence[Bot],
    rng: random.Random,
    observer: Observer | None = None,
) -> State:
    """Play one complete game, bots[seat] deciding for each seat; returns the terminal state.

    `observer(state, action)` sees every action just before it is applied (narration, checks).

    :raises RuntimeError: the game did not end within MAX_ACTIONS actions.
    """
    if len(bots) != game.num_players:
        raise ValueError(f"{len(bots)} bots for {game.num_players} seats")
    state = game.new_initial_state()
    for _ in range(MAX_ACTIONS):
        player = state.current_player()
        if player >= 0:
            action = bots[player].choose(state, rng)
        elif state.is_terminal():
            return state
        else:
            action = sample_chance(state, rng)
        if observer is not None:
            observer(state, action)
        state.apply_action(action)
    raise RuntimeError(f"no end after {MAX_ACTIONS} actions: {state}")


def parse_list(text: str | Sequence[str] | None) -> tuple[str, ...]:
    """"a,b" or ["a", "b"] -> ("a", "b"); "all" for variants means every variant."""
    if text is None:
        return ()
    items = text.split(",") if isinstance(text, str) else list(text)
    words = tuple(item.strip() for item in items if item.strip())
    return VARIANTS if words == ("all",) else words


@dataclass(frozen=True)
class SimulationSummary:
    """Aggregate figures of a batch of seeded games (everything but the timing is deterministic)."""

    games: int
    players: int
    variants: tuple[str, ...]
    seed: int
    bots: tuple[str, ...]
    """The bot of each seat."""
    mean_expeditions: float
    mean_actions: float
    mean_crashes: float
    crash_end_share: float
    """Share of games ended by the crash track (end_reason "crash number ...")."""
    mean_score: float
    max_score: int
    min_score: int
    mean_winning_score: float
    shared_win_share: float
    """Share of games with more than one winner."""
    win_share_by_seat: tuple[float, ...]
    """Wins per seat / games; a shared win counts 1/k to each of the k winners."""
    win_share_by_bot: dict[str, float]
    """Wins of the seats played by each bot / games (same counting)."""
    seconds: float = field(compare=False)
    games_per_second: float = field(compare=False)

    def to_json(self, timing: bool = True) -> dict[str, Any]:
        """Plain JSON types; `timing=False` leaves out the only non-reproducible figures."""
        data: dict[str, Any] = {
            "games": self.games,
            "players": self.players,
            "variants": list(self.variants),
            "seed": self.seed,
            "bots": list(self.bots),
            "mean_expeditions": round(self.mean_expeditions, 4),
            "mean_actions": round(self.mean_actions, 2),
            "mean_crashes": round(self.mean_crashes, 4),
            "crash_end_share": round(self.crash_end_share, 4),
            "mean_score": round(self.mean_score, 4),
            "max_score": self.max_score,
            "min_score": self.min_score,
            "mean_winning_score": round(self.mean_winning_score, 4),
            "shared_win_share": round(self.shared_win_share, 4),
            "win_share_by_seat": [round(x, 4) for x in self.win_share_by_seat],
            "win_share_by_bot": {k: round(v, 4) for k, v in self.win_share_by_bot.items()},
        }
        if timing:
            data["seconds"] = round(self.seconds, 3)
            data["games_per_second"] = round(self.games_per_second, 1)
        return data


def seat_names(players: int) -> tuple[str, ...]:
    """Colour names for the seats (numbered beyond five, which the game then refuses)."""
    if players <= len(SEAT_NAMES):
        return SEAT_NAMES[:players]
    return tuple(f"P{seat + 1}" for seat in range(players))


def seat_bots(names: Sequence[str], players: int) -> tuple[str, ...]:
    """The bot name of each seat: the list is repeated to fill the seats ("greedy" -> all)."""
    if not names:
        names = ("random",)
    return tuple(names[seat % len(names)] for seat in range(players))


def simulate(
    n_games: int,
    players: int,
    variants: Sequence[str] = (),
    seed: int = 0,
    bots: Sequence[str] = ("random",),
    board: str = "reconstruction",
    tokens: str = "reconstruction",
) -> SimulationSummary:
    """Play `n_games` seeded games and aggregate them; the same arguments give the same figures.

    The starter rotates from game to game so that no seat keeps the first-captain advantage.

    :raises ValueError: an unknown bot; RulesError: a bad configuration (players, variants).
    """
    if n_games < 1:
        raise ValueError("simulate at least one game")
    names = seat_bots(bots, players)
    seat_players = [make_bot(name) for name in names]
    seats = seat_names(players)
    games = [
        Game(GameConfig(players=seats, starter=starter, variants=frozenset(variants),
                        board=board, tokens=tokens))
        for starter in range(max(players, 1))
    ]
    rng = random.Random(seed)
    expeditions = actions = crashes = crash_ends = shared = 0
    score_sum = winning_sum = 0
    max_score, min_score = -1, 1 << 30
    wins = [0.0] * players
    start = time.perf_counter()
    for index in range(n_games):
        state = play_game(games[index % players], seat_players, rng)
        totals = state.returns()
        winners = state.winners()
        expeditions += state.expedition
        actions += len(state.history)
        crashes += state.crash_count
        crash_ends += state.end_reason.startswith("crash")
        shared += len(winners) > 1
        score_sum += sum(totals)
        winning_sum += max(totals)
        max_score = max(max_score, *totals)
        min_score = min(min_score, *totals)
        for seat in winners:
            wins[seat] += 1 / len(winners)
    seconds = time.perf_counter() - start
    by_bot: dict[str, float] = {}
    for seat, name in enumerate(names):
        by_bot[name] = by_bot.get(name, 0.0) + wins[seat] / n_games
    return SimulationSummary(
        games=n_games,
        players=players,
        variants=tuple(sorted(variants)),
        seed=seed,
        bots=names,
        mean_expeditions=expeditions / n_games,
        mean_actions=actions / n_games,
        mean_crashes=crashes / n_games,
        crash_end_share=crash_ends / n_games,
        mean_score=score_sum / (n_games * players),
        max_score=max_score,
        min_score=min_score,
        mean_winning_score=winning_sum / n_games,
        shared_win_share=shared / n_games,
        win_share_by_seat=tuple(w / n_games for w in wins),
        win_share_by_bot=by_bot,
        seconds=seconds,
        games_per_second=n_games / seconds if seconds > 0 else float("inf"),
    )
