"""Accuracy and speed of our dice reader against the peer blob reader, same images, same process.

Datasets: the real photos of ``shared/dice-real`` and two rendered sets (normal and hard conditions)
written by ``vision.render.write_dataset`` into a temporary folder. One OpenCV thread, as on a Pi.

    .venv/bin/python bench/vision_bench.py [--count 200] [--json-only] [--styles N]

Each rendered set is one dice set; ``--styles N`` adds N more rendered sets per condition (seeds
101.., 25 test photos each, each its own dice set) and reports the mean exact match over them:
how the readers fare on dice sets nobody tuned for.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path
from typing import Any

import cv2

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from peer_blob import PeerBlobReader

from vision.evaluate import calibration_shots, load_dataset, reader_of, score
from vision.profile import Profile, calibrate
from vision.reader import DiceReader

DICE_REAL = Path(__file__).resolve().parents[2] / "shared" / "dice-real"
FIGURES = ("exact_match", "face_accuracy", "die_precision", "die_recall", "ms_per_image_median")


def run_dataset(folder: Path) -> dict[str, dict[str, Any]]:
    """Both readers on one dataset; ours calibrates on its calibration lines first."""
    lines = load_dataset(folder)
    shots = calibration_shots(lines)
    profile = calibrate(shots) if shots else Profile()
    test = [line for line in lines if line.split == "test"]
    ours = score(test, reader_of(DiceReader(profile, max_dice=64)))
    peer = score(test, PeerBlobReader())
    return {"ours": ours, "peer": peer}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=int, default=200, help="test images per rendered set")
    parser.add_argument("--seed", type=int, default=2024)
    parser.add_argument("--json-only", action="store_true")
    parser.add_argument("--styles", type=int, default=0,
                        help="extra rendered dice sets per condition (25 photos each)")
    args = parser.parse_args(argv)
    cv2.setNumThreads(1)
    results: dict[str, dict[str, dict[str, Any]]] = {}
    if DICE_REAL.exists():
        results["dice-real"] = run_dataset(DICE_REAL)
    try:
        from vision.render import write_dataset
    except ImportError:
        write_dataset = None
    if write_dataset is not None:
        with tempfile.TemporaryDirectory() as tmp:
            for conditions in ("normal", "hard"):
                folder = Path(tmp) / conditions
                write_dataset(folder, args.count, args.seed, conditions=conditions)
                results[f"rendered-{conditions}"] = run_dataset(folder)
            for conditions in ("normal", "hard") if args.styles else ():
                exact: dict[str, list[float]] = {"ours": [], "peer": []}
                for seed in range(101, 101 + args.styles):
                    folder = Path(tmp) / f"{conditions}{seed}"
                    write_dataset(folder, 25, seed, conditions=conditions)
                    for who, res in run_dataset(folder).items():
                        exact[who].append(res["exact_match"])
                results[f"styles-{conditions}"] = {
                    who: {"sets": len(v), "exact_match_mean": round(sum(v) / len(v), 4),
                          "exact_match_min": min(v), "exact_match": v}
                    for who, v in exact.items()}
    if not args.json_only:
        print(f"{'dataset':<18}{'reader':<7}" + "".join(f"{f:>21}" for f in FIGURES))
        for name, pair in results.items():
            for who, res in pair.items():
                if name.startswith("styles-"):
                    print(f"{name:<18}{who:<7}{res['sets']:>4} sets, exact match mean "
                          f"{res['exact_match_mean']}, min {res['exact_match_min']}")
                    continue
                print(f"{name:<18}{who:<7}" + "".join(f"{res[f]:>21}" for f in FIGURES))
    print(json.dumps(results))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
