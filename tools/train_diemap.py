"""Train the die map network of ``vision/diemap.py`` and write it as ONNX for the companion.

Training needs PyTorch, which the companion itself does not (``tools/requirements-train.txt``).
The data are the real photos of a dice-bench dataset restricted by a tag, so a held-out part
stays clean, plus rendered rolls (``vision/render.py``) of random dice sets, light, surfaces and
frame sizes, and with ``--wild N`` N photos from the 3-D renderer (``vision/render_wild.py``:
tilted cameras, side faces, glare, translucent bodies, busy mats; its held-out bench seeds are
never used):

    python tools/train_diemap.py ../shared/dice-real --where source_split=train --wild 1200 \\
        --out vision/models/diemap.onnx

Each training sample is a square window of a photo shrunk so its dice are 8-64 working pixels
wide (a die a twentieth to a fifth of the frame's longest side, at ``WORK_SIDE``),
turned by quarter turns, mirrored and recoloured (channels swapped, inverted, gain, blur, noise,
JPEG). The map it learns: a Gaussian bump on each die's centre cell (focal loss, as CenterNet),
and at that cell the centre's offset in the cell and the log of the die's width. A tenth of the
chosen photos, and a tenth of the rendered ones, are kept back to pick the best round; the
photos excluded by ``--where`` are never read.
"""

from __future__ import annotations

import argparse
import random
import time
from collections.abc import Iterable, Iterator
from pathlib import Path

import cv2
import numpy as np
import torch
from torch import nn
from train_faces import Die, Photos, load_dataset, wild

from vision.diemap import STRIDE, map_peaks, normalised, scored, to_cell, work_input
from vision.pips import PIP_GRID
from vision.render import CONDITIONS, Scene, random_faces, render_empty, render_roll

DIE_RANGE = (8.0, 64.0)
"""Die widths in working pixels the samples are shrunk to (log-uniform)."""


def rendered(count: int, seed: int) -> Photos:
    """Rendered rolls of 1-6 dice, standard or MLEM faces, in both conditions, at the Pi
    camera's usual frame sizes (the die sizes do not matter: ``sample`` rescales)."""
    rng = random.Random(seed)

    def scenes() -> Iterator[Scene]:
        for i in range(count):
            faces = random_faces(rng, rng.randint(1, 6), mlem=rng.random() < 0.3)
            width, height = rng.choice(((640, 480), (800, 600), (960, 540), (1280, 720),
                                        (1280, 960), (1920, 1080)))
            yield render_roll(faces, seed * 100_000 + i, width=width, height=height,
                              conditions=CONDITIONS[i % len(CONDITIONS)])
    return found(scenes())


def found(scenes: Iterable[Scene]) -> Photos:
    """Rendered photos as die-map training photos: every die at its top face's centre and
    width, whatever its face."""
    out = Photos([], [])
    for scene in scenes:
        out.images.append(scene.image)
        out.dice += [Die(len(out.images) - 1, d.x, d.y, d.size, 0) for d in scene.dice]
    return out


def drawn(count: int, seed: int) -> Photos:
    """Flat dice drawn on plain or rendered surfaces: any body and pip colour, pip size and
    offset, sharp or rounded corners, with or without a shadow. The rendered dice all have a
    bevel and a shadow, so without these the map sized flat dice by their pips."""
    rng = np.random.default_rng(seed)
    out = Photos([], [])
    for i in range(count):
        if rng.random() < 0.5:
            image = render_empty(seed * 100_000 + i, width=640, height=480,
                                 conditions=CONDITIONS[i % len(CONDITIONS)])
        else:
            image = np.empty((480, 640, 3), np.uint8)
            image[:] = rng.integers(0, 256, 3)
            image = cv2.add(image, rng.normal(0, rng.uniform(0, 8), image.shape).astype(np.int8),
                            dtype=cv2.CV_8U)
        size = rng.uniform(30, 130)
        for _ in range(int(rng.integers(1, 7))):
            x, y = rng.uniform(size, 640 - size), rng.uniform(size, 480 - size)
            if all(np.hypot(x - d.x, y - d.y) > 1.5 * size for d in out.dice
                   if d.photo == len(out.images)):
                _draw_die(image, x, y, size, rng)
                out.dice.append(Die(len(out.images), x, y, size, 0))
        out.images.append(image)
    return out


