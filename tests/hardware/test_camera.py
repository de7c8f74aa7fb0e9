"""Each camera's own behaviour: replay order and hold, the simulated throw sequence, the USB
camera's reconnect (on a fake ``VideoCapture``) and the Pi camera's configuration (on a fake
``picamera2`` module, since the real one only imports on Raspberry Pi OS).
"""

from __future__ import annotations

import sys
import types
from pathlib import Path
from typing import Any, ClassVar

import cv2
import numpy as np
import pytest

from hardware.base import HardwareError
from hardware.camera import (
    FolderCamera,
    PiCamera,
    SimulatedCamera,
    UsbCamera,
    create_camera,
)
from vision.render import render_empty, render_roll

W, H = 320, 240  # small frames keep the rendering tests fast


def solid(value: int, size: tuple[int, int] = (40, 30)) -> np.ndarray:
    return np.full((size[1], size[0], 3), value, np.uint8)


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    """Three frames written out of name order, plus files that are not images."""
    for name, value in (("frame_003.png", 30), ("frame_001.png", 10), ("frame_002.jpg", 20)):
        cv2.imwrite(str(tmp_path / name), solid(value))
    (tmp_path / "labels.jsonl").write_text("{}\n")
    (tmp_path / "sub.png").mkdir()
    return tmp_path


def level(frame: np.ndarray) -> int:
    return round(float(frame.mean()))


# -- FolderCamera -----------------------------------------------------------------------------


def test_folder_replays_in_name_order_and_loops(folder: Path) -> None:
    camera = FolderCamera(folder)
    assert [p.name for p in camera.files] == ["frame_001.png", "frame_002.jpg", "frame_003.png"]
    assert [level(camera.read()) for _ in range(5)] == [10, 20, 30, 10, 20]


def test_folder_hold_serves_each_frame_several_times(folder: Path) -> None:
    camera = FolderCamera(folder, hold=3)
    assert [level(camera.read()) for _ in range(7)] == [10, 10, 10, 20, 20, 20, 30]


def test_folder_without_loop_ends_with_a_hardware_error(folder: Path) -> None:
    camera = FolderCamera(folder, loop=False)
    for _ in range(3):
        camera.read()
    with pytest.raises(HardwareError, match="end of the recording"):
        camera.read()


def test_folder_frames_belong_to_the_caller(folder: Path) -> None:
    camera = FolderCamera(folder, hold=2)
    first = camera.read()
    first[:] = 255
    assert level(camera.read()) == 10


def test_folder_errors(tmp_path: Path) -> None:
    with pytest.raises(HardwareError, match="no images"):
        FolderCamera(tmp_path)
    with pytest.raises(HardwareError, match="cannot read"):
        FolderCamera(tmp_path / "missing")
    (tmp_path / "broken.png").write_bytes(b"not a png")
    with pytest.raises(HardwareError, match="cannot decode"):
        FolderCamera(tmp_path).read()
    with pytest.raises(ValueError, match="hold"):
        FolderCamera(tmp_path, hold=0)


# -- SimulatedCamera --------------------------------------------------------------------------


def test_simulated_starts_with_an_empty_tray() -> None:
    camera = SimulatedCamera(seed=5, width=W, height=H)
    frame = camera.read()
    assert np.array_equal(frame, render_empty(5, width=W, height=H, layout=0))
    assert np.array_equal(camera.read(), frame)
    assert camera.faces == ()


def test_simulated_throw_rolls_in_then_settles() -> None:
    camera = SimulatedCamera(seed=5, width=W, height=H, rolling_frames=3)
    camera.throw(["1", "4", "fuel"])
    frames = [camera.read() for _ in range(6)]
    settled = render_roll(["1", "4", "fuel"], 5, width=W, height=H, layout=1).image
    for rolling in frames[:3]:  # tumbling: not yet the settled picture, and each one moves
        assert not np.array_equal(rolling, settled)
    assert not np.array_equal(frames[0], frames[1])
    assert not np.array_equal(frames[1], frames[2])
    for still in frames[3:]:
        assert np.array_equal(still, settled)
    assert camera.faces == ("1", "4", "fuel")


