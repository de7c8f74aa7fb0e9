"""Fixtures for the web tests: a real table over SQLite, a pairing registry, the app, and a test
client that validates every response against web/openapi.yaml (so the document stays true)."""

from __future__ import annotations

import json
import random
import re
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml
from flask import Flask
from flask.testing import FlaskClient
from jsonschema import Draft202012Validator
from referencing import Registry
from referencing.jsonschema import DRAFT202012
from werkzeug.test import TestResponse

from companion.games.mlem import Phase, Roll, normalize
from companion.pairing import Pairing
from companion.store import Store
from companion.table import TableService
from web import create_app
from web.server import WebServer

SPEC_PATH = Path(__file__).parents[2] / "web" / "openapi.yaml"
_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
SPEC: dict[str, Any] = yaml.load(SPEC_PATH.read_text("utf-8"), Loader=_LOADER)
SPEC_URI = "urn:mlem-api"
REGISTRY: Registry[Any] = Registry().with_resource(SPEC_URI, DRAFT202012.create_resource(SPEC))
SIDES = ("1", "2", "2", "3", "4", "fuel")
UNSAFE = {"POST", "PUT", "PATCH", "DELETE"}


def _pointer(*parts: str) -> str:
    return "/" + "/".join(p.replace("~", "~0").replace("/", "~1") for p in parts)


def _template_regex(template: str) -> re.Pattern[str]:
    return re.compile("^" + re.sub(r"\\\{[^}]+\\\}", "[^/]+", re.escape(template)) + "$")


OPERATIONS = [(_template_regex(t), t) for t in SPEC["paths"]]


def find_operation(path: str, method: str) -> tuple[str, dict[str, Any]] | None:
    for regex, template in OPERATIONS:
        if regex.match(path):
            operation = SPEC["paths"][template].get(method.lower())
            return (template, operation) if operation is not None else None
    return None


def resolve(node: dict[str, Any]) -> dict[str, Any]:
    """Follow a local `$ref` in the document (responses use them)."""
    while "$ref" in node:
        target: Any = SPEC
        for part in node["$ref"].lstrip("#/").split("/"):
            target = target[part.replace("~1", "/").replace("~0", "~")]
        node = target
    return node


def validate_response(method: str, path: str, response: TestResponse) -> None:
    """Check one response against the document: documented status, media type and schema.

    :raises AssertionError: the document and the app disagree.
    """
    if method in ("HEAD", "OPTIONS"):
        return
    found = find_operation(path, method)
    if found is None:  # no such route or method: the app must say so, as JSON under /api/
        assert response.status_code in (404, 405), (method, path, response.status_code)
        if path.startswith("/api/"):
            check_schema(response.get_json(), _pointer("components", "schemas", "Error"))
        return
    template, operation = found
    responses = operation["responses"]
    status = str(response.status_code)
    assert status in responses, (
        f"{method} {path} answered {status}, not documented for {template}: "
        f"{response.get_data(as_text=True)[:300]}")
    documented = resolve(responses[status])
    content = documented.get("content")
    if not content:
        return
    mimetype = response.mimetype
    assert mimetype in content, f"{method} {path}: {mimetype} not in {list(content)}"
    if "schema" in content[mimetype] and mimetype == "application/json":
        pointer = (_pointer("paths", template, method.lower(), "responses", status)
                   if "$ref" not in responses[status]
                   else responses[status]["$ref"].lstrip("#"))
        check_schema(json.loads(response.get_data(as_text=True)),
                     pointer + _pointer("content", "application/json", "schema"))


def check_schema(instance: Any, pointer: str) -> None:
    validator = Draft202012Validator({"$ref": f"{SPEC_URI}#{pointer}"}, registry=REGISTRY)
    errors = sorted(validator.iter_errors(instance), key=lambda e: list(e.path))
    assert not errors, "\n".join(f"{list(e.path)}: {e.message}" for e in errors[:5])


class ValidatingClient(FlaskClient):
    """A test client whose every (non-streaming) response is checked against the document."""

    def open(self, *args: Any, **kwargs: Any) -> TestResponse:  # type: ignore[override]
        response = super().open(*args, **kwargs)
        if response.mimetype != "text/event-stream":
            request = response.request
            validate_response(request.method, request.path, response)
        return response


