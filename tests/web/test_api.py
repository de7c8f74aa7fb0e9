"""Every endpoint of the JSON API, with its refusals; a refused request changes nothing.

Every response here is also validated against web/openapi.yaml by the conftest's client.
"""

from __future__ import annotations

import random
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient

from companion.games.mlem import GameConfig, RuleOptions
from companion.pairing import Pairing
from companion.table import Reading, TableService
from tests.web.conftest import Phone, play_to_end, random_roll, start_game
from web import WebSettings, create_app
from web.auth import TOKEN_COOKIE

MLEM = Path(__file__).parents[2] / "companion" / "games" / "mlem"


def version(table: TableService) -> int:
    return table.snapshot().version


def first_option(phone: Phone) -> str:
    data = phone.get("/api/actions").get_json()
    return str(data["prompt"]["options"][0]["action"])


# ------------------------------------------------------------------------------ reading


def test_state_without_a_game(client: FlaskClient) -> None:
    data = client.get("/api/state").get_json()
    assert data["state"] is None and data["game_id"] is None and data["seats"] == []


def test_state_of_a_game_has_board_seats_odds(host: Phone) -> None:
    view = start_game(host, 3)
    assert [s["name"] for s in view["seats"]] == ["Anna", "Ben", "Chi"]
    assert len({s["colour"] for s in view["seats"]}) == 3
    assert view["board"]["spaces"][0]["faces"] == ["1", "2", "fuel"]
    assert view["state"]["phase"] == "place"
    for _ in range(3):
        assert host.post("/api/actions", {"action": first_option(host)}).status_code == 200
    view = host.get("/api/state").get_json()
    assert view["state"]["phase"] == "roll"
    odds = view["odds"]
    assert 0 < odds["crash"]["p"] < 1 and str(odds["departure"] + 1) in odds["reach"]


def test_actions_shows_the_prompt_to_watchers_but_they_may_not_act(
        host: Phone, client: FlaskClient) -> None:
    start_game(host)
    data = client.get("/api/actions").get_json()
    assert data["prompt"]["kind"] == "place" and data["prompt"]["options"]
    assert data["may_act"] is False
    assert host.get("/api/actions").get_json()["may_act"] is True


# ------------------------------------------------------------------------------ refusals


def test_unpaired_requests_are_refused_and_change_nothing(
        host: Phone, client: FlaskClient, table: TableService) -> None:
    start_game(host)
    before = version(table)
    for path, body in [("/api/actions", {"action": "place dice_1"}), ("/api/undo", {}),
                       ("/api/redo", {}), ("/api/correct", {"faces": ["1"]}), ("/api/draw", {}),
                       ("/api/seat", {"seat": 0}), ("/api/odds", {"enabled": False}),
                       ("/api/setup", {"players": [{"name": "A"}, {"name": "B"}]})]:
        response = client.post(path, json=body)
        assert response.status_code == 401, path
        assert "pair" in response.get_json()["error"]
    assert client.delete("/api/me").status_code == 401
    assert client.get("/api/devices").status_code == 401
    assert version(table) == before


def test_a_missing_or_wrong_csrf_token_is_refused(host: Phone, table: TableService) -> None:
    start_game(host)
    before = version(table)
    action = {"action": first_option(host)}
    assert host.client.post("/api/actions", json=action).status_code == 403
    response = host.post("/api/actions", action, headers={"X-CSRF-Token": "forged"})
    assert response.status_code == 403 and "CSRF" in response.get_json()["error"]
    assert version(table) == before


