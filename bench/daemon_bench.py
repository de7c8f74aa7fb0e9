"""Daemon figures quoted in docs/hardware.md.

1. Latency from the frame in which the thrown dice lie still to the table announcing the reading
   (the snapshot with the roll to confirm), through the demo's real pipeline: simulated camera,
   SettleDetector, DiceReader, TableService. The settle rule itself needs ``still_frames`` quiet
   frames and ``stable_readings`` equal readings, so the figure is mostly frames x reader time.
2. Resident memory of `companion demo` (web server, bots, camera, display) as a subprocess:
   VmRSS and VmHWM from /proc/PID/status while it plays.

Run: .venv/bin/python bench/daemon_bench.py [--rolls 30] [--seconds 20]
"""

from __future__ import annotations

import argparse
import os
import platform
import random
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from companion.config import demo_config  # noqa: E402
from companion.daemon import Daemon, build_drivers, mock_buttons  # noqa: E402
from companion.games.mlem import GameConfig  # noqa: E402
from companion.games.mlem.simulate import DIE_SIDES  # noqa: E402
from companion.sdnotify import Notifier  # noqa: E402
from companion.table import Snapshot  # noqa: E402
from hardware.base import ButtonEvent  # noqa: E402


def machine() -> str:
    cpu = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith(("model name", "Model")):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return (f"{cpu}, {os.cpu_count()} CPUs, {platform.system()} {platform.release()}, "
            f"Python {platform.python_version()}")


def latency(rolls: int, seed: int) -> tuple[list[float], list[float], int]:
    """Milliseconds from the first settled frame to the announced reading, per roll read."""
    config = demo_config()
    config = replace(config, buttons=replace(config.buttons, bounce_time=0.0))
    factory, press = mock_buttons(config)
    cameras: list[Any] = []
    drivers = build_drivers(config, pin_factory=factory, cameras=cameras)
    opened = drivers.camera
    assert opened is not None
    marks: dict[str, float] = {}

    class Timed:
        """The simulated camera, noting when the first frame of the dice at rest is read."""

        def __init__(self, camera: Any) -> None:
            self.camera = camera

        def read(self) -> Any:
            pending = len(self.camera._queue)
            frame = self.camera.read()
            if pending == 0 and "settled" not in marks and "thrown" in marks:
                marks["settled"] = time.perf_counter()
            return frame

        def close(self) -> None:
            self.camera.close()

    drivers.camera = lambda: Timed(opened())
    reader = drivers.reader
    assert reader is not None
    reading_ms: list[float] = []

    def timed_reader(frame: Any) -> Any:
        started = time.perf_counter()
        try:
            return reader(frame)
        finally:
            if "settled" in marks and "announced" not in marks:
                reading_ms.append(1000 * (time.perf_counter() - started))

    drivers.reader = timed_reader
    with tempfile.TemporaryDirectory() as folder:
        daemon = Daemon(config, drivers, store_path=Path(folder) / "bench.db", demo=True,
                        web=False, notifier=Notifier(address=""))
        announced = threading.Event()

        def on_snapshot(snapshot: Snapshot) -> None:
            if snapshot.reading is not None and "settled" in marks:
                marks.setdefault("announced", time.perf_counter())
                announced.set()

        daemon.table.subscribe(on_snapshot)
        daemon.start()
        daemon.table.new_game(GameConfig(players=("A", "B")))
        rng = random.Random(seed)
        samples: list[float] = []
        readers: list[float] = []
        missed = 0
        for _ in range(rolls):
            while (prompt := daemon.table.snapshot().prompt) is not None \
                    and prompt.kind not in ("roll", "game_over"):
                press(ButtonEvent.OK)
            if prompt is None or prompt.kind == "game_over":
                daemon.table.new_game(GameConfig(players=("A", "B")))
                continue
            available = int((daemon.table.snapshot().state or {})["available"])
            faces = [rng.choice(DIE_SIDES) for _ in range(available)]
            marks.clear()
            reading_ms.clear()
            announced.clear()
            marks["thrown"] = time.perf_counter()
            cameras[-1].throw(faces)
            if announced.wait(5) and "settled" in marks:
                samples.append(1000 * (marks["announced"] - marks["settled"]))
                readers.append(sum(reading_ms))
            else:
                missed += 1
            # move on: enter the thrown roll as a person would (confirmed or corrected)
            text = "roll " + " ".join(sorted(faces, key=["1", "2", "3", "4", "fuel"].index))
            if not daemon.table.act(text, "phone").ok:
                daemon.table.reject_reading()
        daemon.stop()
    return samples, readers, missed


def memory(seconds: float) -> dict[str, int]:
    """Peak VmRSS / VmHWM (kB) of the demo while its bots play."""
    with tempfile.TemporaryDirectory() as folder:
        config = Path(folder) / "demo.toml"
        port = 20000 + os.getpid() % 20000
        config.write_text(f"[web]\nport = {port}\n[demo]\nthrow_delay = 0.2\nhumans = 0\n"
                          f"[store]\npath = '{folder}/demo.db'\n")
        child = subprocess.Popen([sys.executable, "-m", "companion.commands.run", "demo",
                                  "--config", str(config)], cwd=ROOT,
                                 stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        peak = {"VmRSS": 0, "VmHWM": 0}
        deadline = time.monotonic() + seconds
        try:
            while time.monotonic() < deadline and child.poll() is None:
                for line in Path(f"/proc/{child.pid}/status").read_text().splitlines():
                    key, _, value = line.partition(":")
                    if key in peak:
                        peak[key] = max(peak[key], int(value.split()[0]))
                time.sleep(0.25)
        finally:
            child.terminate()
            child.wait(20)
        peak["exit"] = child.returncode
    return peak


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rolls", type=int, default=30)
    parser.add_argument("--seconds", type=float, default=20.0)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    print(f"machine: {machine()}")
    config = demo_config()
    print(f"demo camera {config.camera.width}x{config.camera.height} at {config.camera.fps} fps, "
          f"still_frames {config.vision.still_frames}, "
          f"stable_readings {config.vision.stable_readings}")
    samples, readers, missed = latency(args.rolls, args.seed)
    if samples:
        ordered = sorted(samples)
        print(f"settle->announce latency over {len(samples)} rolls ({missed} not read): "
              f"median {statistics.median(samples):.0f} ms, "
              f"p90 {ordered[int(0.9 * (len(ordered) - 1))]:.0f} ms, max {ordered[-1]:.0f} ms")
        rest = [total - read for total, read in zip(samples, readers, strict=True)]
        print(f"  of which DiceReader.read: median {statistics.median(readers):.0f} ms; "
              f"frames, settle logic, proof JPEG and table: median "
              f"{statistics.median(rest):.0f} ms")
    else:
        print(f"no roll was read ({missed} missed)")
    peak = memory(args.seconds)
    print(f"demo memory over {args.seconds:.0f} s: VmRSS {peak['VmRSS'] / 1024:.0f} MB, "
          f"VmHWM {peak['VmHWM'] / 1024:.0f} MB (exit {peak['exit']} after SIGTERM)")


if __name__ == "__main__":
    main()
