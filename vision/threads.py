"""The reader's native libraries on one thread each.

A frame's work comes in small pieces (a 42 px face matched against a few dozen templates, a
crop of 32 px through a network): too small to share out, and on a busy machine a pool of
threads spinning for each piece costs more than the piece. OpenBLAS's own threads made the
calibrated path five times slower on this 2-core machine while another process ran (frames of
dice the calibration did not describe: 406 ms median against 77 ms on one thread), and the
daemon on a Pi always runs beside its web server. ONNX Runtime's sessions are set to one
thread where they are made (``onnx_session.py``), but for the die map's: a whole frame through
its network is the one piece worth two threads, which do not spin (``diemap.THREADS``).
"""

from __future__ import annotations

import cv2
from threadpoolctl import threadpool_limits


def one_thread() -> None:
    """Run OpenCV and the BLAS NumPy calls on one thread, for the whole process."""
    cv2.setNumThreads(1)
    threadpool_limits(limits=1, user_api="blas")
