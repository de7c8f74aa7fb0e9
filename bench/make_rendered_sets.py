"""Write the rendered benchmark sets: OUT_DIR/normal and OUT_DIR/hard (dice-bench format).

Both are 1280x720 photos of MLEM dice (fuel faces included), each with its own dice set and two
calibration shots. Same arguments give the same files.

    python bench/make_rendered_sets.py OUT_DIR [--count 200] [--seed 1]
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

from vision.render import CONDITIONS, write_dataset


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out_dir", type=Path)
    parser.add_argument("--count", type=int, default=200, help="test photos per set")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    for offset, conditions in enumerate(CONDITIONS):
        start = time.perf_counter()
        labels = write_dataset(args.out_dir / conditions, args.count, args.seed * 10 + offset,
                               conditions=conditions, mlem=True)
        print(f"{labels}: {args.count} test photos in {time.perf_counter() - start:.1f} s")


if __name__ == "__main__":
    main()
