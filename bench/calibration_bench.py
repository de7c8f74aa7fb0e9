"""Does calibration ever read a standard dice set worse than no calibration? (issue 20)

For each rendered set of standard dice, the owner's calibration shots are one photo per face,
one die each ("per-face"), or two photos each showing every face once ("two-shots", as
``write_dataset`` writes them). The reader is calibrated on every subset of them (``--subsets
all``) or on the singles, a few pairs and all of them (the default), and each calibrated reader
reads the set's test photos; so does the reader without calibration. Reported: per set, the
exact match without calibration, the least and mean with it, which reader calibration chose,
and over all sets the largest loss. dice-real is calibrated on every subset of three training
photos (25 dice of many designs) and read on its 50 unseen photos.

    .venv/bin/python bench/calibration_bench.py [--sets 6] [--count 25] [--subsets all]
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import tempfile
from dataclasses import replace
from itertools import combinations
from pathlib import Path
from typing import Any

import cv2

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from vision.calibration import calibrate
from vision.evaluate import Line, calibration_shots, load_dataset, reader_of, score
from vision.reader import DiceReader
from vision.render import write_dataset

DICE_REAL = Path(__file__).resolve().parents[2] / "shared" / "dice-real"
DICE_REAL_CALIBRATION = ("IMG_20191208_111650.jpg", "IMG_20191208_111847.jpg",
                         "IMG_20191208_111826.jpg")


def subsets(n: int, every: bool) -> list[tuple[int, ...]]:
    """Subsets of n shots to calibrate on: every non-empty one, or the singles, three pairs
    and all of them."""
    if every:
        return [c for k in range(1, n + 1) for c in combinations(range(n), k)]
    pairs = random.Random(n).sample(list(combinations(range(n), 2)), min(3, n * (n - 1) // 2))
    return list(dict.fromkeys([(i,) for i in range(n)] + pairs + [tuple(range(n))]))


def losses(lines: list[Line], test: list[Line], picks: list[tuple[int, ...]]
           ) -> dict[str, Any]:
    """Exact match without calibration and after calibrating on each pick of the calibration
    lines, and which reader each calibration chose."""
    shots = calibration_shots(lines)
    none = score(test, reader_of(DiceReader(max_dice=64)))["exact_match"]
    exact, body = [], 0
    for pick in picks:
        profile = calibrate([shots[i] for i in pick])
        body += not profile.network_reads and profile.look() is not None
        exact.append(score(test, reader_of(DiceReader(profile, max_dice=64)))["exact_match"])
    return {"uncalibrated": none, "calibrated_min": min(exact),
            "calibrated_mean": round(sum(exact) / len(exact), 4), "calibrations": len(picks),
            "body_path_chosen": body, "largest_loss": round(max(none - e for e in exact), 4)}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sets", type=int, default=6, help="rendered sets per condition")
    parser.add_argument("--count", type=int, default=25, help="test photos per set")
    parser.add_argument("--subsets", choices=("some", "all"), default="some")
    args = parser.parse_args(argv)
    cv2.setNumThreads(1)
    results: dict[str, dict[str, Any]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        for conditions in ("normal", "hard"):
            for seed in range(201, 201 + args.sets):
                for per_face in (True, False):
                    name = f"standard-{conditions}{seed}-{'per-face' if per_face else 'two-shots'}"
                    folder = Path(tmp) / name
                    write_dataset(folder, args.count, seed, conditions=conditions, mlem=False,
                                  shot_per_face=per_face)
                    lines = load_dataset(folder)
                    test = [line for line in lines if line.split == "test"]
                    shots = sum(line.split == "calibration" for line in lines)
                    results[name] = losses(lines, test, subsets(shots, args.subsets == "all"))
                    print(name, results[name], flush=True)
    if DICE_REAL.exists():
        lines = load_dataset(DICE_REAL)
        named = [replace(line, split="calibration") for name in DICE_REAL_CALIBRATION
                 for line in lines if line.image.name == name]
        unseen = [line for line in lines if line.tags.get("source_split") == "test"]
        results["dice-real"] = losses(named, unseen, subsets(len(named), True))
        print("dice-real", results["dice-real"], flush=True)
    worst = max(r["largest_loss"] for r in results.values())
    print(f"largest loss of exact match to calibration, over {len(results)} sets: {worst}")
    print(json.dumps(results))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
