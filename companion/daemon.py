"""The daemon: builds everything from the config, runs the loop, and talks to systemd.

Threads and who owns what (the table is the only writer of the game):

- camera thread: frames -> SettleDetector -> a settled roll is proposed to the table with a proof
  JPEG; confirmation comes from the OK button, a phone, or (``vision.auto_confirm``) at once.
- button callbacks (gpiozero's threads): NEXT/BACK move the highlight, OK submits the highlighted
  option (or confirms/rejects a camera reading), BACK held undoes one step.
- display thread: draws the current screen after every table snapshot (prompt, the roll as read,
  a result for a few seconds, the join QR code at idle) and dims an idle panel.
- main thread: feeds systemd's watchdog while the other threads are alive, updates STATUS=.

A driver that fails never stops the game: the failure is logged, shown on the remaining outputs
(the OLED, ``hardware`` in the web settings, systemd's STATUS) and retried with backoff; without a
camera the phones enter the dice by hand.
"""

from __future__ import annotations

import logging
import socket
import threading
import time
from collections.abc import Callable, Hashable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from companion.config import Config
from companion.events import Event
from companion.games.mlem import GameConfig, RuleOptions
from companion.games.mlem.dice import FACES, canonical
from companion.prompts import Prompt
from companion.sdnotify import Notifier
from companion.store import Store
from companion.table import Reading, Result, Snapshot, TableService
from hardware.base import ButtonEvent, Buttons, Camera, Display, HardwareError

if TYPE_CHECKING:
    import numpy as np
    from PIL import Image

log = logging.getLogger(__name__)

RESULT_EVENTS = ("game_over", "crashed", "landed", "goal_claimed", "reward", "moved",
                 "expedition_over", "corrected", "undone", "redone")
"""Events shown as a result screen for a few seconds, the first one found in this order."""
BACKOFF_START, BACKOFF_MAX = 1.0, 30.0
REOPEN_AFTER = 3
"""Failed reads in a row before the camera is closed and opened again."""
STALE_AFTER = 20.0
"""A worker thread that has not reported for this long stops the watchdog pings (systemd then
restarts the service)."""


# ------------------------------------------------------------------------------ hardware status


@dataclass
class DeviceStatus:
    ok: bool
    detail: str
    since: float


