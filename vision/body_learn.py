"""Learning a dice set for the calibrated path from labelled shots: body and ink colours, die
width, pip geometry and the fuel symbol.

What one estimate can get wrong (glare, a dark die on a dark floor, a crowd) is settled by
reading the calibration shots back: of the haze allowances, die widths and body colours
tried, the one that reads them best is kept (``read_back``).
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import cv2
import numpy as np

from vision.bodies import edge_turn, read_bodies
from vision.body_face import CANON, MARGIN, TEMPLATE, Look, canonical, ink_maps, pip_templates
from vision.body_mask import coarse, die_masks
from vision.body_split import Rect, die_rects
from vision.detect import components

HAZE_LESS_TRIALS = (0.0, 0.35)
"""Most grey haze a body pixel may lack against the calibrated body colour, over its lightness,
as calibration tries it (in this order, keeping a later one only if it reads the shots back
better): a die in shade is deeper in colour than the dice under the lamp that set the body
colour, but allowing for it everywhere lets more of the surface in."""
MIN_DIE_PX = 12.0
"""Narrowest die width calibration considers (frame pixels): a pip of such a die is a pixel or
two, nothing to read (dice-real's smallest dice are 25 px)."""
MIN_INK_DISTANCE = 40.0
"""Least distance (BGR) from the body colour of a pixel taken as ink."""
INK_SHARE = 4.0
"""Percent of a face's inner part taken as its ink: the farthest from the body (its pips
cover more; their rims are shading)."""
SIZE_TRIALS = (1.0, 0.8, 1.25, 1.6)
"""Multiples of the estimated die width that calibration tries, keeping the one that reads the
calibration shots best."""


@dataclass(frozen=True)
class Learned:
    """What calibration learns for this path (stored in the Profile), and how well it reads."""

    look: Look
    read_back: int = 0
    """Calibration dice this reads back right from the shots, less dice it sees that are not
    there (``_self_check``)."""
    faces: tuple[str, ...] = ()
    """The faces of the labelled dice it learned from (those it found in the shots)."""


def _bgr(v: np.ndarray) -> tuple[float, float, float]:
    return (round(float(v[0]), 1), round(float(v[1]), 1), round(float(v[2]), 1))


def learn(shots: list[tuple[np.ndarray, list[tuple[str, float, float]]]],
          die_guess: list[float]) -> Learned | None:
    """Learn body and ink colours, die size, pip geometry and the fuel symbol from labelled
    shots (face, x, y in frame pixels); ``die_guess`` is a rough die width per shot.

    Each allowance of ``HAZE_LESS_TRIALS`` is learned with in turn, while the last reads back
    fewer than every die; a later one is kept only if it reads the shots back better.
    """
    # one camera: the largest rough guess stands for every shot (a guess too small breaks the
    # surface estimate, one too large costs nothing)
    die_guess = [max(die_guess)] * len(die_guess)
    # 1. body colour: the median of the pixels around all labelled centres together (a centre
    # may sit on a pip or the symbol; over all dice the body is most of it), taken again once
    # the die size is known
    pooled = _body_colour(shots, die_guess, pooled=True)
    if pooled is None:
        return None
    labelled = sum(len(dice) for _, dice in shots)
    best: Learned | None = None
    for haze_less in HAZE_LESS_TRIALS:
        found = _learn_allowing(shots, die_guess, pooled, haze_less)
        if found is not None and (best is None or found.read_back > best.read_back):
            best = found
        if best is not None and best.read_back == labelled:
            break
    if best is not None and not best.look.fuel and any(
            face == "fuel" for _, dice in shots for face, _, _ in dice):
        best = _with_symbol_at_labels(shots, best)
    return None if best is None else _surest_symbol_ink(shots, best)


def _surest_symbol_ink(shots: list[tuple[np.ndarray, list[tuple[str, float, float]]]],
                       learned: Learned) -> Learned:
    """``learned`` with the symbol's colour taken from one fuel face alone, where that reads
    the shots back better than the median of all of them (``_ink_colours``). A set shows the
    symbol once a shot, so the median is the mean of two: where one shot is blurred or in
    glare, its symbol's colour pulls the other's halfway to the body colour. On the 48 3-D
    tuning sets: 668 rolls of 720 against 666 (set 5042 13 against 11), none worse; hard, 523
    either way. Taking the colour farthest from the body instead, without reading back, read
    647 and 528: one set's glare, taken as its symbol, lost it 14 rolls."""
    look = learned.look
    if len(look.inks) < 2:
        return learned
    symbols = sum(face == "fuel" for _, dice in shots for face, _, _ in dice)
    best = learned
    for i in range(symbols):
        again = _learn_again(shots, look, symbol_ink=i)
        if (again is None or len(again.look.inks) < 2 or again.look.inks == look.inks
                or not again.look.fuel):
            continue
        score = _self_check(shots, again.look)
        if score > best.read_back:
            best = replace(again, read_back=score)
    return best


def _with_symbol_at_labels(shots: list[tuple[np.ndarray, list[tuple[str, float, float]]]],
                           learned: Learned) -> Learned:
    """``learned`` again, with the fuel symbol taken at the labelled centres of the symbol's
    dice, where the body masks single none of them out: a symbol unlike the pips in colour
    splits its die's mask (green on orange dice, 3-D tuning set 5046), and a set without a
    symbol never reads a fuel die (5046: 7 of 15 rolls, every fuel die lost; 13 with the
    symbol, 12 against 7 on the Pi's OpenCV 4.6). Kept even where it reads the shots back a
    die worse (4.6: 5 of 10 against 6), which weighs a die against every fuel die to come.
    Only for the symbol: a crop at the label rather than at the die's own mask fits a die less
    well, and taken for every die the masks miss it changed which trial calibration kept (the
    48 3-D tuning sets read 611 rolls of 720 against 607, but set 5034 lost three)."""
    again = _learn_again(shots, learned.look, symbol_at_labels=True)
    if again is None or not again.look.fuel:
        return learned
    return replace(again, read_back=_self_check(shots, again.look))


def _learn_again(shots: list[tuple[np.ndarray, list[tuple[str, float, float]]]], look: Look,
                 *, symbol_at_labels: bool = False, symbol_ink: int | None = None
                 ) -> Learned | None:
    """The set learned again at ``look``'s body colour, die width and haze allowance, the
    symbol as ``_learn_at`` says."""
    return _learn_at(shots, np.array(look.body, np.float32),
                     [look.die_px(image.shape) for image, _ in shots], look.haze_less,
                     symbol_at_labels=symbol_at_labels, symbol_ink=symbol_ink)


def _learn_allowing(shots: list[tuple[np.ndarray, list[tuple[str, float, float]]]],
                    die_guess: list[float], pooled: np.ndarray, haze_less: float
                    ) -> Learned | None:
    """``learn`` from the ``pooled`` body colour, with body pixels allowed to lack
    ``haze_less`` of the body colour's haze."""
    first = float(np.median([_settle_size(image, dice, pooled, s0, haze_less)
                             / min(image.shape[:2])
                             for (image, dice), s0 in zip(shots, die_guess, strict=True)]))
    settled = [first * min(image.shape[:2]) for image, _ in shots]
    body = _body_colour(shots, settled, pooled=False)
    if body is None:
        return None
    # one camera, one die size (as a fraction of the frame): each shot proposes one
    fracs = [_settle_size(image, dice, body, s0, haze_less) / min(image.shape[:2])
             for (image, dice), s0 in zip(shots, settled, strict=True)]
    side = min(min(image.shape[:2]) for image, _ in shots)
    proposals = sorted({round(f, 4) for f in [*fracs, float(np.median(fracs))]
                        if f * side >= MIN_DIE_PX})
    # each proposal, and a few multiples of it, is checked by reading the calibration shots
    # back: glare, a dark die on a dark floor or a crowd can mislead one estimate
    best: tuple[int, bool, float, Learned] | None = None
    # and each with the body colour of windows its own width as well: one shot's misread width
    # pulls the settled width, and the windows of the settled body colour, off every die
    trials = [(frac, body) for frac in proposals]
    for frac in proposals:
        own = _body_colour(shots, [frac * min(image.shape[:2]) for image, _ in shots],
                           pooled=False)
        if own is not None and not np.array_equal(own, body):
            trials.append((frac, own))
    # and the first width with the pooled body colour: on glossy dice the windows' colour can
    # take in the glare, and its mask then splits each die at its pips (a tuning set's 70 px
    # dice settled at 18 px)
    if first * side >= MIN_DIE_PX:
        trials.append((round(first, 4), pooled))
    for frac, trial_body in trials:
        for factor in SIZE_TRIALS:
            sizes = [frac * factor * min(image.shape[:2]) for image, _ in shots]
            found = _learn_at(shots, trial_body, sizes, haze_less)
            if found is None:
                continue
            score = _self_check(shots, found.look)
            # ties: the settled body colour, then the unscaled estimate
            key = (score, trial_body is body, -abs(float(np.log(factor))))
            if best is None or key > best[:3]:
                best = (*key, found)
    return None if best is None else replace(best[3], read_back=best[0])


def _body_colour(shots: list[tuple[np.ndarray, list[tuple[str, float, float]]]],
                 sizes: list[float], pooled: bool) -> np.ndarray | None:
    """Median colour within a third of a die of the labelled centres: of all those pixels
    together (``pooled``: robust when the size is unsure and a window may sit on ink), else the
    median of each window's median (robust to glare on a few dice)."""
    pixels = []
    for (image, dice), size in zip(shots, sizes, strict=True):
        r = max(2, int(0.3 * size))
        for _, x, y in dice:
            win = image[max(0, int(y) - r):int(y) + r + 1, max(0, int(x) - r):int(x) + r + 1]
            if win.size:
                pixels.append(win.reshape(-1, 3))
    if not pixels:
        return None
    if pooled:
        out: np.ndarray = np.median(np.concatenate(pixels), axis=0)
    else:
        out = np.median(np.array([np.median(p, axis=0) for p in pixels]), axis=0)
    return out


def _settle_size(image: np.ndarray, dice: list[tuple[str, float, float]], body: np.ndarray,
                 s0: float, haze_less: float) -> float:
    """Die width in one shot: twice the distance from each labelled centre to the edge of its
    body blob (alone or touching others); the masks depend on the size, so a few rounds."""
    size = s0
    for _ in range(4):
        small, scale = coarse(image, size)
        bodies, _ = die_masks(small, _bgr(body), size * scale, haze_less)
        dist = cv2.distanceTransform(bodies, cv2.DIST_L2, 3)
        peaks = []
        r = max(1, int(0.3 * size * scale))
        for _, x, y in dice:
            win = dist[max(0, int(y * scale) - r):int(y * scale) + r + 1,
                       max(0, int(x * scale) - r):int(x * scale) + r + 1]
            if win.size and win.max() > 1:
                peaks.append(float(win.max()))
        if not peaks:
            break
        new = 2.0 * float(np.median(peaks)) / scale
        done = abs(new - size) < 0.04 * size
        size = new
        if done:
            break
    return size


def _self_check(shots: list[tuple[np.ndarray, list[tuple[str, float, float]]]],
                look: Look) -> int:
    """How many labelled dice of the calibration shots a reader with ``look`` gets right,
    less the dice it sees that are not there."""
    templates = pip_templates(look)
    return sum(read_back([(r.face, r.x, r.y, r.size)
                          for r in read_bodies(image, look, templates, rescale=False) or []],
                         dice)
               for image, dice in shots)


def read_back(reads: list[tuple[str | None, float, float, float]],
              dice: list[tuple[str, float, float]]) -> int:
    """Labelled dice (face, x, y) that reads (face, x, y, width) got right, less the reads of
    dice that are not there or read wrong: a read counts for a label within 0.4 of its width."""
    score = 0
    for face, rx, ry, size in reads:
        hit = [f for f, x, y in dice if np.hypot(rx - x, ry - y) < 0.4 * size]
        score += 1 if hit and hit[0] == face else -1
    return score


def _face_ink(pixels: np.ndarray, body: np.ndarray) -> np.ndarray | None:
    """The ink colour on one labelled face (BGR rows of its inner part): the farthest pixels
    from the body colour as the light takes it, in glare and in shade (``_off_light``), where
    a share of the face lies far from those; else the farthest from the body colour itself
    (white or black pips, which lie on those ways themselves), not the shading around pips.
    None where nothing is far.

    Glare blends a die's colour towards white, so on a glossy die the farthest pixels from the
    body colour itself can be the glare: grey-white on green dice under a ceiling light, where
    the pips were yellow, and no die of the set read back right."""
    off = _off_light(pixels, body)
    if float(np.percentile(off, 100 - INK_SHARE)) >= MIN_INK_DISTANCE:
        return _farthest(pixels, off)
    return _farthest(pixels, np.linalg.norm(pixels - body, axis=1))


def _off_light(pixels: np.ndarray, body: np.ndarray) -> np.ndarray:
    """Each pixel's distance from the colours the body takes in glare and in shade (the
    segments from the body colour to white and to black)."""
    out = np.full(len(pixels), np.inf, np.float32)
    for end in (np.full(3, 255.0, np.float32), np.zeros(3, np.float32)):
        way = end - body
        along = np.clip((pixels - body) @ way / max(float(way @ way), 1.0), 0.0, 1.0)
        out = np.minimum(out, np.linalg.norm(pixels - body - along[:, None] * way, axis=1))
    return out


def _farthest(pixels: np.ndarray, distance: np.ndarray) -> np.ndarray | None:
    """The median colour of the pixels in the top ``INK_SHARE`` by ``distance``, or None where
    fewer than four of them are ``MIN_INK_DISTANCE`` away."""
    far = pixels[distance >= max(MIN_INK_DISTANCE,
                                 float(np.percentile(distance, 100 - INK_SHARE)))]
    return np.median(far, axis=0) if len(far) >= 4 else None


def _learn_at(shots: list[tuple[np.ndarray, list[tuple[str, float, float]]]], body: np.ndarray,
              sizes: list[float], haze_less: float, *, symbol_at_labels: bool = False,
              symbol_ink: int | None = None) -> Learned | None:
    """Learn the rest of the set given the die width in each shot; a labelled die is learned
    from where the body masks single it out, or, with ``symbol_at_labels``, a fuel symbol's die
    they do not from its labelled centre, turned as its edges show (``edge_turn``).
    ``symbol_ink``: the symbol's colour is that fuel face's (``_ink_colours``)."""
    fracs = []
    rects: list[tuple[np.ndarray, str, Rect]] = []
    for (image, dice), size in zip(shots, sizes, strict=True):
        h, w = image.shape[:2]
        small, scale = coarse(image, size)
        bodies, cores = die_masks(small, _bgr(body), size * scale, haze_less)
        d = size * scale
        fracs.append(size / min(h, w))
        found = die_rects(bodies, cores, d, grown=False)
        for face, x, y in dice:
            near = [rc for rc in found
                    if np.hypot(rc[0][0] - x * scale, rc[0][1] - y * scale) < 0.4 * d]
            if len(near) == 1:
                (cx, cy), _, a = near[0]
                rects.append((image, face, (((cx + 0.5) / scale - 0.5, (cy + 0.5) / scale - 0.5),
                                             (size, size), a)))
            elif symbol_at_labels and face == "fuel":
                rects.append((image, face, ((x, y), (size, size), edge_turn(image, (x, y), size))))
    if not fracs:
        return None
    crops = [(face, canonical(image, rect)[0]) for image, face, rect in rects]
    colours = _ink_colours(crops, body, symbol_ink)
    if not colours:
        return None
    return _with_geometry(Look(_bgr(body), colours, float(np.median(fracs)),
                               haze_less=haze_less), crops)


def _ink_colours(crops: list[tuple[str, np.ndarray]], body: np.ndarray,
                 symbol_ink: int | None = None) -> tuple[tuple[float, float, float], ...]:
    """The pips' colour and the symbol's: each the median over the faces that show it of the
    face's ink (``_face_ink``); the symbol's, with ``symbol_ink``, that fuel face's alone (none
    if there is no such face)."""
    inks = []
    inner = int(0.37 * CANON)
    c = MARGIN + CANON // 2
    for face, crop in crops:
        ink = _face_ink(crop[c - inner:c + inner, c - inner:c + inner].reshape(-1, 3)
                        .astype(np.float32), body)
        if ink is not None:
            inks.append((face, ink))
    groups = ([c for f, c in inks if f != "fuel"], [c for f, c in inks if f == "fuel"])
    if symbol_ink is not None:
        if symbol_ink >= len(groups[1]):
            return ()
        groups = (groups[0], [groups[1][symbol_ink]])
    return tuple(_bgr(np.median(np.array(group), axis=0)) for group in groups if group)


def _with_geometry(look: Look, crops: list[tuple[str, np.ndarray]]) -> Learned:
    """``look`` with the pip geometry and the fuel symbol measured on its ink maps."""
    offsets, radii, ones, fuel = [], [], [], []
    c0 = MARGIN + CANON / 2
    for face, crop in crops:
        maps = ink_maps(crop, look)
        ink = maps[-1] if face == "fuel" else maps[0]
        if face == "fuel":
            m = (CANON + 2 * MARGIN - TEMPLATE) // 2
            fuel.append(np.ascontiguousarray(ink[m:m + TEMPLATE, m:m + TEMPLATE]))
            continue
        inner = int(0.45 * CANON)
        core = np.zeros(ink.shape, np.uint8)
        core[int(c0) - inner:int(c0) + inner, int(c0) - inner:int(c0) + inner] = 1
        n, _, stats, cents = components((ink > 0.5).astype(np.uint8) & core)
        blobs = [(cents[i], stats[i, cv2.CC_STAT_AREA]) for i in range(1, n)
                 if stats[i, cv2.CC_STAT_AREA] >= 4]
        if len(blobs) != int(face):
            continue
        # the pips' centroid is the face centre (faces 2..6): offsets free of a lopsided crop
        mx, my = (float(v) for v in np.mean([b[0] for b in blobs], axis=0)) if face != "1" \
            else (c0, c0)
        for (bx, by), area in blobs:
            rad = float(np.sqrt(area / np.pi)) / CANON
            off = max(abs(bx - mx), abs(by - my)) / CANON
            if face == "1":
                ones.append(rad)
            elif off > 0.1:
                offsets.append(off)
                radii.append(rad)
    pip_offset = float(np.median(offsets)) if offsets else 0.27
    pip_radius = float(np.median(radii)) if radii else 0.09
    one_radius = float(np.median(ones)) if ones else pip_radius * 1.3
    return Learned(replace(look, pip_offset=pip_offset, pip_radius=pip_radius,
                           one_radius=one_radius, fuel=tuple(fuel)),
                   faces=tuple(sorted({face for face, _ in crops})))
