"""`companion transcript`: a complete game played by bots, told expedition by expedition.

Rules only: no camera, no buttons, no web page (that is `companion demo`). The dice are simulated
and seeded, so a seed always tells the same game.
"""

from __future__ import annotations

import argparse
import json
import random

from companion.games.mlem import Action, Draw, Game, GameConfig, Phase, State
from companion.games.mlem.bots import BOTS, make_bot
from companion.games.mlem.errors import RulesError
from companion.games.mlem.game import VARIANTS
from companion.games.mlem.simulate import parse_list, play_game, seat_bots, seat_names
from companion.narrate import describe, final_report

DEFAULT_BOTS = ("greedy", "cautious", "random")


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "transcript", help="bots play a complete game on the rules core alone, narrated")
    parser.add_argument("--players", type=int, default=4, help="2 to 5 (default 4)")
    parser.add_argument("--seed", type=int, default=1, help="the dice seed (default 1)")
    parser.add_argument("--variants", default="all",
                        help=f"comma list of {','.join(VARIANTS)}, all or none (default all)")
    parser.add_argument("--bots", default=",".join(DEFAULT_BOTS),
                        help=f"comma list of {','.join(BOTS)}, repeated to fill the seats")
    parser.add_argument("--json", action="store_true", help="print the final state as JSON")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    variants = () if args.variants == "none" else parse_list(args.variants)
    names = seat_bots(parse_list(args.bots), args.players)
    try:
        game = Game(GameConfig(players=seat_names(args.players), variants=frozenset(variants)))
        bots = [make_bot(name) for name in names]
    except (RulesError, ValueError) as exc:
        print(f"transcript: {exc}")
        return 2
    lines: list[str] = []
    if not args.json:
        seats = ", ".join(f"{player} ({bot})" for player, bot in zip(
            game.config.players, names, strict=True))
        lines.append(f"MLEM: Space Agency, simulated game (seed {args.seed})")
        lines.append(f"Players: {seats}; variants: {', '.join(sorted(variants)) or 'none'}")
    final = play_game(game, bots, random.Random(args.seed),
                      None if args.json else _Narrator(lines))
    if args.json:
        print(json.dumps(final.to_json(), sort_keys=True))
        return 0
    lines.append("")
    lines.append(f"Final score after {final.expedition} expeditions and"
                 f" {final.crash_count} crashes:")
    lines.extend(final_report(final))
    print("\n".join(lines))
    return 0


class _Narrator:
    """Collects the transcript: a header per expedition, one line per event; mission deals are
    summed up in one line since they are secret anyway."""

    def __init__(self, lines: list[str]) -> None:
        self.lines = lines
        self.expedition = 0

    def __call__(self, state: State, action: Action) -> None:
        if isinstance(action, Draw) and state.phase is Phase.DEAL_MISSIONS:
            if not state.mission_hands[0]:
                self.lines.append("Secret missions: four dealt to each player.")
            return
        taking_off = state.phase in (Phase.PLACE, Phase.REVEAL_EXPEDITION) and not state.rocket
        if taking_off and state.expedition != self.expedition:
            self.expedition = state.expedition
            starter = state.game.config.players[state.starter]
            self.lines.append("")
            self.lines.append(f"== Expedition {state.expedition}: {starter} starts;"
                              f" crashes {state.crash_count}/"
                              f"{state.game.board.crash_track_length} ==")
        text = describe(state, action)
        self.lines.extend(f"  {line}" for line in text.splitlines())
