"""Held-out evaluation of the dice reader on photos from a renderer it was never tuned on.

``vision.render_wild`` draws 3-D rounded dice under a tilted camera, on six surfaces under
four lights, at 640x480 and 1280x720 (issue 19). The seeds 900001 to 900016 are reserved for
this evaluation: no training, threshold or design choice may use photos rendered from them;
training and tuning use other seeds. MLEM sets are seeds 900001.., standard sets 900009..;
each set is one dice set on one table, and set i gets surface i mod 6, light i mod 4 and a
frame size chosen so that both sizes meet every light once four sets are drawn
(``render_wild.series_table``). Hard conditions photograph the same sets on the same tables
under a harsher light with a worse camera, dice pushed flush together
(``wild_optics.Hard``), calibration shots included.

For each kind of dice: (a) each set calibrated on its own two shots, (b) all sets' test photos
in one pool read by one household profile holding every set (each calibrated on its own shots,
``companion vision calibrate --add``), (c) the pool read by one calibration on every set's
shots (``companion vision eval`` on one dataset holding every set: calibration tells the sets
apart, ``vision.shot_sets``), (d) the pool read with the first set's calibration, (e) the pool
read uncalibrated. One OpenCV thread, as on a Pi.

    .venv/bin/python bench/wild_bench.py [--sets 8] [--count 25] [--conditions normal,hard]
        [--kinds mlem,standard] [--json-only] [--keep DIR]
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

import cv2

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from vision.calibration import calibrate
from vision.evaluate import Line, calibration_shots, load_dataset, reader_of, score
from vision.profile import Profile
from vision.reader import DiceReader
from vision.render_wild import series_table, write_wild_dataset
from vision.shot_sets import Shot

EVAL_SEEDS = range(900001, 900017)
"""Reserved for evaluation: never train or tune on photos rendered from these seeds."""
MAX_SETS = 8
KINDS = {"mlem": EVAL_SEEDS[:MAX_SETS], "standard": EVAL_SEEDS[MAX_SETS:]}
FIGURES = ("exact_match", "face_accuracy", "die_recall", "die_precision", "ms_per_image_median")
TAGS = ("surface", "light", "resolution", "tilt")


def write_sets(root: Path, kind: str, sets: int, count: int, hard: bool = False) -> list[Path]:
    """The evaluation datasets of one kind of dice, conditions cycled as the docstring says."""
    folders = []
    for i, seed in enumerate(KINDS[kind][:sets]):
        folder = root / f"{kind}-{seed}{'-hard' if hard else ''}"
        surface, light, resolution = series_table(i)
        write_wild_dataset(folder, count, seed, mlem=kind == "mlem", surface=surface,
                           light=light, resolution=resolution, hard=hard)
        folders.append(folder)
    return folders


def run_kind(folders: Sequence[Path]) -> dict[str, Any]:
    """(a) per set calibrated, (b) the pool read by a household profile holding every set, each
    calibrated on its own shots, (c) the pool read by one calibration on every set's shots, as
    ``companion vision eval`` calibrates a dataset holding them all, (d) the pool with the
    first set's calibration, (e) the pool uncalibrated."""
    per_set = []
    pool: list[Line] = []
    profiles: list[Profile] = []
    every_shot: list[Shot] = []
    for folder in folders:
        lines = load_dataset(folder)
        shots = calibration_shots(lines)
        every_shot += shots
        profile = calibrate(shots)
        profiles.append(profile)
        test = [line for line in lines if line.split == "test"]
        pool += test
        result = score(test, reader_of(DiceReader(profile, max_dice=64)))
        per_set.append({"set": folder.name, **{t: test[0].tags.get(t, "") for t in TAGS},
                        **{f: result[f] for f in FIGURES}, "images": result["images"]})
    first, *others = profiles
    household = replace(first, more_sets=tuple(others))
    return {
        "own": {"sets": per_set, **_mean(per_set), "by_tag": _by_tag(per_set)},
        "household": _pooled(score(pool, reader_of(DiceReader(household, max_dice=64)))),
        "one calibration": _pooled(score(pool, reader_of(DiceReader(calibrate(every_shot),
                                                                    max_dice=64)))),
        "first": _pooled(score(pool, reader_of(DiceReader(first, max_dice=64)))),
        "uncalibrated": _pooled(score(pool, reader_of(DiceReader(max_dice=64)))),
    }


