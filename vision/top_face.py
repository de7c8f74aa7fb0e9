"""A doubtful die read again where the face networks find its top face centred.

A camera that looks at the tray at a slant sees the dice's side faces too. The body path's
square and the die map's peak then sit between the top face and a side face and read the side
face's pips: of the 78 dice the 3-D tuning sets read with a wrong face, the reader had placed
most 0.15 to 0.42 of a width off the top face's centre. The face networks were trained on top
faces centred in their crops, so the finder is surest of a die where its crop is centred on the
top face: shown the dice at their labelled centres, the networks read 57 of the 78 right, and
13 at the reader's centres. So a die read below ``SEARCH_BELOW`` is looked for on a grid around
its centre, the finder looking at each point at the die's width only
(``uncalibrated.surest_centre``); the networks read the die at the point the finder is surest
of (``read_candidates``), and where they read another face there surely enough
(``TAKE_FROM``), that reading stands. Every grid point looked at with every crop width read
633 rolls of 720 against 631, for a median frame of 16.6 against 14.6 ms (491 against 538
frames under 25 ms).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

import numpy as np

from vision.set_reader import Read
from vision.uncalibrated import Candidate, Networks, read_candidates, surest_centre

SEARCH_BELOW = 0.9
"""A die read less sure than this is looked for again: a fifth of the 2,437 dice the 48 3-D
tuning sets read. Searching dice below 0.9 read 629 rolls of 720, below 0.6 622, every die 617
(sure fuel readings, which the networks cannot make, were lost: 582 with ``TAKE_FROM`` 0.6)."""

TAKE_FROM = 0.8
"""How sure the networks must read another face at the centre found for it to replace the die:
on the tuning sets 626 rolls at 0.6, 629 at 0.8, 628 at 0.9."""

REACH = 0.2
"""How far from the die's centre the grid reaches, in die widths, each way."""

STEPS = 2
"""Grid points each side of the centre: a 5 x 5 grid, 0.1 of a width apart. A 3 x 3 grid 0.2
apart, or 0.1 apart, or a coarse 3 x 3 and then a fine one around its best, read 616-621
(chosen, like the bars above, offline with every crop width at each point: 629)."""


def search_grid(x: float, y: float, width: float) -> list[Candidate]:
    """The centres to look at around a die at (x, y), ``width`` wide."""
    offsets = np.linspace(-REACH, REACH, 2 * STEPS + 1) * width
    return [Candidate(x + dx, y + dy, width) for dx in offsets for dy in offsets]


def at_top_faces(image: np.ndarray, reads: Sequence[Read], scale: float, nets: Networks
                 ) -> list[Read]:
    """The reads (``scale`` working pixels per frame pixel), each one read below
    ``SEARCH_BELOW`` replaced by the networks' reading at the top face's centre where that is
    another face read at ``TAKE_FROM`` or surer."""
    out: list[Read] = []
    for read in reads:
        out.append(read)
        if read.confidence >= SEARCH_BELOW:
            continue
        width = read.size / scale
        centre = surest_centre(image, search_grid(read.x / scale, read.y / scale, width),
                               nets.finder)
        seen = read_candidates(image, [centre], width, nets)  # one place: at most one die
        if not seen:
            continue
        top = seen[0]
        if top.confidence >= TAKE_FROM and top.face != read.face:
            out[-1] = dataclasses.replace(top, x=top.x * scale, y=top.y * scale,
                                          size=top.size * scale)
    return out
