"""A failing driver never stops the game: the camera vanishing and returning, the OLED raising on
write, a button held down through a restart."""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from PIL import Image

from companion.games.mlem import GameConfig
from hardware.base import ButtonEvent, HardwareError
from hardware.display import LumaDisplay, create_display

from .conftest import Rig, replay
from .test_game import wait_for


def available(rig: Rig) -> int:
    return int((rig.daemon.table.snapshot().state or {}).get("available", 0))


def to_roll(rig: Rig) -> None:
    """Press OK until the captain has to roll."""
    table = rig.daemon.table
    if table.snapshot().game_id is None:
        assert table.new_game(GameConfig(players=("Anna", "Ben"))).ok
    while (prompt := table.snapshot().prompt) is not None and prompt.kind != "roll":
        rig.press(ButtonEvent.OK)


def test_camera_vanishes_and_returns(make_rig: Callable[..., Rig]) -> None:
    rig = make_rig()
    daemon = rig.daemon
    to_roll(rig)
    assert wait_for(lambda: bool(rig.cameras) and daemon.status.ok("camera"))
    camera: Any = rig.cameras[-1]
    camera.fail(True)
    assert wait_for(lambda: not daemon.status.ok("camera"))
    assert "camera" in daemon.status.as_dict() and not daemon.status.as_dict()["camera"]["ok"]
    assert "camera DOWN" in daemon.status_line()
    # the OLED says so, and the phone's manual entry keeps the game going
    assert wait_for(lambda: daemon.display.screen is not None
                    and daemon.display.screen.kind == "message")
    assert daemon.table.act("roll " + " ".join(["2"] * available(rig)), "phone").ok
    while (prompt := daemon.table.snapshot().prompt) is not None and prompt.kind != "roll":
        rig.press(ButtonEvent.OK)
    camera.fail(False)
    assert wait_for(lambda: daemon.status.ok("camera"), 10), daemon.status.as_dict()
    camera.throw(["3"] * available(rig))
    assert wait_for(lambda: daemon.table.snapshot().reading is not None, 10)


def test_a_failing_camera_shows_on_the_phones(make_rig: Callable[..., Rig]) -> None:
    """/api/state (and the SSE view) carries the daemon's hardware status as it changes."""
    rig = make_rig()
    daemon = rig.daemon
    client = daemon.build_web_app().test_client()

    def camera_state() -> dict[str, Any]:
        return dict(client.get("/api/state").get_json()["hardware"].get("camera", {}))

    # generous: the first frame waits for the camera thread, which a loaded CI machine delays
    assert wait_for(lambda: bool(rig.cameras) and camera_state().get("ok") is True, 30), \
        camera_state()
    camera: Any = rig.cameras[-1]
    camera.fail(True)
    assert wait_for(lambda: camera_state().get("ok") is False, 10), camera_state()
    assert "enter the dice on the phone" in camera_state()["detail"]
    camera.fail(False)
    assert wait_for(lambda: camera_state().get("ok") is True, 15), camera_state()


def test_no_camera_configured_shows_on_the_phones(make_rig: Callable[..., Rig]) -> None:
    rig = make_rig(camera=False)
    state = rig.daemon.build_web_app().test_client().get("/api/state").get_json()
    assert state["hardware"]["camera"]["ok"] is False
    assert "no camera configured" in state["hardware"]["camera"]["detail"]


class FlakyDisplay(LumaDisplay):
    """The dummy OLED that raises like an unplugged I2C panel while `broken` is set."""

    broken = False
    opened = 0

    def show(self, image: Image.Image) -> None:
        if FlakyDisplay.broken:
            raise HardwareError("I2C write failed: [Errno 121] Remote I/O error")
        super().show(image)


def open_flaky() -> FlakyDisplay:
    if FlakyDisplay.broken:
        FlakyDisplay.opened += 1
    dummy = create_display("dummy")
    return FlakyDisplay(dummy.device, "dummy")


def test_oled_raising_on_write_does_not_stop_the_game(make_rig: Callable[..., Rig]) -> None:
    FlakyDisplay.broken, FlakyDisplay.opened = False, 0
    rig = make_rig(camera=False, display=open_flaky)
    daemon = rig.daemon
    rig.press(ButtonEvent.OK)
    assert wait_for(lambda: daemon.display.frames > 0)
    FlakyDisplay.broken = True
    for _ in range(3):
        rig.press(ButtonEvent.OK)  # the game goes on while the panel fails
    assert wait_for(lambda: not daemon.status.ok("display"))
    state = daemon.table.state_copy()
    assert state is not None and len(state.history) == 3
    assert "display DOWN" in daemon.status_line()
    FlakyDisplay.broken = False
    frames = daemon.display.frames
    assert wait_for(lambda: daemon.status.ok("display") and daemon.display.frames > frames, 10)


def test_button_held_through_a_restart(make_rig: Callable[..., Rig], tmp_path: Path) -> None:
    first = make_rig(camera=False, store=tmp_path / "held.db")
    to_roll(first)
    table = first.daemon.table
    before = table.state_copy()
    assert before is not None and len(before.history) >= 2
    back: Any = first.factory.pin(first.config.buttons.back)

    # A finger on the button keeps the line at GND whatever pull-up a process sets; gpiozero's
    # MockPin drives itself high whenever a pull-up is (re)applied, so hold it down here.
    def held_pull(value: str) -> None:
        back._pull = value

    back._set_pull = held_pull
    back.drive_low()  # BACK goes down ... and the daemon stops while it is held
    first.daemon.stop()
    back.drive_low()
    second = make_rig(camera=False, store=tmp_path / "held.db", factory=first.factory)
    assert not back.state, "the button is still down when the new daemon claims it"
    assert second.daemon.table.state_copy() == before  # resumed where it stopped
    time.sleep(second.config.buttons.hold_time + 0.3)  # held past the hold time: no UNDO
    back.drive_high()
    time.sleep(0.1)
    assert second.daemon.table.state_copy() == before, "a held-over BACK must not undo"
    second.press(ButtonEvent.UNDO)  # a fresh hold does undo one step
    after = second.daemon.table.state_copy()
    assert after is not None and len(after.history) == len(before.history) - 1
    stored = second.daemon.store.unfinished_game()
    assert stored is not None and replay(stored.setup, stored.actions) == after
