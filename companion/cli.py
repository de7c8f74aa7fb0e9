"""The `companion` command: one entry point, one module per subcommand under `commands/`."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from vision import cli as vision_cli

from .commands import board, replay, run, simulate, transcript


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="companion",
        description="MLEM: Space Agency table companion. With no command: `companion run`"
        " (the demo on a machine without a Pi).",
    )
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    for module in (run, board, replay, simulate, transcript):
        module.register(subparsers)
    vision_cli.add_subparser(subparsers)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.command is None:
        args = parser.parse_args(["run"])
    try:
        result: int = args.handler(args)
    except BrokenPipeError:  # `companion ... | head`
        return 0
    return result


if __name__ == "__main__":
    sys.exit(main())
