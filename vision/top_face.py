"""A doubtful die read again where the face networks find its top face centred.

A camera that looks at the tray at a slant sees the dice's side faces too. The body path's
square and the die map's peak then sit between the top face and a side face and read the side
face's pips: of the 78 dice the 3-D tuning sets read with a wrong face, the reader had placed
most 0.15 to 0.42 of a width off the top face's centre. The face networks were trained on top
faces centred in their crops, so the finder is surest of a die where its crop is centred on the
top face: shown the dice at their labelled centres, the networks read 57 of the 78 right, and
13 at the reader's centres. So a die read below ``SEARCH_BELOW`` is looked for on a grid around
its centre, the finder looking at each point at the die's width, and on the half of the grid
away from the frame's centre at a narrower width too (``outward``, ``NARROWER``: the side
faces a tilted camera sees lie towards that centre and widen the die;
``uncalibrated.surest_centre``); the networks read the die at the point the finder is surest
of (``read_candidates``), and where they read another face there surely enough
(``TAKE_FROM``), that reading stands. Every point of the 5 x 5 grid first searched, looked at
with every crop width, read 633 rolls of 720 against 631, for a median frame of 16.6 against
14.6 ms (491 against 538 frames under 25 ms).

Sure dice are not searched, but for sure 1s (``SURE_ONE``): a tilted 4 or 2 whose square
saw one pip reads as a sure 1.

The same search finds dice at the die map's peaks that no reader read (``dice_at_peaks``).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np

from vision.bodies import OVERLAP
from vision.diemap import Peak
from vision.uncalibrated import Candidate, Networks, Seen, read_candidates, surest_centre

if TYPE_CHECKING:  # set_reader reads its unread peaks here (``dice_at_peaks``)
    from vision.set_reader import Read

SEARCH_BELOW = 0.9
"""A die read less sure than this is looked for again: a fifth of the 2,437 dice the 48 3-D
tuning sets read. With the 5 x 5 grid reaching 0.2, searching dice below 0.9 read 629 rolls of
720, below 0.6 622, every die 617 (sure fuel readings, which the networks cannot make, were
lost: 582 with ``TAKE_FROM`` 0.6); with the 7 x 7 grid, below 0.95 635 against 636 at 0.9 (both
at ``TAKE_FROM`` 0.8)."""

TAKE_FROM = 0.7
"""How sure the networks must read another face at the centre found for it to replace the die:
with the 7 x 7 grid reaching 0.3, on the tuning sets 637 rolls at 0.6, 642 at 0.7, 636 at 0.8
(OpenCV 4.6: 631 at 0.7, 627 at 0.8); with the 5 x 5 grid reaching 0.2, 626 at 0.6, 629 at
0.8, 628 at 0.9."""

REACH = 0.3
"""How far from the die's centre the grid reaches, in die widths, each way: the reader's centre
lay up to 0.4 of a width off the top face's. At ``TAKE_FROM`` 0.8 and with the candidates' step
aside (``uncalibrated.ASIDE``), 0.3 read 636 rolls of 720, 0.2 634; without the step aside, 634
and 631."""

STEPS = 3
"""Grid points each side of the centre: a 7 x 7 grid, 0.1 of a width apart, cut to a disc
(``search_grid``). 5 x 5 points 0.15 apart read 632 (at ``TAKE_FROM`` 0.8; 0.2 apart, 631): the
finder's surest point moves in tenths. Earlier, reaching 0.2: a 3 x 3 grid 0.2 apart, or 0.1
apart, or a coarse 3 x 3 and then a fine one around its best, read 616-621 (chosen offline with
every crop width at each point: 629)."""


SURE_ONE = "1"
"""A die read surely as this face is looked for too, on the grid's outward half at its read
width alone: a tilted 4 or 2 whose square took in one pip and its side face reads as a sure 1.
On the 48 tuning sets 662 rolls of 720 against 660 (OpenCV 4.6: 657 against 655), a roll fewer
read wrong without asking on each, no roll lost, households of eight as before (4.6: one more),
for a median frame of 24.2 against 23.3 ms; searched at both widths on the whole grid as a
doubtful die is, the same rolls for 27.0 ms (bench/results/2026-12-06-faces-int8.md)."""

NARROWER = 0.8
"""The top face is looked for at this of the die's read width too, on the grid's outward half
(``outward``). A tilted die's read width takes in its side faces: of the 49 dice the 3-D
tuning sets read with a wrong face, 21 were read 1.15 to 2.1 times as wide as the labelled top
face, and the networks read such dice right at its centre more often at its own width than at
the read one (5011 photo 9's 2: 0.98 against 0.58). The 48 tuning sets read 660 rolls of
720 against 656 (OpenCV 4.6: 655 against 649), every flat set as before; a roll more on each
read wrong without asking (5014 photo 7 on 5.1: a 3 read as a 1). Only the outward half at
both widths read 661 (4.6: 656) but lost rolls of flat sets, whose dice do not lean
(dice-real 0.896 -> 0.892, flat standard hard 0.95 -> 0.94); the whole grid at both widths
658, the outward half at the read width alone 656."""

NARROWER_REACH = 0.45
"""How far the outward half-grid at ``NARROWER`` of the read width reaches, in its own widths
(0.36 of the read width; the grid at the read width reaches 0.3 of it). A die read 1.3 to 1.5
times as wide as its top face (its side faces taken in) lay 0.38 to 0.43 of its top face's
width off it, beyond the 0.24 of the read width the narrower grid reached at ``REACH``, and
the finder was surest of a point between. On the 48 3-D tuning sets 664 rolls of 720 against
662 at ``REACH``, none lost, a die fewer read wrong without asking (OpenCV 4.6: 658 against
657, a 3 of set 5019 read as the fuel symbol read right); at 0.4, 664 (4.6: 657). The
half-disc holds about 37 points against 17 at ``REACH``: tuning sets 5004 and 5041, with many
doubtful dice, took 67 -> 75 and 57 -> 65 ms a frame, and the held-out standard sets, read
by the networks, 1-9 ms more (bench/results/2026-12-06-reach-one-map.md). The grid at the
read width reaching 0.3 of it at ``NARROWER`` instead: 663, a roll lost."""


def outward(grid: list[Candidate], x: float, y: float, shape: tuple[int, ...]
            ) -> list[Candidate]:
    """The points of ``grid`` (around a die at (x, y) in a frame of ``shape``) no nearer the
    frame's centre than the die: a camera sees the side faces that face it, so a die's top face
    lies away from the point below the camera, near the frame's centre, and the reader's centre
    falls short of it. Of the 285 dice the 3-D tuning sets read more than 0.12 of a width off
    their labelled top face, 251 (88 %) lay on the outward side (the cosine of the angle
    between the offset and the direction from the frame's centre above 0; its median 0.85 for
    the dice read right, 0.91 for those read wrong)."""
    h, w = shape[:2]
    out_x, out_y = x - w / 2, y - h / 2
    slack = -1e-6 * float(np.hypot(out_x, out_y))  # the points level with the die stay
    return [c for c in grid if (c.x - x) * out_x + (c.y - y) * out_y >= slack]


def search_grid(x: float, y: float, width: float, reach: float | None = None
                ) -> list[Candidate]:
    """The centres to look at around a die at (x, y), ``width`` wide: the points of a grid
    ``REACH / STEPS`` of a width apart within ``reach`` widths of it (``REACH`` unless given:
    29 of 7 x 7). With the corners too, the tuning sets read 642 rolls against 640 (631 against
    629 on OpenCV 4.6) for a median frame of 15.2 against 14.3 ms."""
    reach = REACH if reach is None else reach
    steps = int(reach * STEPS / REACH + 1e-9)
    offsets = np.linspace(-steps * REACH / STEPS, steps * REACH / STEPS, 2 * steps + 1)
    return [Candidate(x + dx * width, y + dy * width, width) for dx in offsets for dy in offsets
            if np.hypot(dx, dy) <= reach + 1e-9]


def at_top_faces(image: np.ndarray, reads: Sequence[Read], scale: float, nets: Networks
                 ) -> list[Read]:
    """The reads (``scale`` working pixels per frame pixel), each one read below
    ``SEARCH_BELOW`` replaced by the networks' reading at the top face's centre where that is
    another face read at ``TAKE_FROM`` or surer: the point the finder is surest of, of the grid
    at the read width and its outward half at ``NARROWER`` of it; a sure ``SURE_ONE`` is
    searched for on the outward half at the read width alone."""
    out: list[Read] = []
    for read in reads:
        out.append(read)
        sure = read.confidence >= SEARCH_BELOW
        if sure and read.face != SURE_ONE:
            continue
        x, y, width = read.x / scale, read.y / scale, read.size / scale
        if sure:
            grid = outward(search_grid(x, y, width), x, y, image.shape)
        else:
            grid = [*search_grid(x, y, width),
                    *outward(search_grid(x, y, NARROWER * width, NARROWER_REACH), x, y,
                             image.shape)]
        centre = surest_centre(image, grid, nets.finder)
        seen = read_candidates(image, [centre], centre.width, nets)  # one place: one die
        if not seen:
            continue
        top = seen[0]
        if top.confidence >= TAKE_FROM and top.face != read.face:
            out[-1] = dataclasses.replace(top, x=top.x * scale, y=top.y * scale,
                                          size=top.size * scale)
    return out


def dice_at_peaks(image: np.ndarray, peaks: Sequence[Peak], read: Sequence[Seen], die: float,
                  crop_px: float, nets: Networks) -> list[Seen]:
    """The dice the networks find at the die map's ``peaks`` where none of the dice they
    ``read`` there lies (within ``bodies.OVERLAP`` of ``die``, the frame's die width), each
    looked for at the point of the grid around its peak where the finder is surest
    (``search_grid``) and read with the crop widths of ``crop_px`` (``read_candidates``). The
    finder takes a die only with its top face centred in the crop to about a tenth of a width,
    and a tilted die's peak can lie further off, beyond the step aside: on 3-D tuning set 5035
    (photo 9) two 2s whose peaks scored 0.85 and 0.66 lay 0.14 of a width from their top faces,
    where the finder gave "no die" 0.74-0.80, and 0.07 at the top face. A peak near a stronger
    one lies on its die and is searched with it (searched on its own, a 4's two peaks became two
    4s)."""
    taken = [(d.x, d.y) for d in read]
    left: list[Peak] = []
    for peak in sorted(peaks, key=lambda p: -p.score):
        if all(np.hypot(peak.x - x, peak.y - y) >= OVERLAP * die for x, y in taken):
            left.append(peak)
            taken.append((peak.x, peak.y))
    if not left:
        return []
    centres = [surest_centre(image, search_grid(p.x, p.y, p.width), nets.finder) for p in left]
    return read_candidates(image, centres, crop_px, nets)
