"""`companion simulate`: play many seeded games with bots and print the aggregate figures."""

from __future__ import annotations

import argparse
import json

from companion.games.mlem.bots import BOTS
from companion.games.mlem.errors import RulesError
from companion.games.mlem.game import VARIANTS
from companion.games.mlem.simulate import SimulationSummary, parse_list, simulate


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "simulate", help="play many seeded games with bots and print aggregate figures"
    )
    parser.add_argument("--games", type=int, default=100, help="games to play (default 100)")
    parser.add_argument("--players", type=int, default=4, help="2 to 5 (default 4)")
    parser.add_argument("--variants", default="",
                        help=f"comma list of {','.join(VARIANTS)}, or all (default none)")
    parser.add_argument("--seed", type=int, default=0, help="same seed, same figures (default 0)")
    parser.add_argument("--bots", default="random",
                        help=f"comma list of {','.join(BOTS)}, one per seat, repeated to fill the"
                             " seats (default random)")
    parser.add_argument("--json", action="store_true", help="one JSON object instead of a table")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    """Exit 0 with the figures; exit 2 with a message for a bad setup."""
    try:
        summary = simulate(args.games, args.players, parse_list(args.variants), args.seed,
                           parse_list(args.bots))
    except (RulesError, ValueError) as exc:
        print(f"simulate: {exc}")
        return 2
    if args.json:
        print(json.dumps(summary.to_json(), sort_keys=True))
    else:
        print(format_table(summary))
    return 0


def format_table(s: SimulationSummary) -> str:
    """The figures as an aligned two-column table."""
    rows = [
        ("games", f"{s.games}"),
        ("players", f"{s.players}"),
        ("variants", ", ".join(s.variants) or "none"),
        ("seed", f"{s.seed}"),
        ("bots by seat", ", ".join(s.bots)),
        ("expeditions per game", f"{s.mean_expeditions:.2f}"),
        ("actions per game", f"{s.mean_actions:.1f}"),
        ("crashes per game", f"{s.mean_crashes:.2f}"),
        ("games ended by crashes", f"{100 * s.crash_end_share:.1f}%"),
        ("mean score", f"{s.mean_score:.2f}"),
        ("max score", f"{s.max_score}"),
        ("min score", f"{s.min_score}"),
        ("mean winning score", f"{s.mean_winning_score:.2f}"),
        ("shared wins", f"{100 * s.shared_win_share:.1f}%"),
        ("win share by seat", "  ".join(f"{100 * w:.1f}%" for w in s.win_share_by_seat)),
        ("win share by bot", "  ".join(f"{name} {100 * w:.1f}%"
                                      for name, w in s.win_share_by_bot.items())),
        ("games per second", f"{s.games_per_second:.1f} ({s.seconds:.2f} s)"),
    ]
    width = max(len(label) for label, _ in rows)
    return "\n".join(f"{label:<{width}}  {value}" for label, value in rows)
