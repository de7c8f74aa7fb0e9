"""The `companion` entry point: a command loads only what it needs, so OpenCV and NumPy load only
for `companion vision` (`board check` and `replay` must work where OpenCV is not installed)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).parents[2]
BOARD = REPO / "companion" / "games" / "mlem" / "boards" / "reconstruction.toml"
GOLDEN = REPO / "tests" / "games" / "mlem" / "golden" / "seed-34.json"
HEAVY = ("cv2", "numpy")


def modules_after(call: str) -> list[str]:
    """The heavy modules loaded by `call` (Python code run with `companion.cli` imported)."""
    script = (f"import sys; from companion import cli; {call}; "
              f"print('loaded:', *(m for m in {HEAVY!r} if m in sys.modules))")
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          check=True, timeout=60)
    return done.stdout.splitlines()[-1].split()[1:]


@pytest.mark.parametrize("argv", [["board", "check", str(BOARD)], ["replay", str(GOLDEN)]])
def test_board_check_and_replay_load_no_opencv(argv: list[str]) -> None:
    assert modules_after(f"assert cli.main({argv!r}) == 0") == []


def test_building_the_parser_loads_no_opencv() -> None:
    assert modules_after("cli.build_parser().parse_args(['vision', 'read', 'x.png'])") == []
