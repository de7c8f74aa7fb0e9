"""The web layer: Flask app factory, JSON API, live stream (SSE), phone-first pages in en/ja/de.

`create_app(table, pairing, settings=...)` builds one app around an injected table service and
pairing registry (Flask's tutorial factory, no module-level app, no globals); `web.server` serves
it in-process with waitress. The debug server is never used.
"""

from __future__ import annotations

import hashlib
import mimetypes
from collections.abc import Mapping
from importlib import resources
from typing import Any

from flask import Flask, Response, request
from werkzeug.exceptions import HTTPException

from companion.pairing import Pairing
from companion.table import TableService

from .api import api
from .auth import error
from .context import EXTENSION, WebContext
from .history import History
from .i18n import load_catalogs
from .live import LiveHub
from .pages import pages
from .present import SeatBook
from .settings import WebSettings

__all__ = ["WebSettings", "create_app", "refresh_view"]

MAX_BODY = 64 * 1024
CSP = ("default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; "
       "connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'")


def load_static() -> dict[str, tuple[bytes, str, str]]:
    """Every shipped static file, read once: name -> (content, mimetype, etag)."""
    files: dict[str, tuple[bytes, str, str]] = {}
    for entry in (resources.files("web") / "static").iterdir():
        if entry.is_file() and not entry.name.startswith("."):
            content = entry.read_bytes()
            mimetype = mimetypes.guess_type(entry.name)[0] or "application/octet-stream"
            files[entry.name] = (content, mimetype, hashlib.sha256(content).hexdigest()[:16])
    return files


def refresh_view(app: Flask) -> None:
    """Rebuild the live view and send it to every phone: something outside the table changed
    (the daemon calls it when a device's health changes)."""
    context: WebContext = app.extensions[EXTENSION]
    context.hub.refresh()


def create_app(
    table: TableService,
    pairing: Pairing,
    *,
    settings: WebSettings | Mapping[str, Any] | None = None,
) -> Flask:
    """Build the web app for one table.

    :raises TypeError: unknown settings.
    """
    web_settings = WebSettings.coerce(settings)
    app = Flask(__name__, static_folder=None)  # static files: pages.static's fixed table
    app.config.update(MAX_CONTENT_LENGTH=MAX_BODY)
    app.url_map.merge_slashes = False  # "//x" is not found, rather than redirected
    seats = SeatBook()
    app.extensions[EXTENSION] = WebContext(
        table=table,
        pairing=pairing,
        settings=web_settings,
        seats=seats,
        hub=LiveHub(table, pairing, seats, odds_enabled=web_settings.odds_enabled,
                    oled=web_settings.oled_png is not None, hardware=web_settings.hardware),
        history=History(table.store),
        catalogs=load_catalogs(),
        static=load_static(),
        openapi=(resources.files("web") / "openapi.yaml").read_bytes(),
    )
    app.register_blueprint(api)
    app.register_blueprint(pages)

    @app.before_request
    def check_host() -> tuple[Response, int] | None:
        allowed = web_settings.allowed_hosts
        if allowed is not None and request.host.split(":")[0] not in allowed:
            return error(403, "unknown Host")
        return None

    @app.after_request
    def harden(response: Response) -> Response:
        response.headers.setdefault("Content-Security-Policy", CSP)
        response.headers["X-Content-Type-Options"] = "nosniff"
        response.headers["Referrer-Policy"] = "same-origin"
        response.headers["X-Frame-Options"] = "DENY"
        return response

    @app.errorhandler(HTTPException)
    def http_error(exc: HTTPException) -> Response | tuple[Response, int]:
        """JSON errors under /api (and for every API client); plain pages elsewhere."""
        status = exc.code or 500
        if request.path.startswith("/api/"):
            return error(status, exc.description or exc.name)
        return Response(exc.get_body(), status, exc.get_headers())

    return app
