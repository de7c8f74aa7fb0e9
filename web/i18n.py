"""Languages: English, Japanese, German, from simple JSON catalogs shipped with the package.

The language comes from the `lang` cookie (the switcher on every page sets it) or else from the
browser's Accept-Language. A missing key falls back to English, then to the key itself, but the
tests check that every key exists in all three catalogs.
"""

from __future__ import annotations

import json
from importlib import resources

from flask import Request

LANGUAGES = ("en", "ja", "de")
DEFAULT = "en"
COOKIE = "lang"


def load_catalogs() -> dict[str, dict[str, str]]:
    """Every catalog by language code (read once, when the app is built)."""
    folder = resources.files("web") / "i18n"
    return {lang: json.loads((folder / f"{lang}.json").read_text("utf-8")) for lang in LANGUAGES}


def choose_language(request: Request) -> str:
    cookie = request.cookies.get(COOKIE)
    if cookie in LANGUAGES:
        return cookie
    return request.accept_languages.best_match(LANGUAGES, default=DEFAULT) or DEFAULT


class Translator:
    """`t(key, **values)` for one language, with English as the fallback."""

    def __init__(self, catalogs: dict[str, dict[str, str]], lang: str) -> None:
        self.lang = lang
        self.catalog = catalogs.get(lang, {})
        self.fallback = catalogs.get(DEFAULT, {})

    def __call__(self, key: str, **values: object) -> str:
        text = self.catalog.get(key) or self.fallback.get(key) or key
        return text.format(**values) if values else text
