"""A household with two dice sets, one profile: does it read each set's rolls as well as that
set's own profile, and at what cost? (issue 19)

Pairs of rendered MLEM sets, each calibrated on its own two shots; the household's profile holds
both (``vision.calibration.add_set``). Each pair's rolls (``--rolls`` per set, alternating
between the two sets, which no table does: the worst case for trying the last frame's set
first) are read by each set's own profile, by the other set's, and by the household's.

    .venv/bin/python bench/household_bench.py [--rolls 20]
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from vision.calibration import add_set, calibrate
from vision.profile import LabelledDie
from vision.reader import DiceReader
from vision.render import MLEM_FACES, DiceStyle, random_faces, render_roll

PAIRS = ((3, 10), (21, 5), (7, 12), (31, 44))
"""Dice-set seeds of ``DiceStyle.random``, two sets a household."""


def shots(style: DiceStyle, conditions: str) -> list[tuple[np.ndarray, list[LabelledDie]]]:
    """Two calibration shots, each showing every MLEM face once."""
    out = []
    for seed in (101, 102):
        scene = render_roll(list(dict.fromkeys(MLEM_FACES)), seed, style=style,
                            conditions=conditions)
        out.append((scene.image, [LabelledDie(d.face, d.x, d.y) for d in scene.dice]))
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rolls", type=int, default=20, help="rolls per set and pair")
    args = parser.parse_args(argv)
    results = {}
    for conditions in ("normal", "hard"):
        right: dict[str, int] = {}
        ms: dict[str, list[float]] = {}
        for a, b in PAIRS:
            styles = [DiceStyle.random(random.Random(s), conditions=conditions) for s in (a, b)]
            first, second = (calibrate(shots(s, conditions)) for s in styles)
            readers = {"own profile": {0: DiceReader(first), 1: DiceReader(second)},
                       "other set's profile": {0: DiceReader(second), 1: DiceReader(first)},
                       "household": {0: (house := DiceReader(add_set(first, shots(
                           styles[1], conditions)))), 1: house}}
            throws = random.Random(a * 1000 + b)
            for i in range(args.rolls):
                faces = random_faces(throws, throws.randint(1, 6))
                for k, style in enumerate(styles):
                    image = render_roll(faces, 9000 + i, style=style,
                                        conditions=conditions).image
                    for who, by_set in readers.items():
                        start = time.perf_counter()
                        key = by_set[k].read(image).key
                        ms.setdefault(who, []).append(1000 * (time.perf_counter() - start))
                        right[who] = right.get(who, 0) + (key == tuple(sorted(faces)))
        rolls = 2 * args.rolls * len(PAIRS)
        results[conditions] = {who: {"exact_match": round(n / rolls, 3),
                                     "ms_median": round(statistics.median(ms[who]), 1)}
                               for who, n in right.items()}
        for who, res in results[conditions].items():
            print(f"{conditions:<7}{who:<22}exact {res['exact_match']:.3f}  "
                  f"{res['ms_median']:.1f} ms")
    print(json.dumps(results))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