class HardwareStatus:
    """Health of each device for the OLED, the web page and ``systemctl status``."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._devices: dict[str, DeviceStatus] = {}
        self._listeners: list[Callable[[], None]] = []

    def set(self, name: str, ok: bool, detail: str = "") -> None:
        with self._lock:
            old = self._devices.get(name)
            if old is not None and old.ok == ok and old.detail == detail:
                return
            self._devices[name] = DeviceStatus(ok, detail, time.time())
            listeners = list(self._listeners)
        (log.info if ok else log.warning)("%s: %s", name, detail or ("ok" if ok else "failed"))
        for listener in listeners:
            listener()

    def subscribe(self, listener: Callable[[], None]) -> None:
        with self._lock:
            self._listeners.append(listener)

    def ok(self, name: str) -> bool:
        with self._lock:
            device = self._devices.get(name)
        return device is None or device.ok

    def failures(self) -> dict[str, str]:
        with self._lock:
            return {n: d.detail for n, d in self._devices.items() if not d.ok}

    def as_dict(self) -> dict[str, dict[str, Any]]:
        """``{"camera": {"ok": false, "detail": "...", "since": 1700000000.0}, ...}``"""
        with self._lock:
            return {n: {"ok": d.ok, "detail": d.detail, "since": d.since}
                    for n, d in self._devices.items()}

    def __call__(self) -> dict[str, dict[str, Any]]:
        return self.as_dict()


class Backoff:
    """Retry delays 1, 2, 4 ... 30 s: a missing device is probed, not hammered."""

    def __init__(self, start: float = BACKOFF_START, limit: float = BACKOFF_MAX) -> None:
        self.start, self.limit = start, limit
        self.delay = start
        self.next_try = 0.0

    def ready(self, now: float) -> bool:
        return now >= self.next_try

    def failed(self, now: float) -> None:
        self.next_try = now + self.delay
        self.delay = min(self.delay * 2, self.limit)

    def reset(self) -> None:
        self.delay, self.next_try = self.start, 0.0


# ------------------------------------------------------------------------------ buttons


class Navigator:
    """Maps button events onto the current prompt: a highlight that moves, OK that submits.

    The highlight resets whenever the prompt changes, so OK never picks an option of a prompt the
    person has not seen.
    """

    def __init__(self, table: TableService, on_new_game: Callable[[], Result | None],
                 on_reject: Callable[[], None] = lambda: None) -> None:
        self.table = table
        self.on_new_game = on_new_game
        self.on_reject = on_reject
        self.highlight = 0
        self.handled = 0
        self._key: tuple[Hashable, ...] | None = None
        self._lock = threading.Condition()
        self.listeners: list[Callable[[], None]] = []
        self.results: list[Callable[[str, Result], None]] = []

    @staticmethod
    def prompt_key(prompt: Prompt | None) -> tuple[Hashable, ...] | None:
        if prompt is None:
            return None
        return (prompt.kind, prompt.title, prompt.seat, prompt.options)

    def _sync(self, prompt: Prompt | None) -> None:
        key = self.prompt_key(prompt)
        if key != self._key:
            self._key, self.highlight = key, 0

    def on_snapshot(self, snapshot: Snapshot) -> None:
        with self._lock:
            self._sync(snapshot.prompt)

    def handle(self, event: ButtonEvent) -> None:
        """Called from the button driver's thread; never raises (a button must not kill it)."""
        try:
            self._handle(event)
        except Exception:
            log.exception("button %s failed", event.value)
        finally:
            with self._lock:
                self.handled += 1
                self._lock.notify_all()

    def wait_handled(self, count: int, timeout: float = 5.0) -> bool:
        """For the demo's bots: wait until `count` events have been handled."""
        with self._lock:
            return self._lock.wait_for(lambda: self.handled >= count, timeout)

    def _handle(self, event: ButtonEvent) -> None:
        snapshot = self.table.snapshot()
        prompt = snapshot.prompt
        if event is ButtonEvent.UNDO:
            if snapshot.can_undo:
                self._report("undo", self.table.undo(1))
            return
        with self._lock:
            self._sync(prompt)
            options = prompt.options if prompt else ()
            if event in (ButtonEvent.NEXT, ButtonEvent.BACK):
                if options:
                    step = 1 if event is ButtonEvent.NEXT else -1
                    self.highlight = (self.highlight + step) % len(options)
                changed = True
            else:
                changed = False
            chosen = options[self.highlight] if options and event is ButtonEvent.OK else None
        if changed:
            for listener in list(self.listeners):
                listener()
            return
        if prompt is None or prompt.kind == "game_over":
            result = self.on_new_game()
            if result is not None:
                self._report("new game", result)
            return
        if chosen is None:
            return  # a roll prompt: the dice are thrown into the tray, nothing to choose
        if prompt.kind == "confirm_roll":
            if chosen.action == "confirm":
                self._report("confirm", self.table.confirm_reading("button"))
            else:
                self._report("reject", self.table.reject_reading())
                self.on_reject()
            return
        self._report(chosen.action, self.table.act(chosen.action, "button"))

    def _report(self, what: str, result: Result) -> None:
        if not result.ok:
            log.info("button %s refused: %s", what, result.error)
        for listener in list(self.results):
            listener(what, result)


# ------------------------------------------------------------------------------ display


@dataclass
class Screen:
    """What the panel should show now, kept as data so that tests can read it."""

    kind: str  # idle | prompt | roll | result | message
    lines: tuple[str, ...] = ()
    image: Image.Image | None = field(default=None, repr=False)


