"""companion.pairing: codes, tokens, hosts, revocation, seats, lockout (with a fake clock)."""

from __future__ import annotations

import pytest

from companion.pairing import (
    CODE_DIGITS,
    LOCKOUT_SECONDS,
    MAX_FAILURES,
    Pairing,
    PairingError,
    PairingLocked,
)


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_the_code_is_six_digits_and_rotates_after_each_pairing() -> None:
    pairing = Pairing()
    codes = []
    for name in ("Anna", "Ben", "Chi"):
        code = pairing.code()
        assert len(code) == CODE_DIGITS and code.isdigit()
        device = pairing.pair(code, name)
        assert pairing.verify(device.token) == device
        codes.append(code)
    assert len(set(codes)) > 1  # a fresh random code after each pairing
    used = codes[-1]
    if used != pairing.code():
        with pytest.raises(PairingError, match="wrong code"):
            pairing.pair(used, "Eve")


def test_first_phone_is_host_then_guests_and_the_host_code() -> None:
    pairing = Pairing(host_code="87654321")
    host = pairing.pair(pairing.code(), "Host")
    guest = pairing.pair(pairing.code(), "Guest")
    second_host = pairing.pair("87654321", "Spare")
    assert host.is_host and not guest.is_host and second_host.is_host
    assert [d.name for d in pairing.devices()] == ["Host", "Guest", "Spare"]


def test_tokens_verify_until_revoked() -> None:
    pairing = Pairing()
    device = pairing.pair(pairing.code(), "Anna")
    assert pairing.verify(device.token) == device
    assert pairing.verify("not-a-token") is None and pairing.verify(None) is None
    pairing.revoke(device.id)
    assert pairing.verify(device.token) is None
    with pytest.raises(PairingError):
        pairing.revoke(device.id)


def test_after_the_host_is_revoked_the_next_phone_becomes_host() -> None:
    pairing = Pairing()
    host = pairing.pair(pairing.code(), "Host")
    pairing.revoke(host.id)
    assert pairing.pair(pairing.code(), "Next").is_host


def test_one_phone_per_seat() -> None:
    pairing = Pairing()
    anna = pairing.pair(pairing.code(), "Anna")
    ben = pairing.pair(pairing.code(), "Ben")
    assert pairing.claim_seat(anna.id, 0).seat == 0
    with pytest.raises(PairingError, match="already claimed by Anna"):
        pairing.claim_seat(ben.id, 0)
    pairing.claim_seat(anna.id, None)
    assert pairing.claim_seat(ben.id, 0).seat == 0
    assert pairing.seat_holders()[0].id == ben.id
    pairing.release_seats()
    assert pairing.seat_holders() == {}


def test_wrong_codes_lock_pairing_for_a_while_and_rotate_the_code() -> None:
    clock = Clock()
    pairing = Pairing(clock)
    code = pairing.code()
    wrong = "000000" if code != "000000" else "111111"
    for _ in range(MAX_FAILURES):
        with pytest.raises(PairingError):
            pairing.pair(wrong, "Mallory")
    assert pairing.locked()
    with pytest.raises(PairingLocked):
        pairing.pair(pairing.code(), "Anna")  # even the right code waits
    clock.now += LOCKOUT_SECONDS + 1
    assert not pairing.locked()
    assert pairing.pair(pairing.code(), "Anna").is_host


def test_names_are_trimmed_and_defaulted() -> None:
    pairing = Pairing()
    assert pairing.pair(pairing.code(), "  Anna \n  Lee " + "x" * 50).name.startswith("Anna Lee")
    assert pairing.pair(pairing.code(), "").name == "Phone 2"


def test_listeners_hear_about_changes() -> None:
    pairing = Pairing()
    calls: list[int] = []
    unsubscribe = pairing.subscribe(lambda: calls.append(1))
    device = pairing.pair(pairing.code(), "Anna")
    pairing.claim_seat(device.id, 1)
    unsubscribe()
    pairing.revoke(device.id)
    assert len(calls) == 2
