"""Calibrating a dice set: learn its profile from labelled shots, then choose its reader by how each
reads shots it did not learn from.

A set of standard dice can be read by two readers. The body path (``bodies.py``) finds dice by the
set's body colour and reads them with the set's own templates; the face network
(``uncalibrated.py``) learns nothing from the shots: it is the reader of a table without
calibration. Reading the calibration shots back cannot choose between them: the body path has
learned those very shots, reads them back perfectly and may then fail on the rolls (a hidden set of
383 webcam photos, one off-white set calibrated on one shot per face: 0.61 exact by the body path
chosen that way, 0.80 by the network). So each shot is read by a body path learned from the other
shots (leave one out), and the body path is kept only when it reads those held-out shots clearly
better than the network does. Calibration then never reads a standard set worse than no calibration
unless held-out shots say the body path is better (``bench/calibration_bench.py``).

A set with a fuel symbol keeps the body path, which asks the networks about the dice it cannot read
(``set_reader.py``; they read the symbol with the set's templates, ``network_fuel.py``), rather than
the networks reading the set: on ten rendered MLEM sets in hard light the body path read 0.52-1.00
of the rolls exactly, the network with the set's fuel templates 0.52-0.88, never more than the body
path; and two shots give too little to hold out (learned from one of them, the body path read the
other worst in the one set where it read the rolls 0.88 against the network's 0.52). Unless its
calibration failed: the networks then read the set, where they read its shots back clearly better
than its own reader does, though that reader learned from those very shots
(``_body_path_unless_failed``).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import replace

import numpy as np

from vision.body_learn import read_back
from vision.profile import Profile, learn_profile, table_mark
from vision.reader import DiceReader
from vision.set_reader import shipped_networks
from vision.shot_sets import Shot, dice_sets
from vision.uncalibrated import read_unknown_dice

MARK_CLEAR = 0.5
"""A die the networks read in a calibration shot is a mark of the table when no labelled die
lies within this of its width."""

BODY_MARGIN = 0.2
"""How much more of the held-out dice (as a share of them) the body path must read right to
be chosen over the network. Two standard sets in hard light read their held-out shots alike,
the body path 12 of 12 dice, the network 10: set 207's rolls the body path then read 1.00
exact against the network's 0.96, set 202's (two shots) 0.92 against 1.00. Such a margin is
no evidence either way, so the network, which is the reader without calibration, keeps the
set (at 0.1, set 202 lost two rolls in 25 to calibration once the body path merged doubtful
readings with the networks; ``bench/calibration_bench.py``)."""


def calibrate(shots: Iterable[Shot]) -> Profile:
    """Learn a dice set from labelled shots ("show each face once"), choose its reader
    (``chosen_reader``) and note the marks of the table the face networks take for dice
    (``table_marks``). Shots of several sets (``shot_sets.dice_sets``) give a household
    profile, each set calibrated on its own shots."""
    first, *more = (_calibrated_set(shots) for shots in dice_sets(list(shots)))
    return replace(first, more_sets=tuple(more))


def _calibrated_set(shots: Sequence[Shot]) -> Profile:
    """One dice set's profile, learned from its own shots, with its ``lights``."""
    marks = table_marks(shots)
    profile = replace(chosen_reader(shots), table_marks=marks)
    return replace(profile, lights=tuple(replace(light, table_marks=marks)
                                         for light in _lights(profile, shots)))


def _lights(profile: Profile, shots: Sequence[Shot]) -> tuple[Profile, ...]:
    """The set learned again from each shot alone (``Profile.lights``), for a set its body path
    reads whose reader does not read every calibration die back; else none. Each photo has its
    own light: in hard 3-D conditions a set's two shots showed its dice as BGR (57, 49, 33) and
    (35, 19, 21), and a set learned from both can fit neither. On the 48 3-D tuning sets (20
    hard and 8 normal ones kept lights) 539 hard rolls of 720 against 523 (25 wrong without
    asking against 24; 9 sets gained, 6 lost) and 675 normal ones against 668 (10 against 8; 5
    sets gained, none lost); with lights for every set, 552 and 667, but 19 normal rolls wrong
    without asking (bench/results/2026-12-07-symbol-ink.md)."""
    if (len(shots) < 2 or profile.network_reads or profile.look() is None
            or profile.self_check is None or profile.self_check[0] >= profile.self_check[1]):
        return ()
    return tuple(chosen_reader([shot]) for shot in shots)


def chosen_reader(shots: Sequence[Shot]) -> Profile:
    """The set learned from the shots, with its reader: the body path for a set with a fuel
    symbol unless its calibration failed (``_body_path_unless_failed``); for standard dice the
    face network unless the body path reads held-out shots clearly better (``held_out``). Its
    ``self_check`` is the shots read back by that reader (``_read_back``)."""
    profile = learn_profile(shots)
    if not shots:
        return profile
    dice = sum(len(d) for _, d in shots)
    if shows_fuel(shots):
        return _body_path_unless_failed(profile, shots, dice)
    if profile.look() is not None and len(shots) > 1:
        by_body, by_network = held_out(shots)
        if by_body > by_network + BODY_MARGIN * dice:
            return _read_back(profile, shots, dice)
    return _read_back(replace(profile, network_reads=True), shots, dice)


