"""One ONNX model loaded into ONNX Runtime the way the companion's networks all run."""

from __future__ import annotations

import logging
import platform
from functools import cache
from pathlib import Path
from typing import Any

log = logging.getLogger(__name__)

X86 = {"x86_64", "amd64", "i386", "i686", "x86"}
"""``platform.machine()`` names of the x86 processors (lower case)."""

EXACT_INT8_FLAGS = {"avx512_vnni", "avx_vnni", "amx_int8"}
"""The x86 CPU features (``/proc/cpuinfo`` flags) with which ONNX Runtime multiplies 8-bit
numbers exactly: its kernels for x86 without them add the products in pairs into 16 bits,
which overflow (ONNX Runtime's documentation calls it saturation). On an AMD EPYC with AVX2
alone the quantized finder's answers strayed up to 0.18 from the trained network's, against
0.043 computed exactly (216 crops of 3-D rendered dice, ``test_classify``)."""


def load_session(path: Path, what: str, threads: int = 1) -> tuple[Any, str]:
    """An inference session on ``threads`` threads and the name of its input.

    One thread unless a caller asks for more: the batches of crops are too small to share out, and
    the daemon's other threads keep the rest of the Pi. More threads do not spin while they wait
    for work (ONNX Runtime's threads do by default), so a busy machine loses little to them. The
    runtime is imported here, not at the top of a module: it adds 24 MB to the process, paid only
    where a network is loaded (every dice reader but the pip-first one loads one; importing
    ``vision`` alone does not).

    An 8-bit network runs in 8-bit arithmetic only where the CPU computes it exactly
    (``exact_int8``): elsewhere its quantized weights and activations are multiplied in floats
    (``session.disable_quant_qdq``): the exact arithmetic's answers to float rounding, so a
    photo reads as on the Pi on a developer's machine and in CI, in 1.8 times the 8-bit
    kernels' time (1.4 times the float network's; bench/results/2026-12-07-exact-int8.md).

    :raises OSError: naming ``what`` when the file is missing.
    """
    if not path.is_file():
        raise OSError(f"no {what} model at {path}")
    import onnxruntime as ort

    options = ort.SessionOptions()
    options.intra_op_num_threads = threads
    if threads > 1:
        options.add_session_config_entry("session.intra_op.allow_spinning", "0")
    options.inter_op_num_threads = 1
    if not exact_int8():
        options.add_session_config_entry("session.disable_quant_qdq", "1")
    session = ort.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])
    return session, session.get_inputs()[0].name


@cache
def exact_int8() -> bool:
    """Does ONNX Runtime multiply 8-bit numbers exactly on this CPU (``int8_exact_on``)? Logged
    where not: the networks then take longer."""
    exact = int8_exact_on(platform.machine(), cpu_flags())
    if not exact:
        log.info("this CPU does not multiply 8-bit numbers exactly (no VNNI): "
                 "the 8-bit face networks run in floats")
    return exact


def int8_exact_on(machine: str, flags: set[str]) -> bool:
    """Does ONNX Runtime multiply 8-bit numbers exactly on a ``machine`` (as
    ``platform.machine()`` names it) with the CPU features ``flags``? On Arm (the Pi) it does;
    on x86 only with one of ``EXACT_INT8_FLAGS``."""
    return machine.lower() not in X86 or bool(EXACT_INT8_FLAGS & flags)


def cpu_flags(cpuinfo: Path = Path("/proc/cpuinfo")) -> set[str]:
    """The CPU's feature flags as Linux lists them (none where it does not)."""
    try:
        text = cpuinfo.read_text(encoding="ascii", errors="replace")
    except OSError:
        return set()
    for line in text.splitlines():
        name, _, value = line.partition(":")
        if name.strip() == "flags":
            return set(value.split())
    return set()
