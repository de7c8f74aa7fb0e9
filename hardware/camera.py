"""Cameras that watch the dice tray, all behind the ``Camera`` protocol (BGR uint8 frames).

- ``PiCamera``: the Raspberry Pi camera through picamera2 (only importable on Raspberry Pi OS).
- ``UsbCamera``: a USB webcam through OpenCV; after a failed read it reopens the device on the
  next read, so unplugging and plugging it back in recovers by itself.
- ``FolderCamera``: replays image files in name order (recorded sessions, test sets).
- ``SimulatedCamera``: photographs simulated dice (``vision.render``) for the demo mode and the
  daemon's tests: ``throw()`` rolls dice in, ``clear()`` empties the tray, ``fail()`` unplugs.

``create_camera(kind, **options)`` builds one by name from the config.
"""

from __future__ import annotations

import contextlib
import inspect
import random
import sys
import threading
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from hardware.base import Camera, HardwareError

# the FOURCC code "MJPG" as OpenCV's VideoWriter_fourcc computes it (that name is untyped)
_MJPG = sum(ord(c) << (8 * i) for i, c in enumerate("MJPG"))
IMAGE_SUFFIXES = frozenset({".png", ".jpg", ".jpeg", ".bmp", ".tif", ".tiff", ".webp"})


def _as_bgr(frame: Any, source: str) -> np.ndarray:
    """A contiguous HxWx3 uint8 BGR copy of ``frame`` (grey and BGRA are converted).

    :raises HardwareError: not an image.
    """
    if not isinstance(frame, np.ndarray) or frame.size == 0 or frame.dtype != np.uint8:
        raise HardwareError(f"{source} gave no usable frame")
    if frame.ndim == 2:
        return cv2.cvtColor(frame, cv2.COLOR_GRAY2BGR)
    if frame.ndim == 3 and frame.shape[2] == 4:
        return cv2.cvtColor(frame, cv2.COLOR_BGRA2BGR)
    if frame.ndim == 3 and frame.shape[2] == 3:
        return np.ascontiguousarray(frame).copy()
    raise HardwareError(f"{source} gave a frame of shape {frame.shape}")


class PiCamera:
    """The Raspberry Pi camera (libcamera through picamera2), streaming at ``resolution``.

    The main stream is configured as ``RGB888``, which picamera2 delivers as [B, G, R] per pixel
    (libcamera names formats by the little-endian word), i.e. exactly OpenCV's BGR.
    """

    def __init__(self, resolution: tuple[int, int] = (1280, 720), camera_num: int = 0) -> None:
        """:raises HardwareError: picamera2 is missing or no camera answers."""
        try:
            from picamera2 import Picamera2
        except ImportError as e:
            raise HardwareError(
                f"the Pi camera needs picamera2 (Raspberry Pi OS: apt install python3-picamera2;"
                f" in a venv, create it with --system-site-packages): {e}"
            ) from e
        self._lock = threading.Lock()
        self._closed = False
        self._camera: Any = None
        try:
            self._camera = Picamera2(camera_num)
            config = self._camera.create_video_configuration(
                main={"size": tuple(resolution), "format": "RGB888"}
            )
            self._camera.configure(config)
            self._camera.start()
        except Exception as e:  # no camera (IndexError), busy (RuntimeError), ...
            self.close()
            raise HardwareError(f"Pi camera {camera_num} did not start: {e}") from e

    def read(self) -> np.ndarray:
        """The next frame from the main stream, BGR.

        :raises HardwareError: the camera stopped answering, or it is closed.
        """
        with self._lock:
            if self._closed:
                raise HardwareError("Pi camera is closed")
            try:
                frame = self._camera.capture_array("main")
            except Exception as e:
                raise HardwareError(f"Pi camera read failed: {e}") from e
        return _as_bgr(frame, "Pi camera")

    def close(self) -> None:
        """Stop and release the camera; a second call does nothing."""
        with self._lock:
            if self._closed:
                return
            self._closed = True
            camera, self._camera = self._camera, None
        if camera is None:
            return
        for step in (camera.stop, camera.close):
            with contextlib.suppress(Exception):  # releasing must not fail if the camera is gone
                step()


