"""The daemon: assembles store, table, pairing, devices and web server, runs the main loop.

Threads and who owns what (the table is the only writer of the game):

- camera thread (``camera.CameraLoop``): a settled roll is proposed to the table.
- button callbacks (``navigator.Navigator``, on gpiozero's threads): prompt navigation.
- display thread (``display.DisplayController``): the OLED.
- main thread (``Daemon.run``): feeds systemd's watchdog while the other threads are alive and
  updates STATUS=.
"""

from __future__ import annotations

import logging
import socket
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from companion.config import Config
from companion.games.mlem import GameConfig
from companion.sdnotify import Notifier
from companion.store import Store
from companion.table import Result, Snapshot, TableService
from hardware.base import Buttons

from .camera import CameraLoop
from .display import DisplayController
from .drivers import Drivers
from .navigator import Navigator
from .status import HardwareStatus, close_quietly

if TYPE_CHECKING:
    from PIL import Image

log = logging.getLogger(__name__)

STALE_AFTER = 20.0
"""A worker thread that has not reported for this long stops the watchdog pings (systemd then
restarts the service)."""


class Daemon:
    """One table: store, table service, devices, web server, systemd notifications."""

    def __init__(self, config: Config, drivers: Drivers, *, store_path: Path,
                 demo: bool = False, web: bool = True, notifier: Notifier | None = None,
                 camera_fps: float | None = None) -> None:
        self.config = config
        self.demo = demo
        self.drivers = drivers
        self.status = HardwareStatus()
        self.notifier = notifier or Notifier()
        self.store = Store(store_path, proof_limit=config.store.proof_retention)
        self.table = TableService(self.store)
        self.pairing = _make_pairing()
        self.navigator = Navigator(self.table, self._button_new_game, self._rejected)
        self.display = DisplayController(drivers.display, config, self.status, self.navigator,
                                         self.idle_info)
        self.camera: CameraLoop | None = None
        if drivers.camera is not None and drivers.reader is not None:
            self.camera = CameraLoop(drivers.camera, drivers.reader, self.table, config,
                                     self.status, camera_fps)
        else:
            self.status.set("camera", False, "no camera configured: enter the dice on the phone")
        self.buttons: Buttons | None = None
        self.web_server: Any = None
        self._want_web = web and config.web.enabled
        self._stop = threading.Event()
        self._started = False
        self._stopped = False
        self._roll_due = False
        self.setup_listeners: list[Callable[[int, GameConfig, tuple[int, ...]], None]] = []
        self._unsubscribe = self.table.subscribe(self._on_snapshot)

    # -------------------------------------------------------------- building blocks

    def idle_info(self) -> tuple[str, str, str]:
        """(url, ip, pairing code) for the idle screen: the LAN IP, not only an mDNS name."""
        host = self.config.web.host
        ip = host if host not in ("0.0.0.0", "::", "") else lan_ip()
        url = f"http://{ip}:{self.config.web.port}/"
        code = ""
        if self.pairing is not None:
            try:
                code = str(self.pairing.code())
            except Exception:
                log.debug("pairing code unavailable", exc_info=True)
        return url, ip, code

    @property
    def url(self) -> str:
        return self.idle_info()[0]

    def _on_snapshot(self, snapshot: Snapshot) -> None:
        self.navigator.on_snapshot(snapshot)
        self.display.on_snapshot(snapshot)
        due = snapshot.prompt is not None and snapshot.prompt.kind == "roll"
        if due and not self._roll_due and self.camera is not None:
            self.camera.rearm()
        self._roll_due = due

    def on_setup(self, game_id: int, config: GameConfig, bot_seats: tuple[int, ...]) -> None:
        """A phone set up a game: whoever listens (the demo's bots) takes the bot seats."""
        for listener in list(self.setup_listeners):
            listener(game_id, config, bot_seats)

    def _rejected(self) -> None:
        if self.camera is not None:
            self.camera.rearm()

    def default_game(self) -> GameConfig:
        return self.config.game.game_config()

    def _button_new_game(self) -> Result | None:
        """OK at idle (or after a game) starts a game with the configured players."""
        return self.table.new_game(self.default_game())

    # -------------------------------------------------------------- lifecycle

    def start(self) -> None:
        """Start every part; a device that fails to open is retried later, never fatal."""
        self.table.start()
        self.display.start()
        if self.drivers.buttons is not None:
            try:
                self.buttons = self.drivers.buttons()
                self.buttons.on_event(self.navigator.handle)
                self.status.set("buttons", True, "ready")
            except Exception as exc:
                self.status.set("buttons", False, f"cannot open: {exc}")
        if self.camera is not None:
            self.camera.start()
        if self._want_web:
            self._start_web()
        self._started = True
        self.notifier.ready(self.status_line())

    def _start_web(self) -> None:
        try:
            from web.server import WebServer
        except ImportError as exc:
            self.status.set("web", False, f"web app unavailable: {exc}")
            return
        web = self.config.web
        try:
            self.web_server = WebServer(self.build_web_app(), web.host, web.port, web.threads)
            self.web_server.start()
            self.status.set("web", True, self.url)
        except Exception as exc:
            self.status.set("web", False, f"cannot serve on {web.host}:{web.port}: {exc}")
            self.web_server = None

    def build_web_app(self) -> Any:
        """The Flask app for this table; the phones see each change of device health at once.

        :raises ImportError: the web extra (Flask) is not installed.
        """
        from web import create_app, refresh_view

        app = create_app(self.table, self.pairing, settings=self.web_settings())
        self.status.subscribe(lambda: refresh_view(app))
        refresh_view(app)  # a change between building the view and subscribing is not lost
        return app

    def web_settings(self) -> dict[str, Any]:
        """What the web app is told: the address, the OLED mirror (demo), the hardware status,
        the configured game a phone's setup starts from, and the setup callback that seats bots."""
        settings: dict[str, Any] = {
            "public_url": self.url,
            "hardware": self.status.as_dict,
            "setup_defaults": self.default_game(),
            "boards": (self.config.game.board,),
            "on_setup": self.on_setup,
        }
        if self.demo:
            settings["oled_png"] = self.oled_png
        return settings

    def oled_png(self) -> bytes | None:
        import io

        image = self.display_image()
        if image is None:
            return None
        buffer = io.BytesIO()
        image.convert("L").resize((image.width * 2, image.height * 2)).save(buffer, "PNG")
        return buffer.getvalue()

    def display_image(self) -> Image.Image | None:
        """The OLED's current image (mirrored on the page in the demo)."""
        screen = self.display.screen
        return screen.image if screen else None

    def status_line(self) -> str:
        snapshot = self.table.snapshot()
        prompt = snapshot.prompt.title if snapshot.prompt else "no game: scan the QR code"
        failures = self.status.failures()
        broken = "; ".join(f"{name} DOWN" for name in sorted(failures))
        return f"{prompt}" + (f" [{broken}]" if broken else "")

    def healthy(self) -> bool:
        """Whether the worker threads still report; the watchdog is fed only then."""
        now = time.monotonic()
        worker = self.table._worker
        if worker is None or not worker.is_alive():
            return False
        if self.camera is not None and now - self.camera.heartbeat > STALE_AFTER:
            return False
        return not (self.display._thread is not None and now - self.display.heartbeat > STALE_AFTER)

    def run(self, stop: threading.Event | None = None) -> None:
        """The main loop: watchdog pings and STATUS= until `stop` is set (SIGTERM/SIGINT)."""
        stop = stop or self._stop
        interval = min(self.notifier.watchdog_interval or 1.0, 1.0)
        last_status = ""
        while not stop.wait(interval):
            if self.healthy():
                self.notifier.watchdog()
            else:
                log.error("a worker thread stopped reporting: no watchdog ping")
            line = self.status_line()
            if line != last_status:
                self.notifier.status(line)
                last_status = line

    def request_stop(self) -> None:
        self._stop.set()

    def stop(self) -> None:
        """Inputs first, then the camera, then drain the table and close the store."""
        if self._stopped:
            return
        self._stopped = True
        self.notifier.stopping()
        self._stop.set()
        if self.buttons is not None:
            close_quietly(self.buttons, "buttons")
            self.buttons = None
        if self.web_server is not None:
            try:
                self.web_server.stop()
            except Exception:
                log.exception("web server stop failed")
            self.web_server = None
        if self.camera is not None:
            self.camera.stop()
        self.table.stop()  # finishes every queued command: nothing acknowledged is lost
        self._unsubscribe()
        self.display.stop("Stopped" if self._started else None)
        self.store.close()
        self.notifier.close()


def _make_pairing() -> Any:
    try:
        from companion.pairing import Pairing
    except ImportError:
        log.info("companion.pairing not available: no pairing code")
        return None
    return Pairing()


def lan_ip() -> str:
    """This machine's address on the LAN (the route to the internet), without sending a packet."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        try:
            probe.connect(("192.0.2.1", 9))  # TEST-NET-1: nothing is sent for UDP connect
            return str(probe.getsockname()[0])
        except OSError:
            return "127.0.0.1"
