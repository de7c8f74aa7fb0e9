"""Live-update benchmark: N concurrent SSE clients on loopback against the real waitress server.

A seeded bot game is played through the table service; for every state change we measure the time
from the table publishing it to the *last* client receiving it, and check that every client got
every update. Loopback only (127.0.0.1), bounded loops, stops by itself.

    .venv/bin/python bench/web_bench.py [--clients 50] [--updates 300] [--threads 64]
"""

from __future__ import annotations

import argparse
import http.client
import os
import platform
import random
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from companion.games.mlem import GameConfig
from companion.games.mlem.bots import make_bot
from companion.games.mlem.simulate import sample_chance
from companion.pairing import Pairing
from companion.store import Store
from companion.table import Snapshot, TableService
from web import create_app
from web.server import WebServer

HOST = "127.0.0.1"
WAIT = 5.0
"""Seconds to wait for every client to see one update before calling it lost."""


class Client(threading.Thread):
    """One phone: reads the stream and notes when each version arrived."""

    def __init__(self, port: int) -> None:
        super().__init__(daemon=True)
        self.port = port
        self.arrivals: dict[int, float] = {}
        self.connected = threading.Event()
        self.error: str | None = None
        self.lock = threading.Lock()

    def run(self) -> None:
        try:
            connection = http.client.HTTPConnection(HOST, self.port, timeout=30)
            connection.request("GET", "/api/stream")
            response = connection.getresponse()
            while True:
                line = response.readline()
                if not line:
                    return
                if line.startswith(b"id: "):
                    now = time.perf_counter()
                    with self.lock:
                        self.arrivals.setdefault(int(line[4:]), now)
                    self.connected.set()
        except Exception as exc:  # reported in the summary, never hangs the benchmark
            self.error = repr(exc)
            self.connected.set()

    def has(self, version: int) -> bool:
        with self.lock:
            return version in self.arrivals


def machine() -> str:
    model = "?"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    load = os.getloadavg() if hasattr(os, "getloadavg") else ("?",)
    return (f"{platform.platform()} | Python {platform.python_version()} | "
            f"{os.cpu_count()} CPUs ({model}) | load average {load[0]:.2f}")


def next_action(table: TableService, rng: random.Random) -> str:
    state = table.state_copy()
    if state is None or state.is_terminal():
        table.new_game(GameConfig(players=("Anna", "Ben", "Chi"),
                                  variants=frozenset({"ufo", "exploration"})))
        state = table.state_copy()
        assert state is not None
    if state.is_chance_node():
        return str(sample_chance(state, rng))
    return str(make_bot("greedy").choose(state, rng))


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--clients", type=int, default=50)
    parser.add_argument("--updates", type=int, default=300)
    parser.add_argument("--threads", type=int, default=64)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()

    folder = tempfile.TemporaryDirectory()
    store = Store(Path(folder.name) / "bench.db")
    table = TableService(store)
    published: dict[int, float] = {}

    def stamp(snapshot: Snapshot) -> None:  # subscribed before the web hub: runs first
        published[snapshot.version] = time.perf_counter()

    table.subscribe(stamp)
    table.start()
    table.new_game(GameConfig(players=("Anna", "Ben", "Chi"),
                              variants=frozenset({"ufo", "exploration"})))
    app = create_app(table, Pairing(), settings={"heartbeat": 5.0})
    server = WebServer(app, HOST, 0, threads=args.threads)
    server.start()
    clients = [Client(server.port) for _ in range(args.clients)]
    for client in clients:
        client.start()
    for client in clients:
        client.connected.wait(WAIT)
    errors = [c.error for c in clients if c.error]

    rng = random.Random(args.seed)
    latencies: list[float] = []
    act_to_last: list[float] = []
    lost = 0
    started = time.perf_counter()
    for _ in range(args.updates):
        text = next_action(table, rng)
        before = time.perf_counter()
        result = table.act(text, "bench")
        assert result.ok, result.error
        version = table.snapshot().version
        deadline = time.perf_counter() + WAIT
        while not all(c.has(version) for c in clients) and time.perf_counter() < deadline:
            time.sleep(0.0005)
        missing = [c for c in clients if not c.has(version)]
        lost += len(missing)
        arrivals = [c.arrivals[version] for c in clients if c.has(version)]
        if arrivals and version in published:
            latencies.append(max(arrivals) - published[version])
            act_to_last.append(max(arrivals) - before)
    elapsed = time.perf_counter() - started
    every = all(all(v in c.arrivals for v in published if v >= min(published))
                for c in clients if not c.error)
    server.stop()
    table.stop()
    store.close()
    folder.cleanup()

    ms = [1000 * x for x in latencies]
    act_ms = [1000 * x for x in act_to_last]
    print(f"machine: {machine()}")
    print(f"waitress threads {args.threads}, SSE clients {args.clients}, updates {args.updates}, "
          f"elapsed {elapsed:.1f} s, client errors {len(errors)}")
    print(f"every client received every update: {every and lost == 0} (lost deliveries: {lost})")
    if ms:
        print(f"publish -> last client (ms): p50 {statistics.median(ms):.1f}  "
              f"p95 {percentile(ms, 0.95):.1f}  p99 {percentile(ms, 0.99):.1f}  max {max(ms):.1f}")
        print(f"act() call -> last client (ms, includes the SQLite commit): "
              f"p50 {statistics.median(act_ms):.1f}  p95 {percentile(act_ms, 0.95):.1f}")
        verdict = "PASS" if percentile(ms, 0.95) < 100 and lost == 0 else "FAIL"
        print(f"target p95 < 100 ms: {verdict}")
    return 0 if ms and lost == 0 else 1


if __name__ == "__main__":
    raise SystemExit(main())