class UsbCamera:
    """A USB webcam (V4L2 on Linux) through ``cv2.VideoCapture``.

    ``device`` is an index (0 for /dev/video0) or a device path. A failed read releases the
    device; the next read opens it again, which is how a replugged camera comes back.
    """

    def __init__(
        self,
        device: int | str = 0,
        resolution: tuple[int, int] = (1280, 720),
        *,
        capture_factory: Callable[..., Any] | None = None,
    ) -> None:
        """Open the camera now, to find a wrong ``device`` at start-up.

        ``capture_factory(device, api)`` replaces ``cv2.VideoCapture`` (tests).

        :raises HardwareError: the device cannot be opened.
        """
        self.device = device
        self.resolution = (int(resolution[0]), int(resolution[1]))
        self._factory = capture_factory or cv2.VideoCapture
        self._api = cv2.CAP_V4L2 if sys.platform.startswith("linux") else cv2.CAP_ANY
        self._lock = threading.Lock()
        self._capture: Any = None
        self._closed = False
        self._open()

    def read(self) -> np.ndarray:
        """The next frame, BGR; reopens the device first if the last read failed.

        :raises HardwareError: no frame (unplugged, busy), or the camera is closed.
        """
        with self._lock:
            if self._closed:
                raise HardwareError(f"USB camera {self.device} is closed")
            if self._capture is None:
                self._open()
            try:
                ok, frame = self._capture.read()
            except cv2.error as e:
                ok, frame = False, None
                reason = str(e)
            else:
                reason = "no frame"
            if not ok or frame is None:
                self._release()
                raise HardwareError(f"USB camera {self.device}: {reason}")
        return _as_bgr(frame, f"USB camera {self.device}")

    def close(self) -> None:
        """Release the device; a second call does nothing."""
        with self._lock:
            self._closed = True
            self._release()

    def _open(self) -> None:
        """Open the device and ask for MJPG at ``resolution`` (uncompressed 720p is too much
        for USB 2 at a useful frame rate); keep only one buffered frame so reads are fresh.
        """
        try:
            capture = self._factory(self.device, self._api)
            opened = bool(capture.isOpened())
        except cv2.error as e:
            raise HardwareError(f"USB camera {self.device} cannot be opened: {e}") from e
        if not opened:
            capture.release()
            raise HardwareError(f"USB camera {self.device} cannot be opened")
        width, height = self.resolution
        capture.set(cv2.CAP_PROP_FOURCC, _MJPG)
        capture.set(cv2.CAP_PROP_FRAME_WIDTH, width)
        capture.set(cv2.CAP_PROP_FRAME_HEIGHT, height)
        capture.set(cv2.CAP_PROP_BUFFERSIZE, 1)
        self._capture = capture

    def _release(self) -> None:
        capture, self._capture = self._capture, None
        if capture is not None:
            with contextlib.suppress(cv2.error):
                capture.release()


