"""The rules core imports nothing but the standard library (and itself): a test proves it."""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import companion.games.mlem as mlem

CORE = Path(mlem.__file__).parent


def imported_top_level_modules(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.add(node.module.split(".")[0])
    return names


def test_rules_core_imports_only_the_standard_library() -> None:
    sources = sorted(CORE.rglob("*.py"))
    assert len(sources) >= 10, "the scan found the rules core's modules"
    offenders = {
        f"{path.relative_to(CORE)}: {name}"
        for path in sources
        for name in imported_top_level_modules(path)
        if name not in sys.stdlib_module_names and name != "__future__"
    }
    assert offenders == set()


def test_scan_catches_a_third_party_import(tmp_path: Path) -> None:
    """The scanner itself is not blind: a numpy import is reported."""
    module = tmp_path / "bad.py"
    module.write_text("import numpy as np\nfrom flask import Flask\nfrom . import x\n")
    found = imported_top_level_modules(module) - set(sys.stdlib_module_names)
    assert found == {"numpy", "flask"}
