"""Fixtures for the hardware adapters: gpiozero's mock pins, reset around every test."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

try:
    from gpiozero import Device
    from gpiozero.pins.mock import MockFactory, MockPin
except ImportError:  # gpiozero is in the [pi] extra; the button tests skip without it
    MockPin = None


if MockPin is not None:

    class FingerPin(MockPin):
        """A mock button pin that a finger can keep pressed: while pressed, the pull-up that a
        new ``Button`` switches on cannot raise it, as on a real button held through a restart.
        """

        finger = False

        def press(self) -> None:
            self.finger = True
            self.drive_low()

        def release(self) -> None:
            self.finger = False
            self.drive_high()

        def drive_high(self) -> None:
            if not self.finger:
                super().drive_high()


@pytest.fixture
def mock_factory() -> Iterator[Any]:
    """A fresh MockFactory (of ``FingerPin``s) as gpiozero's default, reset afterwards, as
    gpiozero's own tests/conftest.py does (MockFactory keeps reservations at class level).
    """
    if MockPin is None:
        pytest.skip("gpiozero is not installed (the [pi] extra)")
    saved = Device.pin_factory
    Device.pin_factory = MockFactory(pin_class=FingerPin)
    try:
        yield Device.pin_factory
    finally:
        if Device.pin_factory is not None:
            Device.pin_factory.reset()
        Device.pin_factory = saved