class FolderCamera:
    """Replays the images of ``folder`` in name order, each one ``hold`` reads in a row.

    ``hold`` lets a still photo be seen several times, as the settle logic needs before it
    trusts a reading. With ``loop`` the replay starts over; without it, the end is a failure.
    """

    def __init__(self, folder: str | Path, *, loop: bool = True, hold: int = 1) -> None:
        """:raises HardwareError: the folder has no images. :raises ValueError: ``hold < 1``."""
        if hold < 1:
            raise ValueError(f"hold must be at least 1, not {hold}")
        self.folder = Path(folder)
        self.loop = loop
        self.hold = hold
        self.files = sorted(p for p in self._list() if p.suffix.lower() in IMAGE_SUFFIXES)
        if not self.files:
            raise HardwareError(f"no images in {self.folder}")
        self._lock = threading.Lock()
        self._reads = 0
        self._current: tuple[int, np.ndarray] | None = None
        self._closed = False

    def read(self) -> np.ndarray:
        """The next frame.

        :raises HardwareError: the file cannot be decoded, the replay ended, or it is closed.
        """
        with self._lock:
            if self._closed:
                raise HardwareError(f"folder camera {self.folder} is closed")
            index = self._reads // self.hold
            if index >= len(self.files) and not self.loop:
                raise HardwareError(f"folder camera {self.folder}: end of the recording")
            index %= len(self.files)
            self._reads += 1
            if self._current is None or self._current[0] != index:
                path = self.files[index]
                image = cv2.imread(str(path), cv2.IMREAD_COLOR)
                if image is None:
                    raise HardwareError(f"cannot decode {path}")
                self._current = (index, image)
            return self._current[1].copy()

    def close(self) -> None:
        """Forget the cached frame; a second call does nothing."""
        with self._lock:
            self._closed = True
            self._current = None

    def _list(self) -> list[Path]:
        try:
            return [p for p in self.folder.iterdir() if p.is_file()]
        except OSError as e:
            raise HardwareError(f"cannot read {self.folder}: {e}") from e


LabelledFace = tuple[str, float, float]
"""A die of a labelled shot: face, x, y (the centre of its top face)."""
CALIBRATION_LAYOUT = 1_000_000
"""Layouts of the simulated calibration shots: far from any throw's layout number."""


