"""Train the face network of ``vision/classify.py`` and write it as ONNX for the companion.

Training needs PyTorch, which the companion itself does not: see ``tools/requirements-train.txt``.
The data are real photos in the dice-bench format, restricted by a tag so a held-out part stays
clean, plus rendered dice (``vision/render.py``) of random designs, light and surfaces:

    python tools/train_faces.py ../shared/dice-real --where source_split=train \\
        --wild 600 --out vision/models/faces.onnx
    python tools/train_faces.py ../shared/dice-real --where source_split=train \\
        --px 48 --out vision/models/faces48.onnx

The first is the finder (``CROP_PX``), the second the closer look (``CLOSE_PX``). ``--wild N``
adds N photos of standard dice from the 3-D renderer (``vision/render_wild.py``: rounded dice,
a tilted camera, six surfaces, four lights, both frame sizes), rendered from training seeds
only: its seeds 900001-900016 are held out for ``bench/wild_bench.py``.

Every die gives a crop at its labelled centre, turned, shifted and scaled a little, and recoloured
(channels swapped, inverted, gain, blur, noise): the network should know pips, not one dice set.
"No die" crops come from the mat, from between dice, from a die's rim, and from a die seen at the
wrong scale, so the reader can pick the scale the network is sure of. A tenth of the chosen photos
is kept back to pick the best epoch; the photos excluded by ``--where`` are never read.
"""

from __future__ import annotations

import argparse
import json
import random
import time
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from itertools import chain
from pathlib import Path

import cv2
import numpy as np
import torch
from torch import nn

from vision.classify import CLASSES, CROP_PX, normalise, warp
from vision.diemap import DieMap
from vision.render import CONDITIONS, MLEM_FACES, STANDARD_FACES, Scene, render_roll
from vision.render_wild import LIGHTS, RESOLUTIONS, SURFACES, Table, render_wild
from vision.uncalibrated import CROP_SCALES, candidates

NONE = CLASSES.index("none")


@dataclass(frozen=True)
class Die:
    """One labelled die: which photo, where, how wide, which class."""

    photo: int
    x: float
    y: float
    size: float
    label: int


@dataclass
class Photos:
    """Images, the dice on them, and where the reader's candidates on them are not dice."""

    images: list[np.ndarray]
    dice: list[Die]
    decoys: list[tuple[int, float, float, float]] = field(default_factory=list)
    """Photo, centre and die width estimate of each candidate away from every die."""

    def held_back(self) -> tuple[Photos, Photos]:
        """(the rest, every tenth photo): the tenth is kept back to choose the best round.
        Split before the decoys are mined: they are not carried over."""
        rest, tenth = Photos([], []), Photos([], [])
        moved: dict[int, tuple[Photos, int]] = {}
        for i, image in enumerate(self.images):
            part = tenth if i % 10 == 0 else rest
            part.images.append(image)
            moved[i] = (part, len(part.images) - 1)
        for d in self.dice:
            part, photo = moved[d.photo]
            part.dice.append(Die(photo, d.x, d.y, d.size, d.label))
        return rest, tenth

    def mine_decoys(self, diemap: DieMap) -> None:
        """Run the reader's candidate search on every photo and keep what is not a die: the
        specks, rims and side faces the network must learn to turn down."""
        for photo, image in enumerate(self.images):
            dice = [d for d in self.dice if d.photo == photo]
            found, die_px = candidates(image, diemap)
            self.decoys += [(photo, c.x, c.y, die_px) for c in found
                            if all(np.hypot(c.x - d.x, c.y - d.y) > 0.6 * d.size for d in dice)]


def load_dataset(folder: Path, where: dict[str, str]) -> tuple[Photos, Photos]:
    """The photos of a dice-bench dataset whose tags match ``where``: (train, validation)."""
    photos = Photos([], [])
    lines = [json.loads(s) for s in (folder / "labels.jsonl").read_text().splitlines() if s]
    for line in (ln for ln in lines if all(str(ln.get(k)) == v for k, v in where.items())):
        photos.images.append(cv2.imread(str(folder / line["image"])))
        for d in line["dice"]:
            size = d.get("size") or 0.5 * (d["w"] + d["h"])
            photos.dice.append(Die(len(photos.images) - 1, d["x"], d["y"], size,
                                   CLASSES.index(d["face"])))
    return photos.held_back()


