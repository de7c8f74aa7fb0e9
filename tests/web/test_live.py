"""Live updates: SSE through the test client and through the real waitress server."""

from __future__ import annotations

import errno
import http.client
import json
import threading
import time
from collections.abc import Iterator
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient

from companion.pairing import Pairing
from companion.table import TableService
from tests.web.conftest import Phone, ValidatingClient, check_schema, start_game
from web import create_app, refresh_view
from web.server import WebServer


def events(chunks: Iterator[bytes]) -> Iterator[dict[str, Any]]:
    """Parse SSE messages (the server yields one message per chunk; comments are skipped)."""
    for chunk in chunks:
        text = chunk.decode() if isinstance(chunk, bytes) else chunk
        data = [line[6:] for line in text.splitlines() if line.startswith("data: ")]
        if data:
            yield json.loads("\n".join(data))


def test_stream_sends_the_current_view_at_once_then_every_change(
        client: FlaskClient, host: Phone, table: TableService) -> None:
    start_game(host, 2)
    response = client.get("/api/stream", buffered=False)
    assert response.mimetype == "text/event-stream"
    assert response.headers["Cache-Control"] == "no-cache"
    stream = events(iter(response.response))
    first = next(stream)
    check_schema(first, "/components/schemas/View")
    assert first["version"] == table.snapshot().version and first["state"]["phase"] == "place"
    options = host.get("/api/actions").get_json()["prompt"]["options"]
    assert host.post("/api/actions", {"action": options[0]["action"]}).status_code == 200
    update = next(stream)
    assert update["version"] == first["version"] + 1
    assert update["events"][0]["name"] == "placed"
    assert update["state"]["rocket"]
    response.close()
    assert table.snapshot().version == update["version"]


def test_a_reconnecting_client_gets_the_current_state_at_once(
        client: FlaskClient, host: Phone, table: TableService) -> None:
    start_game(host, 2)
    host.post("/api/actions", {"action": "place satellite"})
    response = client.get("/api/stream", buffered=False)
    view = next(events(iter(response.response)))
    assert view["version"] == table.snapshot().version
    assert view["state"]["rocket"][0]["kind"] == "satellite"
    response.close()


def test_pairing_changes_reach_the_stream(client: FlaskClient, host: Phone,
                                          guest: Phone) -> None:
    start_game(host, 2)
    response = client.get("/api/stream", buffered=False)
    stream = events(iter(response.response))
    next(stream)
    guest.post("/api/seat", {"seat": 1})
    assert next(stream)["seats"][1]["claimed_by"] == "Guest"
    response.close()


def test_heartbeats_keep_the_connection_alive(client: FlaskClient) -> None:
    response = client.get("/api/stream", buffered=False)
    chunks = iter(response.response)
    first = [next(chunks) for _ in range(2)]  # the retry hint and the current view
    assert any(b"retry:" in c for c in first)
    assert next(chunks) == b": keep-alive\n\n"  # heartbeat is 0.2 s in these tests
    response.close()


def open_stream(server: WebServer) -> tuple[http.client.HTTPConnection, Any]:
    connection = http.client.HTTPConnection("127.0.0.1", server.port, timeout=5)
    connection.request("GET", "/api/stream")
    response = connection.getresponse()
    assert response.status == 200
    return connection, response


def read_view(response: Any) -> dict[str, Any]:
    while True:
        line = response.readline()
        if not line:
            raise EOFError("stream ended")
        if line.startswith(b"data: "):
            return dict(json.loads(line[6:]))


def test_real_server_streams_and_stop_ends_the_streams(server: WebServer, table: TableService,
                                                      app: Flask) -> None:
    connection, response = open_stream(server)
    view = read_view(response)
    assert view["game_id"] is None
    hub = app.extensions["mlem"].hub
    assert hub.client_count() == 1
    server.stop()
    started = time.monotonic()
    with pytest.raises((EOFError, OSError, http.client.HTTPException)):
        read_view(response)
    assert time.monotonic() - started < 3
    assert hub.client_count() == 0
    connection.close()


