"""How the suite spreads over pytest-xdist workers (`-n auto --dist loadgroup`, pyproject's addopts).

Tests go to whichever worker is free, except those sharing a module- or
session-scoped fixture defined in their own module (one batch of SGLang oracle
calls for the whole module, pre-commit's hook installs): such a fixture would
run once in every worker that gets one of them, so they carry an xdist_group
named after the module and run in one worker, the fixture once.

Each worker asks SGLang's oracle through warm servers (tests/oracle.py), one
per release. In a run of many oracle tests, the first one a worker meets
starts the servers of every release built, so their imports of sglang overlap
with the tests instead of coming one after the other.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

import oracle

# No test reads the Hugging Face cache of the machine it runs on (autofix looks models up there):
# the tests that want one make their own.
os.environ["HF_HUB_CACHE"] = str(Path(__file__).resolve().parent / "data" / "no-hf-cache")
# Nor does it keep a cache (autofix.cache): a run of the command line would leave `.autofix_cache` in the
# working directory, the repository's own. The tests of the cache turn it on, in a folder of their own
# (tests/test_cache.py); every other test checks afresh.
os.environ["AUTOFIX_NO_CACHE"] = "1"

# Some modules import it as `tests.oracle`, others as `oracle`: one module, so one set of servers.
sys.modules.setdefault("tests.oracle", oracle)

SHARED_SCOPES = ("module", "package", "session")
WARM_AFTER = 20  # oracle tests in the run: fewer, and each starts only the releases it asks


def _shared_fixture_module(item: pytest.Item) -> str | None:
    module = getattr(item, "module", None)
    info = getattr(item, "_fixtureinfo", None)
    if module is None or info is None:
        return None
    for name in item.fixturenames:
        for fixture in info.name2fixturedefs.get(name, ()):
            if fixture.scope in SHARED_SCOPES and getattr(fixture.func, "__module__", None) == module.__name__:
                return module.__name__
    return None


def _uses_oracle(item: pytest.Item) -> bool:
    module = getattr(item, "module", None)
    return module is not None and any(v is oracle for v in vars(module).values())


@pytest.hookimpl(tryfirst=True)  # before xdist's own hook reads the groups
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        if item.get_closest_marker("xdist_group") is None:
            group = _shared_fixture_module(item)
            if group is not None:
                item.add_marker(pytest.mark.xdist_group(group))


_WARM = pytest.StashKey[bool]()
_warmed = False


def pytest_collection_finish(session: pytest.Session) -> None:
    # After -k and -m have deselected: the tests that will run.
    session.config.stash[_WARM] = sum(_uses_oracle(item) for item in session.items) >= WARM_AFTER


def pytest_runtest_setup(item: pytest.Item) -> None:
    global _warmed
    if not _warmed and item.config.stash.get(_WARM, False) and _uses_oracle(item):
        _warmed = True
        oracle.warm()