def test_simulated_throws_land_differently_and_clear_empties_the_tray() -> None:
    camera = SimulatedCamera(seed=5, width=W, height=H, rolling_frames=0)
    camera.throw(["2", "2"])
    first = camera.read()
    camera.throw(["2", "2"])
    second = camera.read()
    assert not np.array_equal(first, second)  # another layout on the same tray
    camera.clear()
    assert np.array_equal(camera.read(), render_empty(5, width=W, height=H, layout=3))
    assert camera.faces == ()


def test_simulated_fail_is_an_unplugged_camera() -> None:
    camera = SimulatedCamera(seed=1, width=W, height=H)
    camera.fail(True)
    with pytest.raises(HardwareError, match="unplugged"):
        camera.read()
    camera.fail(False)
    assert camera.read().shape == (H, W, 3)


def test_simulated_calibration_shots_teach_the_reader_this_dice_set() -> None:
    """The demo calibrates like an owner: each face shown once, then throws read right."""
    from vision.calibration import calibrate
    from vision.profile import LabelledDie
    from vision.reader import DiceReader

    camera = SimulatedCamera(seed=5, width=640, height=480, rolling_frames=0)
    shots = camera.calibration_shots()
    assert [sorted(face for face, _, _ in dice) for _, dice in shots] == [
        ["1", "2", "3", "4", "fuel"]] * 2
    reader = DiceReader(calibrate((image, [LabelledDie(*d) for d in dice])
                                  for image, dice in shots))
    for faces in (("1", "2", "2", "fuel"), ("3", "4", "fuel", "fuel", "1", "2")):
        camera.throw(faces)
        assert reader.read(camera.read()).key == tuple(sorted(faces))


def test_simulated_throw_checks_its_dice() -> None:
    camera = SimulatedCamera(seed=1, width=W, height=H)
    with pytest.raises(ValueError, match=r"throw 1\.\.6 dice"):
        camera.throw([])
    with pytest.raises(ValueError, match="unknown faces"):
        camera.throw(["7"])


# -- UsbCamera on a fake VideoCapture ---------------------------------------------------------


class FakeCapture:
    """A ``cv2.VideoCapture`` double: a camera that can be unplugged and plugged back."""

    plugged = True
    opened: ClassVar[list[FakeCapture]] = []

    def __init__(self, device: Any, api: int) -> None:
        self.device, self.api = device, api
        self.props: dict[int, float] = {}
        self.released = False
        self.is_open = FakeCapture.plugged
        FakeCapture.opened.append(self)

    def isOpened(self) -> bool:
        return self.is_open

    def set(self, prop: int, value: float) -> bool:
        self.props[prop] = value
        return True

    def read(self) -> tuple[bool, np.ndarray | None]:
        if not FakeCapture.plugged:
            return False, None
        return True, np.full((24, 32), 77, np.uint8)  # a grey camera

    def release(self) -> None:
        self.released = True


@pytest.fixture
def fake_capture() -> Any:
    FakeCapture.plugged = True
    FakeCapture.opened = []
    return FakeCapture


def test_usb_opens_with_mjpg_at_the_resolution(fake_capture: Any) -> None:
    camera = UsbCamera("/dev/video2", (640, 480), capture_factory=fake_capture)
    capture = fake_capture.opened[0]
    assert capture.device == "/dev/video2"
    assert capture.props[cv2.CAP_PROP_FRAME_WIDTH] == 640
    assert capture.props[cv2.CAP_PROP_FRAME_HEIGHT] == 480
    assert capture.props[cv2.CAP_PROP_FOURCC] == cv2.VideoWriter_fourcc(*"MJPG")
    frame = camera.read()
    assert frame.shape == (24, 32, 3) and frame.dtype == np.uint8  # grey made BGR


def test_usb_reconnects_on_the_read_after_a_failure(fake_capture: Any) -> None:
    camera = UsbCamera(0, capture_factory=fake_capture)
    camera.read()
    fake_capture.plugged = False
    with pytest.raises(HardwareError, match="no frame"):
        camera.read()
    assert fake_capture.opened[0].released
    with pytest.raises(HardwareError, match="cannot be opened"):
        camera.read()  # still unplugged: reopening fails
    fake_capture.plugged = True
    assert camera.read().shape == (24, 32, 3)  # plugged back: a new capture
    assert len(fake_capture.opened) == 3


