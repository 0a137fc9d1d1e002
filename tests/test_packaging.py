"""The wheel holds every package of the source tree (pre-commit and the Action install it without -e)."""

from __future__ import annotations

import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_every_package_is_listed_in_pyproject() -> None:
    setuptools = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["setuptools"]
    dirs = {name: ROOT / path for name, path in setuptools.get("package-dir", {}).items()}
    listed = set(setuptools["packages"])
    found = set()
    for top, root in [("autofix", ROOT / "autofix"), *dirs.items()]:
        for init in root.rglob("__init__.py"):
            parts = init.parent.relative_to(root).parts
            found.add(".".join((top, *parts)))
    assert found == listed, f"unlisted: {sorted(found - listed)}, listed but absent: {sorted(listed - found)}"
