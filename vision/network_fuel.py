"""The fuel symbol on the face network's path: the network knows only pip faces, so a calibrated
MLEM set's own fuel templates (``body_face.py``) say which of its dice show the symbol.

The network reads a calibrated MLEM set where the body path cannot read a frame (its colours find no
die, or cover the frame), wherever a profile says the network reads the set, and at the die map's
peaks the body path's templates could not read (``set_reader.SetReader._beside``). Read by the
network alone, a fuel face is taken for a 1 (the symbol is one dark blot near the middle: 22 of 23
fuel dice it found on 40 rendered MLEM rolls) or turned down as no die (17 of 40). So each die the
network reads as a 1, or reads unsure, is read again with the set's templates, and the die map's
peaks the network turned down are read the same way; a sure fuel reading wins. Where the body
path has read the frame too, the dice it read surely are not read again. Only "fuel" is taken
from the templates: the pip faces stay the network's. With the templates, the network read 20 to 30
of 32 fuel dice right on six rendered MLEM sets (twenty rolls each, three in each light).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from vision.bodies import MISSED_PEAK, Placed, TemplateReads, dice_width, on_die
from vision.body_face import BodyRead, Look
from vision.confidence import SURE
from vision.diemap import FrameMap, Peak
from vision.uncalibrated import Seen

FUEL = "fuel"
FUEL_SURE = 0.45
"""A die is read as the fuel symbol when the set's templates say so at least this sure (the
bar the body path keeps a die the map found with, ``bodies.MISSED_SURE``)."""


FUEL_AROUND = 0.35
"""How far from a die-map peak, in die widths, the templates also look for a fuel symbol
(``fuel_at_peaks``): seen at a slant, a die's peak can sit between its top face and a side
face, 0.4-0.6 of a width from the symbol (tuning sets 5029, 5030, 5032), and a read moves at
most ``body_face.MAX_DRIFT`` (0.2) from where it starts. The 48 3-D tuning sets read 651
rolls of 720 against 646 (OpenCV 4.6: 646 against 637): fuel found on 7 rolls (4.6: 11),
and wrongly on 2 (a printed mark of a dark playmat, a grey 2 in washed-out light; 4.6: that
2 again, and a fuel die read as a 1). Their photos pooled by eight and read with the first
set's calibration, 424 against 402 (4.6: 429 against 405), at a median frame of 20.7 against
18.1-19.3 ms (4.6: 22.1 against 20.4): every peak off the dice is read up to nine times."""

FUEL_PEAK_WIDTH = 0.6
"""Peaks narrower than this of the frame's die width are no die (``fuel_at_peaks``): the
printed stars of a playmat, 20-29 px where the dice were 50, read as fuel 0.52-0.67 around
their peaks (tuning set 5004, photo 5); the networks' dice have the same bar
(``set_reader.NETWORK_WIDTHS``)."""


def with_fuel(frame: FrameMap, seen: Sequence[Seen], reads: TemplateReads,
              read: Sequence[Placed] = (), die_px: float | None = None, lift: float = 1.0
              ) -> list[Seen | BodyRead]:
    """The network's dice in ``frame`` with the fuel faces among them read as fuel
    (``fuel_faces``), and the fuel dice the network turned down added (``fuel_at_peaks``; read
    as the body path reads the peaks its masks missed, ``bodies.missed_dice``, the 48 3-D tuning
    sets read the same 645 rolls of 720). ``read``: the dice the body path read surely with the
    same templates, which are not read again: on the tuning sets the same 601 rolls of 720, and
    the frames over 30 ms 1.8 ms faster on average (bench/results/2026-12-04-two-views.md).

    ``reads``: the set's template reads of the frame (``bodies.TemplateReads``), shared with its
    body path; ``lift``: the set's tone lift (``diemap.tone_lift``), so a dark set's templates read
    its lifted map, as its body path does; ``die_px``: the body path's die width where it read the
    frame, so they read the peaks of the very map run it searched (``diemap.FrameMap``), else the
    network's dice give the width. At the width of the network's dice (their crops run wider) and
    in the frame's own tones, the map ran again in a third of the tuning sets' frames; so, 89 of 96
    frames ran it once against 62, and the 48 tuning sets read 666 rolls of 720 against 664 (OpenCV
    4.6: 660 against 658), a roll fewer read wrong without asking (4.6: two;
    bench/results/2026-12-06-reach-one-map.md)."""
    die = dice_width(seen, reads.look, frame.image.shape) if die_px is None else die_px
    peaks = frame.peaks(MISSED_PEAK, die, lift)
    out = fuel_faces(seen, reads, read, peaks)
    return out + fuel_at_peaks(peaks, [*out, *read], die, reads)


def fuel_faces(seen: Sequence[Seen], reads: TemplateReads, read: Sequence[Placed] = (),
               peaks: Sequence[Peak] = ()) -> list[Seen | BodyRead]:
    """The network's dice, each read as a 1 or unsure (below ``confidence.SURE``, whatever its
    face: the table would ask about it) read again with the set's templates, except those on
    a die of ``read`` (as ``with_fuel``): a sure fuel reading replaces the network's."""
    return [_fuel_or(s, reads, peaks)
            if (s.face == "1" or s.confidence < SURE)
            and not any(on_die(s, die, 0.0) for die in read) else s for s in seen]


