"""Accuracy and speed of a dice reader on a dataset in the shared dice-bench format (FORMAT.md).

Protocol: calibrate on the ``calibration`` lines (with labels), read the ``test`` images, score.
A detection matches a labelled die when its centre lies within half that die's width of the label,
greedily nearest first and one to one. The width comes from the label (``w``/``h`` or ``size``)
or, failing that, from the reader's own size estimate.
"""

from __future__ import annotations

import json
import statistics
import time
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from vision.calibration import calibrate
from vision.profile import LabelledDie, Profile
from vision.reader import DiceReader


@dataclass(frozen=True)
class Label:
    """One labelled die: face, centre and, if the dataset gives it, the width in pixels."""

    face: str
    x: float
    y: float
    width: float | None


@dataclass(frozen=True)
class Line:
    """One image of a dataset with its labels and condition tags."""

    image: Path
    split: str
    dice: tuple[Label, ...]
    tags: dict[str, str]


@dataclass(frozen=True)
class Found:
    """A detection as the scorer sees it (any reader's output fits this)."""

    face: str | None
    x: float
    y: float
    size: float
    uncertain: bool = False


Reader = Callable[[np.ndarray], Sequence[Found]]
"""What the evaluation needs from a reader: one BGR image in, detections out."""


def _width(d: dict[str, Any]) -> float | None:
    if "size" in d:
        return float(d["size"])
    if "w" in d or "h" in d:
        return float(max(d.get("w", 0.0), d.get("h", 0.0)))
    return None


def load_dataset(folder: Path) -> list[Line]:
    """Parse ``labels.jsonl`` of a dataset folder.

    :raises FileNotFoundError: if the folder has no labels.jsonl.
    :raises ValueError: for a line without ``image``, ``split`` or ``dice``.
    """
    lines = []
    text = (folder / "labels.jsonl").read_text(encoding="utf-8")
    for n, raw in enumerate(text.splitlines(), 1):
        if not raw.strip():
            continue
        obj = json.loads(raw)
        try:
            dice = tuple(Label(str(d["face"]), float(d["x"]), float(d["y"]), _width(d))
                         for d in obj["dice"])
            tags = {k: str(v) for k, v in obj.items()
                    if k not in ("image", "split", "dice") and isinstance(v, str)}
            lines.append(Line(folder / obj["image"], str(obj["split"]), dice, tags))
        except (KeyError, TypeError) as exc:
            raise ValueError(f"labels.jsonl line {n}: {exc}") from exc
    return lines


def read_image(path: Path) -> np.ndarray:
    """Decode an image file as BGR.

    :raises ValueError: if the file is missing or cannot be decoded.
    """
    if not path.is_file():
        raise ValueError(f"no image file {path}")
    image = cv2.imread(str(path), cv2.IMREAD_COLOR)
    if image is None:
        raise ValueError(f"cannot read image {path}")
    return image


def match(found: Sequence[Found], labels: Sequence[Label]) -> list[tuple[int, int]]:
    """Greedy nearest-first one-to-one matching within half a die width of each label."""
    pairs = []
    for i, f in enumerate(found):
        for j, lab in enumerate(labels):
            width = lab.width if lab.width else f.size
            d = float(np.hypot(f.x - lab.x, f.y - lab.y))
            if d <= 0.5 * width:
                pairs.append((d, i, j))
    pairs.sort()
    used_f: set[int] = set()
    used_l: set[int] = set()
    out = []
    for _, i, j in pairs:
        if i not in used_f and j not in used_l:
            used_f.add(i)
            used_l.add(j)
            out.append((i, j))
    return out


