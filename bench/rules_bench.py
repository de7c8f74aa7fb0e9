"""Rules-core benchmark: playout throughput and next-roll odds query time, with the machine.

    .venv/bin/python bench/rules_bench.py [--games 300] [--repeats 3] [--positions 2000]
                                          [--profile] [--json]

Targets (the issue's): at least 100 games/s (4 players, every variant, random bots, one process)
and an odds query under 5 ms. The README quotes the figures this prints.
"""

from __future__ import annotations

import argparse
import cProfile
import json
import os
import platform
import pstats
import random
import statistics
import time
from typing import Any

from companion.games.mlem import VARIANTS, Game, GameConfig, Phase, State
from companion.games.mlem.bots import RandomBot
from companion.games.mlem.odds import clear_cache, next_roll_odds
from companion.games.mlem.simulate import play_game, sample_chance, simulate

PLAYERS = 4
TARGET_GAMES_PER_SECOND = 100.0
TARGET_QUERY_MS = 5.0


def machine() -> dict[str, Any]:
    """Platform, CPU model (/proc/cpuinfo: x86 "model name", Raspberry Pi "Model"), Python."""
    cpu = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as f:
            fields = dict(line.split(":", 1) for line in f if ":" in line)
        fields = {k.strip(): v.strip() for k, v in fields.items()}
        cpu = fields.get("model name") or fields.get("Model") or fields.get("Hardware") or cpu
    except OSError:
        pass
    return {"platform": platform.platform(), "cpu": cpu, "cpus": os.cpu_count(),
            "python": f"{platform.python_implementation()} {platform.python_version()}"}


def throughput(games: int, repeats: int, seed: int) -> dict[str, Any]:
    """Games per second of `simulate` (4 players, all variants, random bots), best and median."""
    simulate(2, PLAYERS, VARIANTS, seed=seed)  # warm-up: dice tables, board and token files
    rates = [simulate(games, PLAYERS, VARIANTS, seed=seed + r).games_per_second
             for r in range(repeats)]
    return {"games": games, "repeats": repeats, "best": max(rates),
            "median": statistics.median(rates), "all": [round(r, 1) for r in rates]}


def odds_positions(count: int, seed: int) -> list[State]:
    """Rolls and landing decisions met in seeded random playouts (every variant)."""
    rng = random.Random(seed)
    game = Game(GameConfig(players=("A", "B", "C", "D"), variants=frozenset(VARIANTS)))
    bot = RandomBot()
    positions: list[State] = []
    state = game.new_initial_state()
    while len(positions) < count:
        if state.is_terminal():
            state = game.new_initial_state()
        elif state.is_chance_node():
            if state.phase is Phase.ROLL:
                positions.append(state.clone())
            state.apply_action(sample_chance(state, rng))
        else:
            if state.phase is Phase.LANDING:
                positions.append(state.clone())
            state.apply_action(bot.choose(state, rng))
    return positions


def query_times(positions: list[State]) -> dict[str, Any]:
    """Median and p95 query time in ms, cold (cache cleared before each query) and warm."""
    def measure(cold: bool) -> list[float]:
        times = []
        for state in positions:
            if cold:
                clear_cache()
            start = time.perf_counter()
            next_roll_odds(state)
            times.append((time.perf_counter() - start) * 1000)
        return times

    result: dict[str, Any] = {"positions": len(positions)}
    for label, cold in (("cold", True), ("warm", False)):
        times = measure(cold)
        result[label] = {"median_ms": statistics.median(times),
                         "p95_ms": statistics.quantiles(times, n=20)[-1], "max_ms": max(times)}
    return result


def profile(games: int, seed: int, top: int = 18) -> list[str]:
    """Where playout time goes: the top functions by own time, as shares of the whole playout."""
    game = Game(GameConfig(players=("A", "B", "C", "D"), variants=frozenset(VARIANTS)))
    bots = [RandomBot()] * PLAYERS
    rng = random.Random(seed)
    profiler = cProfile.Profile()
    profiler.enable()
    for _ in range(games):
        play_game(game, bots, rng)
    profiler.disable()
    stats = pstats.Stats(profiler)
    raw: dict[Any, Any] = stats.stats  # type: ignore[attr-defined]
    total = max(entry[3] for entry in raw.values())  # play_game's cumulative time: the playouts
    rows = sorted(raw.items(), key=lambda item: -item[1][2])[:top]
    lines = [f"{'own %':>6} {'cum %':>6} {'calls':>9}  function"]
    for (path, line, name), (_, calls, own, cum, _) in rows:
        where = path.split("companion/")[-1] if "companion/" in path else os.path.basename(path)
        lines.append(f"{100 * own / total:6.1f} {100 * cum / total:6.1f} {calls:9d}"
                     f"  {where}:{line}({name})")
    return lines


def ok(good: bool) -> str:
    return "ok" if good else "BELOW TARGET"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=300, help="games per throughput run")
    parser.add_argument("--repeats", type=int, default=3, help="throughput runs (best, median)")
    parser.add_argument("--positions", type=int, default=2000, help="odds query positions")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--profile", action="store_true", help="cProfile the playouts too")
    parser.add_argument("--json", action="store_true", help="one JSON object")
    args = parser.parse_args()

    report = {"machine": machine(),
              "throughput": throughput(args.games, args.repeats, args.seed),
              "odds": query_times(odds_positions(args.positions, args.seed))}
    if args.json:
        print(json.dumps(report, indent=2))
        return 0
    m, t, o = report["machine"], report["throughput"], report["odds"]
    print(f"machine   {m['platform']}; {m['cpu']} ({m['cpus']} CPUs); {m['python']}")
    print(f"playouts  4 players, {', '.join(VARIANTS)}, random bots, {t['games']} games x"
          f" {t['repeats']}: best {t['best']:.1f} games/s, median {t['median']:.1f}"
          f" (runs {t['all']}) [target >= {TARGET_GAMES_PER_SECOND:.0f}:"
          f" {ok(t['best'] >= TARGET_GAMES_PER_SECOND)}]")
    for label in ("cold", "warm"):
        q = o[label]
        print(f"odds      {label} query over {o['positions']} positions: median"
              f" {q['median_ms']:.3f} ms, p95 {q['p95_ms']:.3f} ms, max {q['max_ms']:.3f} ms"
              f" [target < {TARGET_QUERY_MS:.0f} ms: {ok(q['p95_ms'] < TARGET_QUERY_MS)}]")
    if args.profile:
        print("\nprofile of the playouts (own time per function):")
        print("\n".join(profile(max(args.games // 3, 20), args.seed)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