def test_a_cross_site_origin_is_refused_even_with_the_token(host: Phone, table: TableService,
                                                            client: FlaskClient,
                                                            pairing: Pairing) -> None:
    start_game(host)
    before = version(table)
    action = {"action": first_option(host)}
    response = host.post("/api/actions", action, headers={"Origin": "http://evil.example"})
    assert response.status_code == 403
    assert host.post("/api/actions", action, headers={"Origin": "null"}).status_code == 403
    pair = client.post("/api/pair", json={"code": pairing.code()},
                       headers={"Origin": "http://evil.example"})
    assert pair.status_code == 403
    assert version(table) == before
    same_site = host.post("/api/actions", action, headers={"Origin": "http://localhost"})
    assert same_site.status_code == 200


def test_bearer_tokens_work_for_programs(app: Flask, host: Phone, table: TableService) -> None:
    start_game(host)
    other = app.test_client()  # no cookie: the header alone
    response = other.post("/api/actions", json={"action": first_option(host)},
                          headers={"Authorization": f"Bearer {host.token}",
                                   "X-CSRF-Token": host.csrf})
    assert response.status_code == 200


def test_an_illegal_action_is_refused_with_the_rules_reason(host: Phone,
                                                           table: TableService) -> None:
    start_game(host)
    before = version(table)
    response = host.post("/api/actions", {"action": "roll 1 2 3"})
    assert response.status_code == 409
    assert "not possible now" in response.get_json()["error"]
    assert response.get_json()["version"] == before
    response = host.post("/api/actions", {"action": "place warp_drive"})
    assert response.status_code == 409
    response = host.post("/api/actions", {"action": "fly me to the moon"})
    assert response.status_code == 409 and "unknown action" in response.get_json()["error"]
    assert version(table) == before


@pytest.mark.parametrize("body", [
    b"{not json", b"[]", b"42", b'"text"', b"null", b'{"action": 5}', b'{"action": ""}',
    b'{"action": "' + b"x" * 300 + b'"}',
])
def test_malformed_bodies_are_400(host: Phone, table: TableService, body: bytes) -> None:
    start_game(host)
    before = version(table)
    response = host.client.post("/api/actions", data=body, content_type="application/json",
                                headers={"X-CSRF-Token": host.csrf})
    assert response.status_code == 400
    assert version(table) == before


def test_a_form_post_is_not_json(host: Phone, table: TableService) -> None:
    start_game(host)
    response = host.client.post("/api/actions", data={"action": "place dice_1"},
                                headers={"X-CSRF-Token": host.csrf})
    assert response.status_code == 400


def test_a_stale_version_is_refused(host: Phone, table: TableService) -> None:
    start_game(host)
    stale = version(table) - 1
    response = host.post("/api/actions", {"action": first_option(host), "version": stale})
    assert response.status_code == 409 and "moved on" in response.get_json()["error"]


def test_no_game_refusals(host: Phone, table: TableService) -> None:
    assert host.post("/api/actions", {"action": "place dice_1"}).status_code == 409
    assert host.post("/api/undo").status_code == 409
    assert host.post("/api/draw").status_code == 409
    assert host.post("/api/correct", {"faces": ["1"]}).status_code == 409
    assert host.post("/api/seat", {"seat": 0}).status_code == 400


def test_unknown_routes_and_methods_answer_json(client: FlaskClient) -> None:
    response = client.get("/api/nothing-here")
    assert response.status_code == 404 and response.get_json()["error"]
    response = client.put("/api/state", json={})
    assert response.status_code == 405 and response.get_json()["error"]


# ------------------------------------------------------------------------------ seats


def test_a_claimed_seat_is_answered_only_from_its_phone(host: Phone, guest: Phone,
                                                        table: TableService) -> None:
    start_game(host, 2)
    assert guest.post("/api/seat", {"seat": 0}).status_code == 200
    assert host.post("/api/seat", {"seat": 0}).status_code == 409  # one phone per seat
    assert host.post("/api/seat", {"seat": 1}).status_code == 200
    seats = host.get("/api/state").get_json()["seats"]
    assert [s["claimed_by"] for s in seats] == ["Guest", "Host"]
    # seat 0 places first: the guest's decision; the host may step in
    assert guest.get("/api/actions").get_json()["may_act"] is True
    action = first_option(guest)
    assert guest.post("/api/actions", {"action": action}).status_code == 200
    # now seat 1 (the host's): the guest may not answer it
    before = version(table)
    response = guest.post("/api/actions", {"action": first_option(host)})
    assert response.status_code == 403 and version(table) == before
    assert guest.post("/api/seat", {"seat": 9}).status_code == 400
    assert guest.post("/api/seat", {"seat": True}).status_code == 400
    assert guest.post("/api/seat", {"seat": None}).get_json()["device"]["seat"] is None