def _draw_die(image: np.ndarray, x: float, y: float, size: float,
              rng: np.random.Generator) -> None:
    """One flat die of a random design, drawn in place."""
    angle = rng.uniform(0, np.pi / 2)
    c, s = np.cos(angle), np.sin(angle)
    turn = np.array([[c, s], [-s, c]])
    corner = rng.uniform(0, 0.15) * size
    h = size / 2 - corner
    square = (np.array([[-h, -h], [h, -h], [h, h], [-h, h]]) @ turn + (x, y)).astype(np.int32)
    body = rng.integers(0, 256, 3)
    if rng.random() < 0.5:
        shade = image.copy()
        cv2.fillPoly(shade, [square + rng.integers(-4, 5, 2)], (0, 0, 0), cv2.LINE_AA)
        image[:] = cv2.addWeighted(image, 0.6, cv2.GaussianBlur(shade, (0, 0), 3), 0.4, 0)
    cv2.fillPoly(image, [square], body.tolist(), cv2.LINE_AA)
    if corner >= 1:
        cv2.polylines(image, [square], True, body.tolist(), round(2 * corner), cv2.LINE_AA)
    pip = (255 - body if rng.random() < 0.3 else
           np.full(3, 20 if body.sum() > 380 else 240)) + rng.integers(-15, 16, 3)
    offset, radius = rng.uniform(0.22, 0.3) * size, max(1, round(rng.uniform(0.07, 0.13) * size))
    face = str(rng.integers(1, 7))
    for px, py in np.array(PIP_GRID[face], float) * offset @ turn + (x, y):
        cv2.circle(image, (round(px), round(py)), radius, np.clip(pip, 0, 255).tolist(), -1,
                   cv2.LINE_AA)