class DisplayController:
    """Draws the current screen on the OLED from its own thread; dims it when idle.

    The table's listener only records the snapshot and wakes this thread: I2C writes never slow
    the table's single writer.
    """

    def __init__(self, open_display: Callable[[], Display] | None, config: Config,
                 status: HardwareStatus, navigator: Navigator,
                 idle_info: Callable[[], tuple[str, str, str]]) -> None:
        self.open_display = open_display
        self.config = config.display
        self.status = status
        self.navigator = navigator
        self.idle_info = idle_info
        self.display: Display | None = None
        self.backoff = Backoff()
        self.screen: Screen | None = None
        self.frames = 0
        self._snapshot: Snapshot | None = None
        self._result: tuple[str, float] | None = None
        self._last_activity = time.monotonic()
        self._dimmed = False
        self._dirty = True
        self._wake = threading.Condition()
        self._stop = False
        self._thread: threading.Thread | None = None
        self.heartbeat = time.monotonic()
        navigator.listeners.append(self.poke)
        status.subscribe(self.poke)

    # -------------------------------------------------------------- inputs (any thread)

    def on_snapshot(self, snapshot: Snapshot) -> None:
        result = next((e for name in RESULT_EVENTS for e in snapshot.events if e.name == name),
                      None)
        with self._wake:
            self._snapshot = snapshot
            if result is not None and self.config.result_seconds > 0:
                self._result = (result_text(result),
                                time.monotonic() + self.config.result_seconds)
            self._last_activity = time.monotonic()
            self._dirty = True
            self._wake.notify()

    def poke(self) -> None:
        with self._wake:
            self._last_activity = time.monotonic()
            self._dirty = True
            self._wake.notify()

    # -------------------------------------------------------------- thread

    def start(self) -> None:
        if self.open_display is None:
            return
        self._thread = threading.Thread(target=self._run, name="display", daemon=True)
        self._thread.start()

    def stop(self, farewell: str | None = None) -> None:
        with self._wake:
            self._stop = True
            self._wake.notify()
        if self._thread is not None:
            self._thread.join(5)
            self._thread = None
        if self.display is not None:
            if farewell:
                self._show(self._render_message(farewell))
            try:
                self.display.close()
            except Exception:
                log.debug("display close failed", exc_info=True)
            self.display = None

    def _run(self) -> None:
        while True:
            with self._wake:
                self._wake.wait_for(lambda: self._dirty or self._stop, timeout=0.25)
                if self._stop:
                    return
                dirty, self._dirty = self._dirty, False
            self.heartbeat = now = time.monotonic()
            try:
                self.tick(now, dirty)
            except Exception:  # a drawing bug must not end the display for the evening
                log.exception("display update failed")

    def tick(self, now: float, dirty: bool = True) -> None:
        """One step: reconnect if due, expire a result, dim, and draw when something changed."""
        if self.display is None:
            if not self.backoff.ready(now) or self.open_display is None:
                return
            try:
                self.display = self.open_display()
            except Exception as exc:
                self._failed(now, f"cannot open: {exc}")
                return
            self.status.set("display", True, self.config.driver)
            self.backoff.reset()
            self._dimmed = False
            self._set_contrast(self.config.contrast)
            dirty = True
        with self._wake:
            result = self._result
            if result is not None and now >= result[1]:
                self._result, dirty = None, True
            idle = now - self._last_activity
        dim_after = self.config.dim_after
        if dim_after and idle >= dim_after and not self._dimmed:
            self._dimmed = True
            self._set_contrast(self.config.dim_contrast)
        elif self._dimmed and idle < (dim_after or float("inf")):
            self._dimmed = False
            self._set_contrast(self.config.contrast)
        if dirty and self.display is not None:
            self.screen = self.compose()
            if self.screen.image is not None:
                self._show(self.screen.image)

    def _set_contrast(self, level: int) -> None:
        if self.display is None:
            return
        try:
            self.display.set_contrast(level)
        except Exception as exc:
            self._failed(time.monotonic(), f"contrast: {exc}")

    def _show(self, image: Image.Image) -> None:
        if self.display is None:
            return
        try:
            self.display.show(image)
            self.frames += 1
        except Exception as exc:  # HardwareError, or OSError from the I2C bus
            self._failed(time.monotonic(), f"write failed: {exc}")

    def _failed(self, now: float, detail: str) -> None:
        self.status.set("display", False, detail)
        if self.display is not None:
            try:
                self.display.close()
            except Exception:
                log.debug("display close failed", exc_info=True)
        self.display = None
        self.backoff.failed(now)

    # -------------------------------------------------------------- composing

    def compose(self) -> Screen:
        """The screen for the current snapshot (result > hardware message > prompt > idle)."""
        with self._wake:
            snapshot, result = self._snapshot, self._result
        if result is not None:
            return self._screen("result", (result[0],))
        prompt = snapshot.prompt if snapshot else None
        failures = self.status.failures()
        camera_down = "camera" in failures
        if prompt is None:
            url, ip, code = self.idle_info()
            return self._screen("idle", (url, ip, code))
        if prompt.kind == "confirm_roll" and snapshot is not None and snapshot.reading:
            return self._screen("roll", (prompt.title,), prompt)
        if prompt.kind == "roll" and camera_down:
            return self._screen("message", ("Camera lost", "enter the dice on the phone"))
        return self._screen("prompt", (prompt.title,), prompt)

    def _screen(self, kind: str, lines: tuple[str, ...], prompt: Prompt | None = None) -> Screen:
        image: Image.Image | None = None
        try:
            image = self._draw(kind, lines, prompt)
        except Exception:
            log.exception("drawing the %s screen failed", kind)
        return Screen(kind, lines, image)

    def _draw(self, kind: str, lines: tuple[str, ...], prompt: Prompt | None) -> Image.Image:
        from hardware import screens

        if kind == "idle":
            url, ip, code = lines
            return screens.idle_screen(url, ip, code)
        if kind == "result":
            return screens.result_screen(lines[0])
        if kind == "message":
            return screens.message_screen(": ".join(lines))
        assert prompt is not None
        with self.navigator._lock:
            highlight = self.navigator.highlight
        if kind == "roll" and highlight == 0:
            snapshot = self._snapshot
            reading = snapshot.reading if snapshot else None
            faces = list(reading.faces) if reading else []
            available = int(((snapshot.state if snapshot else None) or {}).get("available", 0))
            faces += ["?"] * max(0, available - len(faces))
            unclear = reading is not None and reading.uncertain > 0
            return screens.roll_screen(faces, "Unclear: use phone" if unclear else "OK?")
        labels = [o.label for o in prompt.options]
        return screens.prompt_screen(prompt.title, labels, min(highlight, max(0, len(labels) - 1)))

    def _render_message(self, text: str) -> Image.Image:
        from hardware import screens

        return screens.message_screen(text, alert=False)