def test_bot_seats_cannot_be_claimed_and_only_the_host_acts_for_them(
        host: Phone, guest: Phone, app: Flask, pairing: Pairing) -> None:
    start_game(host, 2, bots=(0,))
    assert host.get("/api/state").get_json()["seats"][0]["bot"] is True
    assert guest.post("/api/seat", {"seat": 0}).status_code == 409
    assert guest.get("/api/actions").get_json()["may_act"] is False
    assert guest.post("/api/actions", {"action": first_option(host)}).status_code == 403
    assert host.post("/api/actions", {"action": first_option(host)}).status_code == 200


def test_setup_tells_the_daemon_about_bots(table: TableService, pairing: Pairing) -> None:
    calls: list[tuple[int, Any, tuple[int, ...]]] = []
    app = create_app(table, pairing, settings=WebSettings(
        on_setup=lambda gid, config, bots: calls.append((gid, config, bots))))
    phone = Phone(app.test_client(), pairing, "Host")
    start_game(phone, 3, bots=(1, 2))
    assert calls and calls[0][2] == (1, 2) and calls[0][1].players == ("Anna", "Ben", "Chi")


# ------------------------------------------------------------------------------ setup


def test_setup_options(client: FlaskClient) -> None:
    data = client.get("/api/setup").get_json()
    assert data["variants"] == ["ufo", "exploration", "missions"]
    assert data["boards"] == ["reconstruction"] and len(data["palette"]) == 8


def test_setup_is_for_the_host_only(guest: Phone, table: TableService) -> None:
    response = guest.post("/api/setup", {"players": [{"name": "A"}, {"name": "B"}]})
    assert response.status_code == 403 and table.snapshot().game_id is None


def test_setup_with_everything(host: Phone, table: TableService) -> None:
    response = host.post("/api/setup", {
        "players": [{"name": "Anna", "colour": "blue"}, {"name": "Ben", "colour": "orange"},
                    {"name": "Chi", "colour": "yellow", "bot": True}],
        "starter": 2, "variants": ["ufo", "exploration", "missions"], "board": "reconstruction"})
    assert response.status_code == 201
    view = host.get("/api/state").get_json()
    assert [s["colour"] for s in view["seats"]] == ["blue", "orange", "yellow"]
    assert view["setup"]["starter"] == 2
    assert sorted(view["setup"]["variants"]) == ["exploration", "missions", "ufo"]


@pytest.mark.parametrize("body", [
    {"players": [{"name": "Solo"}]},
    {"players": [{"name": "A"}, {"name": "B"}], "board": "/etc/passwd"},
    {"players": [{"name": "A"}, {"name": "B"}], "board": "../../secrets.toml"},
    {"players": [{"name": "A"}, {"name": "B"}], "variants": ["warp"]},
    {"players": [{"name": "A", "colour": "pink"}, {"name": "B"}]},
    {"players": [{"name": "A", "colour": "blue"}, {"name": "B", "colour": "blue"}]},
    {"players": [{"name": "A"}, {"name": "B"}], "starter": 2},
    {"players": [{"name": "A", "bot": "yes"}, {"name": "B"}]},
    {"players": ["A", "B"]},
    {"players": [{"name": ""}, {"name": "B"}]},
])
def test_malformed_setups_are_400(host: Phone, table: TableService, body: dict[str, Any]) -> None:
    assert host.post("/api/setup", body).status_code == 400
    assert table.snapshot().game_id is None


