"""When is a roll over: frame sequences rendered from a tray, read by a truthful stub.

The stub reader returns the ground truth of the frame being fed: settle logic is under test here,
not reading. It counts its calls to show the reader runs only on still frames.
"""

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from functools import cache

import cv2
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from vision.render import render_empty, render_roll
from vision.settle import RollSettled, SettleConfig, SettleDetector, SettleEvent, TrayCleared

SEED, WIDTH, HEIGHT = 11, 640, 360
A = ("1", "2", "fuel")
B = ("2", "3", "4", "4")
CROWD = tuple("1234561")
Truth = tuple[str, ...] | None  # None: hand in view or dice flying; reader must not be asked


@dataclass(frozen=True)
class Reading:
    key: tuple[str, ...]


@dataclass
class StubReader:
    """Answers the truth of the current frame; ``fail`` makes it raise instead."""

    truth: Truth = None
    fail: bool = False
    calls: int = 0
    asked: list[Truth] = field(default_factory=list)

    def __call__(self, frame: np.ndarray) -> Reading:
        self.calls += 1
        self.asked.append(self.truth)
        if self.fail:
            raise RuntimeError("blurred frame")
        assert self.truth is not None, "reader called on a moving frame"
        return Reading(tuple(sorted(self.truth)))


@cache
def _photo(faces: tuple[str, ...], layout: int) -> np.ndarray:
    if not faces:
        return render_empty(SEED, width=WIDTH, height=HEIGHT, layout=layout)
    return render_roll(faces, SEED, width=WIDTH, height=HEIGHT, layout=layout).image


def _noisy(image: np.ndarray, n: int) -> np.ndarray:
    """Fresh sensor noise on every frame, as a real camera gives."""
    noise = np.random.default_rng(n).integers(0, 9, image.shape, dtype=np.uint8)
    return cv2.addWeighted(image, 1.0, noise, 1.0, -4.0)


def _with_hand(image: np.ndarray, t: float) -> np.ndarray:
    """A skin-coloured hand and forearm reaching in from the bottom edge, ``t`` in 0..1 across."""
    out = image.copy()
    x, y = int(WIDTH * (0.1 + 0.8 * t)), int(HEIGHT * 0.45)
    skin = (140, 170, 225)
    cv2.line(out, (x + 40, HEIGHT), (x, y), skin, 70, cv2.LINE_AA)
    cv2.ellipse(out, (x, y), (55, 45), 20, 0, 360, skin, -1, cv2.LINE_AA)
    for k in range(4):
        cv2.ellipse(out, (x - 45 + 28 * k, y - 60), (11, 30), 0, 0, 360, skin, -1, cv2.LINE_AA)
    return out


def still(faces: tuple[str, ...], frames: int, layout: int = 0) -> list[tuple[np.ndarray, Truth]]:
    return [(_photo(faces, layout), faces)] * frames


def rolling(faces: tuple[str, ...], frames: int = 5) -> list[tuple[np.ndarray, Truth]]:
    """Dice tumbling: every frame shows them somewhere else."""
    return [(_photo(faces, 100 + k), None) for k in range(frames)]


def hand(over: tuple[str, ...], frames: int = 6) -> list[tuple[np.ndarray, Truth]]:
    return [(_with_hand(_photo(over, 0), k / (frames - 1)), None) for k in range(frames)]


def run(detector: SettleDetector[Reading], reader: StubReader,
        frames: Iterable[tuple[np.ndarray, Truth]]) -> list[tuple[int, SettleEvent[Reading]]]:
    events = []
    for n, (image, truth) in enumerate(frames):
        reader.truth = truth
        event = detector.feed(_noisy(image, n))
        if event is not None:
            events.append((n, event))
    return events


def keys(events: Sequence[tuple[int, SettleEvent[Reading]]]) -> list[object]:
    return [e.reading.key if isinstance(e, RollSettled) else "cleared" for _, e in events]


@pytest.fixture
def reader() -> StubReader:
    return StubReader()


@pytest.fixture
def detector(reader: StubReader) -> SettleDetector[Reading]:
    return SettleDetector(reader)


def test_one_event_per_roll_after_stable_readings(detector: SettleDetector[Reading],
                                                  reader: StubReader) -> None:
    frames = still((), 6) + rolling(A) + still(A, 12)
    events = run(detector, reader, frames)
    assert keys(events) == [tuple(sorted(A))]
    # first still frame of A is index 11 (it differs from the last rolling frame): 3 still frames,
    # then 3 identical readings
    assert events[0][0] == 11 + 3 + 2
    assert reader.calls == 3 + 3  # empty tray read 3 times, the roll 3 times, then nothing


def test_no_reading_while_a_hand_is_in_view(detector: SettleDetector[Reading],
                                            reader: StubReader) -> None:
    frames = still((), 5) + hand(()) + rolling(A) + still(A, 8) + hand(A) + still(A, 10)
    events = run(detector, reader, frames)
    assert keys(events) == [tuple(sorted(A))]
    assert None not in reader.asked


def test_picking_the_dice_up_clears_the_tray_once(detector: SettleDetector[Reading],
                                                  reader: StubReader) -> None:
    frames = still((), 6) + rolling(A) + still(A, 8) + hand(A) + still((), 12)
    events = run(detector, reader, frames)
    assert keys(events) == [tuple(sorted(A)), "cleared"]
    assert reader.calls == 3 + 3  # the learned empty tray is recognised without the reader


