"""Pages, static files, languages and the join QR code."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from flask.testing import FlaskClient

from web.i18n import LANGUAGES

WEB = Path(__file__).parents[2] / "web"
CATALOGS = {lang: json.loads((WEB / "i18n" / f"{lang}.json").read_text("utf-8"))
            for lang in LANGUAGES}
DYNAMIC_PREFIXES = ("kind.", "goal.", "variant.", "colour.", "scores.", "lang.", "join.paired_")


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