def test_a_setup_starts_from_the_configured_game(table: TableService, pairing: Pairing,
                                                tmp_path: Path) -> None:
    """Rules, tokens, board and variants come from the daemon's config unless the body names
    them (a phone must not silently play other rules than a game set up on the Pi)."""
    board, tokens = tmp_path / "mat.toml", tmp_path / "tokens.toml"
    for shipped, copy in (("boards", board), ("tokens", tokens)):
        copy.write_bytes((MLEM / shipped / "reconstruction.toml").read_bytes())
    defaults = GameConfig(players=("X", "Y"), variants=frozenset({"ufo"}), board=str(board),
                          tokens=str(tokens), rules=RuleOptions(end_timing="immediate",
                                                                ufo_reshuffle=False))
    app = create_app(table, pairing, settings=WebSettings(setup_defaults=defaults,
                                                          boards=(str(board),)))
    phone = Phone(app.test_client(), pairing, "Host")
    assert phone.get("/api/setup").get_json()["boards"] == [str(board)]
    players = [{"name": "Anna"}, {"name": "Ben"}]
    assert phone.post("/api/setup", {"players": players}).status_code == 201
    assert table.snapshot().setup == replace(defaults, players=("Anna", "Ben")).to_json()
    assert phone.post("/api/setup", {"players": players, "variants": [], "starter": 1}
                      ).status_code == 201
    assert table.snapshot().setup == replace(defaults, players=("Anna", "Ben"), starter=1,
                                             variants=frozenset()).to_json()


def test_a_setup_the_rules_refuse_is_422(host: Phone, table: TableService) -> None:
    response = host.post("/api/setup", {"players": [{"name": "Anna"}, {"name": "Anna"}]})
    assert response.status_code == 422 and "distinct" in response.get_json()["error"]
    assert table.snapshot().game_id is None


# ------------------------------------------------------------------------------ playing


def test_manual_roll_undo_redo_and_correction(host: Phone, table: TableService) -> None:
    start_game(host, 2)
    for _ in range(2):
        assert host.post("/api/actions", {"action": first_option(host)}).status_code == 200
    rng = random.Random(3)
    roll = random_roll(6, rng)
    response = host.post("/api/actions", {"action": roll})
    assert response.status_code == 200
    assert any(e["name"] == "roll_read" for e in response.get_json()["events"])
    view = host.get("/api/state").get_json()
    assert view["last_roll"]["faces"] == roll.split()[1:] and view["can_undo"]
    assert host.post("/api/undo", {"steps": 1}).status_code == 200
    assert host.get("/api/state").get_json()["state"]["phase"] == "roll"
    assert host.post("/api/redo", {"steps": 1}).status_code == 200
    assert host.get("/api/state").get_json()["last_roll"]["faces"] == roll.split()[1:]
    assert host.post("/api/redo").status_code == 409
    assert host.post("/api/undo", {"steps": 0}).status_code == 400
    assert host.post("/api/undo", {"steps": 1000}).status_code == 400
    assert host.post("/api/undo", {"steps": 50}).status_code == 409
    response = host.post("/api/correct", {"faces": ["1", "1", "2", "2", "fuel", "fuel"]})
    assert response.status_code == 200
    assert host.get("/api/state").get_json()["last_roll"]["faces"] == [
        "1", "1", "2", "2", "fuel", "fuel"]
    before = version(table)
    response = host.post("/api/correct", {"faces": ["6"]})
    assert response.status_code == 409 and "does not exist" in response.get_json()["error"]
    assert host.post("/api/correct", {"faces": "1 2"}).status_code == 400
    assert version(table) == before


