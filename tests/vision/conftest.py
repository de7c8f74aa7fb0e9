"""Fixtures shared by the vision tests."""

import pytest

from vision.render import DiceStyle


@pytest.fixture
def plain_style() -> DiceStyle:
    """White dice with black pips and a red comet: easy to check by thresholds."""
    return DiceStyle(body=(236, 236, 234), pips=(25, 25, 25), fuel=(30, 40, 210),
                     corner_radius=0.15, size=100.0)