def result_text(event: Event) -> str:
    """The short result line: "CRASH 4/11", "Rocket -> 12", "Anna lands on M9a +5"."""
    if event.name == "moved":
        return f"Rocket -> {event.data.get('to')}"
    if event.name == "game_over":
        return "Game over"
    return event.text


# ------------------------------------------------------------------------------ camera


@dataclass(frozen=True)
class Settled:
    """A settled roll with the times the bench needs."""

    reading: Reading
    frame_time: float


class CameraLoop:
    """Frames -> SettleDetector -> a proposed reading; reconnects a vanished camera with backoff."""

    def __init__(self, open_camera: Callable[[], Camera], reader: Callable[[np.ndarray], Any],
                 table: TableService, config: Config, status: HardwareStatus,
                 fps: float | None = None) -> None:
        from vision.settle import SettleConfig, SettleDetector

        self.open_camera = open_camera
        self.table = table
        self.config = config
        self.status = status
        self.interval = 1.0 / (fps or config.camera.fps)
        vision = config.vision
        self._reader = reader
        self.detector: SettleDetector[Any] = SettleDetector(
            self._read, SettleConfig(still_frames=vision.still_frames,
                                     stable_readings=vision.stable_readings,
                                     max_dice=vision.max_dice))
        self.camera: Camera | None = None
        self.backoff = Backoff()
        self.frames = 0
        self.reads = 0
        self.failures = 0
        self.failed_reads = 0
        """Still frames in a row the reader could not use (too many dice, an error)."""
        self.proposed: list[Settled] = []
        self.on_settled: list[Callable[[Settled], None]] = []
        self.heartbeat = time.monotonic()
        self._rearm = threading.Event()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def _read(self, frame: np.ndarray) -> Any:
        self.reads += 1
        reading = self._reader(frame)
        if reading is None or getattr(reading, "error", None):
            self.failed_reads += 1
            return None
        self.failed_reads = 0
        return reading

    def rearm(self) -> None:
        """A new roll is due: the next stable reading counts even if it equals the last one."""
        self._rearm.set()

    def start(self) -> None:
        self._thread = threading.Thread(target=self._run, name="camera", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(10)
            self._thread = None
        self._close()

    def _close(self) -> None:
        if self.camera is not None:
            try:
                self.camera.close()
            except Exception:
                log.debug("camera close failed", exc_info=True)
            self.camera = None

    def _run(self) -> None:
        while not self._stop.is_set():
            started = self.heartbeat = time.monotonic()
            try:
                self.step(started)
            except Exception:
                log.exception("camera loop step failed")
            self._stop.wait(max(0.0, self.interval - (time.monotonic() - started)))

    def step(self, now: float) -> None:
        """One frame: open the camera when due, read, feed the detector, propose a roll."""
        from vision.settle import RollSettled

        if not self.backoff.ready(now):
            return
        if self.camera is None:
            try:
                self.camera = self.open_camera()
            except Exception as exc:
                self._failed(now, f"cannot open: {exc}")
                return
        try:
            frame = self.camera.read()
        except HardwareError as exc:
            self._failed(now, str(exc))
            return
        self.failures = 0
        frame_time = time.monotonic()
        if not self.status.ok("camera") or self.frames == 0:
            self.status.set("camera", True, self.config.camera.kind)
            self.backoff.reset()
        self.frames += 1
        if self._rearm.is_set():
            self._rearm.clear()
            self.detector.rearm()
        event = self.detector.feed(frame)
        if isinstance(event, RollSettled):
            self.propose(event.reading, frame, frame_time)

    def _failed(self, now: float, detail: str) -> None:
        """Back off; retry the same device a few times (a USB camera reopens itself on read),
        then close it and open it anew."""
        self.status.set("camera", False, f"{detail}: enter the dice on the phone")
        self.failures += 1
        if self.failures >= REOPEN_AFTER:
            self._close()
        self.backoff.failed(now)

    def propose(self, vision_reading: Any, frame: np.ndarray, frame_time: float) -> None:
        """Offer a settled reading to the table if it waits for a roll; confirm it if asked to."""
        snapshot = self.table.snapshot()
        prompt = snapshot.prompt
        if prompt is None or prompt.kind not in ("roll", "confirm_roll"):
            log.info("dice settled but no roll is due: ignored")
            return
        state = snapshot.state or {}
        reading = to_table_reading(vision_reading, int(state.get("available", 0)))
        reading = Reading(reading.faces, reading.uncertain,
                          proof_jpeg(frame, vision_reading, self.config.vision.proof_width,
                                     self.config.vision.proof_quality))
        result = self.table.propose_reading(reading)
        if not result.ok:
            log.info("reading refused: %s", result.error)
            return
        settled = Settled(reading, frame_time)
        self.proposed.append(settled)
        for listener in list(self.on_settled):
            listener(settled)
        if self.config.vision.auto_confirm and not reading.uncertain:
            confirmed = self.table.confirm_reading("camera")
            if not confirmed.ok:
                log.info("auto-confirm refused: %s", confirmed.error)


def to_table_reading(vision_reading: Any, available: int) -> Reading:
    """The dice as the table wants them: MLEM faces in canonical order, doubtful ones counted.

    A face MLEM dice do not have (5, 6) or a count other than the dice in play is a misread a
    person has to settle, so it counts as uncertain.
    """
    dice = list(getattr(vision_reading, "dice", ()))
    faces = [str(d.face) for d in dice if str(d.face) in FACES]
    uncertain = sum(1 for d in dice if getattr(d, "uncertain", False) or str(d.face) not in FACES)
    if available and len(dice) != available:
        uncertain = max(uncertain, abs(available - len(dice)), 1)
    return Reading(canonical(faces), uncertain)


def proof_jpeg(frame: np.ndarray, vision_reading: Any, width: int, quality: int) -> bytes | None:
    """The frame the roll was read from, downscaled, each die boxed and labelled (for disputes)."""
    import cv2

    try:
        h, w = frame.shape[:2]
        scale = min(1.0, width / w)
        image = cv2.resize(frame, (round(w * scale), round(h * scale)),
                           interpolation=cv2.INTER_AREA) if scale < 1 else frame.copy()
        for die in getattr(vision_reading, "dice", ()):
            x, y = int(die.x * scale), int(die.y * scale)
            r = max(4, int(getattr(die, "size", 40) * scale / 2))
            colour = (0, 0, 255) if getattr(die, "uncertain", False) else (0, 200, 0)
            cv2.rectangle(image, (x - r, y - r), (x + r, y + r), colour, 2)
            cv2.putText(image, str(die.face), (x - r, max(12, y - r - 4)),
                        cv2.FONT_HERSHEY_SIMPLEX, 0.5, colour, 1, cv2.LINE_AA)
        ok, data = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, quality])
    except Exception:
        log.exception("proof image failed")
        return None
    return data.tobytes() if ok else None


