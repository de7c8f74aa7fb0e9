"""Quantize the two face networks to 8-bit integers, the files the companion runs (issue 19).

``tools/train_faces.py`` writes the networks in 32-bit floats (``classify.TRAINED_PATH``,
``TRAINED_CLOSE_PATH``); this writes them quantized (``classify.MODEL_PATH``,
``CLOSE_MODEL_PATH``) with ONNX Runtime's static quantization: QDQ format, signed 8-bit
activations and weights (the setting its documentation names the first choice), one weight
scale per output channel, the last layer left in floats (``quantize``). The activation ranges
are calibrated on the crops the reader itself gives each network while it calibrates and reads
3-D rendered MLEM sets (``QUANT_SEEDS``, no held-out seed): the same code gives the same bytes,
and a change to what the reader shows the networks gives other ranges. Quantize again after
retraining or such a change, and measure (two versions of the reader's crops moved the tuning
sets two rolls of 720). Needs the ``onnx`` package (``tools/requirements-train.txt``):

    .venv-train/bin/python tools/quantize_faces.py

The die map stays in floats: quantized, the body path's readings moved with its peaks and
widths (bench/results/2026-12-06-peaks-searched.md, 2026-12-06-faces-int8.md).
"""

from __future__ import annotations

import argparse
import tempfile
from collections.abc import Iterator
from pathlib import Path
from unittest import mock

import numpy as np
import onnx
import onnx.version_converter
from onnxruntime.quantization import (
    CalibrationDataReader,
    QuantFormat,
    QuantType,
    quantize_static,
)

from vision import classify, uncalibrated
from vision.calibration import calibrate
from vision.classify import FaceNet
from vision.evaluate import calibration_shots, load_dataset, read_image
from vision.reader import DiceReader
from vision.render_wild import series_table, write_wild_dataset
from vision.set_reader import shipped_networks

QUANT_SEEDS = range(7001, 7013)
"""``render_wild`` seeds whose sets give the calibration crops (``bench/wild_bench.py`` holds
900001-900016 out; the tuning sets of bench/results are 5001-5048)."""
PHOTOS = 15
"""Test photos per set, besides its two calibration shots."""
SAMPLE = 3000
"""Crops per network the ranges are calibrated on, drawn from all it was given."""
BATCHES = 30
OPSET = 13
"""Per-channel scales need the ``axis`` of DequantizeLinear, which opset 13 brought; the
networks are exported at opset 11."""


def recorded_crops(root: Path) -> dict[int, np.ndarray]:
    """Every crop the float networks are given while the reader calibrates on and reads the
    ``QUANT_SEEDS`` sets (their tables ``render_wild.series_table``), by crop
    side in pixels."""
    seen: dict[int, list[np.ndarray]] = {classify.CROP_PX: [], classify.CLOSE_PX: []}
    probabilities = FaceNet.probabilities

    def recording(net: FaceNet, crops: np.ndarray) -> np.ndarray:
        seen[net.px].append(crops.copy())
        return probabilities(net, crops)

    shipped_networks.cache_clear()
    with mock.patch.object(uncalibrated, "MODEL_PATH", classify.TRAINED_PATH), \
            mock.patch.object(uncalibrated, "CLOSE_MODEL_PATH", classify.TRAINED_CLOSE_PATH), \
            mock.patch.object(FaceNet, "probabilities", recording):
        for i, seed in enumerate(QUANT_SEEDS):
            folder = root / str(seed)
            surface, light, resolution = series_table(i)
            write_wild_dataset(folder, PHOTOS, seed, surface=surface, light=light,
                               resolution=resolution)
            lines = load_dataset(folder)
            reader = DiceReader(calibrate(calibration_shots(lines)), max_dice=64)
            for line in lines:
                if line.split == "test":
                    reader.read(read_image(line.image))
    shipped_networks.cache_clear()
    return {px: np.concatenate(crops) for px, crops in seen.items()}


class _Batches(CalibrationDataReader):
    """The calibration crops as ONNX Runtime's calibrator asks for them, one feed at a time."""

    def __init__(self, input_name: str, crops: np.ndarray) -> None:
        batches = np.array_split(np.ascontiguousarray(crops.transpose(0, 3, 1, 2)), BATCHES)
        self._feeds: Iterator[dict[str, np.ndarray]] = iter({input_name: b} for b in batches)

    def get_next(self) -> dict[str, np.ndarray] | None:
        return next(self._feeds, None)


def quantize(trained: Path, out: Path, crops: np.ndarray, work: Path) -> None:
    """Write ``trained`` quantized to ``out``, its ranges calibrated on ``crops``
    (N, px, px, 3); the last layer, which gives the class scores, stays in floats (quantized
    too, the 48 tuning sets and the households of eight read 3 rolls fewer of 1,200)."""
    model = onnx.version_converter.convert_version(onnx.load(str(trained)), OPSET)
    upgraded = work / trained.name
    onnx.save(model, str(upgraded))
    sample = crops[np.random.default_rng(0).choice(len(crops), min(SAMPLE, len(crops)),
                                                   replace=False)]
    quantize_static(str(upgraded), str(out), _Batches(model.graph.input[0].name, sample),
                    quant_format=QuantFormat.QDQ, activation_type=QuantType.QInt8,
                    weight_type=QuantType.QInt8, per_channel=True,
                    nodes_to_exclude=[model.graph.node[-1].name])


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        crops = recorded_crops(work)
        for px, trained, out in (
                (classify.CROP_PX, classify.TRAINED_PATH, classify.MODEL_PATH),
                (classify.CLOSE_PX, classify.TRAINED_CLOSE_PATH, classify.CLOSE_MODEL_PATH)):
            quantize(trained, out, crops[px], work)
            print(f"{out.name}: calibrated on {min(SAMPLE, len(crops[px]))} of "
                  f"{len(crops[px])} crops")


if __name__ == "__main__":
    main()
