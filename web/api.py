"""The JSON API (described by web/openapi.yaml, which the tests keep true).

Reading is open; acting needs a paired phone (see auth.py). Every command goes to the table
service, the single writer; a refused command changes nothing and says why in `error`.
"""

from __future__ import annotations

import io
import random
from dataclasses import replace
from typing import Any

import segno
from flask import Blueprint, Response, jsonify, request

from companion.games.mlem import VARIANTS, GameConfig, Phase
from companion.games.mlem.game import ASTRONAUT_KINDS, MAX_PLAYERS, MIN_PLAYERS
from companion.games.mlem.observation import hand
from companion.games.mlem.simulate import sample_draw
from companion.pairing import Device, PairingError, PairingLocked
from companion.prompts import Prompt, prompt_for
from companion.table import Result

from .auth import (
    TOKEN_COOKIE,
    current_device,
    error,
    origin_ok,
    paired,
)
from .context import WebContext, ctx
from .history import record_text
from .present import PALETTE, SYMBOLS

api = Blueprint("api", __name__, url_prefix="/api")

MAX_STEPS = 100
MAX_ACTION_LENGTH = 200
DECISION_KINDS = frozenset({"place", "choose", "landing", "parachute", "deep_space",
                            "discard_mission"})
COOKIE_AGE = 30 * 24 * 3600
_RANDOM = random.SystemRandom()


class BadRequest(Exception):
    """A malformed body: answered with 400 and the reason."""


@api.errorhandler(BadRequest)
def _bad_request(exc: BadRequest) -> tuple[Response, int]:
    return error(400, str(exc))


def body() -> dict[str, Any]:
    """The request's JSON object.

    :raises BadRequest: not JSON, or not an object.
    """
    data = request.get_json(silent=True)
    if not isinstance(data, dict):
        raise BadRequest("expected a JSON object body (Content-Type: application/json)")
    return data


def field_int(data: dict[str, Any], key: str, default: int | None, low: int, high: int) -> int:
    value = data.get(key, default)
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise BadRequest(f"{key!r} must be an integer from {low} to {high}")
    return value


def field_str(data: dict[str, Any], key: str, max_length: int) -> str:
    value = data.get(key)
    if not isinstance(value, str) or not value.strip() or len(value) > max_length:
        raise BadRequest(f"{key!r} must be a non-empty string of at most {max_length} characters")
    return value.strip()


def outcome(result: Result, status: int = 200) -> tuple[Response, int]:
    """A table Result as a response: refused -> 409 with the reason."""
    if not result.ok:
        return error(409, result.error or "refused", version=ctx().table.snapshot().version)
    return jsonify({"ok": True, "events": [e.to_json() for e in result.events],
                    "version": ctx().table.snapshot().version}), status


def source(device: Device) -> str:
    return f"phone:{device.name}"[:40]


# ------------------------------------------------------------------------------ reading


@api.get("/state")
def state() -> Response:
    """The full public view: snapshot, board, seats, odds (the same JSON the stream sends)."""
    return jsonify(ctx().hub.view())


@api.get("/stream")
def stream() -> Response:
    """Server-Sent Events: the current view at once, then after every change."""
    c = ctx()
    response = Response(c.hub.stream(c.settings.heartbeat), mimetype="text/event-stream")
    response.headers["Cache-Control"] = "no-cache"
    response.headers["X-Accel-Buffering"] = "no"
    return response


def may_see_private(c: WebContext, device: Device | None, seat: int) -> bool:
    """Secret missions: only the phone holding the seat, or the host while no phone holds it."""
    if device is None:
        return False
    holder = c.pairing.seat_holders().get(seat)
    return holder.id == device.id if holder else device.is_host


def may_answer(c: WebContext, device: Device, prompt: Prompt) -> bool:
    """Whose decision it is: the phone holding the seat; free seats are anyone's (bots: host).

    A sealed decision (the rules core hides it from the table) only for a phone that may see
    its seat's secrets.
    """
    seat = prompt.seat
    if prompt.sealed and seat is not None:
        return may_see_private(c, device, seat)
    if seat is None or prompt.kind not in DECISION_KINDS:
        return True  # rolls and token reveals: whoever enters them
    holder = c.pairing.seat_holders().get(seat)
    if holder is not None:
        return holder.id == device.id or device.is_host
    if seat in c.seats.bots_of(c.table.snapshot().game_id):
        return device.is_host
    return True


