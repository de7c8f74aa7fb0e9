"""GpioButtons on gpiozero's MockFactory: pins pressed with drive_low(), released with
drive_high(); real threads and short times (hold 0.2 s, bounce 0.01 s).
"""

from __future__ import annotations

import queue
import time
from typing import Any

import pytest

pytest.importorskip("gpiozero", reason="gpiozero is in the [pi] extra")

from gpiozero import Button

from hardware.base import ButtonEvent, HardwareError
from hardware.buttons import GpioButtons, parse_roles

OK, NEXT, BACK, UNDO = 17, 27, 22, 23
PINS = {"ok": OK, "next": NEXT, "back": BACK}
HOLD, BOUNCE = 0.2, 0.01
SETTLE = 0.05  # long enough for the debounce timer (BOUNCE) to have run


@pytest.fixture
def events() -> queue.Queue[ButtonEvent]:
    return queue.Queue()


def make(factory: Any, events: queue.Queue[ButtonEvent], pins: dict[str, int] = PINS,
         **options: Any) -> GpioButtons:
    buttons = GpioButtons(pins, hold_seconds=HOLD, bounce_time=BOUNCE, pin_factory=factory,
                          **options)
    buttons.on_event(events.put)
    return buttons


def take(events: queue.Queue[ButtonEvent], timeout: float = 2.0) -> ButtonEvent:
    return events.get(timeout=timeout)


def quiet(events: queue.Queue[ButtonEvent], seconds: float = SETTLE) -> None:
    """Nothing more arrives within ``seconds``."""
    time.sleep(seconds)
    assert events.empty(), f"unexpected {events.get_nowait()}"


def tap(pin: Any) -> None:
    pin.drive_low()
    time.sleep(SETTLE)
    pin.drive_high()
    time.sleep(SETTLE)


def test_ok_and_next_fire_once_per_press(mock_factory: Any, events: Any) -> None:
    buttons = make(mock_factory, events)
    tap(mock_factory.pin(OK))
    tap(mock_factory.pin(NEXT))
    tap(mock_factory.pin(OK))
    assert [take(events), take(events), take(events)] == [
        ButtonEvent.OK, ButtonEvent.NEXT, ButtonEvent.OK]
    quiet(events)
    buttons.close()


def test_ok_fires_on_press_not_on_release(mock_factory: Any, events: Any) -> None:
    make(mock_factory, events)
    mock_factory.pin(OK).drive_low()
    assert take(events) is ButtonEvent.OK  # still held down
    mock_factory.pin(OK).drive_high()
    quiet(events)


def test_short_back_press_is_back_on_release(mock_factory: Any, events: Any) -> None:
    make(mock_factory, events)
    back = mock_factory.pin(BACK)
    back.drive_low()
    quiet(events)  # BACK waits for the release: it could still become a hold
    back.drive_high()
    assert take(events) is ButtonEvent.BACK
    quiet(events)


def test_held_back_is_undo_only(mock_factory: Any, events: Any) -> None:
    make(mock_factory, events)
    back = mock_factory.pin(BACK)
    start = time.monotonic()
    back.drive_low()
    assert take(events) is ButtonEvent.UNDO
    assert time.monotonic() - start >= HOLD * 0.9
    time.sleep(HOLD * 2)  # still held: the hold does not repeat
    back.drive_high()
    quiet(events, HOLD)  # and the release is not a BACK
    tap(back)
    assert take(events) is ButtonEvent.BACK  # the next short press is a BACK again


def test_bouncing_contacts_give_one_event(mock_factory: Any, events: Any) -> None:
    make(mock_factory, events)
    ok = mock_factory.pin(OK)
    for _ in range(4):  # contact chatter on press, well inside the bounce time
        ok.drive_low()
        ok.drive_high()
    ok.drive_low()
    assert take(events) is ButtonEvent.OK
    for _ in range(4):  # and on release
        ok.drive_high()
        ok.drive_low()
    ok.drive_high()
    quiet(events)
    tap(ok)  # the button is not stuck: the next press counts
    assert take(events) is ButtonEvent.OK
    quiet(events)


def test_bouncing_back_gives_one_back(mock_factory: Any, events: Any) -> None:
    make(mock_factory, events)
    back = mock_factory.pin(BACK)
    for _ in range(3):
        back.drive_low()
        back.drive_high()
    back.drive_low()
    time.sleep(SETTLE)
    for _ in range(3):
        back.drive_high()
        back.drive_low()
    back.drive_high()
    assert take(events) is ButtonEvent.BACK
    quiet(events, HOLD)