# ------------------------------------------------------------------------------ the daemon


@dataclass
class Drivers:
    """How to open each device; None leaves it out. Tests and the demo inject their own."""

    camera: Callable[[], Camera] | None = None
    reader: Callable[[np.ndarray], Any] | None = None
    display: Callable[[], Display] | None = None
    buttons: Callable[[], Buttons] | None = None


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
        game = self.config.game
        rules = RuleOptions(game.rules.ability_units_optional, game.rules.end_timing,
                            game.rules.ufo_reshuffle)
        return GameConfig(players=tuple(game.players), variants=frozenset(game.variants),
                          board=game.board, tokens=game.tokens, rules=rules)

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
            from web import create_app
            from web.server import WebServer
        except ImportError as exc:
            self.status.set("web", False, f"web app unavailable: {exc}")
            return
        web = self.config.web
        settings = self.web_settings()
        try:
            app = create_app(self.table, self.pairing, settings=settings)
            self.web_server = WebServer(app, web.host, web.port, web.threads)
            self.web_server.start()
            self.status.set("web", True, self.url)
        except Exception as exc:
            self.status.set("web", False, f"cannot serve on {web.host}:{web.port}: {exc}")
            self.web_server = None

    def web_settings(self) -> dict[str, Any]:
        """What the web app is told: the address, the OLED mirror (demo), the hardware status,
        and the setup callback that seats bots; keys the web layer does not know are left out
        (its settings refuse unknown keys)."""
        wanted: dict[str, Any] = {
            "public_url": self.url,
            "oled_png": self.oled_png if self.demo else None,
            "hardware": self.status.as_dict,
            "on_setup": self.on_setup,
        }
        try:
            from dataclasses import fields as dc_fields

            from web.settings import WebSettings
        except ImportError:
            return {}
        known = {f.name for f in dc_fields(WebSettings)}
        missing = sorted(k for k in wanted if k not in known)
        if missing:
            log.info("the web app does not take %s yet", ", ".join(missing))
        return {k: v for k, v in wanted.items() if k in known and v is not None}

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
            try:
                self.buttons.close()
            except Exception:
                log.debug("buttons close failed", exc_info=True)
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


