"""Pages, static files, languages and the join QR code."""

from __future__ import annotations

import json
import random
import re
from pathlib import Path
from typing import Any

import pytest
from flask.testing import FlaskClient

from companion.games.mlem import Action, Game, GameConfig, State
from companion.games.mlem.bots import make_bot
from companion.games.mlem.simulate import play_game
from companion.prompts import Prompt, prompt_for
from tests.web.conftest import Phone, start_game
from web.i18n import LANGUAGES

WEB = Path(__file__).parents[2] / "web"
CATALOGS = {lang: json.loads((WEB / "i18n" / f"{lang}.json").read_text("utf-8"))
            for lang in LANGUAGES}
DYNAMIC_PREFIXES = ("kind.", "goal.", "variant.", "colour.", "scores.", "lang.", "join.paired_",
                    "ask.", "option.", "target.", "phase.")
"""Prompt keys come from companion/prompts.py: the bot-game test below checks them instead."""


@pytest.mark.parametrize("path", ["/", "/join", "/setup", "/history"])
def test_pages_render_with_no_external_resources(client: FlaskClient, path: str) -> None:
    response = client.get(path)
    assert response.status_code == 200
    html = response.get_data(as_text=True)
    assert '<meta name="viewport"' in html
    external = re.findall(r'(?:src|href)="((?:https?:)?//[^"]*)"', html)
    assert all(url.startswith("http://localhost/") for url in external), "no CDN, no fonts"
    assert "<script>" not in html, "no inline scripts (the CSP forbids them)"
    assert "default-src 'self'" in response.headers["Content-Security-Policy"]
    assert response.headers["X-Frame-Options"] == "DENY"


def test_static_files_are_served_by_exact_name_only(client: FlaskClient) -> None:
    js = client.get("/static/app.js")
    assert js.status_code == 200 and js.mimetype == "text/javascript"
    etag = js.headers["ETag"]
    assert client.get("/static/app.js", headers={"If-None-Match": etag}).status_code == 304
    for path in ["/static/../__init__.py", "/static/..%2f__init__.py", "/static/%2e%2e/api.py",
                 "/static/app.js%00", "/static/", "/static/openapi.yaml", "/../web/api.py",
                 "/static/..\\api.py"]:
        assert client.get(path).status_code == 404, path


def test_the_join_qr_code_is_svg_made_here(client: FlaskClient) -> None:
    svg = client.get("/qr.svg")
    assert svg.mimetype == "image/svg+xml" and svg.data.startswith(b"<svg")
    assert b"http" not in svg.data.split(b">", 1)[1] or b"xmlns" in svg.data
    assert b'href="http://localhost/join"' in client.get("/join").data


def test_language_from_accept_language_and_the_cookie(client: FlaskClient) -> None:
    assert "<html lang=\"ja\">" in client.get(
        "/", headers={"Accept-Language": "ja,en;q=0.5"}).get_data(as_text=True)
    assert "<html lang=\"de\">" in client.get(
        "/", headers={"Accept-Language": "de-DE,de;q=0.9"}).get_data(as_text=True)
    assert "<html lang=\"en\">" in client.get(
        "/", headers={"Accept-Language": "fr"}).get_data(as_text=True)
    client.set_cookie("lang", "de")
    page = client.get("/", headers={"Accept-Language": "ja"}).get_data(as_text=True)
    assert "<html lang=\"de\">" in page and CATALOGS["de"]["nav.table"] in page
    client.set_cookie("lang", "xx")
    assert "<html lang=\"ja\">" in client.get(
        "/", headers={"Accept-Language": "ja"}).get_data(as_text=True)


def test_every_catalog_has_every_key() -> None:
    keys = {lang: set(catalog) for lang, catalog in CATALOGS.items()}
    for lang in LANGUAGES:
        assert keys[lang] == keys["en"], (lang, keys[lang] ^ keys["en"])
        assert all(CATALOGS[lang][k].strip() for k in keys[lang]), lang


