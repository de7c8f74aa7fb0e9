"""Fixtures shared by the vision tests."""

import pytest

from vision.render import DiceStyle
from vision.uncalibrated import Networks


@pytest.fixture(scope="session")
def nets() -> Networks:
    """The shipped networks of the uncalibrated path, loaded once."""
    return Networks.load()


@pytest.fixture
def plain_style() -> DiceStyle:
    """White dice with black pips and a red comet: easy to check by thresholds."""
    return DiceStyle(body=(236, 236, 234), pips=(25, 25, 25), fuel=(30, 40, 210),
                     corner_radius=0.15, size=100.0)