def _mean(rows: Sequence[dict[str, Any]]) -> dict[str, float]:
    """Image-weighted means of the figures over sets (for the time: of the sets' medians), and
    the least exact match."""
    images = sum(r["images"] for r in rows)
    out = {f: round(sum(r[f] * r["images"] for r in rows) / images, 4) for f in FIGURES}
    return {**out, "exact_match_min": min(r["exact_match"] for r in rows), "images": images}


def _by_tag(rows: Sequence[dict[str, Any]]) -> dict[str, dict[str, float]]:
    """Exact match per condition (a set's table fixes its surface, light and frame size)."""
    return {tag: {value: _mean([r for r in rows if r[tag] == value])["exact_match"]
                  for value in sorted({r[tag] for r in rows})} for tag in TAGS}


def _pooled(result: dict[str, Any]) -> dict[str, Any]:
    return {**{f: result[f] for f in FIGURES}, "images": result["images"],
            "by_tag": {tag: {v: s["exact_match"] for v, s in result["by_tag"].get(tag, {}).items()}
                       for tag in TAGS}}


def report(results: dict[str, dict[str, Any]]) -> str:
    """The figures as Markdown tables."""
    out = ["| dice | reading | images | " + " | ".join(FIGURES) + " |",
           "| --- | --- | --- |" + " --- |" * len(FIGURES)]
    for kind, runs in results.items():
        for name, res in runs.items():
            out.append(f"| {kind} | {name} | {res['images']} | "
                       + " | ".join(str(res[f]) for f in FIGURES) + " |")
    for kind, runs in results.items():
        out += ["", f"{kind}, each set calibrated on its own shots:", "",
                "| set | " + " | ".join(TAGS) + " | exact | face acc. | recall | precision |",
                "| --- |" + " --- |" * (len(TAGS) + 4)]
        for r in runs["own"]["sets"]:
            out.append(f"| {r['set']} | " + " | ".join(r[t] for t in TAGS) + " | " + " | ".join(
                str(r[f]) for f in ("exact_match", "face_accuracy", "die_recall",
                                    "die_precision")) + " |")
        out += ["", f"{kind}, exact match by condition (own calibration / household / one "
                "calibration / first set's / none):", ""]
        for tag in TAGS:
            values = runs["own"]["by_tag"][tag]
            cells = [f"{v} {values[v]} / " + " / ".join(
                str(runs[name]["by_tag"][tag].get(v, "-"))
                for name in ("household", "one calibration", "first", "uncalibrated"))
                for v in values]
            out.append(f"- {tag}: " + "; ".join(cells))
    return "\n".join(out)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sets", type=int, default=MAX_SETS, help=f"sets per kind, 1-{MAX_SETS}")
    parser.add_argument("--count", type=int, default=25, help="test photos per set")
    parser.add_argument("--kinds", default="mlem,standard")
    parser.add_argument("--conditions", default="normal,hard")
    parser.add_argument("--keep", type=Path, help="write the datasets here and keep them")
    parser.add_argument("--json-only", action="store_true")
    args = parser.parse_args(argv)
    if not 1 <= args.sets <= MAX_SETS:
        parser.error(f"--sets must be 1 to {MAX_SETS}")
    unknown = sorted(set(args.kinds.split(",")) - set(KINDS)) + sorted(
        set(args.conditions.split(",")) - {"normal", "hard"})
    if unknown:
        parser.error(f"unknown kinds or conditions {unknown}: kinds {sorted(KINDS)}, "
                     "conditions normal, hard")
    cv2.setNumThreads(1)
    results = {}
    with tempfile.TemporaryDirectory() as tmp:
        root = args.keep or Path(tmp)
        for conditions in args.conditions.split(","):
            for kind in args.kinds.split(","):
                hard = conditions == "hard"
                name = f"{kind} hard" if hard else kind
                results[name] = run_kind(write_sets(root, kind, args.sets, args.count, hard))
    if not args.json_only:
        print(report(results))
    print(json.dumps(results))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
