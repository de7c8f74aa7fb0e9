"""`companion vision ...`: read a photo, evaluate on a dataset, calibrate a dice set.

Only the parser is here, and it imports nothing heavy: `companion` builds it for every command, and
`board check` or `replay` must not load OpenCV and NumPy (nor fail where OpenCV is not installed).
The bodies, in `vision.commands`, are imported when a vision command runs.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path


def add_subparser(subparsers: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    """Register ``vision`` with its ``read``, ``eval`` and ``calibrate`` subcommands."""
    vision = subparsers.add_parser("vision", help="read dice from photos, calibrate, evaluate")
    sub = vision.add_subparsers(dest="vision_command", required=True)
    vision.set_defaults(handler=_run)

    read = sub.add_parser("read", help="print the dice seen in one image")
    read.add_argument("image", type=Path)
    read.add_argument("--profile", type=Path)
    read.add_argument("--json", action="store_true", help="print one JSON object")
    read.add_argument("--annotate", type=Path, metavar="OUT.png",
                      help="write the image with each detection drawn")
    read.add_argument("--max-dice", type=int, default=6)

    ev = sub.add_parser("eval", help="score the reader on a dice-bench dataset (FORMAT.md)")
    ev.add_argument("dataset", type=Path)
    ev.add_argument("--profile", type=Path, help="skip calibration and use this profile")
    ev.add_argument("--json", action="store_true", help="print one JSON object")
    ev.add_argument("--max-dice", type=int, default=64)

    cal = sub.add_parser("calibrate", help="learn a dice set from labelled shots")
    src = cal.add_mutually_exclusive_group(required=True)
    src.add_argument("--dataset", type=Path,
                     help="a FORMAT.md dataset: its calibration lines are used")
    src.add_argument("--images", type=Path,
                     help="a folder of one-die photos named by face (3.jpg, fuel_2.png, ...)")
    src.add_argument("--camera", type=int, metavar="INDEX",
                     help="walk through the faces live with this OpenCV camera")
    cal.add_argument("--faces", default="1,2,3,4,fuel",
                     help="faces to show with --camera (default: the MLEM faces)")
    cal.add_argument("--out", type=Path, required=True, help="profile file to write")
    cal.add_argument("--add", action="store_true",
                     help="add this dice set to the household profile at --out (another set "
                          "of the same household) instead of replacing it")


def _run(args: argparse.Namespace) -> int:
    """Run the chosen command; a missing OpenCV, a missing file, an unreadable image or a
    malformed profile is reported in one line (exit status 2) instead of a traceback."""
    try:
        from vision.commands import COMMANDS
    except ImportError as exc:
        print(f"error: companion vision needs OpenCV (the 'opencv' extra): {exc}", file=sys.stderr)
        return 2
    try:
        return COMMANDS[args.vision_command](args)
    except (OSError, ValueError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
