"""A whole game through the mocks: dice thrown into the simulated tray and read by the vision,
bots pressing the MockFactory buttons, screens drawn on luma's dummy OLED; the daemon's state
must equal replaying the store's record through the rules core."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

import pytest

from companion.games.mlem import GameConfig, RuleOptions
from hardware.base import ButtonEvent

from .conftest import Rig, replay
from .conftest import test_config as rig_config


def wait_for(condition: Callable[[], bool], timeout: float = 5.0) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.02)
    return condition()


def test_the_first_expeditions_through_camera_buttons_and_display(
        make_rig: Callable[..., Rig]) -> None:
    """The fast version: 40 actions, several of them rolls read by the camera."""
    rig = make_rig()
    daemon = rig.daemon
    assert daemon.table.new_game(GameConfig(players=("Anna", "Ben", "Chi"))).ok
    bots = rig.bots(seed=2, bots=("greedy",))
    bots.start()

    def played() -> int:
        state = daemon.table.state_copy()
        return len(state.history) if state else 0

    assert wait_for(lambda: played() >= 40, 25), daemon.table.snapshot().prompt
    bots.stop()
    assert bots.error is None
    state = daemon.table.state_copy()
    stored = daemon.store.game(daemon.table.snapshot().game_id or 0)
    assert stored is not None and state is not None
    assert replay(stored.setup, stored.actions) == state
    assert bots.presses > 20 and daemon.camera is not None and daemon.camera.frames > 10
    assert daemon.display.frames > 5


@pytest.mark.slow
def test_a_whole_game_through_camera_buttons_and_display(make_rig: Callable[..., Rig]) -> None:
    rig = make_rig()
    daemon = rig.daemon
    assert daemon.table.new_game(GameConfig(players=("Anna", "Ben"))).ok
    bots = rig.bots(seed=5, bots=("greedy", "cautious"))
    bots.start()
    assert bots.finished.wait(60), daemon.table.snapshot().prompt
    bots.stop()
    assert bots.error is None
    state = daemon.table.state_copy()
    assert state is not None and state.is_terminal()
    # the camera really read the tray and the buttons really chose
    assert daemon.camera is not None and daemon.camera.frames > 10
    assert bots.presses > 20
    assert bots.read_ok + bots.misreads > 0
    # every action but rolls and the setup went through the buttons
    stored = daemon.store.game(daemon.table.snapshot().game_id or 0)
    assert stored is not None and stored.finished is not None
    sources = dict(daemon.store._db.execute(
        "SELECT source, COUNT(*) FROM actions WHERE game_id = ? GROUP BY source",
        (stored.id,)).fetchall())
    assert sources.get("button", 0) > 10, sources
    assert replay(stored.setup, stored.actions) == state
    # the OLED showed something, and now shows the end of the game
    assert daemon.display.frames > 5
    assert wait_for(lambda: daemon.display.screen is not None
                    and daemon.display.screen.kind in ("prompt", "result"))
    image = daemon.display_image()
    assert image is not None and image.size == (128, 64)


def test_buttons_move_the_highlight_and_submit(make_rig: Callable[..., Rig]) -> None:
    rig = make_rig(camera=False)
    daemon = rig.daemon
    rig.press(ButtonEvent.OK)  # at idle, OK starts a game with the configured players
    snapshot = daemon.table.snapshot()
    assert snapshot.game_id is not None and snapshot.prompt is not None
    prompt = snapshot.prompt
    assert prompt.kind == "place" and len(prompt.options) > 2
    rig.press(ButtonEvent.NEXT)
    rig.press(ButtonEvent.NEXT)
    rig.press(ButtonEvent.BACK)
    assert daemon.navigator.highlight == 1
    rig.press(ButtonEvent.BACK)
    rig.press(ButtonEvent.BACK)  # wraps round to the last option
    assert daemon.navigator.highlight == len(prompt.options) - 1
    rig.press(ButtonEvent.NEXT)
    rig.press(ButtonEvent.NEXT)
    rig.press(ButtonEvent.OK)
    state = daemon.table.state_copy()
    assert state is not None and [str(a) for a in state.history] == [prompt.options[1].action]
    assert daemon.navigator.highlight == 0  # a new prompt starts at its first option
    rig.press(ButtonEvent.UNDO)  # BACK held
    state = daemon.table.state_copy()
    assert state is not None and state.history == []


def test_a_camera_reading_is_confirmed_with_ok(make_rig: Callable[..., Rig]) -> None:
    """The confirm flow, independent of the reader's accuracy: a reader that knows the tray."""
    from vision.reader import Detection, Reading

    rig = make_rig(start=False)
    daemon = rig.daemon

    def oracle(_frame: object) -> Reading:
        faces = rig.cameras[-1].faces  # type: ignore[attr-defined]
        return Reading(tuple(Detection(f, 40.0 + 50 * i, 60.0, 40.0, 0.99, False)
                             for i, f in enumerate(faces)))

    assert daemon.camera is not None
    daemon.camera._reader = oracle
    daemon.start()
    assert daemon.table.new_game(GameConfig(players=("Anna", "Ben"))).ok
    while (prompt := daemon.table.snapshot().prompt) is not None and prompt.kind != "roll":
        rig.press(ButtonEvent.OK)
    settled: list[object] = []
    assert daemon.camera is not None
    daemon.camera.on_settled.append(settled.append)
    dice = int((daemon.table.snapshot().state or {}).get("available", 0))
    rig.cameras[-1].throw(["1", "2", "2", "3", "4", "fuel"][:dice])  # type: ignore[attr-defined]
    assert wait_for(lambda: bool(settled), 10), "the camera never settled on the throw"
    snapshot = daemon.table.snapshot()
    assert snapshot.prompt is not None and snapshot.prompt.kind == "confirm_roll"
    assert snapshot.reading is not None and snapshot.reading.proof is not None
    assert snapshot.reading.proof[:2] == b"\xff\xd8"  # a JPEG
    assert wait_for(lambda: daemon.display.screen is not None
                    and daemon.display.screen.kind == "roll")
    if snapshot.reading.uncertain:
        return  # OK is refused for unclear dice: the phone enters them
    rig.press(ButtonEvent.OK)
    state = daemon.table.state_copy()
    assert state is not None and str(state.history[-1]).startswith("roll ")
    stored = daemon.store.game(snapshot.game_id or 0)
    assert stored is not None
    seq = daemon.store.active_seqs(stored.id)[-1]
    assert daemon.store.proof(stored.id, seq) is not None


