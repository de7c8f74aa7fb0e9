"""How the networks are loaded: 8-bit arithmetic only where the CPU computes it exactly."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from vision import onnx_session
from vision.classify import CROP_PX, MODEL_PATH, TRAINED_PATH, FaceNet, crops
from vision.onnx_session import cpu_flags, int8_exact_on, load_session
from vision.render_wild import render_wild

CPUINFO = """processor\t: 0
vendor_id\t: AuthenticAMD
model name\t: AMD EPYC
flags\t\t: fpu sse4_2 avx avx2 fma
bogomips\t: 4890.85
"""


def test_the_flags_come_from_the_cpuinfo_flags_line(tmp_path: Path) -> None:
    info = tmp_path / "cpuinfo"
    info.write_text(CPUINFO)
    assert cpu_flags(info) == {"fpu", "sse4_2", "avx", "avx2", "fma"}


def test_a_system_without_cpuinfo_lists_no_flags(tmp_path: Path) -> None:
    assert cpu_flags(tmp_path / "missing") == set()


@pytest.mark.parametrize(("machine", "flags", "exact"), [
    ("aarch64", set(), True),  # the Pi
    ("armv7l", set(), True),
    ("x86_64", {"avx", "avx2", "fma"}, False),  # pairs of products summed into 16 bits
    ("x86_64", {"avx2", "avx512bw"}, False),
    ("x86_64", {"avx2", "avx512f", "avx512_vnni"}, True),
    ("AMD64", {"avx2", "avx_vnni"}, True),
])
def test_8_bit_arithmetic_is_exact_on_arm_and_on_x86_with_vnni(
        machine: str, flags: set[str], exact: bool) -> None:
    assert int8_exact_on(machine, flags) is exact


def test_a_cpu_without_exact_8_bit_arithmetic_runs_the_8_bit_network_in_floats(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The quantized finder without its 8-bit kernels answers as the trained network within
    what quantizing moved (0.043 on these crops; 0.18 on an AVX2 CPU in 8 bits), and the
    session says it runs so."""
    monkeypatch.setattr(onnx_session, "exact_int8", lambda: False)
    session, _ = load_session(MODEL_PATH, "face")
    assert session.get_session_options().get_session_config_entry(
        "session.disable_quant_qdq") == "1"
    floats, ints = FaceNet(TRAINED_PATH, CROP_PX), FaceNet(MODEL_PATH, CROP_PX)
    scene = render_wild(["1", "3", "5", "6"], 41, mlem=False).scene
    batch = crops(scene.image, [(d.x, d.y, d.size * k) for d in scene.dice
                                for k in (0.8, 1.0, 1.25)], CROP_PX)
    want, got = floats.probabilities(batch), ints.probabilities(batch)
    assert float(np.abs(want - got).max()) < 0.06
    assert (want.argmax(axis=1) == got.argmax(axis=1)).all()