def test_camera_reading_confirm_and_reject_with_proof(host: Phone, table: TableService,
                                                      client: FlaskClient) -> None:
    start_game(host, 2)
    for _ in range(2):
        host.post("/api/actions", {"action": first_option(host)})
    jpeg = b"\xff\xd8\xff\xe0fake-jpeg\xff\xd9"
    assert table.propose_reading(Reading(("1", "2", "2", "3", "4", "fuel"), proof=jpeg)).ok
    prompt = host.get("/api/actions").get_json()["prompt"]
    assert [o["action"] for o in prompt["options"]] == ["confirm", "reject"]
    assert host.post("/api/actions", {"action": "reject"}).status_code == 200
    assert host.get("/api/state").get_json()["reading"] is None
    table.propose_reading(Reading(("1", "2", "2", "3", "4", "fuel"), proof=jpeg))
    assert host.post("/api/actions", {"action": "confirm"}).status_code == 200
    proof = host.get("/api/state").get_json()["last_roll"]["proof"]
    assert proof and client.get(proof).data == jpeg
    assert client.get(proof).mimetype == "image/jpeg"
    assert host.post("/api/actions", {"action": "confirm"}).status_code == 409
    assert client.get("/api/games/1/proofs/999").status_code == 404


def test_secret_missions_are_dealt_and_discarded_privately(
        host: Phone, guest: Phone, client: FlaskClient, table: TableService) -> None:
    start_game(host, 2, variants=("missions",))
    assert guest.post("/api/seat", {"seat": 1}).status_code == 200
    assert host.post("/api/seat", {"seat": 0}).status_code == 200
    public = client.get("/api/state").get_json()
    assert public["state"]["phase"] == "deal_missions" and public["prompt"]["options"] == []
    assert host.post("/api/draw").status_code == 200  # every hand dealt at once
    public = client.get("/api/state").get_json()
    assert public["state"]["phase"] == "discard_mission"
    assert public["prompt"]["options"] == [] and public["state"]["legal_actions"] == []
    assert client.get("/api/actions").get_json()["prompt"]["options"] == []
    text = client.get("/api/state").get_data(as_text=True)
    host_hand = host.get("/api/me").get_json()["missions"]
    guest_hand = guest.get("/api/me").get_json()["missions"]
    assert len(host_hand) == len(guest_hand) == 4
    assert not {m["id"] for m in host_hand} & {m["id"] for m in guest_hand}
    assert not any(f'"{m["id"]}"' in text for m in host_hand + guest_hand)
    # seat 0 discards first: the guest (seat 1) sees no options and may not act
    assert guest.get("/api/actions").get_json()["prompt"]["options"] == []
    before = version(table)
    response = guest.post("/api/actions", {"action": f"discard {host_hand[0]['id']}"})
    assert response.status_code == 403 and version(table) == before
    mine = host.get("/api/actions").get_json()
    assert mine["private"] and len(mine["prompt"]["options"]) == 4
    assert host.post("/api/actions", {"action": mine["prompt"]["options"][0]["action"]}
                     ).status_code == 200
    theirs = guest.get("/api/actions").get_json()
    assert theirs["private"] and len(theirs["prompt"]["options"]) == 4
    assert guest.post("/api/actions", {"action": theirs["prompt"]["options"][-1]["action"]}
                      ).status_code == 200
    assert len(host.get("/api/me").get_json()["missions"]) == 3
    assert client.get("/api/me").get_json()["missions"] is None


