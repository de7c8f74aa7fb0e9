"""sd_notify over a fake NOTIFY_SOCKET, the watchdog fed by the main loop, the unit verified."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import threading
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from companion.commands.run import main, render_unit
from companion.sdnotify import Notifier

from .conftest import Rig


@pytest.fixture
def notify_socket(tmp_path: Path) -> Iterator[tuple[socket.socket, str]]:
    server = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    path = str(tmp_path / "notify")
    server.bind(path)
    server.settimeout(5)
    yield server, path
    server.close()


def messages(server: socket.socket, count: int) -> list[str]:
    return [server.recv(4096).decode() for _ in range(count)]


def test_ready_status_watchdog_reach_the_socket(notify_socket: tuple[socket.socket, str]) -> None:
    server, path = notify_socket
    notifier = Notifier(address=path, watchdog_usec="30000000", watchdog_pid=str(os.getpid()))
    assert notifier.watchdog_interval == 15.0
    assert notifier.ready("Waiting for players")
    assert notifier.watchdog()
    assert notifier.stopping()
    assert messages(server, 3) == ["READY=1\nSTATUS=Waiting for players", "WATCHDOG=1",
                                   "STOPPING=1\nSTATUS=Stopping"]


def test_abstract_namespace_socket() -> None:
    name = f"mlem-test-{uuid.uuid4().hex}"
    server = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    server.bind("\0" + name)
    server.settimeout(5)
    try:
        assert Notifier(address="@" + name).ready()
        assert server.recv(100) == b"READY=1"
    finally:
        server.close()


def test_a_no_op_without_notify_socket(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("NOTIFY_SOCKET", raising=False)
    monkeypatch.delenv("WATCHDOG_USEC", raising=False)
    notifier = Notifier()
    assert not notifier.enabled and not notifier.ready() and not notifier.watchdog()
    assert notifier.watchdog_interval is None
    # a watchdog meant for another process is not ours
    assert Notifier(address="", watchdog_usec="1000000", watchdog_pid="1").watchdog_interval \
        is None


def test_the_daemon_sends_ready_then_watchdog_pings(
        make_rig: Callable[..., Rig], notify_socket: tuple[socket.socket, str]) -> None:
    server, path = notify_socket
    notifier = Notifier(address=path, watchdog_usec="400000", watchdog_pid=str(os.getpid()))
    rig = make_rig(camera=False, notifier=notifier)
    stop = threading.Event()
    loop = threading.Thread(target=rig.daemon.run, args=(stop,))
    loop.start()
    try:
        got = messages(server, 4)
    finally:
        stop.set()
        loop.join()
    assert got[0].startswith("READY=1\nSTATUS=no game")
    assert got.count("WATCHDOG=1") >= 2
    rig.daemon.stop()
    rest = []
    server.settimeout(0.5)
    try:
        while True:
            rest.append(server.recv(4096).decode())
    except TimeoutError:
        pass
    assert any(m.startswith("STOPPING=1") for m in rest)


def test_no_watchdog_ping_when_the_table_worker_died(make_rig: Callable[..., Rig]) -> None:
    rig = make_rig(camera=False)
    assert rig.daemon.healthy()
    rig.daemon.table.stop()
    assert not rig.daemon.healthy()


def test_unit_directives() -> None:
    unit = render_unit(Path(sys.prefix))
    for line in ("Type=notify", "WatchdogSec=30", "Restart=on-failure", "User=mlem",
                 "SupplementaryGroups=gpio i2c video", "StateDirectory=mlem-companion",
                 "ConfigurationDirectory=mlem-companion", "ProtectSystem=strict",
                 "NoNewPrivileges=yes", "PrivateTmp=yes", "PrivateDevices=no",
                 f"ExecStart={sys.prefix}/bin/companion run"):
        assert line in unit, line
    assert "ProtectClock=yes" not in unit.replace("# - ProtectClock=yes", "")


def test_unit_passes_systemd_analyze_verify(tmp_path: Path) -> None:
    tool = shutil.which("systemd-analyze")
    if tool is None:
        pytest.skip("systemd-analyze is not installed (apt-get install systemd)")
    executable = Path(sys.prefix) / "bin" / "companion"
    if not executable.exists():
        pytest.skip(f"{executable} missing: pip install -e . first")
    unit = tmp_path / "mlem-companion.service"
    unit.write_text(render_unit(Path(sys.prefix)), encoding="utf-8")
    result = subprocess.run([tool, "verify", str(unit)], capture_output=True, text=True,
                            timeout=60)
    problems = [line for line in (result.stdout + result.stderr).splitlines()
                if "mlem-companion" in line]
    assert result.returncode == 0 and not problems, result.stdout + result.stderr


def test_install_service_dry_run(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    assert main(["install-service", "--dry-run", "--unit-dir", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert f"ExecStart={sys.prefix}/bin/companion run" in out
    assert "systemctl daemon-reload" in out and "enable --now mlem-companion" in out
    assert "useradd --system" in out
    assert not (tmp_path / "mlem-companion.service").exists()
    assert main(["install-service", "--unit-dir", str(tmp_path)]) == 0
    assert (tmp_path / "mlem-companion.service").read_text().startswith("# MLEM")