def labelled(scenes: Iterable[Scene]) -> Photos:
    """Rendered photos as training photos: each die at its top face's labelled centre and width."""
    out = Photos([], [])
    for scene in scenes:
        out.images.append(scene.image)
        out.dice += [Die(len(out.images) - 1, d.x, d.y, d.size, CLASSES.index(d.face))
                     for d in scene.dice]
    return out


def rendered(count: int, seed: int) -> Iterator[Scene]:
    """Rendered rolls of standard dice, in both conditions and at the small sizes of real
    tables seen from high up."""
    rng = random.Random(seed)
    for i in range(count):
        faces = [rng.choice(STANDARD_FACES) for _ in range(rng.randint(1, 6))]
        width = rng.choice((640, 800, 960))
        yield render_roll(faces, seed * 100_000 + i, width=width, height=width * 9 // 16,
                          conditions=CONDITIONS[i % len(CONDITIONS)])


WILD_HELD_OUT = range(900001, 900017)
"""``render_wild`` seeds reserved for ``bench/wild_bench.py``: never trained on."""
WILD_SEED = 10_000
"""The wild photos of ``--seed s`` are rendered from seeds 10,000 + 1,000,000 s onwards."""


def wild(count: int, seed: int, *, mlem_share: float = 0.0) -> Iterator[Scene]:
    """Photos from the 3-D renderer, one dice set and table each: every surface under every light
    at both frame sizes in turn; the camera's tilt, the set's colours and the throw drawn by the
    photo's seed. Standard dice (faces 1-6; the fuel face is no class of the face networks),
    except a ``mlem_share`` of the photos with MLEM dice, for the die map, which only finds."""
    rng = random.Random(seed)
    photo_seed = WILD_SEED + seed * 1_000_000
    for i in range(count):
        while photo_seed in WILD_HELD_OUT:
            photo_seed += 1
        mlem = bool(np.random.default_rng([photo_seed, 23]).random() < mlem_share)
        faces = [rng.choice(MLEM_FACES if mlem else STANDARD_FACES)
                 for _ in range(rng.randint(1, 6))]
        table = Table.random(np.random.default_rng([photo_seed, 19]),
                             surface=SURFACES[i % len(SURFACES)],
                             light=LIGHTS[i // len(SURFACES) % len(LIGHTS)],
                             resolution=RESOLUTIONS[i // 24 % len(RESOLUTIONS)])
        yield render_wild(faces, photo_seed, table=table, mlem=mlem).scene
        photo_seed += 1


def _recolour(patch: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Another dice design and camera: channels swapped, maybe inverted, gain, blur, noise."""
    patch = patch[:, :, rng.permutation(3)]
    if rng.random() < 0.3:
        patch = 255.0 - patch
    patch = patch * rng.uniform(0.7, 1.3, 3).astype(np.float32)
    if rng.random() < 0.3:
        patch = cv2.GaussianBlur(patch, (0, 0), rng.uniform(0.3, 0.9))
    noise = rng.normal(0, rng.uniform(0, 6), patch.shape).astype(np.float32)
    return np.asarray(patch + noise, np.float32)


def _negative(photos: Photos, rng: np.random.Generator) -> tuple[int, float, float, float]:
    """Where to look for "no die": near a die but off its centre, or that die at a wrong scale,
    or anywhere on the photo away from every die."""
    if photos.decoys and rng.random() < 0.4:
        photo, x, y, die_px = photos.decoys[rng.integers(len(photos.decoys))]
        return photo, x, y, die_px * float(rng.choice(CROP_SCALES))
    die = photos.dice[rng.integers(len(photos.dice))]
    image = photos.images[die.photo]
    h, w = image.shape[:2]
    others = [d for d in photos.dice if d.photo == die.photo]
    kind = rng.random()
    for _ in range(20):
        if kind < 0.25:  # zoomed in on part of a face, or out to the die and its neighbours
            scale = rng.uniform(0.4, 0.55) if rng.random() < 0.5 else rng.uniform(1.9, 2.6)
            return die.photo, die.x, die.y, die.size * scale
        if kind < 0.7:
            r, a = die.size * rng.uniform(0.6, 1.1), rng.uniform(0, 2 * np.pi)
            x, y = die.x + r * np.cos(a), die.y + r * np.sin(a)
        else:
            x, y = rng.uniform(0, w), rng.uniform(0, h)
        if all(np.hypot(x - d.x, y - d.y) > 0.55 * d.size for d in others):
            return die.photo, x, y, die.size * rng.uniform(0.85, 1.15)
    return die.photo, die.x, die.y, die.size * 2.2


def batch_of(photos: Photos, dice: list[Die], negatives: int, rng: np.random.Generator,
             px: int, augment: bool = True) -> tuple[torch.Tensor, torch.Tensor]:
    """Crops of ``dice`` (augmented) plus ``negatives`` "no die" crops of ``px`` x ``px``, as
    tensors."""
    crops, labels = [], []
    for d in dice:
        if augment:
            shift = d.size * rng.uniform(0, 0.15)
            a = rng.uniform(0, 2 * np.pi)
            patch = warp(photos.images[d.photo], d.x + shift * np.cos(a), d.y + shift * np.sin(a),
                         d.size * rng.uniform(0.85, 1.15), rng.uniform(0, 360), px)
            if rng.random() < 0.5:
                patch = patch[:, ::-1]
            patch = _recolour(patch, rng)
        else:
            patch = warp(photos.images[d.photo], d.x, d.y, d.size, px=px)
        crops.append(normalise(patch))
        labels.append(d.label)
    for _ in range(negatives):
        photo, x, y, size = _negative(photos, rng)
        patch = warp(photos.images[photo], x, y, size, rng.uniform(0, 360), px)
        crops.append(normalise(_recolour(patch, rng) if augment else patch))
        labels.append(NONE)
    stack = np.stack(crops).transpose(0, 3, 1, 2)
    return torch.from_numpy(np.ascontiguousarray(stack)), torch.tensor(labels)


def network(px: int) -> nn.Module:
    """Five 3x3 convolutions at three scales, then one linear layer over every feature at every
    place of the last grid (4x4 at 32 px, 6x6 at 48): where the pips lie is what tells a 4 from a
    5 or a 6, and a global average over the grid keeps only what is there. About 77,000
    weights (86,000 at 48 px) and 5.8 million multiply-adds per 32 px crop."""
    def block(c_in: int, c_out: int) -> list[nn.Module]:
        return [nn.Conv2d(c_in, c_out, 3, padding=1, bias=False), nn.BatchNorm2d(c_out), nn.ReLU()]
    return nn.Sequential(
        *block(3, 16), nn.MaxPool2d(2), *block(16, 32), *block(32, 32), nn.MaxPool2d(2),
        *block(32, 64), nn.MaxPool2d(2), *block(64, 64),
        nn.Flatten(), nn.Dropout(0.3), nn.Linear(64 * (px // 8) ** 2, len(CLASSES)))


def accuracy(model: nn.Module, photos: Photos, rng: np.random.Generator,
             px: int) -> tuple[float, float]:
    """(face accuracy at the labelled centres, share of "no die" crops answered "no die")."""
    model.eval()
    with torch.no_grad():
        x, y = batch_of(photos, photos.dice, len(photos.dice), rng, px, augment=False)
        guess = model(x).argmax(dim=1)
    n = len(photos.dice)
    return (float((guess[:n] == y[:n]).float().mean()), float((guess[n:] == NONE).float().mean()))


WARM_UP = 5
"""Epochs in which every real die is shown equally often, before the hard ones are favoured."""


def _real_order(losses: np.ndarray, epoch: int, rng: np.random.Generator) -> np.ndarray:
    """Which real dice an epoch shows (four times their number): each as often at first, then
    in proportion to its last loss, so a design seen rarely and read badly (smoky translucent
    dice with red pips, whose other faces show through) is not outvoted by the easy ones."""
    n = len(losses)
    if epoch < WARM_UP:
        return np.repeat(np.arange(n), 4)
    weight = 0.2 + np.minimum(losses, 3.0)
    picked: np.ndarray = rng.choice(n, 4 * n, p=weight / weight.sum())
    return picked


def train(real: Photos, synthetic: Photos, val: Photos, epochs: int, seed: int,
          px: int) -> nn.Module:
    """Adam with a cosine schedule; the epoch best on the held-back real photos is kept."""
    torch.manual_seed(seed)
    rng = np.random.default_rng(seed)
    model = network(px)
    opt = torch.optim.Adam(model.parameters(), lr=3e-3, weight_decay=1e-4)
    sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, epochs)
    loss_fn = nn.CrossEntropyLoss(label_smoothing=0.05)
    losses = np.ones(len(real.dice))
    best, best_state = -1.0, None
    for epoch in range(epochs):
        start = time.perf_counter()
        model.train()
        order = [(real, int(i)) for i in _real_order(losses, epoch, rng)] + [
            (synthetic, i) for i in range(len(synthetic.dice))]
        rng.shuffle(order)
        for i in range(0, len(order), 96):
            chunk = order[i:i + 96]
            xs, ys = [], []
            for photos in (real, synthetic):
                dice = [photos.dice[j] for p, j in chunk if p is photos]
                if dice:
                    x, y = batch_of(photos, dice, len(dice) * 3 // 4, rng, px)
                    xs.append(x)
                    ys.append(y)
            opt.zero_grad()
            logits = model(torch.cat(xs))
            loss = loss_fn(logits, torch.cat(ys))
            loss.backward()
            opt.step()
            shown = [j for p, j in chunk if p is real]
            if shown:  # the real dice lead the batch
                each = nn.functional.cross_entropy(logits[:len(shown)].detach(),
                                                   ys[0][:len(shown)], reduction="none")
                losses[shown] = each.numpy()
        sched.step()
        faces, none = accuracy(model, val, np.random.default_rng(0), px)
        print(f"epoch {epoch + 1}: loss {loss.item():.3f}, held back: faces {faces:.3f}, "
              f"no die {none:.3f} ({time.perf_counter() - start:.0f} s)", flush=True)
        if faces + 0.5 * none > best:
            best, best_state = faces + 0.5 * none, {k: v.clone()
                                                    for k, v in model.state_dict().items()}
    assert best_state is not None
    model.load_state_dict(best_state)
    return model.eval()


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("dataset", type=Path, help="a dice-bench folder of real photos")
    parser.add_argument("--where", action="append", default=[], metavar="TAG=VALUE",
                        help="train only on the lines with this tag (repeatable)")
    parser.add_argument("--rendered", type=int, default=600, help="rendered photos to add")
    parser.add_argument("--wild", type=int, default=0,
                        help="photos from the 3-D renderer (render_wild.py) to add")
    parser.add_argument("--epochs", type=int, default=50)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--px", type=int, default=CROP_PX, help="side of the network's input")
    parser.add_argument("--out", type=Path, default=Path("vision/models/faces.onnx"))
    args = parser.parse_args(argv)
    torch.set_num_threads(1)  # one thread: the same weights on every run
    where = dict(w.split("=", 1) for w in args.where)
    real, val = load_dataset(args.dataset, where)
    synthetic = labelled(chain(rendered(args.rendered, args.seed), wild(args.wild, args.seed)))
    diemap = DieMap()
    for photos in (real, val, synthetic):
        photos.mine_decoys(diemap)
    print(f"{len(real.dice)} real dice in {len(real.images)} photos, {len(val.dice)} held back, "
          f"{len(synthetic.dice)} rendered dice; {len(real.decoys)} + {len(synthetic.decoys)} "
          "decoys", flush=True)
    model = train(real, synthetic, val, args.epochs, args.seed, args.px)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    torch.onnx.export(model, (torch.zeros(1, 3, args.px, args.px),), str(args.out),
                      input_names=["crops"], output_names=["logits"],
                      dynamic_axes={"crops": {0: "n"}, "logits": {0: "n"}},
                      opset_version=11, dynamo=False)
    print(f"wrote {args.out} ({args.out.stat().st_size} bytes)")


if __name__ == "__main__":
    main()
