"""Where the pips sit on a standard die face: the one layout table the renderer and readers share.

Positions are on a 3x3 grid, (-1, -1) top left to (1, 1) bottom right, before any rotation.
"""

from __future__ import annotations

PIP_GRID: dict[str, tuple[tuple[int, int], ...]] = {
    "1": ((0, 0),),
    "2": ((-1, -1), (1, 1)),
    "3": ((-1, -1), (0, 0), (1, 1)),
    "4": ((-1, -1), (1, -1), (-1, 1), (1, 1)),
    "5": ((-1, -1), (1, -1), (0, 0), (-1, 1), (1, 1)),
    "6": ((-1, -1), (-1, 0), (-1, 1), (1, -1), (1, 0), (1, 1)),
}
