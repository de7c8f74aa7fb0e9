"""Serve the app in-process with waitress, in a background thread, and stop it cleanly.

Every live phone holds one waitress thread for its SSE stream, so the pool needs one thread per
phone plus headroom for ordinary requests (64 by default: a table has at most a dozen phones, the
benchmark uses fifty). Stopping first ends every stream (the hub wakes each generator), then shuts
the worker threads and closes the sockets. Flask's debug server is never used.
"""

from __future__ import annotations

import logging
import threading
from typing import Any

from flask import Flask
from waitress import wasyncore
from waitress.server import create_server

from .context import EXTENSION, WebContext

log = logging.getLogger(__name__)


class WebServer:
    """waitress around one app; `start()` returns at once, `stop()` waits for the threads."""

    def __init__(self, app: Flask, host: str = "127.0.0.1", port: int = 8080,
                 threads: int = 64) -> None:
        self.app = app
        self._server: Any = create_server(
            app, host=host, port=port, threads=threads, ident="mlem-companion",
            channel_timeout=120, connection_limit=threads * 2, clear_untrusted_proxy_headers=True)
        self._thread: threading.Thread | None = None
        self._stopping = threading.Event()

    @property
    def port(self) -> int:
        """The bound port (useful with port 0: any free port)."""
        return int(self._server.effective_port)

    @property
    def url(self) -> str:
        return f"http://{self._server.effective_host}:{self.port}"

    def start(self) -> None:
        if self._thread is None:
            self._thread = threading.Thread(target=self._serve, name="web", daemon=True)
            self._thread.start()
            log.info("web server on %s", self.url)

    def _serve(self) -> None:
        """waitress's loop. When `stop()` has to close the sockets from its own thread (see
        there), the loop can select() on one just closed: EBADF then is the loop's end, not a
        fault to report."""
        try:
            self._server.run()
        except OSError:
            if not self._stopping.is_set():
                raise
            log.debug("web loop ended on a socket closed by stop()")

    def stop(self, timeout: float = 5.0) -> None:
        """End the live streams, then the worker threads, then the sockets."""
        self._stopping.set()
        context: WebContext | None = self.app.extensions.get(EXTENSION)
        if context is not None:
            context.hub.close()
        self._server.task_dispatcher.shutdown(timeout=timeout)
        sockets = self._server._map
        if self._thread is not None and self._thread.is_alive():
            # closed by the loop thread itself (a socket closed under its select() is EBADF);
            # with nothing left in its map, the loop returns
            try:
                self._server.trigger.pull_trigger(lambda: wasyncore.close_all(sockets))
            except OSError:
                # waitress closed the wake-up pipe with a failed listener, and open streams
                # keep the loop running: close them here, and the loop returns at its next
                # poll timeout
                wasyncore.close_all(sockets)
            self._thread.join(timeout)
        else:
            wasyncore.close_all(sockets)
        self._thread = None
