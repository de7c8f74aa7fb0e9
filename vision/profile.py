"""Calibration: what one dice set looks like, learned from a few labelled shots, saved as JSON.

A profile holds the colours of the set's bodies and pips and the shape of its fuel symbol. The
reader uses the colours to ignore spots that are not on one of this set's dice (stars on a
printed mat, specks on a table) and the shape to tell the fuel symbol from a big single pip.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np

from vision.body_face import TEMPLATE, Look
from vision.body_learn import learn
from vision.detect import Image, Spot, estimate_die_px, prepare

Lab = tuple[float, float, float]
PROFILE_VERSION = 3
"""Version 2 added the calibrated body path (``body_bgr`` and after), version 3 a household's
other dice sets (``more_sets``); versions 1 and 2 still load."""
TRUSTED_SHARE = 0.5
"""A calibration that reads back fewer of its own dice right than this share is reported as
untrustworthy (a rendered hard set of red dice, half of them in shade, read back 0 of 10 before
calibration allowed for the shade, and then no roll; one that read back 5 of 10 read 76 % of
rolls right)."""
BODY_TOLERANCE = 40.0
"""How far (opponent-colour units) a spot's surround may be from a calibrated body colour."""


@dataclass(frozen=True)
class LabelledDie:
    """One die of a calibration shot: its face and the centre of its top face (frame pixels)."""

    face: str
    x: float
    y: float


@dataclass(frozen=True)
class FuelShape:
    """The fuel symbol as seen on this set: shape moments, roundness and size relative to a die."""

    hu: tuple[float, ...]
    roundness: float
    area: float
    """Symbol area over die area."""