def seat_prompt(c: WebContext, prompt: Prompt) -> Prompt | None:
    """A sealed prompt as its own seat sees it (missions named); None if the table moved on."""
    state = c.table.state_copy()
    if state is None or prompt.seat is None:
        return None
    own = prompt_for(state, prompt.seat)
    same = [o.action for o in own.options] == [o.action for o in prompt.options]
    return own if same and own.kind == prompt.kind else None


@api.get("/actions")
def actions() -> Response:
    """The pending prompt; a sealed one's options only for the phone that may see its seat's."""
    c = ctx()
    snapshot = c.table.snapshot()
    prompt = snapshot.prompt
    device = current_device()
    shown = prompt
    if prompt and prompt.sealed and prompt.seat is not None and may_see_private(
            c, device, prompt.seat):
        shown = seat_prompt(c, prompt) or prompt
    data: dict[str, Any] | None = shown.to_json() if shown else None
    if shown and data and shown.sealed:
        data["options"] = []
    may_act = bool(prompt and device and prompt.kind != "game_over"
                   and may_answer(c, device, prompt))
    return jsonify({"version": snapshot.version, "prompt": data, "may_act": may_act,
                    "private": shown is not prompt})


# ------------------------------------------------------------------------------ acting


@api.post("/actions")
@paired()
def submit_action() -> tuple[Response, int]:
    """Answer the prompt: an action's text form, or "confirm"/"reject" for a camera reading."""
    c = ctx()
    data = body()
    text = field_str(data, "action", MAX_ACTION_LENGTH)
    snapshot = c.table.snapshot()
    if "version" in data and data["version"] != snapshot.version:
        return error(409, "the table moved on: look again", version=snapshot.version)
    device = current_device()
    assert device is not None
    prompt = snapshot.prompt
    if prompt is None:
        return error(409, "no game in progress: set one up first", version=snapshot.version)
    if not may_answer(c, device, prompt):
        return error(403, "it is another player's decision", version=snapshot.version)
    if prompt.sealed and prompt.seat is None:
        return error(403, "the missions are dealt unseen: use Draw", version=snapshot.version)
    if text == "confirm":
        return outcome(c.table.confirm_reading(source(device)))
    if text == "reject":
        return outcome(c.table.reject_reading())
    return outcome(c.table.act(text, source(device)))


@api.post("/draw")
@paired()
def draw() -> tuple[Response, int]:
    """Reveal a token at random (dealing secret missions deals every hand at once, unseen)."""
    c = ctx()
    body()
    state = c.table.state_copy()
    if state is None or not state.is_chance_node() or state.phase is Phase.ROLL:
        return error(409, "no token to draw now", version=c.table.snapshot().version)
    dealing = state.phase is Phase.DEAL_MISSIONS
    drawn = 0
    while True:
        action = sample_draw(state, _RANDOM)
        result = c.table.act(str(action), "phone:draw")
        if not result.ok:
            return outcome(result) if drawn == 0 else outcome(Result(True))
        state.apply_action(action)
        drawn += 1
        if not (dealing and state.phase is Phase.DEAL_MISSIONS):
            break
    response, status = outcome(Result(True))
    return response, status


@api.post("/undo")
@paired()
def undo() -> tuple[Response, int]:
    steps = field_int(body(), "steps", 1, 1, MAX_STEPS)
    return outcome(ctx().table.undo(steps))


@api.post("/redo")
@paired()
def redo() -> tuple[Response, int]:
    steps = field_int(body(), "steps", 1, 1, MAX_STEPS)
    return outcome(ctx().table.redo(steps))


@api.post("/correct")
@paired()
def correct() -> tuple[Response, int]:
    """Correct the latest roll (misread by the camera, or mistyped)."""
    faces = body().get("faces")
    if (not isinstance(faces, list) or not 1 <= len(faces) <= 6
            or not all(isinstance(f, str) and len(f) <= 8 for f in faces)):
        raise BadRequest("'faces' must be a list of 1 to 6 faces (1, 2, 3, 4, fuel)")
    device = current_device()
    assert device is not None
    return outcome(ctx().table.correct_roll(list(faces), source(device)))


# ------------------------------------------------------------------------------ setup


@api.get("/setup")
def setup_options() -> Response:
    c = ctx()
    return jsonify({
        "variants": list(VARIANTS),
        "boards": list(c.settings.boards),
        "palette": [{"name": name, "hex": hex_} for name, hex_ in PALETTE.items()],
        "symbols": list(SYMBOLS),
        "min_players": MIN_PLAYERS,
        "max_players": MAX_PLAYERS,
        "astronaut_kinds": list(ASTRONAUT_KINDS),
        "current": c.table.snapshot().setup,
    })