def _recolour(patch: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Another dice design, surface and camera: channels swapped, maybe inverted, gain, blur,
    noise, JPEG."""
    patch = patch[:, :, rng.permutation(3)]
    if rng.random() < 0.15:
        patch = 255 - patch
    f = patch.astype(np.float32) * rng.uniform(0.6, 1.4, 3).astype(np.float32)
    if rng.random() < 0.3:
        f = cv2.GaussianBlur(f, (0, 0), rng.uniform(0.3, 1.0))
    f += rng.normal(0, rng.uniform(0, 6), f.shape).astype(np.float32)
    out = np.clip(f, 0, 255).astype(np.uint8)
    if rng.random() < 0.3:
        _, jpeg = cv2.imencode(".jpg", out, [cv2.IMWRITE_JPEG_QUALITY, int(rng.integers(40, 95))])
        out = cv2.imdecode(jpeg, cv2.IMREAD_COLOR)
    return out


def sample(photos: Photos, photo: int, rng: np.random.Generator,
           side: int) -> tuple[np.ndarray, np.ndarray]:
    """One training window of ``side`` working pixels: the network's input (3, side, side) and
    its target (5, side / STRIDE, side / STRIDE): centre bump, offsets x and y, log width, and
    a mask of the centre cells."""
    image = photos.images[photo]
    dice = [d for d in photos.dice if d.photo == photo]
    sizes = [d.size for d in dice]
    middle = float(np.median(sizes)) if sizes else 0.05 * max(image.shape[:2])
    scale = float(np.exp(rng.uniform(*np.log(DIE_RANGE)))) / middle
    h, w = image.shape[:2]
    small = cv2.resize(image, (max(1, round(w * scale)), max(1, round(h * scale))),
                       interpolation=cv2.INTER_AREA if scale < 1 else cv2.INTER_LINEAR)
    sh, sw = small.shape[:2]
    if dice and rng.random() < 0.8:
        d = dice[rng.integers(len(dice))]
        cx = (d.x + 0.5) * scale - 0.5 + rng.uniform(-0.4, 0.4) * side
        cy = (d.y + 0.5) * scale - 0.5 + rng.uniform(-0.4, 0.4) * side
    else:
        cx, cy = rng.uniform(0, sw), rng.uniform(0, sh)
    x0 = int(np.clip(round(cx - side / 2), min(0, sw - side), max(0, sw - side)))
    y0 = int(np.clip(round(cy - side / 2), min(0, sh - side), max(0, sh - side)))
    window = np.full((side, side, 3), small.reshape(-1, 3).mean(axis=0), np.uint8)
    xs, ys = slice(max(0, x0), min(sw, x0 + side)), slice(max(0, y0), min(sh, y0 + side))
    window[ys.start - y0:ys.stop - y0, xs.start - x0:xs.stop - x0] = small[ys, xs]
    places = [((d.x + 0.5) * scale - 0.5 - x0, (d.y + 0.5) * scale - 0.5 - y0, d.size * scale)
              for d in dice]
    window, places = _turned(window, places, rng)
    return normalised(_recolour(window, rng)), _target(places, side)


def _turned(window: np.ndarray, places: list[tuple[float, float, float]],
            rng: np.random.Generator) -> tuple[np.ndarray, list[tuple[float, float, float]]]:
    """The window and its dice turned by a random quarter turn, mirrored or not."""
    side = window.shape[0]
    if rng.random() < 0.5:
        window = window[:, ::-1]
        places = [(side - 1 - x, y, s) for x, y, s in places]
    for _ in range(int(rng.integers(4))):  # np.rot90 turns anticlockwise: (x, y) -> (y, n-1-x)
        window = np.rot90(window)
        places = [(y, side - 1 - x, s) for x, y, s in places]
    return np.ascontiguousarray(window), places


def _target(places: list[tuple[float, float, float]], side: int) -> np.ndarray:
    """The map the network should give for dice at ``places`` (working pixels)."""
    n = side // STRIDE
    target = np.zeros((5, n, n), np.float32)
    grid = np.arange(n) + 0.5
    for x, y, size in places:
        u, v = float(to_cell(x)), float(to_cell(y))
        if not (0 <= u < n and 0 <= v < n):
            continue
        sigma = max(0.5, size / STRIDE / 5)
        bump = np.exp(-((grid[None] - u) ** 2 + (grid[:, None] - v) ** 2) / (2 * sigma * sigma))
        target[0] = np.maximum(target[0], bump)
        i, j = int(v), int(u)
        target[:, i, j] = (1.0, u - j, v - i, np.log(size), 1.0)
    return target


def network() -> nn.Module:
    """Three stride-2 stages to an eighth, two dilated convolutions there (a receptive field of
    about 120 working pixels), back up to a quarter beside the quarter's features, and four
    outputs per cell: 188 million multiply-adds for a 1280x720 frame (320x184 padded)."""
    def block(c_in: int, c_out: int, stride: int = 1, dilation: int = 1) -> nn.Sequential:
        return nn.Sequential(nn.Conv2d(c_in, c_out, 3, stride, dilation, dilation, bias=False),
                             nn.BatchNorm2d(c_out), nn.ReLU())

    class MapNet(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.quarter = nn.Sequential(block(3, 16, 2), block(16, 32, 2), block(32, 32))
            self.eighth = nn.Sequential(block(32, 64, 2), block(64, 64, dilation=2),
                                        block(64, 64, dilation=4))
            self.up = nn.Upsample(scale_factor=2, mode="nearest")
            self.fuse = nn.Sequential(nn.Conv2d(96, 32, 1, bias=False), nn.BatchNorm2d(32),
                                      nn.ReLU(), block(32, 32), nn.Conv2d(32, 4, 1))
            with torch.no_grad():
                self.fuse[-1].bias[0] = -2.2  # a centre is rare: start at p = 0.1

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            q = self.quarter(x)
            return self.fuse(torch.cat([q, self.up(self.eighth(q))], dim=1))

    return MapNet()


def loss_of(out: torch.Tensor, target: torch.Tensor) -> torch.Tensor:
    """CenterNet's focal loss on the centre map plus L1 on offsets and log width at centres."""
    p = torch.sigmoid(out[:, 0]).clamp(1e-4, 1 - 1e-4)
    bump, mask = target[:, 0], target[:, 4]
    pos = -((1 - p) ** 2) * torch.log(p) * mask
    neg = -((1 - bump) ** 4) * p ** 2 * torch.log(1 - p) * (1 - mask)
    n = mask.sum().clamp(min=1)
    reg = (torch.abs(out[:, 1:4] - target[:, 1:4]) * mask[:, None]).sum()
    return (pos.sum() + neg.sum()) / n + reg / n


def evaluate(model: nn.Module, photos: Photos, above: float) -> tuple[float, float, float]:
    """(share of dice with a peak within a third of their width, peaks on no die per photo,
    median relative width error) on whole photos."""
    model.eval()
    found, extra, errors = 0, 0, []
    with torch.no_grad():
        for photo, image in enumerate(photos.images):
            batch, scale = work_input(image)
            out = scored(model(torch.from_numpy(batch))[0].numpy())
            peaks = map_peaks(out, scale, above, image.shape)
            dice = [d for d in photos.dice if d.photo == photo]
            for d in dice:
                near = [p for p in peaks if np.hypot(p.x - d.x, p.y - d.y) < d.size / 3]
                if near:
                    found += 1
                    errors.append(abs(near[0].width / d.size - 1))
            extra += sum(all(np.hypot(p.x - d.x, p.y - d.y) >= d.size / 3 for d in dice)
                         for p in peaks)
    return (found / max(1, len(photos.dice)), extra / max(1, len(photos.images)),
            float(np.median(errors)) if errors else 1.0)


def train(sets: list[Photos], vals: list[Photos], steps: int, seed: int, side: int,
          batch: int) -> nn.Module:
    """Adam with a cosine schedule over ``steps`` batches drawn evenly from ``sets``; the
    round best on the held-back photos (recall less a tenth of the extra peaks) is kept."""
    torch.manual_seed(seed)
    rng = np.random.default_rng(seed)
    model = network()
    opt = torch.optim.Adam(model.parameters(), lr=3e-3, weight_decay=1e-4)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, 3e-3, total_steps=steps)
    best, best_state, start = -1e9, None, time.perf_counter()
    for step in range(1, steps + 1):
        model.train()
        xs, ys = [], []
        for k in range(batch):
            photos = sets[k % len(sets)]
            x, y = sample(photos, int(rng.integers(len(photos.images))), rng, side)
            xs.append(x)
            ys.append(y)
        loss = loss_of(model(torch.from_numpy(np.stack(xs))), torch.from_numpy(np.stack(ys)))
        opt.zero_grad()
        loss.backward()
        opt.step()
        sched.step()
        if step % 250 == 0 or step == steps:
            marks = [evaluate(model, v, 0.3) for v in vals]
            score = sum(r - 0.1 * e for r, e, _ in marks)
            print(f"step {step}: loss {loss.item():.3f}; held back (recall, extra peaks a photo, "
                  f"width error): {marks} ({time.perf_counter() - start:.0f} s)", flush=True)
            if score > best:
                best, best_state = score, {k: v.clone() for k, v in model.state_dict().items()}
    assert best_state is not None
    model.load_state_dict(best_state)
    return model.eval()


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("dataset", help="a dice-bench folder of real photos")
    parser.add_argument("--where", action="append", default=[], metavar="TAG=VALUE",
                        help="train only on the lines with this tag (repeatable)")
    parser.add_argument("--rendered", type=int, default=3000, help="rendered photos to add")
    parser.add_argument("--drawn", type=int, default=1500, help="photos of flat drawn dice")
    parser.add_argument("--wild", type=int, default=0,
                        help="photos from the 3-D renderer (render_wild.py), a third MLEM dice")
    parser.add_argument("--steps", type=int, default=8000)
    parser.add_argument("--batch", type=int, default=16)
    parser.add_argument("--side", type=int, default=160, help="training window, working px")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--out", default="vision/models/diemap.onnx")
    args = parser.parse_args(argv)
    torch.set_num_threads(1)  # one thread: the same weights on every run
    real, real_val = load_dataset(Path(args.dataset), dict(w.split("=", 1) for w in args.where))
    synthetic, synthetic_val = rendered(args.rendered, args.seed).held_back()
    flat, flat_val = drawn(args.drawn, args.seed).held_back()
    sets, vals = [real, synthetic, real, synthetic, flat], [real_val, synthetic_val, flat_val]
    if args.wild:
        tilted, tilted_val = found(wild(args.wild, args.seed, mlem_share=0.3)).held_back()
        sets[3:4] = [tilted, tilted]
        vals.append(tilted_val)
    print(f"{len(real.images)} + {len(real_val.images)} real photos, {len(synthetic.images)} + "
          f"{len(synthetic_val.images)} rendered, {len(flat.images)} + {len(flat_val.images)} "
          f"drawn, {args.wild} from the 3-D renderer", flush=True)
    model = train(sets, vals, args.steps, args.seed, args.side, args.batch)
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    torch.onnx.export(model, (torch.zeros(1, 3, 184, 320),), str(out), input_names=["frame"],
                      output_names=["map"],
                      dynamic_axes={"frame": {2: "h", 3: "w"}, "map": {2: "mh", 3: "mw"}},
                      opset_version=11, dynamo=False)
    print(f"wrote {out} ({out.stat().st_size} bytes)")


if __name__ == "__main__":
    main()
