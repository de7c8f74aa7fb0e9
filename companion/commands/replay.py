"""`companion replay FILE [--json]`: replay a game record and show the state it leads to.

A record that is malformed or holds an illegal action is refused with the file line and the
engine's reason, and the command exits 1 (format: docs/game-record.md).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from companion.games.mlem.record import RecordError, record_summary, replay
from companion.games.mlem.scoring import GOALS
from companion.games.mlem.state import State

MAX_OPTIONS_SHOWN = 12
SCORE_COLUMNS = ("moons", "deep_space", "planets", "goals", "ufo", "exploration", "missions")
SCORE_HEADERS = ("moons", "deep", "planets", "goals", "ufo", "explore", "missions")


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "replay", help="replay a game record and print the resulting state",
        description="Replay a game record (docs/game-record.md) and print the state it leads to.",
    )
    parser.add_argument("file", help="the record (JSON); '-' reads standard input")
    parser.add_argument("--json", action="store_true",
                        help="print the state as JSON, with a 'record' summary")
    parser.add_argument("--until", type=int, metavar="N",
                        help="replay only the first N actions")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    """Print the replayed state; on a bad record print `FILE: line N: reason` and return 1."""
    name = "<stdin>" if args.file == "-" else args.file
    try:
        text = sys.stdin.read() if args.file == "-" else Path(args.file).read_text("utf-8-sig")
    except (OSError, UnicodeDecodeError) as exc:
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
        return _fail(args, name, None, f"cannot read: {reason}")
    try:
        state = replay(text, limit=args.until)
    except RecordError as exc:
        return _fail(args, name, exc.line, exc.reason)
    if args.json:
        data = state.to_json()
        data["record"] = record_summary(state)
        print(json.dumps(data, indent=1, ensure_ascii=False))
    else:
        print("\n".join(report(state)))
    return 0


def _fail(args: argparse.Namespace, name: str, line: int | None, reason: str) -> int:
    where = f"{name}: line {line}" if line is not None else name
    print(f"{where}: {reason}", file=sys.stderr)
    if args.json:
        print(json.dumps({"error": {"file": name, "line": line, "reason": reason}}))
    return 1


def report(state: State) -> list[str]:
    """The state as a compact text report: the table at a glance, then the scores."""
    game = state.game
    board = game.board
    names = game.config.players
    data = state.to_json()
    variants = ", ".join(sorted(game.config.variants)) or "none"
    lines = [
        f"MLEM game: {len(names)} players ({', '.join(names)}); variants: {variants};"
        f" board {board.board_id}",
        f"{len(state.history)} actions replayed; expedition {state.expedition},"
        f" started by {names[state.starter]}",
        "",
        f"Rocket     space {state.space} of {board.last_space}"
        + (f" (this travel phase left from {state.departure})"
           if state.departure != state.space and not state.is_terminal() else ""),
        f"Dice       {state.available} available, {state.removed} spent"
        + (f"; roll on the table: {' '.join(state.roll)}" if state.roll else ""),
        f"Crashes    {state.crash_count} of {board.crash_track_length}",
        "Aboard     " + (", ".join(
            f"{n}. {names[seat]} ({kind}{', captain' if n == 1 else ''})"
            for n, (seat, kind) in enumerate(state.rocket, start=1)) or "nobody"),
    ]
    taken = [f"{moon} {names[state.moon_occupant[moon]]}"
             for moon in board.moons if moon in state.moon_occupant]  # in track order
    free = len(board.moons) - len(taken)
    lines.append(f"Moons      {', '.join(taken) or 'none taken'} ({free} free)")
    planets = []
    for pid, arrivals in data["planets"].items():
        who = ", ".join(f"{names[a['seat']]}#{a['seq']}" for a in arrivals) or "-"
        planets.append(f"{pid}: {who}")
    lines.append(f"Planets    {'; '.join(planets)}")
    comet = ", ".join(names[s] for s in data["comet"]) or "-"
    galaxy = ", ".join(names[s] for s in data["galaxy"]) or "-"
    lines.append(f"Deep space comet: {comet}; galaxy: {galaxy}")
    owners = state.goal_owners()
    lines.append("Goals      " + ", ".join(
        f"{goal} {names[owner] if owner is not None else '-'}"
        for goal in GOALS for owner in [owners[goal]]))
    if data["ufo"] is not None:
        ufo = data["ufo"]
        token = ufo["token"] or "none"
        ability = " (ability used)" if ufo["ability_used"] else ""
        stack = " ".join(str(v) for v in ufo["stack"]) or "empty"
        lines.append(f"UFO        on space {ufo['position']}; tokens left {stack};"
                     f" expedition token {token}{ability}")
    if data["exploration"] is not None:
        tokens = ", ".join(f"{tid} on {space}" for space, tid in data["exploration"].items())
        lines.append(f"Exploration {tokens or 'no tokens on the mat'}")
    lines.extend(["", *_score_table(state), ""])
    lines.extend(_outcome(state))
    return lines


def _score_table(state: State) -> list[str]:
    names = state.game.config.players
    width = max(len(name) for name in names)
    title = "Scores" if state.is_terminal() else "Scores (planets and missions if it ended now)"
    rows = [title, f"  {'':{width}}  " + " ".join(f"{h:>8}" for h in (*SCORE_HEADERS, "total"))]
    for seat, breakdown in enumerate(state.scores()):
        values: dict[str, Any] = breakdown.to_json()
        cells = " ".join(f"{values[c]:>8}" for c in (*SCORE_COLUMNS, "total"))
        rows.append(f"  {names[seat]:{width}}  {cells}")
    return rows


def _outcome(state: State) -> list[str]:
    names = state.game.config.players
    if state.is_terminal():
        totals = state.returns()
        won = state.winners()
        word = "Winner" if len(won) == 1 else "Winners (shared victory)"
        return [f"Game over ({state.end_reason}). {word}: "
                + ", ".join(f"{names[s]} ({totals[s]})" for s in won)]
    lines = [f"Waiting for {state.expecting()}"]
    if not state.is_chance_node():
        options = [str(action) for action in state.legal_actions()]
        shown = options[:MAX_OPTIONS_SHOWN]
        more = len(options) - len(shown)
        lines.append("Options    " + " | ".join(shown) + (f" | ... ({more} more)" if more else ""))
    return lines