def test_stop_ends_the_streams_after_the_listener_failed(server: WebServer, app: Flask,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    """When its listening socket fails, waitress closes it together with the pipe that wakes
    its loop, while open streams keep the loop running. Stopping must still end those streams
    (it raised EBADF writing to the closed pipe, and left them open), and the loop thread must
    end quietly (the sockets closed under its select() raised EBADF there)."""
    crashed: list[BaseException | None] = []
    monkeypatch.setattr(threading, "excepthook", lambda args: crashed.append(args.exc_value))
    connection, response = open_stream(server)
    read_view(response)
    server._server.close()  # what waitress does when the listener fails
    server.stop()
    assert crashed == []
    started = time.monotonic()
    with pytest.raises((EOFError, OSError, http.client.HTTPException)):
        read_view(response)
    assert time.monotonic() - started < 3
    assert app.extensions["mlem"].hub.client_count() == 0
    connection.close()


def test_the_loop_ends_quietly_on_a_socket_stop_closed(app: Flask) -> None:
    """The race behind the test above: stop() closes a socket while the loop is about to
    select() on it (seen in a loaded CI run). That EBADF ends the loop once stopping, and is
    still raised before."""
    web = WebServer(app, "127.0.0.1", 0, threads=4)

    def closed_under_select() -> None:
        raise OSError(errno.EBADF, "Bad file descriptor")

    web._server.run = closed_under_select
    with pytest.raises(OSError):
        web._serve()
    web.stop()
    web._serve()


def test_a_vanished_client_is_dropped(server: WebServer, app: Flask) -> None:
    hub = app.extensions["mlem"].hub
    connection, response = open_stream(server)
    read_view(response)
    assert hub.client_count() == 1
    connection.close()
    response.close()
    deadline = time.monotonic() + 5
    while hub.client_count() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert hub.client_count() == 0


def test_real_server_pages_and_api(server: WebServer) -> None:
    connection = http.client.HTTPConnection("127.0.0.1", server.port, timeout=5)
    connection.request("GET", "/")
    page = connection.getresponse()
    assert page.status == 200 and b"MLEM" in page.read()
    assert page.getheader("Content-Security-Policy", "").startswith("default-src 'self'")
    connection.request("GET", "/api/state")
    state = connection.getresponse()
    assert state.status == 200 and json.loads(state.read())["version"] >= 0
    connection.close()


def test_the_view_carries_the_hardware_status_and_follows_its_changes(
        table: TableService, pairing: Pairing) -> None:
    devices: dict[str, dict[str, Any]] = {
        "camera": {"ok": True, "detail": "picamera", "since": 1.0},
        "display": {"ok": True, "detail": "ssd1306", "since": 1.0},
    }
    app = create_app(table, pairing, settings={"hardware": lambda: devices, "heartbeat": 0.2})
    app.test_client_class = ValidatingClient
    client = app.test_client()
    assert client.get("/api/state").get_json()["hardware"]["camera"]["ok"] is True
    response = client.get("/api/stream", buffered=False)
    stream = events(iter(response.response))
    assert next(stream)["hardware"] == devices
    devices["camera"] = {"ok": False, "detail": "cannot open: no camera", "since": 2.0}
    refresh_view(app)
    update = next(stream)
    response.close()
    assert update["hardware"]["camera"] == devices["camera"]
    assert client.get("/api/state").get_json()["hardware"]["camera"]["ok"] is False


def test_a_broken_hardware_status_leaves_the_page_working(
        table: TableService, pairing: Pairing) -> None:
    def broken() -> dict[str, dict[str, Any]]:
        raise RuntimeError("status lock poisoned")

    app = create_app(table, pairing, settings={"hardware": broken})
    app.test_client_class = ValidatingClient
    assert app.test_client().get("/api/state").get_json()["hardware"] == {}


def test_without_a_daemon_the_hardware_status_is_empty(client: FlaskClient) -> None:
    assert client.get("/api/state").get_json()["hardware"] == {}
