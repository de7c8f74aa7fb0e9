"""Everything one app instance needs, kept in `app.extensions` (no module-level state)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import cast

from flask import current_app

from companion.pairing import Pairing
from companion.table import TableService

from .history import History
from .live import LiveHub
from .present import SeatBook
from .settings import WebSettings

EXTENSION = "mlem"


@dataclass
class WebContext:
    table: TableService
    pairing: Pairing
    settings: WebSettings
    seats: SeatBook
    hub: LiveHub
    history: History
    catalogs: dict[str, dict[str, str]]
    static: dict[str, tuple[bytes, str, str]] = field(default_factory=dict)
    """File name -> (content, mimetype, etag): the only files the app serves."""
    openapi: bytes = b""


def ctx() -> WebContext:
    """The context of the app handling the current request."""
    return cast(WebContext, current_app.extensions[EXTENSION])
