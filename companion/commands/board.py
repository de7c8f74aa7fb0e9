"""`companion board check FILE`: validate an owner's board file and list every problem."""

from __future__ import annotations

import argparse
from pathlib import Path

from companion.games.mlem.board import check_board, read_data_file
from companion.games.mlem.errors import BoardError


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser("board", help="board definition files")
    actions = parser.add_subparsers(dest="board_command", required=True)
    check = actions.add_parser("check", help="validate a board file (TOML or JSON)")
    check.add_argument("file", type=Path)
    check.set_defaults(handler=run_check)


def run_check(args: argparse.Namespace) -> int:
    """Print every error and warning with its location; exit 1 if there is any error."""
    path: Path = args.file
    try:
        data = read_data_file(path)
    except OSError as exc:
        print(f"{path}: cannot read: {exc.strerror}")
        return 1
    except BoardError as exc:
        print(f"error: {exc}")
        return 1
    errors, warnings = check_board(data)
    for problem in errors:
        print(f"{path}: error: {problem}")
    for problem in warnings:
        print(f"{path}: warning: {problem}")
    if errors:
        print(f"{path}: {len(errors)} error(s), {len(warnings)} warning(s): board refused")
        return 1
    printed = "the printed mat" if data.get("printed") else "a reconstruction, not checked"
    print(f"{path}: ok: board {data['board_id']!r}, spaces 0..{data['last_space']}, {printed}"
          f" ({len(warnings)} warning(s))")
    return 0
