"""When is a roll over: a cheap per-frame state machine between the camera and the table.

The expensive dice reader runs only on frames that follow ``still_frames`` frames without motion,
and a roll is announced only after ``stable_readings`` identical readings in a row. Motion is the
share of pixels that changed between consecutive grey frames shrunk to about 160 px wide, which
costs well under a millisecond per frame.

Policy after a roll settled (a table must never apply one throw twice):

- No further reader call and no event until something moves.
- Any motion re-arms. The next stable reading is announced only if it differs from the last one
  announced, or the tray was seen empty since then, or ``rearm()`` was called. So nudging a
  leaning die that then reads the same is silent, while a nudge that flips it is announced.
  A re-roll giving the same faces without the tray ever looking empty in between is missed; the
  table service can call ``rearm()`` when it knows a new roll is due.
- A stable empty tray after an announced roll yields ``TrayCleared`` once.

The tray counts as empty when the reader sees no dice, or when a frame matches the empty-tray
reference, which is learned from the reader's own empty readings (or set by ``set_empty``); a
matching frame needs no reader call, so an idle tray costs nothing. A reading of more than
``max_dice`` dice (a hand, a second set) or a reader error is no reading.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Hashable
from dataclasses import dataclass
from typing import Generic, Protocol, TypeVar

import cv2
import numpy as np

log = logging.getLogger(__name__)


class HasKey(Protocol):
    """A reading of the tray; ``key`` is the multiset of faces, e.g. a sorted tuple of faces."""

    @property
    def key(self) -> tuple[Hashable, ...]: ...


R = TypeVar("R", bound=HasKey)


@dataclass(frozen=True)
class SettleConfig:
    """Thresholds; the defaults suit 5-30 fps and dice 25 px or more across."""

    pixel_threshold: int = 12  # grey levels a downscaled pixel must change to count as moved
    motion_threshold: float = 0.001  # share of moved pixels that means motion (14 px at 160x90)
    still_frames: int = 3  # frames with no motion before a reading is attempted
    stable_readings: int = 3  # identical readings in a row required
    motion_width: int = 160  # frames are shrunk to this width for the motion check
    max_dice: int = 6  # a reading of more dice than this is not a reading


@dataclass(frozen=True)
class RollSettled(Generic[R]):
    """The dice stopped and read the same ``stable_readings`` times."""

    reading: R


@dataclass(frozen=True)
class TrayCleared:
    """The dice of the last announced roll were taken away: the tray is empty and still."""


SettleEvent = RollSettled[R] | TrayCleared


class SettleDetector(Generic[R]):
    """Feed it every camera frame; it says when a roll has settled and when the tray is cleared."""

    def __init__(self, reader: Callable[[np.ndarray], R | None],
                 config: SettleConfig = SettleConfig()) -> None:
        self._reader = reader
        self._config = config
        self._previous: np.ndarray | None = None
        self._empty_reference: np.ndarray | None = None
        self._still = 0
        self._resting = False  # settled (announced or not) or empty: nothing to do until motion
        self._candidate: tuple[Hashable, ...] | None = None
        self._repeats = 0
        self._announced: tuple[Hashable, ...] | None = None  # key of the last RollSettled
        self._cleared = True  # tray seen empty (or rearm()) since the last RollSettled

    def feed(self, frame: np.ndarray) -> SettleEvent[R] | None:
        """Take one BGR (or grey) frame; return an event when something happened."""
        small = self._shrink(frame)
        moved = self._previous is None or self._differs(small, self._previous)
        self._previous = small
        if moved:
            self._still, self._resting = 0, False
            self._candidate, self._repeats = None, 0
            return None
        self._still += 1
        if self._resting or self._still < self._config.still_frames:
            return None
        return self._observe(frame, small)

    def rearm(self) -> None:
        """Announce the next stable roll even if it equals the last one (a new roll is due)."""
        self._cleared = True

    def set_empty(self, frame: np.ndarray) -> None:
        """Use ``frame`` as the empty-tray reference (else it is learned from the reader)."""
        self._empty_reference = self._shrink(frame)

    # --- internals -----------------------------------------------------------------------------

    def _observe(self, frame: np.ndarray, small: np.ndarray) -> SettleEvent[R] | None:
        """One still frame: read it (or match the empty tray) and count identical readings."""
        reading: R | None = None
        if self._empty_reference is not None and not self._differs(small, self._empty_reference):
            key: tuple[Hashable, ...] | None = ()
        else:
            reading = self._read(frame)
            key = None if reading is None else tuple(reading.key)
        if key is None:
            self._candidate, self._repeats = None, 0
            return None
        self._repeats = self._repeats + 1 if key == self._candidate else 1
        self._candidate = key
        if self._repeats < self._config.stable_readings:
            return None
        self._resting = True
        if not key:
            return self._empty(small, learned=reading is not None)
        return self._settled(key, reading)

    def _read(self, frame: np.ndarray) -> R | None:
        """The reader's result, or None when it failed or saw more dice than a roll has."""
        try:
            reading = self._reader(frame)
        except Exception:  # a broken frame must not stop the camera loop; the reader logs why
            log.warning("dice reader failed on a still frame", exc_info=True)
            return None
        if reading is not None and len(tuple(reading.key)) > self._config.max_dice:
            return None
        return reading

    def _empty(self, small: np.ndarray, *, learned: bool) -> TrayCleared | None:
        if learned:
            self._empty_reference = small
        announce = not self._cleared
        self._cleared = True
        return TrayCleared() if announce else None

    def _settled(self, key: tuple[Hashable, ...], reading: R | None) -> RollSettled[R] | None:
        if reading is None or (key == self._announced and not self._cleared):
            return None
        self._announced, self._cleared = key, False
        return RollSettled(reading)

    def _shrink(self, frame: np.ndarray) -> np.ndarray:
        """Grey frame about ``motion_width`` px wide; averaging also hides sensor noise."""
        grey = frame if frame.ndim == 2 else cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY)
        h, w = grey.shape
        width = self._config.motion_width
        if w <= width:
            return grey
        size = (width, max(1, round(h * width / w)))
        return cv2.resize(grey, size, interpolation=cv2.INTER_AREA)

    def _differs(self, a: np.ndarray, b: np.ndarray) -> bool:
        """Whether more than ``motion_threshold`` of the pixels changed noticeably."""
        if a.shape != b.shape:
            return True
        changed = cv2.absdiff(a, b) > self._config.pixel_threshold
        return float(np.count_nonzero(changed)) > self._config.motion_threshold * changed.size