@dataclass(frozen=True)
class Profile:
    """A dice set. The default (no calibration) knows no colours and no fuel shape."""

    bodies: tuple[Lab, ...] = ()
    pips: tuple[Lab, ...] = ()
    fuel: FuelShape | None = None
    faces_seen: tuple[str, ...] = field(default=())
    body_bgr: Lab | None = None
    """Body colour (BGR) for the calibrated body path; None: pip-first path only."""
    inks_bgr: tuple[Lab, ...] = ()
    """Pip and symbol colours, BGR."""
    die_frac: float = 0.0
    """Die core width over the frame's shorter side (a fixed camera keeps it)."""
    pip_offset: float = 0.27
    pip_radius: float = 0.09
    one_radius: float = 0.12
    fuel_templates: tuple[tuple[float, ...], ...] = ()
    """Canonical fuel ink maps, ``TEMPLATE`` square, row-major."""
    self_check: tuple[int, int] | None = None
    """(calibration dice the chosen reader read back right less those it saw that were not
    there, calibration dice): how far the set can be trusted. None: not recorded (older files)."""
    haze_less: float = 0.0
    """Most grey haze a body pixel may lack against ``body_bgr``
    (``body_learn.HAZE_LESS_TRIALS``)."""
    network_reads: bool = False
    """The face network, not the body path, reads this set: it read the calibration shots back
    better (``vision.calibration``)."""
    table_marks: tuple[tuple[float, float, float], ...] = ()
    """Marks of the table the face networks took for dice in the calibration shots, away from
    every labelled die (a planet printed on a playmat): centre over the frame's width and
    height, width over its shorter side (``calibration.table_marks``). A fixed camera sees them
    in every frame, where a die the networks read on one is the mark (``set_reader``)."""
    more_sets: tuple[Profile, ...] = ()
    """A household's other dice sets, each calibrated on its own shots: a roll is read with
    whichever set explains it best (``reader.py``)."""
    lights: tuple[Profile, ...] = ()
    """This set learned again from each calibration shot alone, where the set learned from
    all of them does not read them all back (``calibration._lights``): a frame in one shot's
    light is read by that shot's set too, and the reading that explains it best is kept."""

    def look(self) -> Look | None:
        """What the body path needs, or None if this profile was not calibrated for it."""
        if self.body_bgr is None or not self.inks_bgr or self.die_frac <= 0:
            return None
        fuel = tuple(np.array(t, np.float32).reshape(TEMPLATE, TEMPLATE)
                     for t in self.fuel_templates if len(t) == TEMPLATE * TEMPLATE)
        return Look(self.body_bgr, self.inks_bgr, self.die_frac, self.pip_offset,
                    self.pip_radius, self.one_radius, fuel, self.haze_less)

    def marks_in(self, shape: tuple[int, ...]) -> list[tuple[float, float, float]]:
        """``table_marks`` in the frame pixels of a frame of ``shape`` (centre, width)."""
        h, w = shape[:2]
        return [(x * w, y * h, width * min(h, w)) for x, y, width in self.table_marks]

    def calibration_warning(self) -> str | None:
        """What an owner should hear after calibrating: the body path could not learn this set,
        or reads back fewer than half of the calibration dice right. The table will then ask
        about most rolls; a surface that contrasts with the dice is the usual cure."""
        if self.self_check is None:  # not calibrated, or by a version that did not record it
            return None
        advice = "calibrate again on a plain surface that contrasts with the dice"
        if self.look() is None and not self.network_reads:
            return f"the dice could not be told from the surface: {advice}"
        right, dice = self.self_check
        if right < TRUSTED_SHARE * dice:
            return (f"only {max(right, 0)} of {dice} calibration dice were read back right: "
                    f"expect to be asked about most rolls; {advice}")
        return None

    def to_json(self) -> str:
        """The profile as a small JSON document."""
        data = {"version": PROFILE_VERSION, **asdict(self)}
        return json.dumps(data, indent=1)

    def sets(self) -> tuple[Profile, ...]:
        """Every dice set this profile knows, this one first, each without ``more_sets``."""
        return (replace(self, more_sets=()), *self.more_sets)

    def readers(self) -> tuple[tuple[Profile, ...], ...]:
        """What reads a frame, set by set (``sets``): each set and then its ``lights``, none
        holding more."""
        return tuple((replace(dice_set, lights=()), *dice_set.lights)
                     for dice_set in self.sets())

    @classmethod
    def from_json(cls, text: str) -> Profile:
        """Parse :meth:`to_json` output.

        :raises ValueError: for another version or a malformed document.
        """
        data = json.loads(text)
        if data.get("version") not in (1, 2, PROFILE_VERSION):
            raise ValueError(f"unsupported profile version {data.get('version')!r}")
        return cls._from_dict(data)

    @classmethod
    def _from_dict(cls, data: dict[str, Any]) -> Profile:
        """One set's fields (and its household's other sets) from a parsed document."""
        try:
            fuel = data.get("fuel")
            return cls(
                bodies=tuple(_lab(c) for c in data.get("bodies", ())),
                pips=tuple(_lab(c) for c in data.get("pips", ())),
                fuel=FuelShape(tuple(float(v) for v in fuel["hu"]), float(fuel["roundness"]),
                               float(fuel["area"])) if fuel else None,
                faces_seen=tuple(str(f) for f in data.get("faces_seen", ())),
                body_bgr=_lab(data["body_bgr"]) if data.get("body_bgr") else None,
                inks_bgr=tuple(_lab(c) for c in data.get("inks_bgr", ())),
                die_frac=float(data.get("die_frac", 0.0)),
                pip_offset=float(data.get("pip_offset", 0.27)),
                pip_radius=float(data.get("pip_radius", 0.09)),
                one_radius=float(data.get("one_radius", 0.12)),
                fuel_templates=tuple(tuple(float(v) for v in t)
                                     for t in data.get("fuel_templates", ())),
                self_check=(int(data["self_check"][0]), int(data["self_check"][1]))
                if data.get("self_check") else None,
                haze_less=_share(data.get("haze_less", 0.0), "haze_less"),
                network_reads=bool(data.get("network_reads", False)),
                table_marks=tuple((float(x), float(y), float(w))
                                  for x, y, w in data.get("table_marks", ())),
                more_sets=tuple(cls._from_dict(d) for d in data.get("more_sets", ())),
                lights=tuple(cls._from_dict(d) for d in data.get("lights", ())),
            )
        except (KeyError, TypeError, IndexError, AttributeError) as exc:
            raise ValueError(f"malformed profile: {exc}") from exc

    def save(self, path: Path) -> None:
        """Write the profile to ``path``."""
        path.write_text(self.to_json() + "\n", encoding="utf-8")

    @classmethod
    def load(cls, path: Path) -> Profile:
        """Read a profile written by :meth:`save`.

        :raises ValueError: if the file is not a profile of this version (the message names
            the file).
        """
        try:
            return cls.from_json(path.read_text(encoding="utf-8"))
        except ValueError as exc:
            raise ValueError(f"{path} is not a dice profile: {exc}") from exc


