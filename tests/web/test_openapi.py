"""The OpenAPI document and the app agree: same routes and methods, valid schemas."""

from __future__ import annotations

import re

import pytest
from flask import Flask
from jsonschema import Draft202012Validator

from tests.web.conftest import SPEC, check_schema

IGNORED_METHODS = {"HEAD", "OPTIONS"}


def flask_routes(app: Flask) -> set[tuple[str, str]]:
    routes = set()
    for rule in app.url_map.iter_rules():
        path = re.sub(r"<(?:[a-z]+:)?([a-z_]+)>", r"{\1}", rule.rule)
        for method in rule.methods or ():
            if method not in IGNORED_METHODS:
                routes.add((path, method.lower()))
    return routes


def documented_routes() -> set[tuple[str, str]]:
    methods = {"get", "post", "put", "patch", "delete"}
    return {(path, method) for path, item in SPEC["paths"].items() for method in item
            if method in methods}


def test_every_route_is_documented_and_every_documented_route_exists(app: Flask) -> None:
    assert flask_routes(app) - documented_routes() == set(), "routes missing from the document"
    assert documented_routes() - flask_routes(app) == set(), "documented routes the app lacks"


def test_it_is_openapi_3_1_with_valid_schemas() -> None:
    assert SPEC["openapi"].startswith("3.1")
    for name, schema in SPEC["components"]["schemas"].items():
        Draft202012Validator.check_schema(schema), name


def test_every_operation_documents_its_responses() -> None:
    for path, item in SPEC["paths"].items():
        for method, operation in item.items():
            assert operation.get("responses"), (path, method)
            if method != "get" and path.startswith("/api/") and path != "/api/pair":
                assert operation.get("security"), f"{method} {path} must say it needs pairing"


def test_static_files_listed_are_the_ones_served(app: Flask) -> None:
    listed = set(SPEC["paths"]["/static/{name}"]["get"]["parameters"][0]["schema"]["enum"])
    served = set(app.extensions["mlem"].static)
    assert listed == served


def test_the_validator_catches_a_response_that_breaks_the_document() -> None:
    with pytest.raises(AssertionError):
        check_schema({"ok": True, "events": "none", "version": 1},
                     "/components/schemas/ActionResult")
    with pytest.raises(AssertionError):
        check_schema({"version": 1}, "/components/schemas/View")
    check_schema({"error": "why"}, "/components/schemas/Error")