# ------------------------------------------------------------------------------ bots at the table


class BotSeats:
    """Plays some seats the way a person at the table would, through the real inputs.

    The bot throws the captain's dice into the (simulated) tray, lets the camera read them,
    presses the buttons to move the highlight to its choice and press OK, and, knowing what it
    threw, fixes a misread as a person would on the phone: a confident misread is confirmed and
    then corrected (``table.correct_roll``), an unclear or missing reading is entered by hand.
    It also reveals tokens (draw prompts) when ``draws`` is set. Used by the demo and the tests.
    """

    def __init__(self, daemon: Daemon, press: Callable[[ButtonEvent], None], *,
                 seats: set[int] | None = None, bots: tuple[str, ...] = ("greedy",),
                 seed: int = 1, throw: Callable[[list[str]], None] | None = None,
                 throw_for_all: bool = False, throw_delay: float = 0.0, draws: bool = True,
                 read_timeout: float = 4.0) -> None:
        import random

        from companion.games.mlem.bots import make_bot

        self.daemon = daemon
        self.table = daemon.table
        self.press_button = press
        self.seats = seats
        self.bots = [make_bot(name) for name in bots]
        self.rng = random.Random(seed)
        self.throw = throw
        self.throw_for_all = throw_for_all
        self.throw_delay = throw_delay
        self.draws = draws
        self.read_timeout = read_timeout
        self.presses = 0
        self.misreads = 0
        self.corrections = 0
        self.manual_rolls = 0
        self.read_ok = 0
        self.acks: list[Callable[[str, Result], None]] = []
        self.finished = threading.Event()
        self.error: BaseException | None = None
        self._thrown: dict[tuple[int | None, int], tuple[list[str], float, int]] = {}
        self._changed = threading.Condition()
        self._version = -1
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._unsubscribe = self.table.subscribe(self._on_snapshot)

    def _on_snapshot(self, snapshot: Snapshot) -> None:
        with self._changed:
            self._version = snapshot.version
            self._changed.notify_all()

    def plays(self, seat: int | None) -> bool:
        return seat is not None and (self.seats is None or seat in self.seats)

    def set_seats(self, seats: set[int] | None) -> None:
        self.seats = seats

    def start(self) -> None:
        self._thread = threading.Thread(target=self._run, name="bots", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        with self._changed:
            self._changed.notify_all()
        if self._thread is not None:
            self._thread.join(10)
            self._thread = None
        self._unsubscribe()

    def _run(self) -> None:
        try:
            while not self._stop.is_set():
                snapshot = self.table.snapshot()
                acted = self.step(snapshot)
                if self.finished.is_set():
                    return
                if not acted:
                    self._wait_change(snapshot.version, 0.05)
        except BaseException as exc:  # reported by the demo, not lost in the thread
            log.exception("bot seats failed")
            self.error = exc
            self.finished.set()

    # ---------------------------------------------------------------- one decision

    def step(self, snapshot: Snapshot) -> bool:
        """Act on the snapshot if it is a bot's turn; True if something was done."""
        prompt = snapshot.prompt
        if prompt is None:
            return False
        if prompt.kind == "game_over":
            self.finished.set()
            return False
        if prompt.kind == "roll":
            return self._roll(snapshot, prompt)
        if prompt.kind == "confirm_roll":
            return self._confirm(snapshot, prompt)
        if prompt.kind == "draw":
            if not self.draws:
                return False
            from companion.games.mlem.simulate import sample_draw

            state = self.table.state_copy()
            if state is None or not state.is_chance_node():
                return False
            return self._choose(snapshot, prompt, str(sample_draw(state, self.rng)))
        if not self.plays(prompt.seat):
            return False
        state = self.table.state_copy()
        if state is None or state.is_terminal() or state.current_player() != prompt.seat:
            return False
        bot = self.bots[prompt.seat % len(self.bots)] if prompt.seat is not None else self.bots[0]
        return self._choose(snapshot, prompt, str(bot.choose(state, self.rng)))

    def _roll_key(self, snapshot: Snapshot) -> tuple[int | None, int]:
        state = snapshot.state or {}
        return snapshot.game_id, len(state.get("history", ())) or _history_length(self.table)

    def _roll(self, snapshot: Snapshot, prompt: Prompt) -> bool:
        if not (self.plays(prompt.seat) or self.throw_for_all):
            return False
        key = self._roll_key(snapshot)
        available = int((snapshot.state or {}).get("available", 0))
        thrown = self._thrown.get(key)
        if thrown is None:
            from companion.games.mlem.simulate import DIE_SIDES

            camera = self.daemon.camera
            if camera is not None and camera.frames == 0 and self.daemon.status.ok("camera"):
                self._stop.wait(0.05)
                return False  # the camera is still opening: throw when it watches the tray
            faces = [self.rng.choice(DIE_SIDES) for _ in range(available)]
            if self.throw_delay:
                self._stop.wait(self.throw_delay)
            if self.throw is None or camera is None or not self.daemon.status.ok("camera"):
                return self._enter_by_hand(faces, "no camera")
            self._thrown[key] = (faces, time.monotonic(), camera.reads)
            self.throw(faces)
            return True
        faces, since, reads = thrown
        camera = self.daemon.camera
        stable = self.daemon.config.vision.stable_readings
        stuck = camera is not None and camera.reads - reads > stable and (
            camera.failed_reads > stable or camera.reads - reads > 4 * stable + 4)
        if time.monotonic() - since > self.read_timeout or stuck or camera is None:
            self.misreads += 1
            return self._enter_by_hand(faces, "the camera did not read the roll")
        return False

    def _enter_by_hand(self, faces: list[str], why: str) -> bool:
        from companion.games.mlem import Roll

        log.info("bot enters the roll by hand (%s)", why)
        text = str(Roll(canonical(faces)))
        result = self.table.act(text, "phone")
        self.manual_rolls += 1
        self._ack(text, result)
        return True

    def _confirm(self, snapshot: Snapshot, prompt: Prompt) -> bool:
        if not self.plays(prompt.seat):
            return False  # a person confirms their own roll on the phone or with OK
        reading = snapshot.reading
        key = self._roll_key(snapshot)
        thrown = self._thrown.get(key)
        if reading is None:
            return False
        if thrown is None:  # dice we did not throw (left from before a restart): read again
            return self._choose(snapshot, prompt, "reject")
        faces = list(canonical(thrown[0]))
        if list(reading.faces) == faces and not reading.uncertain:
            self.read_ok += 1
            return self._choose(snapshot, prompt, "confirm")
        self.misreads += 1
        if reading.uncertain:
            return self._enter_by_hand(faces, "unclear dice")
        if not self._choose(snapshot, prompt, "confirm"):
            return False
        if not self._wait_version(snapshot.version):
            return True
        result = self.table.correct_roll(faces, "phone")
        self.corrections += 1
        self._ack(f"correct {' '.join(faces)}", result)
        return True

    def _choose(self, snapshot: Snapshot, prompt: Prompt, action: str) -> bool:
        """Move the highlight to `action`'s option with NEXT/BACK, then press OK."""
        index = next((i for i, o in enumerate(prompt.options) if o.action == action), None)
        if index is None:
            log.warning("bot choice %r is not an option of %r", action, prompt.title)
            return False
        navigator = self.daemon.navigator
        n = len(prompt.options)
        current = navigator.highlight
        forward = (index - current) % n
        backward = (current - index) % n
        event = ButtonEvent.NEXT if forward <= backward else ButtonEvent.BACK
        for _ in range(min(forward, backward)):
            if self.table.snapshot().version != snapshot.version:
                return False  # the prompt changed under us (a phone acted): look again
            self._press(event)
        if navigator.highlight != index:
            log.info("highlight is %d, wanted %d: looking again", navigator.highlight, index)
            return False
        self._press(ButtonEvent.OK)
        self._wait_version(snapshot.version)
        return True

    def _press(self, event: ButtonEvent) -> None:
        navigator = self.daemon.navigator
        before = navigator.handled
        self.press_button(event)
        self.presses += 1
        navigator.wait_handled(before + 1, timeout=5.0)

    def _wait_change(self, version: int, timeout: float) -> None:
        with self._changed:
            self._changed.wait_for(lambda: self._version != version or self._stop.is_set(),
                                   timeout)

    def _wait_version(self, version: int, timeout: float = 5.0) -> bool:
        with self._changed:
            return self._changed.wait_for(lambda: self.table.snapshot().version != version,
                                          timeout)

    def _ack(self, what: str, result: Result) -> None:
        if not result.ok:
            log.warning("bot %s refused: %s", what, result.error)
        for listener in list(self.acks):
            listener(what, result)


def _history_length(table: TableService) -> int:
    state = table.state_copy()
    return len(state.history) if state is not None else 0
