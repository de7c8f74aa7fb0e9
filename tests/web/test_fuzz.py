"""Fuzz the API with Hypothesis: random methods, paths, JSON bodies and credentials.

Whatever arrives: no 5xx, every response matches the OpenAPI document (the validating client),
unauthenticated or CSRF-less requests change nothing, and the table's state always equals the
replay of its stored record (the record is the truth).
"""

from __future__ import annotations

import itertools
import os
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from companion.games.mlem import GameConfig
from companion.pairing import Pairing
from companion.store import Store
from companion.table import TableService
from tests.web.conftest import FAST_DIR, SPEC, Phone, ValidatingClient, check_schema
from web import create_app

METHODS = ("GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS")
ACTIONS = ("place dice_1", "place satellite", "place parachute", "stay", "crash", "reroll",
           "roll 1 2 2 3 4 fuel", "roll fuel fuel", "roll 6", "move 1", "move 2 2 keep",
           "move fuel dice1:0", "land comet", "land galaxy", "land P1", "land M9a", "draw S01",
           "discard S01", "confirm", "reject", "", " ", "place", "move ufo ufo")
JSON_SCALARS = st.sampled_from([None, True, False, 0, -1, 7, 2**40, 1.5, "", "x", "1", "fuel"])
JSON = st.recursive(JSON_SCALARS, lambda inner: st.lists(inner, max_size=3)
                    | st.dictionaries(st.sampled_from(["action", "a", "seat", ""]), inner,
                                      max_size=2), max_leaves=4)
PLAYER = st.fixed_dictionaries({"name": st.text(max_size=8) | JSON},
                               optional={"colour": st.sampled_from(["blue", "orange", "x"]) | JSON,
                                         "bot": st.booleans() | JSON})
KNOWN_BODY = st.fixed_dictionaries({}, optional={
    "action": st.sampled_from(ACTIONS) | st.text(max_size=20) | JSON,
    "version": st.integers(-1, 50) | JSON,
    "steps": st.integers(-2, 120) | JSON,
    "faces": st.lists(st.sampled_from(["1", "2", "3", "4", "fuel", "6"]), max_size=7) | JSON,
    "seat": st.integers(-1, 6) | st.none() | JSON,
    "enabled": st.booleans() | JSON,
    "code": st.text("0123456789", max_size=8) | JSON,
    "name": st.text(max_size=10) | JSON,
    "players": st.lists(PLAYER, max_size=6) | JSON,
    "variants": st.lists(st.sampled_from(["ufo", "exploration", "missions", "x"]), max_size=4),
    "board": st.sampled_from(["reconstruction", "../x", "/etc/passwd"]),
    "starter": st.integers(-1, 6) | JSON,
})
BODY = (st.none() | KNOWN_BODY | JSON
        | st.binary(max_size=40).map(lambda b: ("raw", b)))
TEMPLATE_PATHS = sorted(p for p in SPEC["paths"] if p != "/api/stream")
SEGMENT = st.text(st.characters(codec="utf-8", exclude_categories=("Cs",)), max_size=8)


@st.composite
def paths(draw: st.DrawFn) -> str:
    if draw(st.integers(0, 9)) == 0:
        path = "/" + "/".join(quote(s, safe="") for s in draw(st.lists(SEGMENT, max_size=4)))
        # the test client reads "//x" as a URL with host "x" (a real request line would not)
        return "/z" + path if path.startswith("//") else path
    template = draw(st.sampled_from(TEMPLATE_PATHS))
    while "{" in template:
        start, end = template.index("{"), template.index("}")
        value = draw(st.sampled_from(["1", "2", "0", "999", "app.js", "x", "..", "%2e%2e"])
                     | SEGMENT.map(lambda s: quote(s, safe="")))
        template = template[:start] + value + template[end + 1:]
    return template


REQUEST = st.tuples(st.sampled_from(METHODS), paths(), BODY,
                    st.sampled_from(["none", "host", "host-no-csrf", "guest", "bad-origin"]))


