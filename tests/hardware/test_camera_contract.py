"""The Camera contract, run against every backend (as gpiozero's tests/test_real_pins.py runs one
suite on every pin library). Backends that are not here skip, saying why: picamera2 exists only
on Raspberry Pi OS, and a USB camera needs a /dev/video* device.
"""

from __future__ import annotations

import glob
import importlib.util
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np
import pytest

from hardware.base import Camera, HardwareError
from hardware.camera import FolderCamera, PiCamera, SimulatedCamera, UsbCamera
from vision.render import render_roll

W, H = 320, 240


@dataclass
class Backend:
    make: Callable[[], Camera]
    unplug: Callable[[Camera], None] | None  # makes the next read fail, where a test can


def _picamera(tmp: Path) -> Backend:
    if importlib.util.find_spec("picamera2") is None:
        pytest.skip("picamera2 is not installed: it exists only on Raspberry Pi OS")

    def make() -> Camera:
        try:
            return PiCamera((640, 480))
        except HardwareError as e:
            pytest.skip(f"no Pi camera connected: {e}")

    return Backend(make, None)


def _usb(tmp: Path) -> Backend:
    devices = sorted(glob.glob("/dev/video*"))
    if not devices:
        pytest.skip("no USB camera: no /dev/video* device")

    def make() -> Camera:
        try:
            return UsbCamera(devices[0], (640, 480))
        except HardwareError as e:
            pytest.skip(f"{devices[0]} is not a camera that opens: {e}")

    return Backend(make, None)


def _folder(tmp: Path) -> Backend:
    for i, faces in enumerate((["1", "2"], ["fuel", "3", "4"])):
        image = render_roll(faces, 11, width=W, height=H).image
        cv2.imwrite(str(tmp / f"shot_{i}.jpg"), image)

    def unplug(camera: Camera) -> None:
        # the recording is damaged (the card was pulled): the next file cannot be decoded
        for path in tmp.glob("*.jpg"):
            path.write_bytes(b"\xff\xd8 truncated")

    return Backend(lambda: FolderCamera(tmp), unplug)


def _simulated(tmp: Path) -> Backend:
    def make() -> Camera:
        camera = SimulatedCamera(seed=4, width=W, height=H, rolling_frames=1)
        camera.throw(["2", "fuel"])
        return camera

    def unplug(camera: Camera) -> None:
        assert isinstance(camera, SimulatedCamera)
        camera.fail(True)

    return Backend(make, unplug)


BACKENDS: dict[str, Callable[[Path], Backend]] = {
    "picamera": _picamera,
    "usb": _usb,
    "folder": _folder,
    "simulated": _simulated,
}


@pytest.fixture(params=sorted(BACKENDS))
def backend(request: pytest.FixtureRequest, tmp_path: Path) -> Backend:
    return BACKENDS[request.param](tmp_path)


@pytest.fixture
def camera(backend: Backend) -> Iterator[Camera]:
    made = backend.make()
    yield made
    made.close()


def test_frames_are_bgr_uint8_of_one_size(camera: Camera) -> None:
    frames = [camera.read() for _ in range(3)]
    for frame in frames:
        assert isinstance(frame, np.ndarray)
        assert frame.ndim == 3 and frame.shape[2] == 3
        assert frame.shape[0] > 0 and frame.shape[1] > 0
        assert frame.dtype == np.uint8
        assert frame.flags.c_contiguous and frame.flags.writeable
    assert len({f.shape for f in frames}) == 1


def test_frames_belong_to_the_caller(camera: Camera) -> None:
    frame = camera.read()
    frame[:] = 0  # scribbling on one frame must not reach the camera's next frames
    assert camera.read().any()


def test_close_is_idempotent(camera: Camera) -> None:
    camera.close()
    camera.close()


def test_read_after_close_is_a_hardware_error(camera: Camera) -> None:
    camera.close()
    with pytest.raises(HardwareError):
        camera.read()


def test_a_failing_camera_raises_hardware_error(backend: Backend, camera: Camera) -> None:
    if backend.unplug is None:
        pytest.skip("a real camera cannot be unplugged from a test")
    camera.read()
    backend.unplug(camera)
    with pytest.raises(HardwareError):
        camera.read()