def test_the_owner_reads_missions_by_slot_the_table_only_their_numbers(
        host: Phone, guest: Phone, client: FlaskClient, table: TableService) -> None:
    """The seat's view (rules core observation) names its missions; the public view and the
    OLED's prompt only slots, until the game is over."""
    start_game(host, 2, variants=("missions",))
    assert guest.post("/api/seat", {"seat": 1}).status_code == 200
    assert host.post("/api/seat", {"seat": 0}).status_code == 200
    state = table.state_copy()
    assert state is not None
    before = version(table)
    chosen = host.post("/api/actions", {"action": f"draw {state.draw_pile()[0]}"})
    assert chosen.status_code == 403 and version(table) == before, "nobody picks a mission"
    assert host.post("/api/draw").status_code == 200
    hand = host.get("/api/me").get_json()["missions"]
    assert [m["slot"] for m in hand] == [1, 2, 3, 4]
    mine = host.get("/api/actions").get_json()["prompt"]["options"]
    assert [o["params"]["mission"] for o in mine] == [m["target"] for m in hand]
    oled = table.snapshot().prompt
    assert oled is not None and oled.sealed
    assert [o.label for o in oled.options] == ["Mission 1", "Mission 2", "Mission 3", "Mission 4"]
    assert [o.action for o in oled.options] == [o["action"] for o in mine]
    public = client.get("/api/state").get_json()["state"]
    assert public["missions"] == [[{"slot": n, "token": None, "target": None}
                                   for n in range(1, 5)]] * 2
    assert [p["score"]["missions"] for p in public["players"]] == [None, None]
    assert guest.post("/api/seat", {"seat": None}).status_code == 200
    assert host.post("/api/seat", {"seat": None}).status_code == 200
    play_to_end(host, table)
    final = client.get("/api/state").get_json()["state"]
    state = table.state_copy()
    assert state is not None
    assert [[m["token"] for m in kept] for kept in final["missions"]] == state.mission_hands
    assert [p["score"]["total"] for p in final["players"]] == state.returns()


def test_exploration_and_ufo_draws(host: Phone, table: TableService) -> None:
    start_game(host, 2, variants=("ufo", "exploration"))
    for _ in range(10):
        state = table.state_copy()
        assert state is not None
        if not state.is_chance_node() or state.phase.value == "roll":
            break
        assert host.post("/api/draw").status_code == 200
    view = host.get("/api/state").get_json()
    assert view["state"]["phase"] == "place"
    assert len(view["state"]["exploration"]) == 5 and view["state"]["ufo"]["token"]


def test_odds_can_be_switched_off_by_the_host(host: Phone, guest: Phone) -> None:
    start_game(host, 2)
    for _ in range(2):
        host.post("/api/actions", {"action": first_option(host)})
    assert host.get("/api/state").get_json()["odds"] is not None
    assert guest.post("/api/odds", {"enabled": False}).status_code == 403
    assert host.post("/api/odds", {"enabled": "no"}).status_code == 400
    assert host.post("/api/odds", {"enabled": False}).get_json() == {"odds_enabled": False}
    view = host.get("/api/state").get_json()
    assert view["odds"] is None and view["odds_enabled"] is False
    host.post("/api/odds", {"enabled": True})
    assert host.get("/api/state").get_json()["odds"] is not None


# ------------------------------------------------------------------------------ pairing API


def test_pairing_flow(client: FlaskClient, pairing: Pairing) -> None:
    assert client.get("/api/me").get_json()["paired"] is False
    assert client.post("/api/pair", json={"code": "nope"}).status_code == 403
    assert client.post("/api/pair", json={}).status_code == 400
    assert client.post("/api/pair", json={"code": "1", "name": 5}).status_code == 400
    response = client.post("/api/pair", json={"code": pairing.code(), "name": "Anna"})
    assert response.status_code == 201
    cookie = response.headers["Set-Cookie"]
    assert f"{TOKEN_COOKIE}=" in cookie and "HttpOnly" in cookie and "SameSite=Strict" in cookie
    me = client.get("/api/me").get_json()
    assert me["paired"] and me["device"]["is_host"] and me["csrf"]
    assert client.delete("/api/me", headers={"X-CSRF-Token": me["csrf"]}).status_code == 200
    assert client.get("/api/me").get_json()["paired"] is False


def test_pairing_locks_after_wrong_codes(client: FlaskClient) -> None:
    statuses = [client.post("/api/pair", json={"code": "x"}).status_code for _ in range(6)]
    assert statuses[:5] == [403] * 5 and statuses[5] == 429