def _body_path_unless_failed(profile: Profile, shots: Sequence[Shot], dice: int) -> Profile:
    """The set read by its body path, or by the networks (its fuel dice by its templates,
    ``network_fuel.py``) where they read its shots back better by more than ``BODY_MARGIN`` of
    the dice than its own reader does, though that reader learned from those very shots: its
    calibration failed. 3-D tuning set 5025 (glossy orange dice under a warm lamp, learned half
    as wide as they are) read its ten dice back 2 against the networks' 9, and its rolls 5 of
    15 against 13. No other of the 48 tuning sets passes that bar; with no margin five more
    would, and they read 7 rolls fewer by the networks than by their own readers (bench/
    results/2026-12-05-symbol-at-labels.md). A set without a body path keeps the reader
    ``set_reader.py`` gives such a set."""
    if profile.look() is None:
        return _read_back(profile, shots, dice)
    by_body = _read_back_by(DiceReader(profile), shots)
    network = replace(profile, network_reads=True)
    by_network = _read_back_by(DiceReader(network), shots)
    if by_network > by_body + BODY_MARGIN * dice:
        return replace(network, self_check=(by_network, dice))
    return replace(profile, self_check=(by_body, dice))


def _read_back(profile: Profile, shots: Sequence[Shot], dice: int) -> Profile:
    """``profile`` with its ``self_check`` by the whole reader the table will use, not by the
    body path alone (which ``learn_profile`` records): where the body path misses a die, the
    networks it asks find it. In hard conditions, 18 of the 48 3-D tuning sets kept a body
    path that alone read back fewer than half of their ten dice, and their owners were told to
    expect questions about most rolls; their whole readers read back 0 to 10 of the dice (13
    sets 8 or more) and 174 of 270 rolls right (bench/results/2026-12-07-hard-3d.md)."""
    return replace(profile, self_check=(_read_back_by(DiceReader(profile), shots), dice))


def table_marks(shots: Sequence[Shot]) -> tuple[tuple[float, float, float], ...]:
    """Where the face networks read a die in the shots with none labelled within ``MARK_CLEAR``
    of its width: marks of the table, not dice (``Profile.table_marks``, in fractions of the
    frame). On 48 3-D rendered MLEM tuning sets (seeds 5001-5048) two playmats had such marks;
    dropping the networks' dice on them read one set's rolls 12 of 15 right against 7 (a
    planet printed on the mat read as a 1), the other's as before. Each sighting is kept with
    its own width, the same mark read in two shots too: noted once, the planet stopped a 1 read
    at the other shot's width no more, and set 5040 read a roll fewer."""
    return tuple(table_mark(seen.x, seen.y, seen.size, image.shape)
                 for image, dice in shots
                 for seen in read_unknown_dice(image, shipped_networks())
                 if all(np.hypot(seen.x - d.x, seen.y - d.y) > MARK_CLEAR * seen.size
                        for d in dice))


def add_set(household: Profile, shots: Iterable[Shot]) -> Profile:
    """A household's profile with one more dice set, calibrated on that set's own shots (a
    household may own two sets and play with either without calibrating again)."""
    return replace(household, more_sets=(*household.more_sets, *calibrate(shots).sets()))


def held_out(shots: Sequence[Shot]) -> tuple[int, int]:
    """(body path, network): the score each reads the shots with (``read_back``), each shot
    read by a body path learned from the other shots only (a shot the others cannot teach a
    body colour scores nothing), and by the network, which learns nothing."""
    network = DiceReader()
    by_body = by_network = 0
    for i, shot in enumerate(shots):
        learned = learn_profile([other for j, other in enumerate(shots) if j != i])
        if learned.look() is not None:
            by_body += _read_back_by(DiceReader(learned), [shot])
        by_network += _read_back_by(network, [shot])
    return by_body, by_network


def shows_fuel(shots: Iterable[Shot]) -> bool:
    """Is a fuel symbol among the labelled dice? (A learned symbol comes only from those.)"""
    return any(die.face == "fuel" for _, dice in shots for die in dice)


def _read_back_by(reader: DiceReader, shots: Sequence[Shot]) -> int:
    """The labelled dice of the shots that ``reader`` reads right, less the dice it sees that
    are not there or reads wrong (the score of the body path's own size trials)."""
    return sum(read_back([(d.face, d.x, d.y, d.size) for d in reader.read(image).dice],
                         [(d.face, d.x, d.y) for d in dice])
               for image, dice in shots)