@dataclass
class _Tally:
    """Running counts for one slice of the test set (all images, or one tag value)."""

    images: int = 0
    exact: int = 0
    found: int = 0
    labelled: int = 0
    matched: int = 0
    right: int = 0
    asked: int = 0
    wrong_unasked: int = 0

    def add(self, found: Sequence[Found], labels: Sequence[Label],
            pairs: list[tuple[int, int]]) -> None:
        exact = Counter(f.face for f in found) == Counter(lab.face for lab in labels)
        self.images += 1
        self.exact += exact
        self.found += len(found)
        self.labelled += len(labels)
        self.matched += len(pairs)
        self.right += sum(found[i].face == labels[j].face for i, j in pairs)
        # the table knows how many dice were thrown: it asks a person when the count is off or
        # a die is uncertain; a wrong roll it does not ask about is the error players meet
        ask = len(found) != len(labels) or any(f.uncertain for f in found)
        self.asked += ask
        self.wrong_unasked += not ask and not exact

    def summary(self) -> dict[str, float | int]:
        return {
            "images": self.images,
            "exact_match": _ratio(self.exact, self.images),
            "die_precision": _ratio(self.matched, self.found),
            "die_recall": _ratio(self.matched, self.labelled),
            "face_accuracy": _ratio(self.right, self.matched),
            "rolls_asked": _ratio(self.asked, self.images),
            "rolls_wrong_unasked": _ratio(self.wrong_unasked, self.images),
        }


def _ratio(a: int, b: int) -> float:
    return round(a / b, 4) if b else 0.0


def score(test: Sequence[Line], reader: Reader,
          load: Callable[[Path], np.ndarray] = read_image) -> dict[str, Any]:
    """Run ``reader`` on every test line and score it (FORMAT.md), with breakdowns."""
    total = _Tally()
    by_tag: dict[str, dict[str, _Tally]] = {}
    per_face: dict[str, list[int]] = {}
    times: list[float] = []
    uncertain = 0
    for line in test:
        image = load(line.image)
        t0 = time.perf_counter()
        found = list(reader(image))
        times.append((time.perf_counter() - t0) * 1000.0)
        pairs = match(found, line.dice)
        total.add(found, line.dice, pairs)
        for key, value in line.tags.items():
            by_tag.setdefault(key, {}).setdefault(value, _Tally()).add(found, line.dice, pairs)
        uncertain += sum(f.uncertain for f in found)
        for i, j in pairs:
            counts = per_face.setdefault(line.dice[j].face, [0, 0])
            counts[0] += 1
            counts[1] += found[i].face == line.dice[j].face
    return {
        **total.summary(),
        "ms_per_image_median": round(statistics.median(times), 2) if times else 0.0,
        "uncertain": uncertain,
        "face_accuracy_by_face": {f: _ratio(c[1], c[0]) for f, c in sorted(per_face.items())},
        "by_tag": {k: {v: t.summary() for v, t in sorted(vals.items())}
                   for k, vals in sorted(by_tag.items()) if len(vals) > 1 or k == "background"},
    }


def calibration_shots(lines: Sequence[Line]) -> list[tuple[np.ndarray, list[LabelledDie]]]:
    """The calibration lines as (image, labelled dice) pairs, ready for ``calibrate``."""
    return [(read_image(line.image), [LabelledDie(d.face, d.x, d.y) for d in line.dice])
            for line in lines if line.split == "calibration"]


def reader_of(dice_reader: DiceReader) -> Reader:
    """Adapt a :class:`DiceReader` to the scorer's interface."""
    def run(image: np.ndarray) -> list[Found]:
        return [Found(d.face, d.x, d.y, d.size, d.uncertain)
                for d in dice_reader.read(image).dice]
    return run


def evaluate(folder: Path, profile: Profile | None = None, *, max_dice: int = 64,
             ) -> dict[str, Any]:
    """The whole FORMAT.md protocol for our reader on one dataset folder.

    With no ``profile`` one is calibrated from the dataset's calibration lines (a household's
    where they show several sets, ``shot_sets``; the default profile if there are none).
    ``max_dice`` is lifted well above the table's 6 because benchmark photos hold up to 25
    dice.
    """
    lines = load_dataset(folder)
    if profile is None:
        shots = calibration_shots(lines)
        profile = calibrate(shots) if shots else Profile()
    reader = DiceReader(profile, max_dice=max_dice)
    result = score([line for line in lines if line.split == "test"], reader_of(reader))
    return {"dataset": str(folder), "calibrated": bool(profile.faces_seen),
            "dice_sets": len(profile.sets()), **result}
