"""Who is asking, and may they: pairing tokens, the CSRF guard, the host's privileges.

GET requests are open to anyone on the LAN (watching the table). Every state-changing request must
come from a paired phone (token in the HttpOnly SameSite=Strict cookie, or a bearer header for
programs), carry that phone's CSRF token in `X-CSRF-Token`, and, when the browser says where it
comes from, have an Origin matching the Host. Refusals are JSON: 401 unpaired, 403 forbidden.
"""

from __future__ import annotations

import hmac
from collections.abc import Callable
from functools import wraps
from typing import Any, TypeVar, cast
from urllib.parse import urlsplit

from flask import Response, g, jsonify, request

from companion.pairing import Device

from .context import ctx

F = TypeVar("F", bound=Callable[..., Any])
TOKEN_COOKIE = "mlem_token"
CSRF_HEADER = "X-CSRF-Token"
SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})


def error(status: int, message: str, **extra: Any) -> tuple[Response, int]:
    """The one shape of every refusal: {"error": message, ...}."""
    return jsonify({"error": message, **extra}), status


def request_token() -> str | None:
    header = request.headers.get("Authorization", "")
    if header.startswith("Bearer "):
        return header[7:].strip() or None
    return request.cookies.get(TOKEN_COOKIE)


def current_device() -> Device | None:
    """The paired phone making this request, if any (looked up once per request)."""
    if "device" not in g:
        g.device = ctx().pairing.verify(request_token())
    return cast(Device | None, g.device)


def origin_ok() -> bool:
    """A browser's Origin (or Referer) must name this server; programs may send neither."""
    source = request.headers.get("Origin") or request.headers.get("Referer")
    if source is None:
        return True
    if source == "null":
        return False
    return urlsplit(source).netloc == request.host


def csrf_ok(device: Device) -> bool:
    sent = request.headers.get(CSRF_HEADER, "")
    return hmac.compare_digest(sent.encode(), device.csrf.encode())


def paired(*, host: bool = False) -> Callable[[F], F]:
    """Allow the view only to a paired phone (the host, if `host`), CSRF-checked when unsafe."""
    def decorate(view: F) -> F:
        @wraps(view)
        def guarded(*args: Any, **kwargs: Any) -> Any:
            device = current_device()
            if device is None:
                return error(401, "pair this phone first (the code is on the companion's screen)")
            if request.method not in SAFE_METHODS:
                if not origin_ok():
                    return error(403, "cross-site request refused")
                if not csrf_ok(device):
                    return error(403, "missing or wrong CSRF token")
            if host and not device.is_host:
                return error(403, "only the host phone may do this")
            return view(*args, **kwargs)
        return cast(F, guarded)
    return decorate