def test_every_key_used_exists() -> None:
    sources = [p.read_text("utf-8") for p in (WEB / "templates").glob("*.html")]
    sources.append((WEB / "static" / "app.js").read_text("utf-8"))
    used = {m for text in sources for m in re.findall(r"\bt\(['\"]([a-z_]+\.[a-z_]+)['\"]", text)}
    assert used, "no keys found: the pattern is wrong"
    assert used - set(CATALOGS["en"]) == set()
    mentioned = {m for text in sources for m in re.findall(r"['\"]([a-z_]+\.[a-z_]+)['\"]", text)}
    unused = {k for k in CATALOGS["en"]
              if k not in mentioned and not k.startswith(DYNAMIC_PREFIXES)}
    assert unused == set()


def test_placeholders_match_across_languages() -> None:
    for key, text in CATALOGS["en"].items():
        names = set(re.findall(r"\{(\w+)\}", text))
        for lang in LANGUAGES:
            assert set(re.findall(r"\{(\w+)\}", CATALOGS[lang][key])) == names, (lang, key)


def _prompt_keys(prompt: Prompt) -> set[str]:
    return {prompt.key} | {o.key for o in prompt.options}


def _nested_values(params: dict[str, Any]) -> set[str]:
    """The `body` of every landing target (each names a target.* key)."""
    targets = list(params.get("targets", []))
    if "target" in params:
        targets.append(params["target"])
    return {f"target.{t['body']}" for t in targets}


def test_every_prompt_key_of_seeded_bot_games_is_in_the_catalogs() -> None:
    keys: set[str] = {"ask.confirm_roll", "ask.confirm_roll_unclear", "option.confirm",
                      "option.read_again"}  # the table's camera prompts (tests/companion)

    def collect(state: State, action: Action | None = None) -> None:
        prompt = prompt_for(state)
        keys.update(_prompt_keys(prompt))
        keys.update(_nested_values(prompt.params))
        for option in prompt.options:
            keys.update(_nested_values(option.params))
            if option.key == "option.place":
                keys.add(f"kind.{option.params['kind']}")
        if prompt.key == "ask.draw":
            keys.add(f"phase.{prompt.params['phase']}")

    variants = frozenset({"ufo", "exploration", "missions"})
    for seed, bot in enumerate(["random", "greedy", "cautious", "random"]):
        game = Game(GameConfig(players=("Anna", "Ben", "Chi"), variants=variants))
        final = play_game(game, [make_bot(bot)] * 3, random.Random(seed), collect)
        collect(final)
    assert "" not in keys, "every prompt and option has a key"
    for expected in ("ask.land_or_stay", "option.move", "option.land", "option.stay",
                     "ask.game_over", "option.place", "ask.draw"):
        assert expected in keys
    for lang in LANGUAGES:
        assert keys - set(CATALOGS[lang]) == set(), lang


def test_a_japanese_page_gets_the_prompt_in_japanese(host: Phone) -> None:
    start_game(host, 3)
    prompt = host.get("/api/actions", headers={"Accept-Language": "ja"}).get_json()["prompt"]
    assert prompt["key"] == "ask.place" and prompt["params"]["player"] == "Anna"
    assert prompt["title"] == "Anna: who boards?", "the English text stays, for the OLED"
    option = prompt["options"][0]
    assert option["key"] == "option.place" and option["params"]["kind"] in option["action"]
    page = host.get("/", headers={"Accept-Language": "ja"}).get_data(as_text=True)
    found = re.search(r'<script id="i18n" type="application/json">(.*?)</script>', page, re.S)
    assert found
    catalog = json.loads(found.group(1))
    title = catalog[prompt["key"]].format(**prompt["params"])
    assert title.startswith("Anna") and "誰を乗せますか" in title
    kind = option["params"]["kind"]
    assert catalog[f"kind.{kind}"] == CATALOGS["ja"][f"kind.{kind}"]
