"""`companion run`, `companion demo` and `companion install-service`.

- ``run`` starts the daemon with the hardware the config names; with no config on a machine that
  is not a Raspberry Pi it starts the demo (simulated camera, mock buttons, dummy OLED, web page
  on 127.0.0.1, bots in the empty seats). It runs until SIGINT or SIGTERM.
- ``demo --autoplay`` plays one complete game headless through the real pipeline: a bot throws
  the dice into the simulated tray, the vision reads them, bots press the mock buttons.
- ``install-service`` writes the systemd unit with this virtualenv's path and prints the steps.
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import signal
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from companion.config import (
    Config,
    ConfigError,
    demo_config,
    find_config,
    load_config,
)
from companion.daemon import BotSeats, Daemon, build_drivers, mock_buttons, throw_into_tray
from companion.daemon.demo import AckPrinter, seat_demo_bots
from companion.games.mlem import GameConfig
from companion.games.mlem.errors import RulesError
from hardware.base import ButtonEvent, Camera

log = logging.getLogger("companion.run")
UNIT_NAME = "mlem-companion.service"
REPO = Path(__file__).resolve().parents[2]
UNIT_TEMPLATE = REPO / "systemd" / UNIT_NAME
TEMPLATE_VENV = "/opt/mlem-companion/.venv"


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    run = subparsers.add_parser(
        "run", help="run the table companion (the demo on a machine without a Pi)")
    run.add_argument("--config", type=Path, help="TOML config (default: "
                     "/etc/mlem-companion/config.toml if present)")
    run.add_argument("--demo", action="store_true", help="force the demo mode")
    run.set_defaults(handler=run_command)

    demo = subparsers.add_parser(
        "demo", help="the demo: simulated camera and buttons; --autoplay plays a game headless")
    demo.add_argument("--autoplay", action="store_true",
                      help="bots play one complete game through the real pipeline, then exit")
    demo.add_argument("--players", type=int, default=3, help="2 to 5 (default 3)")
    demo.add_argument("--seed", type=int, default=1, help="dice and bots seed (default 1)")
    demo.add_argument("--variants", default="",
                      help="comma list of ufo,exploration,missions or 'all' (default none)")
    demo.add_argument("--bots", default="greedy,cautious,random",
                      help="bots by seat, repeated to fill the seats")
    demo.add_argument("--json", action="store_true", help="print one JSON object")
    demo.add_argument("--config", type=Path, help="TOML config to start from")
    demo.add_argument("--store", type=Path,
                      help="database (autoplay: a temporary one; an unfinished game resumes)")
    demo.add_argument("--fps", type=float, default=30.0, help="autoplay camera frame rate")
    demo.add_argument("--size", default="640x480", help="autoplay camera resolution")
    demo.add_argument("--print-acks", action="store_true",
                      help="print every acknowledged action as it happens (crash tests)")
    demo.set_defaults(handler=demo_command)

    install = subparsers.add_parser(
        "install-service", help="write the systemd unit for this virtualenv and print the steps")
    install.add_argument("--dry-run", action="store_true", help="print the unit, write nothing")
    install.add_argument("--unit-dir", type=Path, default=Path("/etc/systemd/system"))
    install.add_argument("--user", default="mlem", help="service user (default mlem)")
    install.set_defaults(handler=install_command)


# ------------------------------------------------------------------------------ helpers


def is_raspberry_pi() -> bool:
    """A Pi says so in its device tree; else GPIO chips plus picamera2 mean Pi-like hardware."""
    try:
        model = Path("/proc/device-tree/model").read_bytes().decode(errors="replace")
    except OSError:
        model = ""
    if "Raspberry Pi" in model:
        return True
    import importlib.util

    has_gpio = any(Path("/dev").glob("gpiochip*"))
    return has_gpio and importlib.util.find_spec("picamera2") is not None


def setup_logging(level: str) -> None:
    logging.basicConfig(level=getattr(logging, level.upper(), logging.INFO),
                        format="%(levelname)s %(name)s: %(message)s", stream=sys.stderr)


def _stop_on_signals(stop: threading.Event) -> None:
    def handler(signum: int, _frame: Any) -> None:
        log.info("signal %s: stopping", signal.Signals(signum).name)
        stop.set()

    signal.signal(signal.SIGTERM, handler)
    signal.signal(signal.SIGINT, handler)


# ------------------------------------------------------------------------------ run


def resolve_config(path: Path | None, force_demo: bool) -> tuple[Config, bool]:
    """(config, demo?): no config file on a machine that is not a Pi means the demo."""
    found = find_config(path)
    if found is not None:
        config = load_config(found)
        return (demo_config(config), True) if force_demo else (config, False)
    if force_demo or not is_raspberry_pi():
        return demo_config(), True
    return Config(), False


def run_command(args: argparse.Namespace) -> int:
    try:
        config, demo = resolve_config(args.config, args.demo)
    except ConfigError as exc:
        print(f"companion run: {exc}", file=sys.stderr)
        return 2
    return serve(config, demo)


def serve(config: Config, demo: bool) -> int:
    """Run until SIGINT/SIGTERM; the demo also seats bots and starts a game."""
    setup_logging(config.log_level)
    stop = threading.Event()
    _stop_on_signals(stop)
    cameras: list[Camera] = []
    press: Callable[[ButtonEvent], None] | None = None
    factory = None
    if demo:
        factory, press = mock_buttons(config)
    try:
        drivers = build_drivers(config, pin_factory=factory, cameras=cameras)
    except ConfigError as exc:
        print(f"companion run: {exc}", file=sys.stderr)
        return 2
    store_path = config.store_path(demo)
    if demo:
        store_path.parent.mkdir(parents=True, exist_ok=True)
    daemon = Daemon(config, drivers, store_path=store_path, demo=demo)
    daemon.start()
    bots: BotSeats | None = None
    if demo and press is not None:
        bots = seat_demo_bots(daemon, config, press, cameras)
    print(f"MLEM companion {'demo ' if demo else ''}running: open {daemon.url}", flush=True)
    if daemon.pairing is not None:
        print(f"pairing code: {daemon.pairing.code()}", flush=True)
    try:
        daemon.run(stop)
    finally:
        if bots is not None:
            bots.stop()
        daemon.stop()
    return 0


# ------------------------------------------------------------------------------ demo


def demo_command(args: argparse.Namespace) -> int:
    try:
        base = load_config(args.config) if args.config else None
    except ConfigError as exc:
        print(f"companion demo: {exc}", file=sys.stderr)
        return 2
    config = demo_config(base)
    if not args.autoplay:
        if args.store:
            config = replace(config, store=replace(config.store, path=str(args.store)))
        return serve(config, True)
    return autoplay(args, config)


def autoplay(args: argparse.Namespace, config: Config) -> int:
    """One complete game, bots at every seat, through camera, vision, buttons and table."""
    from companion.games.mlem.simulate import parse_list, seat_bots, seat_names

    try:
        width, height = (int(v) for v in args.size.lower().split("x"))
    except ValueError:
        print(f"companion demo: --size {args.size!r} is not WIDTHxHEIGHT", file=sys.stderr)
        return 2
    setup_logging(os.environ.get("MLEM_LOG_LEVEL", "warning"))
    config = replace(
        config,
        camera=replace(config.camera, kind="simulated", width=width, height=height,
                       seed=args.seed),
        buttons=replace(config.buttons, bounce_time=0.0),
        # two equal readings instead of three: the reader is most of a headless game's time,
        # and the bots check every reading against what they threw anyway
        vision=replace(config.vision, auto_confirm=False,
                       stable_readings=min(config.vision.stable_readings, 2)),
    )
    names = seat_names(args.players)
    try:
        game = GameConfig(players=names, variants=frozenset(parse_list(args.variants)))
        bot_names = seat_bots(parse_list(args.bots), args.players)
    except (RulesError, ValueError) as exc:
        print(f"companion demo: {exc}", file=sys.stderr)
        return 2
    temp = None
    store = args.store
    if store is None:
        temp = tempfile.TemporaryDirectory(prefix="mlem-autoplay-")
        store = Path(temp.name) / "autoplay.db"
    factory, press = mock_buttons(config)
    cameras: list[Camera] = []
    drivers = build_drivers(config, pin_factory=factory, cameras=cameras)
    daemon = Daemon(config, drivers, store_path=store, demo=True, web=False,
                    camera_fps=args.fps)
    stop = threading.Event()
    _stop_on_signals(stop)
    started = time.perf_counter()
    daemon.start()
    bots = BotSeats(daemon, press, seats=None, bots=bot_names, seed=args.seed,
                    throw=lambda faces: throw_into_tray(cameras, faces), throw_for_all=True,
                    draws=True)
    if args.print_acks:
        printer = AckPrinter(daemon)
        daemon.navigator.results.append(printer)
        bots.acks.append(printer)
        print("READY", flush=True)
    if daemon.table.snapshot().game_id is None:
        result = daemon.table.new_game(game)
        if not result.ok:
            print(f"companion demo: {result.error}", file=sys.stderr)
            daemon.stop()
            return 2
        if args.print_acks:
            printer("new game", result)
    bots.start()
    while not (bots.finished.wait(0.2) or stop.is_set()):
        pass
    bots.stop()
    state = daemon.table.state_copy()
    camera_loop = daemon.camera
    daemon.stop()
    elapsed = time.perf_counter() - started
    if temp is not None:
        temp.cleanup()
    if bots.error is not None or state is None or not state.is_terminal():
        print(f"companion demo: the game did not finish: {bots.error or state}", file=sys.stderr)
        return 1
    names = state.game.config.players
    summary = {
        "players": list(names),
        "bots": list(bot_names),
        "seed": args.seed,
        "scores": dict(zip(names, state.returns(), strict=True)),
        "winners": [names[s] for s in state.winners()],
        "expeditions": state.expedition,
        "actions": len(state.history),
        "rolls_read": bots.read_ok,
        "misreads": bots.misreads,
        "corrections": bots.corrections,
        "manual_rolls": bots.manual_rolls,
        "button_presses": bots.presses,
        "frames": camera_loop.frames if camera_loop else 0,
        "elapsed": round(elapsed, 2),
    }
    if args.json:
        print(json.dumps(summary, sort_keys=True), flush=True)
    else:
        print(f"Autoplay game (seed {args.seed}): {len(state.history)} actions, "
              f"{state.expedition} expeditions, {elapsed:.1f} s")
        print(f"Camera: {bots.read_ok} rolls read right, {bots.misreads} misread "
              f"({bots.corrections} corrected, {bots.manual_rolls} entered by hand)")
        for seat, score in enumerate(state.returns()):
            crown = "  winner" if seat in state.winners() else ""
            print(f"  {names[seat]:<8} ({bot_names[seat]:<8}) {score:>3}{crown}")
    return 0


# ------------------------------------------------------------------------------ install-service


def render_unit(venv: Path, user: str = "mlem", template: Path = UNIT_TEMPLATE) -> str:
    """The unit file with ExecStart in `venv` (and ProtectHome relaxed if the venv is in /home).

    :raises FileNotFoundError: the template is missing (install from a checkout: pip install -e).
    """
    text = template.read_text(encoding="utf-8")
    text = text.replace(TEMPLATE_VENV, str(venv))
    text = text.replace("/opt/mlem-companion/docs", str(REPO / "docs"))
    if user != "mlem":
        text = text.replace("User=mlem", f"User={user}").replace("Group=mlem", f"Group={user}")
    if str(venv).startswith("/home/") or str(venv) == "/home":
        text = text.replace("ProtectHome=yes", "ProtectHome=read-only  # the venv is in /home")
    return text


def install_steps(unit_path: Path, user: str) -> list[str]:
    """The commands to run after the unit is written (printed, never run for you)."""
    return [
        f"sudo useradd --system --user-group --home-dir /var/lib/mlem-companion "
        f"--shell /usr/sbin/nologin {user}",
        f"sudo usermod -aG gpio,i2c,video {user}",
        "sudo install -d -m 0755 /etc/mlem-companion",
        f"sudo install -m 0644 {REPO / 'config.example.toml'} /etc/mlem-companion/config.toml",
        "sudo systemctl daemon-reload",
        "sudo systemctl enable --now mlem-companion",
        "systemctl status mlem-companion   # STATUS= shows the prompt and any device down",
        "journalctl -u mlem-companion -f",
    ]


def install_command(args: argparse.Namespace) -> int:
    venv = Path(sys.prefix)
    executable = venv / "bin" / "companion"
    try:
        unit = render_unit(venv, args.user)
    except FileNotFoundError as exc:
        print(f"install-service: {exc}; install from a checkout (pip install -e)", file=sys.stderr)
        return 2
    if not executable.exists():
        print(f"install-service: warning: {executable} does not exist; "
              "run `pip install -e '.[pi]'` in this venv first", file=sys.stderr)
    unit_path = args.unit_dir / UNIT_NAME
    if args.dry_run:
        print(f"# would write {unit_path}:\n{unit}")
    else:
        try:
            unit_path.write_text(unit, encoding="utf-8")
        except OSError as exc:
            print(f"install-service: cannot write {unit_path}: {exc.strerror} (run with sudo, or "
                  "--dry-run and copy it yourself)", file=sys.stderr)
            return 1
        print(f"wrote {unit_path}")
    print("Then:")
    for step in install_steps(unit_path, args.user):
        print(f"  {step}")
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    """`python -m companion.commands.run ...` (before the lead wires it into `companion`)."""
    parser = argparse.ArgumentParser(prog="companion")
    register(parser.add_subparsers(dest="command", required=True))
    args = parser.parse_args(argv)
    result: int = args.handler(args)
    return result


if __name__ == "__main__":
    sys.exit(main())
