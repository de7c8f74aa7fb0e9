"""The bodies of `companion vision read|eval|calibrate` (the parser is `vision.cli`).

They need OpenCV and NumPy, so `vision.cli` imports this module only when a vision command runs.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable, Sequence
from pathlib import Path

import cv2
import numpy as np

from vision.calibration import add_set, calibrate, shows_fuel
from vision.evaluate import calibration_shots, evaluate, load_dataset, read_image
from vision.network_fuel import fuel_known
from vision.profile import LabelledDie, Profile
from vision.reader import DiceReader, Reading

FACES = ("1", "2", "3", "4", "5", "6", "fuel")


def _load_profile(path: Path | None) -> Profile | None:
    return Profile.load(path) if path else None


def _reading_json(reading: Reading) -> dict[str, object]:
    return {
        "dice": [{"face": d.face, "x": round(d.x, 1), "y": round(d.y, 1),
                  "size": round(d.size, 1), "confidence": d.confidence,
                  "uncertain": d.uncertain} for d in reading.dice],
        "key": list(reading.key),
        "error": reading.error,
    }


def annotate(image: np.ndarray, reading: Reading) -> np.ndarray:
    """A copy of ``image`` with a box, the face and the confidence drawn for each die."""
    out = image.copy()
    thick = max(1, round(min(image.shape[:2]) / 400))
    for d in reading.dice:
        colour = (0, 165, 255) if d.uncertain else (0, 200, 0)
        h = d.size / 2
        cv2.rectangle(out, (round(d.x - h), round(d.y - h)), (round(d.x + h), round(d.y + h)),
                      colour, thick)
        label = f"{d.face or '?'} {d.confidence:.2f}"
        cv2.putText(out, label, (round(d.x - h), round(d.y - h) - 4), cv2.FONT_HERSHEY_SIMPLEX,
                    0.35 * thick + 0.1, colour, thick)
    return out


def _read(args: argparse.Namespace) -> int:
    image = read_image(args.image)
    reading = DiceReader(_load_profile(args.profile), max_dice=args.max_dice).read(image)
    if args.annotate:
        cv2.imwrite(str(args.annotate), annotate(image, reading))
    if args.json:
        print(json.dumps(_reading_json(reading)))
    else:
        for d in reading.dice:
            flag = "  (uncertain)" if d.uncertain else ""
            print(f"{d.face or '?':>4}  at ({d.x:.0f}, {d.y:.0f})  confidence {d.confidence:.2f}"
                  f"{flag}")
        print(f"roll: {' '.join(reading.key) or '(no dice)'}")
        if reading.error:
            print(f"error: {reading.error}")
    return 1 if reading.error else 0


def _eval(args: argparse.Namespace) -> int:
    result = evaluate(args.dataset, _load_profile(args.profile), max_dice=args.max_dice)
    if args.json:
        print(json.dumps(result))
    else:
        for key in ("images", "exact_match", "die_precision", "die_recall", "face_accuracy",
                    "ms_per_image_median", "uncertain"):
            print(f"{key:>22}: {result[key]}")
    return 0


def _single_die_shot(image: np.ndarray, face: str) -> tuple[np.ndarray, list[LabelledDie]]:
    """A one-die photo labelled with ``face``: the die's position comes from the reader.

    :raises ValueError: if the photo does not show exactly one die.
    """
    found = DiceReader(Profile(), max_dice=1).read(image)
    if len(found.dice) != 1:
        # a fuel face has no pips: fall back to the frame centre of the one blob there is
        if face == "fuel" and not found.dice:
            h, w = image.shape[:2]
            return image, [LabelledDie(face, w / 2, h / 2)]
        raise ValueError(f"expected one die in the photo, saw {len(found.dice)}")
    d = found.dice[0]
    return image, [LabelledDie(face, d.x, d.y)]


def _face_of(path: Path) -> str:
    face = path.stem.split("_")[0].lower()
    if face not in FACES:
        raise ValueError(f"{path.name}: name must start with one of {', '.join(FACES)}")
    return face


def _camera_shots(index: int, faces: Sequence[str]) -> list[tuple[np.ndarray,
                                                                    list[LabelledDie]]]:
    cam = cv2.VideoCapture(index)
    if not cam.isOpened():
        raise ValueError(f"cannot open camera {index}")
    shots = []
    try:
        for face in faces:
            input(f"Put one die under the camera showing {face!r}, then press Enter: ")
            ok, frame = cam.read()
            if not ok:
                raise ValueError("the camera gave no frame")
            shots.append(_single_die_shot(frame, face))
    finally:
        cam.release()
    return shots


def _calibrate(args: argparse.Namespace) -> int:
    if args.dataset:
        shots = calibration_shots(load_dataset(args.dataset))
    elif args.images:
        shots = [_single_die_shot(read_image(p), _face_of(p))
                 for p in sorted(args.images.iterdir())
                 if p.suffix.lower() in (".jpg", ".jpeg", ".png")]
    else:
        shots = _camera_shots(args.camera, args.faces.split(","))
    if not shots:
        print("no calibration shots found", file=sys.stderr)
        return 2
    household = Profile.load(args.out) if args.add else None
    profile = add_set(household, shots) if household is not None else calibrate(shots)
    profile.save(args.out)
    print(f"profile written to {args.out}")
    if household is not None:
        print(f"it now holds {len(profile.sets())} dice sets; the shots just added:")
    learned = profile.sets()[len(household.sets()) if household is not None else 0:]
    if len(learned) > 1:
        print(f"the shots show {len(learned)} dice sets, each calibrated on its own shots")
    for number, one in enumerate(learned, 1):
        _report_set(one, f"set {number}: " if len(learned) > 1 else "", shows_fuel(shots))
    return 0


def _report_set(profile: Profile, name: str, fuel_shown: bool) -> None:
    """What calibration learned of one dice set, and what to do if it failed."""
    learned = profile.fuel or fuel_known(profile.look())
    fuel = "learned" if learned else "not learned" if fuel_shown else "not shown"
    print(f"{name}faces seen {', '.join(profile.faces_seen)}; fuel symbol {fuel}")
    if profile.self_check is not None:
        right, dice = profile.self_check
        reader = "the face network" if profile.network_reads else "its body colour"
        print(f"{name}self-check: {right} of {dice} calibration dice read back right "
              f"(less any seen that are not there); the set is read by {reader}")
    if profile.lights:
        print(f"{name}learned again from each of its {len(profile.lights)} shots alone too: "
              "the shots' light differed")
    if profile.table_marks:
        print(f"{name}marks of the table taken for dice in the shots: "
              f"{len(profile.table_marks)} (not read as dice while the camera stays put)")
    warning = profile.calibration_warning()
    if warning:
        print(f"{name}warning: {warning}")


COMMANDS: dict[str, Callable[[argparse.Namespace], int]] = {
    "read": _read, "eval": _eval, "calibrate": _calibrate}
"""Each `companion vision` subcommand's body by name."""
