"""Browser tests in headless Chromium (Debian's `chromium`, driven by Playwright for Python).

A demo game is played from pairing and setup to the final breakdown through the phone page:
bot-like choices (the first option each time) and rolls typed on the page's dice entry.
Screenshots are kept under artifacts/web/ (gitignored) for people to look at.
"""

from __future__ import annotations

import random
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from companion.games.mlem.simulate import sample_chance
from companion.pairing import Pairing
from companion.table import TableService
from web.server import WebServer

pytestmark = pytest.mark.browser

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync"]
ARTIFACTS = Path(__file__).parents[2] / "artifacts" / "web"
PHONE = {"width": 390, "height": 844}
LAPTOP = {"width": 1280, "height": 860}
SIDES = ("1", "2", "2", "3", "4", "fuel")

if not Path(CHROMIUM).exists():
    pytest.skip("chromium is not installed (apt-get install chromium)", allow_module_level=True)
sync_api = pytest.importorskip("playwright.sync_api", reason="playwright is not installed")


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    with sync_api.sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=ARGS, headless=True)
        yield browser
        browser.close()


def shot(page: Any, name: str) -> None:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"{name}.png"), full_page=True)


def watch_errors(page: Any) -> list[str]:
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.on("console", lambda msg: errors.append(msg.text) if msg.type == "error" else None)
    return errors


def pair(page: Any, server: WebServer, pairing: Pairing, name: str) -> None:
    page.goto(f"{server.url}/join?code={pairing.code()}")
    page.fill("#pair-name", name)
    page.click("#pair-form button[type=submit]")
    page.wait_for_selector("#paired-card:not([hidden])")


def set_up(page: Any, server: WebServer) -> None:
    page.goto(f"{server.url}/setup")
    page.wait_for_selector("#players li")
    page.click("#add-player")
    names = page.locator("#players li input:not([type])")
    for i, name in enumerate(["Anna", "Ben", "Chi"]):
        names.nth(i).fill(name)
    page.locator("#players li select").nth(1).select_option("vermillion")
    page.check("#variants input[value=ufo]")
    page.check("#variants input[value=exploration]")
    page.select_option("#starter", "1")
    shot(page, f"setup-{page.viewport_size['width']}")
    page.click("#start")
    page.wait_for_url(f"{server.url}/")


def version(page: Any) -> str:
    return str(page.evaluate("() => document.body.dataset.version || ''"))


def wait_for_change(page: Any, before: str) -> None:
    page.wait_for_function("(v) => document.body.dataset.version && "
                           "document.body.dataset.version !== v", arg=before, timeout=10_000)


def play_step(page: Any, rng: random.Random) -> bool:
    """One bot-like step on the page; False once the final breakdown shows."""
    if page.is_visible("#final"):
        return False
    before = version(page)
    if page.is_visible("#dice-entry"):
        target = int(page.text_content("#dice-count").split("/")[1])
        for _ in range(target):
            page.click(f"#face-buttons button[data-face='{rng.choice(SIDES)}']")
        page.click("#dice-submit")
    elif page.is_visible("#draw"):
        page.click("#draw")
    else:
        page.locator("#options button").first.click()
    wait_for_change(page, before)
    return True


def test_a_demo_game_from_setup_to_the_final_breakdown_on_a_phone(
        browser: Any, server: WebServer, pairing: Pairing, table: TableService) -> None:
    context = browser.new_context(viewport=PHONE, device_scale_factor=2, is_mobile=True,
                                  has_touch=True, locale="en-GB")
    page = context.new_page()
    errors = watch_errors(page)
    pair(page, server, pairing, "Host")
    shot(page, "join-390")
    set_up(page, server)
    page.wait_for_selector("#prompt:not([hidden])")
    assert page.text_content("#prompt-title")
    rng = random.Random(7)
    steps = 0
    while play_step(page, rng):
        steps += 1
        if steps in (12, 40):
            shot(page, f"table-390-step{steps}")
        assert steps < 2000, "the game did not end"
    page.wait_for_selector("#final:not([hidden])")
    shot(page, "final-390")
    state = table.state_copy()
    assert state is not None and state.is_terminal()
    winners = page.text_content("#winners") or ""
    assert any(table.snapshot().setup["players"][w] in winners for w in state.winners())
    assert page.locator("#final-scores tbody tr").count() == 3
    href = page.get_attribute("#record-link", "href")
    assert href == f"/api/games/{table.snapshot().game_id}/record"
    record = page.request.get(f"{server.url}{href}")
    assert record.ok and record.json()["format"] == "mlem-game-record"
    page.goto(f"{server.url}/history")
    page.wait_for_selector("#games li")
    shot(page, "history-390")
    assert not errors, errors
    context.close()


def test_a_laptop_watcher_sees_the_live_table_and_cannot_act(
        browser: Any, server: WebServer, pairing: Pairing, table: TableService) -> None:
    phone = browser.new_context(viewport=PHONE)
    host = phone.new_page()
    pair(host, server, pairing, "Host")
    set_up(host, server)
    laptop = browser.new_context(viewport=LAPTOP, locale="de-DE")
    watcher = laptop.new_page()
    errors = watch_errors(watcher)
    watcher.goto(f"{server.url}/")
    watcher.wait_for_selector("#board-area:not([hidden])")
    assert watcher.get_attribute("html", "lang") == "de"
    assert watcher.is_visible("#pair-hint")
    assert watcher.locator("#options button").count() == 0
    rng = random.Random(3)
    host.wait_for_selector("#prompt:not([hidden])")
    for _ in range(8):
        play_step(host, rng)
    wait_for_change(watcher, "")
    watcher.wait_for_function("(v) => document.body.dataset.version === v",
                              arg=str(table.snapshot().version), timeout=10_000)
    assert watcher.locator("#track li").count() == 26
    shot(watcher, "table-1280-watcher-de")
    host.set_viewport_size(LAPTOP)
    shot(host, "table-1280-host")
    watcher.select_option("#lang", "ja")
    watcher.wait_for_selector("html[lang=ja]")
    watcher.wait_for_selector("#board-area:not([hidden])")
    shot(watcher, "table-1280-ja")
    assert not errors, errors
    phone.close()
    laptop.close()


def test_a_change_made_elsewhere_reaches_the_page(
        browser: Any, server: WebServer, pairing: Pairing, table: TableService) -> None:
    context = browser.new_context(viewport=PHONE)
    page = context.new_page()
    pair(page, server, pairing, "Host")
    set_up(page, server)
    page.wait_for_selector("#prompt:not([hidden])")
    rng = random.Random(1)
    for _ in range(12):  # the OLED buttons and the camera act through the table directly
        state = table.state_copy()
        assert state is not None
        action = sample_chance(state, rng) if state.is_chance_node() else state.legal_actions()[0]
        before = version(page)
        assert table.act(str(action), "button").ok
        wait_for_change(page, before)
        assert version(page) == str(table.snapshot().version)
    assert page.locator("#crew li").count() >= 1
    context.close()
