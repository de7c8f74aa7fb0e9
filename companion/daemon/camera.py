"""The camera thread: frames -> settle detector -> a proposed reading with a proof JPEG.

Confirmation comes from the OK button, a phone, or (``vision.auto_confirm``) at once. A camera
that vanishes is closed, reopened with backoff, and meanwhile the phones enter the dice by hand.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from companion.config import Config
from companion.games.mlem.dice import FACES, canonical
from companion.table import Reading, TableService
from hardware.base import Camera, HardwareError

from .status import Backoff, HardwareStatus, close_quietly

if TYPE_CHECKING:
    import numpy as np

log = logging.getLogger(__name__)

REOPEN_AFTER = 3
"""Failed reads in a row before the camera is closed and opened again."""


@dataclass(frozen=True)
class Settled:
    """A settled roll with the times the bench needs."""

    reading: Reading
    frame_time: float


class CameraLoop:
    """Frames -> SettleDetector -> a proposed reading; reconnects a vanished camera with backoff."""

    def __init__(self, open_camera: Callable[[], Camera], reader: Callable[[np.ndarray], Any],
                 table: TableService, config: Config, status: HardwareStatus,
                 fps: float | None = None) -> None:
        from vision.settle import SettleConfig, SettleDetector

        self.open_camera = open_camera
        self.table = table
        self.config = config
        self.status = status
        self.interval = 1.0 / (fps or config.camera.fps)
        vision = config.vision
        self._reader = reader
        self.detector: SettleDetector[Any] = SettleDetector(
            self._read, SettleConfig(still_frames=vision.still_frames,
                                     stable_readings=vision.stable_readings,
                                     max_dice=vision.max_dice))
        self.camera: Camera | None = None
        self.backoff = Backoff()
        self.frames = 0
        self.reads = 0
        self.failures = 0
        self.failed_reads = 0
        """Still frames in a row the reader could not use (too many dice, an error)."""
        self.proposed: list[Settled] = []
        self.on_settled: list[Callable[[Settled], None]] = []
        self.heartbeat = time.monotonic()
        self._rearm = threading.Event()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def _read(self, frame: np.ndarray) -> Any:
        self.reads += 1
        reading = self._reader(frame)
        if reading is None or getattr(reading, "error", None):
            self.failed_reads += 1
            return None
        self.failed_reads = 0
        return reading

    def rearm(self) -> None:
        """A new roll is due: the next stable reading counts even if it equals the last one."""
        self._rearm.set()

    def start(self) -> None:
        self._thread = threading.Thread(target=self._run, name="camera", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(10)
            self._thread = None
        self._close()

    def _close(self) -> None:
        if self.camera is not None:
            close_quietly(self.camera, "camera")
            self.camera = None

    def _run(self) -> None:
        while not self._stop.is_set():
            started = self.heartbeat = time.monotonic()
            try:
                self.step(started)
            except Exception:
                log.exception("camera loop step failed")
            self._stop.wait(max(0.0, self.interval - (time.monotonic() - started)))

    def step(self, now: float) -> None:
        """One frame: open the camera when due, read, feed the detector, propose a roll."""
        from vision.settle import RollSettled

        if not self.backoff.ready(now):
            return
        if self.camera is None:
            try:
                self.camera = self.open_camera()
            except Exception as exc:
                self._failed(now, f"cannot open: {exc}")
                return
        try:
            frame = self.camera.read()
        except HardwareError as exc:
            self._failed(now, str(exc))
            return
        self.failures = 0
        frame_time = time.monotonic()
        if not self.status.ok("camera") or self.frames == 0:
            self.status.set("camera", True, self.config.camera.kind)
            self.backoff.reset()
        self.frames += 1
        if self._rearm.is_set():
            self._rearm.clear()
            self.detector.rearm()
        event = self.detector.feed(frame)
        if isinstance(event, RollSettled):
            self.propose(event.reading, frame, frame_time)

    def _failed(self, now: float, detail: str) -> None:
        """Back off; retry the same device a few times (a USB camera reopens itself on read),
        then close it and open it anew."""
        self.status.set("camera", False, f"{detail}: enter the dice on the phone")
        self.failures += 1
        if self.failures >= REOPEN_AFTER:
            self._close()
        self.backoff.failed(now)

    def propose(self, vision_reading: Any, frame: np.ndarray, frame_time: float) -> None:
        """Offer a settled reading to the table if it waits for a roll; confirm it if asked to."""
        snapshot = self.table.snapshot()
        prompt = snapshot.prompt
        if prompt is None or prompt.kind not in ("roll", "confirm_roll"):
            log.info("dice settled but no roll is due: ignored")
            return
        state = snapshot.state or {}
        reading = to_table_reading(vision_reading, int(state.get("available", 0)))
        reading = Reading(reading.faces, reading.uncertain,
                          proof_jpeg(frame, vision_reading, self.config.vision.proof_width,
                                     self.config.vision.proof_quality))
        result = self.table.propose_reading(reading)
        if not result.ok:
            log.info("reading refused: %s", result.error)
            return
        settled = Settled(reading, frame_time)
        self.proposed.append(settled)
        for listener in list(self.on_settled):
            listener(settled)
        if self.config.vision.auto_confirm and not reading.uncertain:
            confirmed = self.table.confirm_reading("camera")
            if not confirmed.ok:
                log.info("auto-confirm refused: %s", confirmed.error)


def to_table_reading(vision_reading: Any, available: int) -> Reading:
    """The dice as the table wants them: MLEM faces in canonical order, doubtful ones counted.

    A face MLEM dice do not have (5, 6) or a count other than the dice in play is a misread a
    person has to settle, so it counts as uncertain.
    """
    dice = list(getattr(vision_reading, "dice", ()))
    faces = [str(d.face) for d in dice if str(d.face) in FACES]
    uncertain = sum(1 for d in dice if getattr(d, "uncertain", False) or str(d.face) not in FACES)
    if available and len(dice) != available:
        uncertain = max(uncertain, abs(available - len(dice)), 1)
    return Reading(canonical(faces), uncertain)


def proof_jpeg(frame: np.ndarray, vision_reading: Any, width: int, quality: int) -> bytes | None:
    """The frame the roll was read from, downscaled, each die boxed and labelled (for disputes)."""
    import cv2

    try:
        h, w = frame.shape[:2]
        scale = min(1.0, width / w)
        image = cv2.resize(frame, (round(w * scale), round(h * scale)),
                           interpolation=cv2.INTER_AREA) if scale < 1 else frame.copy()
        for die in getattr(vision_reading, "dice", ()):
            x, y = int(die.x * scale), int(die.y * scale)
            r = max(4, int(getattr(die, "size", 40) * scale / 2))
            colour = (0, 0, 255) if getattr(die, "uncertain", False) else (0, 200, 0)
            cv2.rectangle(image, (x - r, y - r), (x + r, y + r), colour, 2)
            cv2.putText(image, str(die.face), (x - r, max(12, y - r - 4)),
                        cv2.FONT_HERSHEY_SIMPLEX, 0.5, colour, 1, cv2.LINE_AA)
        ok, data = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, quality])
    except Exception:
        log.exception("proof image failed")
        return None
    return data.tobytes() if ok else None