def test_empty_tray_is_read_when_no_reference_is_known(detector: SettleDetector[Reading],
                                                       reader: StubReader) -> None:
    events = run(detector, reader, rolling(A) + still(A, 8) + hand(A) + still((), 8))
    assert keys(events) == [tuple(sorted(A)), "cleared"]
    assert reader.asked == [A] * 3 + [()] * 3


def test_reroll_with_the_same_faces_counts_after_the_tray_was_empty(
        detector: SettleDetector[Reading], reader: StubReader) -> None:
    frames = (rolling(A) + still(A, 8) + hand(A) + still((), 8) + rolling(A) + still(A, 8, 1)
              + hand(A) + rolling(B) + still(B, 8))
    assert keys(run(detector, reader, frames)) == [tuple(sorted(A)), "cleared",
                                                   tuple(sorted(A)), tuple(sorted(B))]


def test_nudge_is_silent_unless_the_faces_change(detector: SettleDetector[Reading],
                                                 reader: StubReader) -> None:
    flipped = ("1", "2", "3")
    frames = still(A, 8) + still(A, 8, layout=1) + still(flipped, 8, layout=1)
    events = run(detector, reader, frames)
    assert keys(events) == [tuple(sorted(A)), tuple(sorted(flipped))]


def test_rearm_announces_the_same_faces_again(detector: SettleDetector[Reading],
                                              reader: StubReader) -> None:
    assert len(run(detector, reader, still(A, 8))) == 1
    detector.rearm()
    assert keys(run(detector, reader, still(A, 8, layout=1))) == [tuple(sorted(A))]


def test_errors_and_crowds_are_not_readings(detector: SettleDetector[Reading],
                                            reader: StubReader) -> None:
    reader.fail = True
    assert run(detector, reader, still(A, 8)) == []
    reader.fail = False
    assert run(detector, reader, [(_photo(A, 2), CROWD)] * 8) == []
    assert keys(run(detector, reader, still(A, 8, layout=3))) == [tuple(sorted(A))]


def test_flickering_readings_never_settle() -> None:
    answers = iter([("1",), ("2",)] * 20)
    detector = SettleDetector(lambda frame: Reading(next(answers)))
    image = _photo(A, 0)
    assert [detector.feed(image) for _ in range(20)] == [None] * 20


def test_config_changes_how_long_to_wait(reader: StubReader) -> None:
    detector = SettleDetector(reader, SettleConfig(still_frames=1, stable_readings=1))
    events = run(detector, reader, rolling(A) + still(A, 3))
    assert events[0][0] == 5 + 1
    assert isinstance(events[0][1], RollSettled)


def test_set_empty_skips_the_reader(detector: SettleDetector[Reading],
                                    reader: StubReader) -> None:
    detector.set_empty(_photo((), 0))
    assert run(detector, reader, still((), 10)) == []
    assert reader.calls == 0
    assert isinstance(TrayCleared(), TrayCleared)


# --- properties on tiny synthetic frames (no rendering: fast) ----------------------------------

SCENE_KEYS: dict[int, tuple[str, ...]] = {0: (), 1: ("1",), 2: ("2", "3"), 3: ("1",), 4: ("4",)}


@cache
def _pattern(scene: int) -> np.ndarray:
    return np.random.default_rng(scene).integers(0, 256, (36, 48), dtype=np.uint8)


segments = st.lists(st.tuples(st.sampled_from(sorted(SCENE_KEYS)), st.integers(1, 9)),
                    min_size=1, max_size=14)


@settings(max_examples=150, deadline=None)
@given(segments=segments)
def test_events_follow_the_frames(segments: list[tuple[int, int]]) -> None:
    scenes = [scene for scene, hold in segments for _ in range(hold)]
    calls: list[int] = []
    n = 0

    def read(frame: np.ndarray) -> Reading:
        calls.append(n)
        return Reading(SCENE_KEYS[scenes[n]])

    config = SettleConfig()
    detector = SettleDetector(read, config)
    events: list[tuple[int, SettleEvent[Reading]]] = []
    for n, scene in enumerate(scenes):  # read() looks at n
        event = detector.feed(_pattern(scene))
        if event is not None:
            events.append((n, event))
    wait = config.still_frames
    for i in calls:  # the reader only ever sees a frame after `wait` unchanged frames
        assert i >= wait and len(set(scenes[i - wait:i + 1])) == 1
    last: object = None
    for i, event in events:
        if isinstance(event, RollSettled):
            assert event.reading.key == SCENE_KEYS[scenes[i]] != ()
            assert last is None or last == "cleared" or event.reading.key != last
            last = event.reading.key
        else:
            assert SCENE_KEYS[scenes[i]] == () and last not in (None, "cleared")
            last = "cleared"
    # liveness: a roll held long enough whose faces differ from the last one announced is seen
    announced: object = None
    start = 0
    for i, scene in enumerate([*scenes, -1]):
        if i < len(scenes) and scene == scenes[start]:
            continue
        key = SCENE_KEYS[scenes[start]]
        mine = [e for j, e in events if start <= j < i]
        if key and i - start >= config.still_frames + config.stable_readings and key != announced:
            assert any(isinstance(e, RollSettled) for e in mine)
        for e in mine:
            announced = e.reading.key if isinstance(e, RollSettled) else None
        start = i