def _fuel_or(die: Seen, reads: TemplateReads, peaks: Sequence[Peak]) -> Seen | BodyRead:
    """The die read as fuel if the set's templates are sure of it, at its centre or at a die-map
    peak on it (at the peak's width), else as the network read it. The finder can find a die
    a step aside of its peak (``uncalibrated.ASIDE``), off the symbol's centre and wider than
    the die: a fuel die of ``tests/vision/test_network_fuel.py`` was read there as a 1 at 0.59,
    1.4 times its width, and at its peak as a sure fuel symbol."""
    places = [(die.x, die.y, die.size)] + [(p.x, p.y, p.width) for p in peaks
                                           if on_die(p, die, 0.0)]
    for x, y, width in places:
        read = reads.at((x, y), width)
        if read is not None and read.face == FUEL and read.confidence >= FUEL_SURE:
            return read
    return die


def fuel_at_peaks(peaks: Sequence[Peak], taken: Sequence[Placed], die: float,
                  reads: TemplateReads) -> list[BodyRead]:
    """The fuel dice at the die map's ``peaks`` that no die of ``taken`` lies on (``on_die``,
    the frame's dice ``die`` wide): each peak at least ``FUEL_PEAK_WIDTH`` wide, strongest
    first, read by the set's templates at the frame's die width (``surest_read``) at the peak
    and around it (``around``), kept at the first place they read the symbol ``FUEL_SURE`` or
    surer, off every die already read. The face networks know no fuel symbol, so a fuel die
    the body path's masks missed is found here or not at all.

    ``bodies.missed_dice`` does not read a peak beside a stronger one it could not read (on a
    tilted die, the side face the networks read with the top); on tuning set 5029 (photo 2)
    such a peak lay on a fuel die the templates read at 1.0, the stronger one on its edge. Read
    here too, the 48 tuning sets read 645 rolls of 720 against 644 (OpenCV 4.6: 635 against
    634), none worse; read around the peaks too, 651 against 646 (``FUEL_AROUND``)."""
    out: list[BodyRead] = []

    def on_a_die(place: Peak | Placed) -> bool:
        return any(on_die(place, d, die) for d in [*taken, *out])

    for peak in sorted(peaks, key=lambda p: -p.score):
        if peak.width < FUEL_PEAK_WIDTH * die or on_a_die(peak):
            continue
        for place in around(peak, die):
            read = reads.at(place, die)
            if (read is not None and read.face == FUEL and read.confidence >= FUEL_SURE
                    and not on_a_die(read)):
                out.append(read)
                break
    return out


def around(peak: Peak, die: float) -> list[tuple[float, float]]:
    """The peak and eight places ``FUEL_AROUND`` die widths from it, along the axes and the
    diagonals."""
    step = FUEL_AROUND * die
    diagonal = step / np.sqrt(2.0)
    offsets = [(0.0, 0.0), (step, 0.0), (-step, 0.0), (0.0, step), (0.0, -step),
               (diagonal, diagonal), (-diagonal, diagonal), (diagonal, -diagonal),
               (-diagonal, -diagonal)]
    return [(peak.x + dx, peak.y + dy) for dx, dy in offsets]


def fuel_known(look: Look | None) -> bool:
    """Did calibration learn this set's fuel symbol?"""
    return look is not None and bool(look.fuel)