def test_glitch_shorter_than_bounce_time_is_ignored(mock_factory: Any, events: Any) -> None:
    make(mock_factory, events)
    ok = mock_factory.pin(OK)
    ok.drive_low()
    ok.drive_high()
    quiet(events)


def test_button_held_through_a_restart_fires_nothing_until_pressed_again(
    mock_factory: Any, events: Any
) -> None:
    first = make(mock_factory, events)
    ok, back = mock_factory.pin(OK), mock_factory.pin(BACK)
    ok.press()
    assert take(events) is ButtonEvent.OK
    back.press()
    first.close()  # the daemon restarts while both buttons are held down
    assert ok.state == 0 and back.state == 0

    make(mock_factory, events)
    quiet(events, HOLD * 1.5)  # no OK for the held button, no UNDO for the held BACK
    ok.release()
    back.release()
    quiet(events, HOLD)  # releasing it only re-arms it
    tap(ok)
    tap(back)
    assert [take(events), take(events)] == [ButtonEvent.OK, ButtonEvent.BACK]


def test_back_held_through_a_restart_does_not_undo(mock_factory: Any, events: Any) -> None:
    first = make(mock_factory, events)
    back = mock_factory.pin(BACK)
    back.press()
    first.close()
    make(mock_factory, events)
    quiet(events, HOLD * 2)
    back.release()
    quiet(events)
    back.press()  # a fresh hold after the restart is an UNDO again
    assert take(events) is ButtonEvent.UNDO
    back.release()
    quiet(events)


def test_fourth_button_is_undo(mock_factory: Any, events: Any) -> None:
    make(mock_factory, events, {**PINS, "undo": UNDO})
    tap(mock_factory.pin(UNDO))
    assert take(events) is ButtonEvent.UNDO
    quiet(events)


def test_default_pin_factory_is_used(mock_factory: Any, events: Any) -> None:
    buttons = GpioButtons({ButtonEvent.OK: OK, ButtonEvent.NEXT: NEXT, ButtonEvent.BACK: BACK},
                          hold_seconds=HOLD, bounce_time=0)  # bounce 0: events at once
    buttons.on_event(events.put)
    mock_factory.pin(NEXT).drive_low()
    assert events.get_nowait() is ButtonEvent.NEXT
    buttons.close()


def test_close_is_idempotent_frees_the_pins_and_stops_events(
    mock_factory: Any, events: Any
) -> None:
    buttons = make(mock_factory, events)
    ok = mock_factory.pin(OK)
    ok.drive_low()
    buttons.close()  # with a debounce timer pending
    buttons.close()
    quiet(events)
    ok.drive_high()
    again = make(mock_factory, events)  # the pins are free again
    tap(ok)
    assert take(events) is ButtonEvent.OK
    again.close()


def test_a_failing_listener_does_not_silence_the_others(mock_factory: Any, events: Any) -> None:
    buttons = make(mock_factory, events)

    def broken(event: ButtonEvent) -> None:
        raise RuntimeError("listener bug")

    buttons.on_event(broken)
    buttons.on_event(events.put)
    tap(mock_factory.pin(OK))
    assert [take(events), take(events)] == [ButtonEvent.OK, ButtonEvent.OK]


def test_pin_in_use_is_a_hardware_error(mock_factory: Any) -> None:
    other = Button(BACK, pin_factory=mock_factory)
    with pytest.raises(HardwareError, match="cannot claim"):
        GpioButtons(PINS, pin_factory=mock_factory)
    other.close()
    GpioButtons(PINS, pin_factory=mock_factory).close()  # the pins it had claimed were freed


def test_roles_from_config() -> None:
    assert parse_roles({"OK": 5, "next": 6, ButtonEvent.BACK: 13}) == {
        ButtonEvent.OK: 5, ButtonEvent.NEXT: 6, ButtonEvent.BACK: 13}
    with pytest.raises(ValueError, match="no pin for button roles \\['back'\\]"):
        parse_roles({"ok": 5, "next": 6})
    with pytest.raises(ValueError, match="unknown button role 'menu'"):
        parse_roles({**PINS, "menu": 5})
    with pytest.raises(ValueError, match="share a pin"):
        parse_roles({"ok": 5, "next": 5, "back": 6})
    with pytest.raises(ValueError, match="given twice"):
        parse_roles({"ok": 5, "OK": 7, "next": 6, "back": 8})


def test_hold_must_outlast_the_bounce_time(mock_factory: Any) -> None:
    with pytest.raises(ValueError, match="bounce_time < hold_seconds"):
        GpioButtons(PINS, hold_seconds=0.05, bounce_time=0.05, pin_factory=mock_factory)