def test_a_phone_sets_up_the_configured_game_like_the_buttons(
        make_rig: Callable[..., Rig], tmp_path: Path) -> None:
    """Rules, tokens, board and variants of `[game]` reach a game set up from a phone too."""
    from tests.web.conftest import Phone

    mlem = Path(__file__).parents[2] / "companion" / "games" / "mlem"
    board, tokens = tmp_path / "mat.toml", tmp_path / "tokens.toml"
    for shipped, copy in (("boards", board), ("tokens", tokens)):
        copy.write_bytes((mlem / shipped / "reconstruction.toml").read_bytes())
    config = rig_config()
    config = replace(config, game=replace(
        config.game, board=str(board), tokens=str(tokens), variants=["ufo", "missions"],
        rules=RuleOptions(end_timing="immediate", goal_check="landing_phase")))
    daemon = make_rig(config, camera=False).daemon
    phone = Phone(daemon.build_web_app().test_client(), daemon.pairing, "Host")
    assert phone.get("/api/setup").get_json()["boards"] == [str(board)]
    response = phone.post("/api/setup", {"players": [{"name": "Anna"}, {"name": "Ben"}]})
    assert response.status_code == 201, response.get_json()
    by_buttons = daemon.default_game()
    assert by_buttons.rules.end_timing == "immediate" and by_buttons.tokens == str(tokens)
    assert daemon.table.snapshot().setup == replace(by_buttons, players=("Anna", "Ben")).to_json()