class Fixture:
    """One table, app and pair of phones shared by every example (state accumulates)."""

    def __init__(self, folder: Path) -> None:
        ticks = itertools.count()
        self.store = Store(folder / "fuzz.db")
        self.table = TableService(self.store)
        self.table.start()
        self.pairing = Pairing(clock=lambda: 100.0 * next(ticks))  # lockouts pass quickly
        self.app = create_app(self.table, self.pairing, settings={"heartbeat": 0.1})
        self.app.test_client_class = ValidatingClient
        self.host = Phone(self.app.test_client(), self.pairing, "Host")
        self.guest = Phone(self.app.test_client(), self.pairing, "Guest")
        self.anonymous = self.app.test_client()
        response = self.host.post("/api/setup", {
            "players": [{"name": "Anna"}, {"name": "Ben"}, {"name": "Chi", "bot": True}],
            "variants": ["ufo", "exploration", "missions"]})
        assert response.status_code == 201

    def phone(self, who: str) -> Phone:
        """Re-pair a phone the fuzzer revoked or unpaired, so later examples can still act."""
        phone = self.host if who.startswith("host") or who == "bad-origin" else self.guest
        if self.pairing.verify(phone.token) is None:
            fresh = Phone(self.app.test_client(), self.pairing, phone.device["name"])
            phone.__dict__.update(fresh.__dict__)
        return phone

    def send(self, method: str, path: str, body: Any, who: str) -> Any:
        kwargs: dict[str, Any] = {}
        if isinstance(body, tuple):
            kwargs.update(data=body[1], content_type="application/json")
        elif body is not None:
            kwargs["json"] = body
        if who == "none":
            return self.anonymous.open(path, method=method, **kwargs)
        phone = self.phone(who)
        headers = {} if who == "host-no-csrf" else {"X-CSRF-Token": phone.csrf}
        if who == "bad-origin":
            headers["Origin"] = "http://evil.example"
        return phone.client.open(path, method=method, headers=headers, **kwargs)

    def check_intact(self) -> None:
        snapshot = self.table.snapshot()
        state = self.table.state_copy()
        if snapshot.game_id is not None:
            stored = self.store.game(snapshot.game_id)
            assert stored is not None and state is not None
            assert GameConfig.from_json(stored.setup) == state.game.config
            replayed = state.game.new_initial_state()  # same board: no file re-read per example
            for text in stored.actions:
                replayed.apply_action(text)
            assert replayed == state, "the table's state is not its record's replay"
        assert self.app.extensions["mlem"].hub.view()["version"] == snapshot.version

    def close(self) -> None:
        self.table.stop()
        self.store.close()


@pytest.fixture(scope="module")
def fuzz() -> Iterator[Fixture]:
    with tempfile.TemporaryDirectory(dir=FAST_DIR) as folder:
        fixture = Fixture(Path(folder))
        yield fixture
        fixture.close()


def run(fuzz: Fixture, requests: list[tuple[str, str, Any, str]]) -> None:
    for method, path, body, who in requests:
        before = fuzz.table.snapshot().version
        response = fuzz.send(method, path, body, who)
        assert response.status_code < 500, (method, path, body, who, response.data[:300])
        if who in ("none", "host-no-csrf", "bad-origin"):
            assert fuzz.table.snapshot().version == before, (method, path, body, who)
        response.close()
    fuzz.check_intact()


def test_the_view_is_still_valid_after_fuzzing(fuzz: Fixture) -> None:
    check_schema(fuzz.app.extensions["mlem"].hub.view(), "/components/schemas/View")


@settings(max_examples=int(os.environ.get("FUZZ_EXAMPLES", "700")), deadline=None,
          suppress_health_check=list(HealthCheck))
@given(requests=st.lists(REQUEST, min_size=1, max_size=4))
def test_fuzz_the_api(fuzz: Fixture, requests: list[tuple[str, str, Any, str]]) -> None:
    run(fuzz, requests)


@pytest.mark.slow
@settings(max_examples=4000, deadline=None, suppress_health_check=list(HealthCheck))
@given(requests=st.lists(REQUEST, min_size=1, max_size=6))
def test_fuzz_the_api_longer(fuzz: Fixture, requests: list[tuple[str, str, Any, str]]) -> None:
    run(fuzz, requests)