def parse_setup(data: dict[str, Any], defaults: GameConfig, boards: tuple[str, ...]
                ) -> tuple[GameConfig, tuple[str, ...], frozenset[int]]:
    """A setup body as (config, colours, bot seats): the configured `defaults` with what the body
    names (players, starter, variants, board); tokens and rules are the config's alone.

    :raises BadRequest: anything malformed, or a board not offered (the rules core checks the
        rest).
    """
    players = data.get("players")
    if not isinstance(players, list) or not MIN_PLAYERS <= len(players) <= MAX_PLAYERS:
        raise BadRequest(f"'players' must list {MIN_PLAYERS} to {MAX_PLAYERS} players")
    names: list[str] = []
    colours: list[str] = []
    bots: set[int] = set()
    free = [c for c in PALETTE]
    for seat, player in enumerate(players):
        if not isinstance(player, dict):
            raise BadRequest("each player must be an object with a name")
        names.append(field_str(player, "name", 24))
        colour = player.get("colour", free[seat])
        if not isinstance(colour, str) or colour not in PALETTE or colour in colours:
            raise BadRequest(f"colour {colour!r} is not a free palette colour")
        colours.append(colour)
        if player.get("bot", False) is True:
            bots.add(seat)
        elif player.get("bot", False) is not False:
            raise BadRequest("'bot' must be true or false")
    variants = data.get("variants", list(defaults.variants))
    if not isinstance(variants, list) or not all(v in VARIANTS for v in variants):
        raise BadRequest(f"'variants' must be a list drawn from {list(VARIANTS)}")
    board = data.get("board", defaults.board)
    if "board" in data and board not in boards:
        raise BadRequest(f"'board' must be one of {list(boards)}")
    starter = field_int(data, "starter", defaults.starter, 0, len(players) - 1)
    config = replace(defaults, players=tuple(names), starter=starter,
                     variants=frozenset(variants), board=board)
    return config, tuple(colours), frozenset(bots)


@api.post("/setup")
@paired(host=True)
def new_game() -> tuple[Response, int]:
    """Start a new game (host only); the unfinished one stays in the store."""
    c = ctx()
    data = body()
    config, colours, bots = parse_setup(data, c.settings.setup_defaults, c.settings.boards)
    result = c.table.new_game(config)
    if not result.ok:
        return error(422, result.error or "refused", version=c.table.snapshot().version)
    game_id = c.table.snapshot().game_id
    assert game_id is not None
    c.seats.set(game_id, colours, bots)
    c.pairing.release_seats()  # refreshes the live view with the new colours
    if c.settings.on_setup is not None:
        c.settings.on_setup(game_id, config, tuple(sorted(bots)))
    response, _ = outcome(result)
    return response, 201


# ------------------------------------------------------------------------------ pairing


def device_json(device: Device) -> dict[str, Any]:
    return device.public()


@api.post("/pair")
def pair() -> tuple[Response, int]:
    """Pair this phone with the code on the OLED; sets the token cookie."""
    if not origin_ok():
        return error(403, "cross-site request refused")
    data = body()
    code = field_str(data, "code", 16)
    name = data.get("name", "")
    if not isinstance(name, str) or len(name) > 64:
        raise BadRequest("'name' must be a string of at most 64 characters")
    c = ctx()
    try:
        device = c.pairing.pair(code, name)
    except PairingLocked as exc:
        return error(429, str(exc))
    except PairingError as exc:
        return error(403, str(exc))
    response = jsonify({"device": device_json(device), "token": device.token,
                        "csrf": device.csrf})
    response.set_cookie(TOKEN_COOKIE, device.token, max_age=COOKIE_AGE, httponly=True,
                        samesite="Strict", secure=c.settings.secure_cookies)
    return response, 201


@api.get("/me")
def me() -> Response:
    """This phone: paired or not, its CSRF token, its seat and (privately) its secret missions."""
    c = ctx()
    device = current_device()
    if device is None:
        return jsonify({"paired": False, "device": None, "csrf": None, "missions": None})
    missions = None
    if device.seat is not None:
        state = c.table.state_copy()
        if state is not None and state.game.has("missions") and device.seat < len(
                state.mission_hands):
            missions = [{"slot": m.slot, "id": m.token, "target": m.target}
                        for m in hand(state, device.seat, device.seat)]
    return jsonify({"paired": True, "device": device_json(device), "csrf": device.csrf,
                    "missions": missions})