FAST_DIR = "/dev/shm" if Path("/dev/shm").is_dir() else None
"""tmpfs where there is one: SQLite's fsync per action (synchronous=FULL) costs ~9 ms on disk,
and these tests are about the web layer, not durability (tests/companion covers that)."""


@pytest.fixture
def store() -> Iterator[Store]:
    with tempfile.TemporaryDirectory(dir=FAST_DIR) as folder:
        s = Store(Path(folder) / "web.db")
        yield s
        s.close()


@pytest.fixture
def table(store: Store) -> Iterator[TableService]:
    service = TableService(store)
    service.start()
    yield service
    service.stop()


@pytest.fixture
def pairing() -> Pairing:
    return Pairing()


@pytest.fixture
def app(table: TableService, pairing: Pairing) -> Flask:
    app = create_app(table, pairing, settings={"heartbeat": 0.2})
    app.test_client_class = ValidatingClient
    return app


@pytest.fixture
def server(app: Flask) -> Iterator[WebServer]:
    """The app served by the real waitress server on a free loopback port (enough threads for
    a few browser pages, each with its live stream)."""
    web = WebServer(app, "127.0.0.1", 0, threads=16)
    web.start()
    yield web
    web.stop()


@pytest.fixture
def client(app: Flask) -> FlaskClient:
    return app.test_client()


class Phone:
    """A paired test client: sends its CSRF token on every unsafe request."""

    def __init__(self, client: FlaskClient, pairing: Pairing, name: str) -> None:
        self.client = client
        response = client.post("/api/pair", json={"code": pairing.code(), "name": name})
        assert response.status_code == 201, response.json
        data = response.get_json()
        self.csrf: str = data["csrf"]
        self.token: str = data["token"]
        self.device: dict[str, Any] = data["device"]

    def get(self, path: str, **kwargs: Any) -> TestResponse:
        return self.client.get(path, **kwargs)

    def post(self, path: str, json: Any = None, **kwargs: Any) -> TestResponse:
        headers = {"X-CSRF-Token": self.csrf, **kwargs.pop("headers", {})}
        return self.client.post(path, json=json if json is not None else {}, headers=headers,
                                **kwargs)

    def delete(self, path: str, **kwargs: Any) -> TestResponse:
        headers = {"X-CSRF-Token": self.csrf, **kwargs.pop("headers", {})}
        return self.client.delete(path, headers=headers, **kwargs)


@pytest.fixture
def host(app: Flask, pairing: Pairing) -> Phone:
    """The first phone paired: the host."""
    return Phone(app.test_client(), pairing, "Host")


@pytest.fixture
def guest(app: Flask, pairing: Pairing, host: Phone) -> Phone:
    return Phone(app.test_client(), pairing, "Guest")


def start_game(phone: Phone, players: int = 3, variants: tuple[str, ...] = (),
               bots: tuple[int, ...] = ()) -> dict[str, Any]:
    names = ["Anna", "Ben", "Chi", "Dora", "Emil"][:players]
    response = phone.post("/api/setup", json={
        "players": [{"name": n, "bot": i in bots} for i, n in enumerate(names)],
        "variants": list(variants)})
    assert response.status_code == 201, response.get_json()
    return dict(phone.get("/api/state").get_json())


def random_roll(available: int, rng: random.Random) -> str:
    return str(normalize(Roll(tuple(rng.choice(SIDES) for _ in range(available)))))


def step(phone: Phone, rng: random.Random, table: TableService) -> bool:
    """One bot-like step through the API (first option; rolls thrown like real dice).

    Returns False once the game is over.
    """
    state = table.state_copy()
    assert state is not None
    if state.is_terminal():
        return False
    if state.phase is Phase.ROLL:
        response = phone.post("/api/actions", {"action": random_roll(state.available, rng)})
    elif state.is_chance_node():
        response = phone.post("/api/draw")
    else:
        actions = phone.get("/api/actions").get_json()
        assert actions["may_act"], actions
        options = actions["prompt"]["options"]
        choice = rng.choice(options)
        response = phone.post("/api/actions", {"action": choice["action"]})
    assert response.status_code == 200, response.get_json()
    return True


def play_to_end(phone: Phone, table: TableService, seed: int = 1, limit: int = 5000) -> int:
    rng = random.Random(seed)
    for n in range(limit):
        if not step(phone, rng, table):
            return n
    raise AssertionError("the game did not end")
