"""One ONNX model loaded into ONNX Runtime the way the companion's networks all run."""

from __future__ import annotations

from pathlib import Path
from typing import Any


def load_session(path: Path, what: str, threads: int = 1) -> tuple[Any, str]:
    """An inference session on ``threads`` threads and the name of its input.

    One thread unless a caller asks for more: the batches of crops are too small to share out, and
    the daemon's other threads keep the rest of the Pi. More threads do not spin while they wait
    for work (ONNX Runtime's threads do by default), so a busy machine loses little to them. The
    runtime is imported here, not at the top of a module: it adds 24 MB to the process, paid only
    where a network is loaded (every dice reader but the pip-first one loads one; importing
    ``vision`` alone does not).

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
    session = ort.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])
    return session, session.get_inputs()[0].name
