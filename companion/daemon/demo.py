"""The demo's extras around a daemon: bots in the empty seats, and the acknowledgement printer
that the crash tests read."""

from __future__ import annotations

import sys
import threading
from collections.abc import Callable

from companion.config import Config
from companion.table import Result
from hardware.base import ButtonEvent, Camera

from .app import Daemon
from .drivers import throw_into_tray
from .seats import BotSeats


def seat_demo_bots(daemon: Daemon, config: Config, press: Callable[[ButtonEvent], None],
                   cameras: list[Camera]) -> BotSeats:
    """Bots in every seat but the first `demo.humans`; they also throw the humans' dice.

    Starts a game with the configured players if none is in progress, then starts the bots.
    """
    players = len(config.game.players)
    seats = set(range(config.demo.humans, players))
    bots = BotSeats(daemon, press, seats=seats, bots=tuple(config.demo.bots),
                    seed=config.camera.seed, throw=lambda faces: throw_into_tray(cameras, faces),
                    throw_for_all=True, throw_delay=config.demo.throw_delay, draws=True,
                    read_timeout=8.0)
    daemon.setup_listeners.append(lambda _gid, _cfg, bot_seats: bots.set_seats(set(bot_seats)))
    if daemon.table.snapshot().game_id is None:
        daemon.table.new_game(daemon.default_game())
    bots.start()
    return bots


class AckPrinter:
    """Prints the game record as acknowledged: ``GAME id``, ``ACK index text``, ``CUT index``.

    Called after the table returned ok (the action is committed), so the parent of a crash test
    knows that every line it read must be in the store after a ``kill -9``.
    """

    def __init__(self, daemon: Daemon) -> None:
        self.daemon = daemon
        self.game_id: int | None = None
        self.printed: list[str] = []
        self.lock = threading.Lock()

    def __call__(self, _what: str, result: Result) -> None:
        if not result.ok:
            return
        snapshot = self.daemon.table.snapshot()
        state = self.daemon.table.state_copy()
        history = [str(a) for a in state.history] if state is not None else []
        lines = []
        with self.lock:
            if snapshot.game_id != self.game_id:
                self.game_id, self.printed = snapshot.game_id, []
                lines.append(f"GAME {snapshot.game_id}")
            same = 0
            for old, new in zip(self.printed, history, strict=False):
                if old != new:
                    break
                same += 1
            if same < len(self.printed):
                lines.append(f"CUT {same}")
            lines.extend(f"ACK {i} {history[i]}" for i in range(same, len(history)))
            self.printed = history
            if lines:
                sys.stdout.write("\n".join(lines) + "\n")
                sys.stdout.flush()