def test_usb_missing_device_is_a_hardware_error(fake_capture: Any) -> None:
    fake_capture.plugged = False
    with pytest.raises(HardwareError, match="cannot be opened"):
        UsbCamera(3, capture_factory=fake_capture)


def test_usb_opencv_error_on_read_is_a_hardware_error(fake_capture: Any,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    camera = UsbCamera(0, capture_factory=fake_capture)

    def explode() -> None:
        raise cv2.error("select() timeout")

    monkeypatch.setattr(fake_capture.opened[0], "read", explode)
    with pytest.raises(HardwareError, match="timeout"):
        camera.read()


# -- PiCamera on a fake picamera2 module ------------------------------------------------------


class FakePicamera2:
    """Just what PiCamera uses of ``picamera2.Picamera2``."""

    instances: ClassVar[list[FakePicamera2]] = []
    broken = False

    def __init__(self, camera_num: int = 0) -> None:
        if FakePicamera2.broken:
            raise IndexError("list index out of range")  # what picamera2 does with no camera
        self.calls: list[str] = []
        self.config: dict[str, Any] = {}
        self.failing = False
        FakePicamera2.instances.append(self)

    def create_video_configuration(self, main: dict[str, Any]) -> dict[str, Any]:
        return {"main": dict(main)}

    def configure(self, config: dict[str, Any]) -> None:
        self.config = config

    def start(self) -> None:
        self.calls.append("start")

    def capture_array(self, name: str = "main") -> np.ndarray:
        if self.failing:
            raise RuntimeError("Camera frontend has timed out!")
        w, h = self.config["main"]["size"]
        frame = np.zeros((h, w, 3), np.uint8)
        frame[..., 0] = 200  # RGB888 is [B, G, R]: a blue scene
        return frame

    def stop(self) -> None:
        self.calls.append("stop")

    def close(self) -> None:
        self.calls.append("close")


@pytest.fixture
def fake_picamera2(monkeypatch: pytest.MonkeyPatch) -> Any:
    module = types.ModuleType("picamera2")
    module.Picamera2 = FakePicamera2  # type: ignore[attr-defined]
    FakePicamera2.instances = []
    FakePicamera2.broken = False
    monkeypatch.setitem(sys.modules, "picamera2", module)
    return FakePicamera2


def test_picamera_streams_rgb888_which_is_already_bgr(fake_picamera2: Any) -> None:
    camera = PiCamera((640, 480))
    fake = fake_picamera2.instances[0]
    assert fake.config == {"main": {"size": (640, 480), "format": "RGB888"}}
    frame = camera.read()
    assert frame.shape == (480, 640, 3)
    assert frame[0, 0].tolist() == [200, 0, 0]  # blue stays in channel 0 (BGR), not swapped
    camera.close()
    camera.close()
    assert fake.calls == ["start", "stop", "close"]


def test_picamera_failures_are_hardware_errors(fake_picamera2: Any) -> None:
    camera = PiCamera()
    fake_picamera2.instances[0].failing = True
    with pytest.raises(HardwareError, match="timed out"):
        camera.read()
    fake_picamera2.broken = True
    with pytest.raises(HardwareError, match="did not start"):
        PiCamera()


def test_picamera_without_picamera2_is_a_hardware_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "picamera2", None)
    with pytest.raises(HardwareError, match="python3-picamera2"):
        PiCamera()


# -- create_camera ----------------------------------------------------------------------------


def test_create_camera_by_name(folder: Path) -> None:
    assert isinstance(create_camera("folder", folder=folder, hold=2), FolderCamera)
    simulated = create_camera("simulated", seed=3, width=W, height=H)
    assert isinstance(simulated, SimulatedCamera)
    assert simulated.read().shape == (H, W, 3)
    with pytest.raises(ValueError, match="unknown camera 'kinect'"):
        create_camera("kinect")
    with pytest.raises(ValueError, match="bad options for the folder camera"):
        create_camera("folder", folder=folder, fps=30)