@api.delete("/me")
@paired()
def unpair() -> Response:
    device = current_device()
    assert device is not None
    ctx().pairing.revoke(device.id)
    response = jsonify({"ok": True})
    response.delete_cookie(TOKEN_COOKIE, samesite="Strict")
    return response


@api.post("/seat")
@paired()
def claim_seat() -> tuple[Response, int]:
    """Play a seat from this phone (null gives it up)."""
    c = ctx()
    seat = body().get("seat", None)
    snapshot = c.table.snapshot()
    players = len(snapshot.setup["players"]) if snapshot.setup else 0
    if seat is not None:
        if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < players:
            raise BadRequest(f"'seat' must be null or a seat from 0 to {players - 1}")
        if seat in c.seats.bots_of(snapshot.game_id):
            return error(409, "a bot plays that seat")
    device = current_device()
    assert device is not None
    try:
        updated = c.pairing.claim_seat(device.id, seat)
    except PairingError as exc:
        return error(409, str(exc))
    return jsonify({"device": device_json(updated)}), 200


@api.get("/devices")
@paired(host=True)
def devices() -> Response:
    return jsonify({"devices": [device_json(d) for d in ctx().pairing.devices()]})


@api.delete("/devices/<device_id>")
@paired(host=True)
def revoke(device_id: str) -> tuple[Response, int]:
    try:
        ctx().pairing.revoke(device_id)
    except PairingError as exc:
        return error(404, str(exc))
    return jsonify({"ok": True}), 200


def join_url() -> str:
    c = ctx()
    base = c.settings.public_url or request.url_root
    return base.rstrip("/") + "/join"


def qr_svg(text: str) -> Response:
    buffer = io.BytesIO()
    segno.make(text, error="m").save(buffer, kind="svg", scale=6, border=2, xmldecl=False,
                                     dark="#000", light="#fff",
                                     svgns=True, title="QR code")
    response = Response(buffer.getvalue(), mimetype="image/svg+xml")
    response.headers["Cache-Control"] = "no-store"
    return response


@api.get("/pairing/invite.svg")
@paired(host=True)
def invite() -> Response:
    """A QR code with the current pairing code, for the host to show the other players."""
    return qr_svg(f"{join_url()}?code={ctx().pairing.code()}")


@api.post("/odds")
@paired(host=True)
def odds() -> Response:
    """Switch the odds of the next roll on or off for everyone (host only)."""
    enabled = body().get("enabled")
    if not isinstance(enabled, bool):
        raise BadRequest("'enabled' must be true or false")
    ctx().hub.set_odds(enabled)
    return jsonify({"odds_enabled": enabled})


# ------------------------------------------------------------------------------ history & files


@api.get("/history")
def history() -> Response:
    c = ctx()
    return jsonify(c.history.report(c.settings.history_limit))


@api.get("/games/<int:game_id>/record")
def record(game_id: int) -> tuple[Response, int]:
    """The game record (JSON) to download; an unfinished game's only for the host (missions)."""
    c = ctx()
    stored = c.table.store.game(game_id)
    if stored is None:
        return error(404, f"no game {game_id}")
    if stored.finished is None:
        device = current_device()
        if device is None:
            return error(401, "an unfinished game's record is for the host only")
        if not device.is_host:
            return error(403, "an unfinished game's record is for the host only")
    response = Response(record_text(stored), mimetype="application/json")
    response.headers["Content-Disposition"] = f'attachment; filename="mlem-game-{game_id}.json"'
    return response, 200


@api.get("/games/<int:game_id>/proofs/<int:seq>")
def proof(game_id: int, seq: int) -> tuple[Response, int]:
    """The photo a roll was read from (proof of roll)."""
    return _picture(ctx().table.store.proof(game_id, seq), "image/jpeg", "max-age=3600",
                    "no picture for that roll")


@api.get("/oled.png")
def oled() -> tuple[Response, int]:
    """Demo mode: the OLED's current image."""
    render = ctx().settings.oled_png
    return _picture(render() if render else None, "image/png", "no-store",
                    "no OLED mirror (demo mode only)")


def _picture(data: bytes | None, mimetype: str, cache_control: str,
             missing: str) -> tuple[Response, int]:
    """An image response, or 404 saying what is ``missing``."""
    if data is None:
        return error(404, missing)
    response = Response(data, mimetype=mimetype)
    response.headers["Cache-Control"] = cache_control
    return response, 200


@api.get("/openapi.yaml")
def openapi() -> Response:
    return Response(ctx().openapi, mimetype="application/yaml")