def test_the_host_lists_and_revokes_phones(host: Phone, guest: Phone) -> None:
    assert guest.get("/api/devices").status_code == 403
    devices = host.get("/api/devices").get_json()["devices"]
    assert [d["name"] for d in devices] == ["Host", "Guest"]
    assert "token" not in devices[0] and "csrf" not in devices[0]
    assert guest.delete(f"/api/devices/{devices[0]['id']}").status_code == 403
    assert host.delete("/api/devices/nobody").status_code == 404
    assert host.delete(f"/api/devices/{guest.device['id']}").status_code == 200
    assert guest.get("/api/me").get_json()["paired"] is False
    assert guest.post("/api/seat", {"seat": None}).status_code == 401


def test_invite_qr_for_the_host_only(host: Phone, guest: Phone, client: FlaskClient) -> None:
    assert client.get("/api/pairing/invite.svg").status_code == 401
    assert guest.get("/api/pairing/invite.svg").status_code == 403
    svg = host.get("/api/pairing/invite.svg")
    assert svg.status_code == 200 and svg.data.startswith(b"<svg")


# ------------------------------------------------------------------------------ history & files


def test_a_finished_game_in_history_with_its_record(host: Phone, client: FlaskClient,
                                                   table: TableService) -> None:
    assert client.get("/api/history").get_json()["stats"]["games_played"] == 0
    start_game(host, 2, variants=("ufo",))
    game_id = table.snapshot().game_id
    assert client.get(f"/api/games/{game_id}/record").status_code == 401  # unfinished
    assert host.get(f"/api/games/{game_id}/record").status_code == 200  # the host may
    play_to_end(host, table, seed=5)
    view = client.get("/api/state").get_json()
    assert view["state"]["phase"] == "game_over" and view["state"]["winners"]
    assert view["prompt"]["kind"] == "game_over"
    assert set(view["planet_ranks"]) == set(view["board"]["planets"])
    history = client.get("/api/history").get_json()
    assert history["stats"]["games_played"] == 1
    assert history["stats"]["average_score"] is not None
    assert 0 <= history["stats"]["crash_rate"] <= 1
    assert history["games"][0]["players"] == ["Anna", "Ben"]
    record = client.get(f"/api/games/{game_id}/record")
    assert record.status_code == 200
    assert "attachment" in record.headers["Content-Disposition"]
    from companion.games.mlem.record import replay
    assert replay(record.get_data(as_text=True)).is_terminal()
    assert client.get("/api/games/999/record").status_code == 404


def test_oled_mirror(table: TableService, pairing: Pairing, client: FlaskClient) -> None:
    assert client.get("/api/oled.png").status_code == 404
    png = b"\x89PNG\r\n\x1a\nfake"
    app = create_app(table, pairing, settings={"oled_png": lambda: png})
    mirrored = app.test_client().get("/api/oled.png")
    assert mirrored.data == png and mirrored.mimetype == "image/png"
    assert app.test_client().get("/api/state").get_json()["oled"] is True
    assert b'id="oled"' in app.test_client().get("/").data


def test_openapi_document_is_served(client: FlaskClient) -> None:
    assert client.get("/api/openapi.yaml").data.startswith(b"openapi: 3.1")


def test_unknown_settings_are_an_error(table: TableService, pairing: Pairing) -> None:
    with pytest.raises(TypeError, match="unknown web settings"):
        create_app(table, pairing, settings={"odds": True})


def test_allowed_hosts_guard(table: TableService, pairing: Pairing) -> None:
    app = create_app(table, pairing, settings={"allowed_hosts": ["mlem.local"]})
    assert app.test_client().get("/api/state").status_code == 403
    ok = app.test_client().get("/api/state", headers={"Host": "mlem.local:8080"})
    assert ok.status_code == 200
