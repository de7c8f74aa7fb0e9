"""Live updates: one table subscription fanned out to a queue per phone, sent as Server-Sent Events.

The view (snapshot, board, odds, seats) is built and serialised once per change, on the table's
worker thread, and the same bytes go into every client's queue, so fifty phones cost fifty queue
puts. A queue that fills up (a phone that stopped reading) drops its oldest message: each message
is a full snapshot, so only the newest one matters. Generators end when the hub closes (server
stop) or when the server finds the client gone (the heartbeat forces a write).
"""

from __future__ import annotations

import contextlib
import json
import logging
import queue
import threading
from collections.abc import Callable, Iterator
from typing import Any

from companion.pairing import Pairing
from companion.store import Store
from companion.table import Snapshot, TableService

from .present import SeatBook, board_json, game_extras, public_snapshot, seats_json
from .settings import HardwareSource

log = logging.getLogger(__name__)
QUEUE_SIZE = 16
RETRY_MS = 2000


class LiveHub:
    """The latest public view of the table and the SSE clients waiting for the next one."""

    def __init__(self, table: TableService, pairing: Pairing, seats: SeatBook, *,
                 odds_enabled: bool = True, oled: bool = False,
                 hardware: HardwareSource | None = None) -> None:
        self.table = table
        self.hardware = hardware
        self.pairing = pairing
        self.seats = seats
        self.odds_enabled = odds_enabled
        self.oled = oled
        self._lock = threading.Lock()
        self._clients: set[queue.Queue[str | None]] = set()
        self._closed = threading.Event()
        self._game_part: dict[str, Any] = {}
        self._game_version = -1
        self._snapshot: Snapshot = table.snapshot()
        self._view: dict[str, Any] = {}
        self._message = ""
        self._unsubscribe: list[Callable[[], None]] = [
            table.subscribe(self._on_snapshot),
            pairing.subscribe(self.refresh),
        ]
        snapshot = table.snapshot()
        self._store_game_part(snapshot, self._build_game_part(snapshot, table.state_copy()))

    # ------------------------------------------------------------------ building the view

    def _build_game_part(self, snapshot: Snapshot, state: Any) -> dict[str, Any]:
        store: Store = self.table.store
        seqs = store.active_seqs(snapshot.game_id) if snapshot.game_id is not None else None
        try:
            extras = game_extras(snapshot, state, seqs,
                                 lambda gid, seq: store.proof(gid, seq) is not None)
        except Exception:  # a view problem must never stop the table's worker
            log.exception("could not compute the page extras")
            extras = game_extras(snapshot, None, None, None)
        part = public_snapshot(snapshot)
        part["board"] = board_json(snapshot.setup["board"]) if snapshot.setup else None
        part.update(extras)
        return part

    def _on_snapshot(self, snapshot: Snapshot) -> None:
        """Table listener (runs on the table's worker, so `state_copy` is a direct call)."""
        self._store_game_part(snapshot, self._build_game_part(snapshot, self.table.state_copy()))

    def _store_game_part(self, snapshot: Snapshot, part: dict[str, Any]) -> None:
        with self._lock:
            if snapshot.version < self._game_version:
                return  # an older picture built late (start-up race): keep the newer one
            self._game_version = snapshot.version
            self._snapshot = snapshot
            self._game_part = part
        self.refresh()

    def refresh(self) -> None:
        """Rebuild the view from the latest game part (seats or settings changed) and send it."""
        with self._lock:
            holders = {seat: d.name for seat, d in self.pairing.seat_holders().items()}
            view = dict(self._game_part)
            view["seats"] = seats_json(self._snapshot, self.seats, holders)
            if not self.odds_enabled:
                view["odds"] = None
            view["odds_enabled"] = self.odds_enabled
            view["oled"] = self.oled
            view["hardware"] = self._hardware_json()
            self._view = view
            self._message = (f"id: {view['version']}\nevent: snapshot\n"
                             f"data: {json.dumps(view, separators=(',', ':'))}\n\n")
            clients = list(self._clients)
            message = self._message
        for client in clients:
            self._offer(client, message)

    def _hardware_json(self) -> dict[str, dict[str, Any]]:
        """Each device's health for the page; a status source that fails shows nothing."""
        if self.hardware is None:
            return {}
        try:
            return {str(name): {"ok": bool(device.get("ok", False)),
                                "detail": str(device.get("detail", "")),
                                "since": float(device.get("since", 0.0))}
                    for name, device in self.hardware().items()}
        except Exception:  # the page must render even if the daemon's status is broken
            log.exception("hardware status unavailable")
            return {}

    @staticmethod
    def _offer(client: queue.Queue[str | None], message: str | None) -> None:
        while True:
            try:
                client.put_nowait(message)
                return
            except queue.Full:
                with contextlib.suppress(queue.Empty):
                    client.get_nowait()  # only the newest full snapshot matters

    def view(self) -> dict[str, Any]:
        with self._lock:
            return self._view

    def set_odds(self, enabled: bool) -> None:
        self.odds_enabled = enabled
        self.refresh()

    # ------------------------------------------------------------------ clients

    def stream(self, heartbeat: float) -> Iterator[str]:
        """SSE lines for one client: the current view at once, then every change."""
        client: queue.Queue[str | None] = queue.Queue(QUEUE_SIZE)
        with self._lock:
            if self._closed.is_set():
                return
            self._clients.add(client)
            client.put_nowait(self._message)
        try:
            yield f"retry: {RETRY_MS}\n\n"
            while not self._closed.is_set():
                try:
                    message = client.get(timeout=heartbeat)
                except queue.Empty:
                    yield ": keep-alive\n\n"  # also how a vanished client is noticed
                    continue
                if message is None:
                    return
                yield message
        finally:
            with self._lock:
                self._clients.discard(client)

    def client_count(self) -> int:
        with self._lock:
            return len(self._clients)

    def close(self) -> None:
        """End every stream (server stopping) and stop listening to the table."""
        self._closed.set()
        for unsubscribe in self._unsubscribe:
            unsubscribe()
        with self._lock:
            clients = list(self._clients)
        for client in clients:
            self._offer(client, None)
