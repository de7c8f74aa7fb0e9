"""What the daemon tells the web app: OLED mirror, address, boards offered, hardware health,
setup callback."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, fields
from typing import Any

from companion.games.mlem import GameConfig

HardwareSource = Callable[[], Mapping[str, Mapping[str, Any]]]
"""Device name -> ``{"ok": bool, "detail": str, "since": float}`` (camera, display, buttons...)."""
SetupListener = Callable[[int, GameConfig, tuple[int, ...]], None]
"""Called after a game is set up from a phone: (game id, config, bot seats) - the daemon starts
its bots for those seats."""


@dataclass(frozen=True)
class WebSettings:
    """Web settings; every field has a safe default so tests can build an app with none."""

    oled_png: Callable[[], bytes | None] | None = None
    """Demo mode: the OLED's current image as PNG, mirrored on the page."""
    public_url: str | None = None
    """The address the Join page shows and encodes in its QR code (default: the request's)."""
    boards: tuple[str, ...] = ("reconstruction",)
    """Boards offered in the setup wizard (names the daemon's config allows; never a path typed on
    a phone, so a phone cannot make the server read an arbitrary file)."""
    setup_defaults: GameConfig = field(default_factory=lambda: GameConfig(players=()))
    """The configured game a setup from a phone starts from (variants, board, tokens, rules); the
    request overrides only what it names, so a phone plays the same rules as the buttons."""
    odds_enabled: bool = True
    heartbeat: float = 15.0
    """Seconds between SSE keep-alive comments (also how fast a vanished client is noticed)."""
    history_limit: int = 100
    allowed_hosts: tuple[str, ...] | None = None
    """If set, requests with another Host header are refused (DNS-rebinding guard)."""
    secure_cookies: bool = False
    """Only behind TLS; a Pi on a home LAN serves plain HTTP."""
    on_setup: SetupListener | None = None
    hardware: HardwareSource | None = None
    """The health of the table's devices, shown on the page when one is down (the daemon calls
    `web.refresh_view(app)` when it changes)."""

    @classmethod
    def coerce(cls, value: WebSettings | Mapping[str, Any] | None) -> WebSettings:
        """Accept the dataclass, a plain mapping (from the TOML config) or nothing.

        :raises TypeError: an unknown key (a typo must not be silently ignored).
        """
        if value is None:
            return cls()
        if isinstance(value, WebSettings):
            return value
        known = {f.name for f in fields(cls)}
        unknown = set(value) - known
        if unknown:
            raise TypeError(f"unknown web settings: {sorted(unknown)}")
        data = dict(value)
        for key in ("boards", "allowed_hosts"):
            if data.get(key) is not None:
                data[key] = tuple(data[key])
        return cls(**data)
