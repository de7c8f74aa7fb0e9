"""The phone-first pages: thin HTML shells that the small scripts fill from the JSON API.

Static files are served from a fixed table loaded when the app is built, looked up by exact name:
no path from a request ever reaches the file system.
"""

from __future__ import annotations

from flask import Blueprint, Response, abort, render_template, request

from .api import join_url, qr_svg
from .context import ctx
from .i18n import LANGUAGES, Translator, choose_language

pages = Blueprint("pages", __name__)


def page(name: str, template: str) -> str:
    c = ctx()
    lang = choose_language(request)
    return render_template(
        template, page=name, lang=lang, languages=LANGUAGES, t=Translator(c.catalogs, lang),
        catalog={**c.catalogs["en"], **c.catalogs[lang]}, join_url=join_url(),
        oled=c.settings.oled_png is not None)


@pages.get("/")
def table() -> str:
    """The table, live: track, rocket, crew, dice, moons and planets, scores, odds, prompt."""
    return page("table", "table.html")


@pages.get("/join")
def join() -> str:
    """How to connect: the address, a QR code, and pairing with the code on the OLED."""
    return page("join", "join.html")


@pages.get("/setup")
def setup() -> str:
    return page("setup", "setup.html")


@pages.get("/history")
def history() -> str:
    return page("history", "history.html")


@pages.get("/qr.svg")
def qr() -> Response:
    """The join address as a QR code, drawn on the server (segno, no CDN)."""
    return qr_svg(join_url())


@pages.get("/static/<name>")
def static(name: str) -> Response:
    entry = ctx().static.get(name)
    if entry is None:
        abort(404)
    content, mimetype, etag = entry
    response = Response(content, mimetype=mimetype)
    response.set_etag(etag)
    response.headers["Cache-Control"] = "no-cache"
    response.make_conditional(request)  # 304 when the phone's copy is current
    return response