def table_mark(x: float, y: float, width: float, shape: tuple[int, ...]
               ) -> tuple[float, float, float]:
    """A mark seen at (x, y), ``width`` wide, in frame pixels of a frame of ``shape``, as
    ``Profile.table_marks`` holds it (the inverse of ``Profile.marks_in``)."""
    h, w = shape[:2]
    return round(x / w, 4), round(y / h, 4), round(width / min(h, w), 4)


def _share(value: float, name: str) -> float:
    """A profile field that is a share of a pixel's lightness: a number from 0 to 1 (JSON's
    null or a string raises TypeError or ValueError: the profile is malformed)."""
    share = float(value)
    if not 0.0 <= share <= 1.0:
        raise ValueError(f"{name} must lie between 0 and 1, not {share}")
    return share


def body_match(profile: Profile, ring: Lab) -> bool:
    """Could a spot with this surround lie on one of the profile's dice? Always, uncalibrated.

    Lightness counts half: light falls unevenly across a tray, hue does not change with it.
    """
    if not profile.bodies:
        return True
    return any(np.hypot(0.5 * (ring[0] - b[0]), np.hypot(ring[1] - b[1], ring[2] - b[2]))
               < BODY_TOLERANCE for b in profile.bodies)


def _lab(c: Sequence[float] | np.ndarray) -> Lab:
    return (float(c[0]), float(c[1]), float(c[2]))


def _near(spots: Sequence[Spot], x: float, y: float, radius: float) -> list[Spot]:
    return [s for s in spots if (s.x - x) ** 2 + (s.y - y) ** 2 <= radius * radius]


def _cluster_colours(colours: list[Lab], tolerance: float = 20.0) -> tuple[Lab, ...]:
    """A few representative colours: greedy clusters, each reported by its median."""
    clusters: list[list[Lab]] = []
    for c in colours:
        for cl in clusters:
            if np.linalg.norm(np.subtract(np.median(cl, axis=0), c)) < tolerance:
                cl.append(c)
                break
        else:
            clusters.append([c])
    clusters.sort(key=len, reverse=True)
    return tuple(_lab(np.median(cl, axis=0)) for cl in clusters[:4] if len(cl) >= 2)


def learn_profile(shots: Iterable[tuple[Image, Sequence[LabelledDie]]]) -> Profile:
    """Learn a dice set from labelled shots ("show each face once"); ``vision.calibration``
    then chooses the reader.

    Pip faces give the body and pip colours (the spots around each labelled centre); fuel faces
    give the symbol: the largest non-round spot near the centre.
    """
    bodies: list[Lab] = []
    pips: list[Lab] = []
    fuels: list[FuelShape] = []
    seen: set[str] = set()
    shots = list(shots)
    guesses = []
    for image, dice in shots:
        guess = estimate_die_px(image) or 0.08 * min(image.shape[:2])
        guesses.append(guess)
        frame = prepare(image, guess)
        d = frame.die_px
        for die in dice:
            near = _near(frame.spots, die.x * frame.scale, die.y * frame.scale, 0.45 * d)
            if not near:
                continue
            seen.add(die.face)
            if die.face == "fuel":
                sym = max(near, key=lambda s: s.area)
                if sym.hu:
                    fuels.append(FuelShape(sym.hu, sym.roundness, sym.area / (d * d)))
                bodies.append(sym.ring)
            else:
                bodies.extend(s.ring for s in near)
                pips.extend(s.colour for s in near)
    fuel = None
    if fuels:
        fuel = FuelShape(tuple(float(v) for v in np.median([f.hu for f in fuels], axis=0)),
                         float(np.median([f.roundness for f in fuels])),
                         float(np.median([f.area for f in fuels])))
    learned = learn([(image, [(d.face, d.x, d.y) for d in dice]) for image, dice in shots],
                    guesses) if shots else None
    # a face is seen where either path found its die in the shots
    seen |= set(learned.faces if learned else ())
    base = Profile(_cluster_colours(bodies), _cluster_colours(pips), fuel, tuple(sorted(seen)))
    labelled = sum(len(dice) for _, dice in shots)
    if learned is None:
        return replace(base, self_check=(0, labelled))
    look = learned.look
    return replace(
        base, body_bgr=look.body, inks_bgr=look.inks, die_frac=round(look.die_frac, 5),
        pip_offset=round(look.pip_offset, 4), pip_radius=round(look.pip_radius, 4),
        one_radius=round(look.one_radius, 4), haze_less=look.haze_less,
        fuel_templates=tuple(tuple(round(float(v), 3) for v in t.ravel()) for t in look.fuel),
        self_check=(learned.read_back, labelled))