class SimulatedCamera:
    """A camera over a simulated tray: ``throw(faces)`` shows a few frames of dice tumbling
    (other faces, other places, motion blur), then the settled throw over and over; ``clear()``
    shows the empty tray; ``fail(True)`` makes every read fail like an unplugged camera.

    Frames are rendered when read, not when thrown, so ``throw`` is cheap for the caller (a web
    request); the settled frame is rendered once and served as copies.
    """

    def __init__(
        self,
        seed: int = 0,
        width: int = 1280,
        height: int = 720,
        *,
        conditions: str = "normal",
        rolling_frames: int = 3,
    ) -> None:
        """:raises ValueError: ``rolling_frames < 0``, or a size or conditions ``vision.render``
        does not accept (checked on the first read).
        """
        if rolling_frames < 0:
            raise ValueError(f"rolling_frames must be >= 0, not {rolling_frames}")
        self.seed = seed
        self.width, self.height = width, height
        self.conditions = conditions
        self.rolling_frames = rolling_frames
        self._lock = threading.Lock()
        self._throws = 0
        self._faces: tuple[str, ...] = ()
        self._queue: list[tuple[str, ...] | None] = []  # rolling frames still to show
        self._settled: np.ndarray | None = None
        self._failing = False
        self._closed = False
        self._render_lock = threading.Lock()

    @property
    def faces(self) -> tuple[str, ...]:
        """The faces of the settled throw on the tray (empty after ``clear()``)."""
        return self._faces

    def calibration_shots(self, count: int = 2) -> list[tuple[np.ndarray, list[LabelledFace]]]:
        """"Show each face once": labelled photos of this tray's dice set, as an owner takes them
        for `companion vision calibrate`, so the demo reads dice through a calibrated profile."""
        from vision.render import MLEM_FACES, render_roll

        faces = sorted(set(MLEM_FACES))
        shots = []
        for shot in range(count):
            scene = render_roll(faces, self.seed, width=self.width, height=self.height,
                                conditions=self.conditions, layout=CALIBRATION_LAYOUT + shot)
            shots.append((scene.image, [(d.face, d.x, d.y) for d in scene.dice]))
        return shots

    def throw(self, faces: Sequence[str]) -> None:
        """Throw dice showing ``faces`` (1..6 of "1".."6", "fuel") onto the tray.

        :raises ValueError: no dice, more than six, or an unknown face.
        """
        from vision.render import FACES, MAX_DICE

        faces = tuple(str(f) for f in faces)
        if not 1 <= len(faces) <= MAX_DICE:
            raise ValueError(f"throw 1..{MAX_DICE} dice, not {len(faces)}")
        unknown = sorted(set(faces) - set(FACES))
        if unknown:
            raise ValueError(f"unknown faces {unknown}; expected some of {FACES}")
        rng = random.Random(f"{self.seed}:{self._throws}")
        tumbling = [tuple(rng.choice(FACES) for _ in faces) for _ in range(self.rolling_frames)]
        with self._lock:
            self._throws += 1
            self._faces = faces
            self._queue = list(tumbling)
            self._settled = None

    def clear(self) -> None:
        """The dice are picked up: from the next read on, the empty tray."""
        with self._lock:
            self._throws += 1
            self._faces = ()
            self._queue = []
            self._settled = None

    def fail(self, on: bool = True) -> None:
        """Unplug (``True``) or plug back (``False``) the simulated camera."""
        with self._lock:
            self._failing = on

    def read(self) -> np.ndarray:
        """The next frame of the tray, BGR.

        :raises HardwareError: ``fail(True)`` is on, or the camera is closed.
        """
        with self._lock:
            if self._closed:
                raise HardwareError("simulated camera is closed")
            if self._failing:
                raise HardwareError("simulated camera unplugged")
            throw, faces = self._throws, self._faces
            tumbling = self._queue.pop(0) if self._queue else None
            step = self.rolling_frames - len(self._queue)
            settled = self._settled
        if tumbling is not None:
            return self._render_tumbling(tumbling, throw, step)
        if settled is None:
            settled = self._render_settled(faces, throw)
            with self._lock:
                if self._throws == throw:
                    self._settled = settled
        return settled.copy()

    def close(self) -> None:
        """Stop serving frames; a second call does nothing."""
        with self._lock:
            self._closed = True
            self._settled = None

    def _render_settled(self, faces: tuple[str, ...], throw: int) -> np.ndarray:
        from vision import render

        with self._render_lock:
            if not faces:
                return render.render_empty(self.seed, width=self.width, height=self.height,
                                           conditions=self.conditions, layout=throw)
            scene = render.render_roll(faces, self.seed, width=self.width, height=self.height,
                                       conditions=self.conditions, layout=throw)
            return np.ascontiguousarray(scene.image)

    def _render_tumbling(self, faces: tuple[str, ...], throw: int, step: int) -> np.ndarray:
        """Dice in mid-roll: another layout per frame, smeared along a random direction."""
        from vision import render

        layout = 1_000_000 + 1_000 * throw + step
        with self._render_lock:
            scene = render.render_roll(faces, self.seed, width=self.width, height=self.height,
                                       conditions=self.conditions, layout=layout)
        length = max(3, min(self.width, self.height) // 40) | 1
        kernel = np.zeros((length, length), np.float32)
        if (throw + step) % 2:
            kernel[length // 2, :] = 1.0 / length
        else:
            kernel[:, length // 2] = 1.0 / length
        return np.ascontiguousarray(cv2.filter2D(scene.image, -1, kernel))


CAMERA_KINDS: dict[str, Callable[..., Camera]] = {
    "picamera": PiCamera,
    "usb": UsbCamera,
    "folder": FolderCamera,
    "simulated": SimulatedCamera,
}


def create_camera(kind: str, **options: Any) -> Camera:
    """Build the camera ``kind`` ("picamera", "usb", "folder", "simulated") with ``options``
    as its keyword arguments (from the config's [camera] table).

    :raises ValueError: unknown kind or options.
    :raises HardwareError: the camera is not there.
    """
    try:
        cls = CAMERA_KINDS[kind]
    except KeyError:
        raise ValueError(
            f"unknown camera {kind!r}; expected one of {sorted(CAMERA_KINDS)}"
        ) from None
    try:
        inspect.signature(cls).bind(**options)
    except TypeError as e:
        raise ValueError(f"bad options for the {kind} camera: {e}") from e
    return cls(**options)

