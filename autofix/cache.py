"""The cache folder: what one run keeps for the next, as ruff keeps `.ruff_cache`.

Where it is (the first that applies):

1. `--no-cache`, or `AUTOFIX_NO_CACHE` set to anything but `0`/empty: no cache at all;
2. `--cache-dir DIR`;
3. `AUTOFIX_CACHE_DIR`;
4. `cache-dir` in the configuration that applies to the working directory, relative to that
   configuration file's folder;
5. `.autofix_cache` in the project root: the folder of that configuration file, else the
   working directory (ruff's default, beside the project's `pyproject.toml`).

A new cache folder gets a `CACHEDIR.TAG` and a `.gitignore` holding `*`, so backups and git pass
it over; walks skip `.autofix_cache` by default.

What it holds, all of it JSON (a cache folder inside a checked-out repository is data, never code
to load)::

    <dir>/<build>/rules.json                  the rule index's facts (autofix.rule_index)
    <dir>/<build>/results/<ab>/<key>.json     one checked file's outcome (autofix.results)

`<build>` names what autofix is: Python's version and the path, size and modification time of
every file of the `autofix` and `autofix.fixers` packages, its code and its knowledge files
alike. Installing another release, editing a rule or regenerating a knowledge table gives a new
folder, so nothing cached by another build is ever read. Old folders are not pruned: remove the
cache folder to reclaim them.

Concurrent runs share it safely: every entry is written to a temporary file in its own folder
and renamed over the old one, so a reader sees a whole entry or none; an entry that cannot be
read or parsed is a miss. A cache that cannot be written (a read-only folder) is only slower.
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
import tempfile
from pathlib import Path

__all__ = ["DEFAULT_NAME", "Store", "build_id", "digest", "disabled_by_env", "locate"]

DEFAULT_NAME = ".autofix_cache"
ENV_DIR = "AUTOFIX_CACHE_DIR"
ENV_OFF = "AUTOFIX_NO_CACHE"

_TAG = (
    "Signature: 8a477f597d28d172789f06886806bc55\n"
    "# This file is a cache directory tag created by autofix.\n"
    "# For information about cache directory tags see https://bford.info/cachedir/\n"
)


def disabled_by_env() -> bool:
    value = os.environ.get(ENV_OFF, "")
    return value not in ("", "0")


def locate(given: Path | None, configured: Path | None, project_root: Path) -> Path:
    """The cache folder: --cache-dir, else $AUTOFIX_CACHE_DIR, else the configuration's
    `cache-dir` (already made absolute), else `.autofix_cache` in the project root."""
    if given is not None:
        return Path(os.path.abspath(given))
    if os.environ.get(ENV_DIR):
        return Path(os.path.abspath(os.path.expanduser(os.environ[ENV_DIR])))
    if configured is not None:
        return configured
    return project_root / DEFAULT_NAME


_BUILD: str | None = None


def build_id() -> str:
    """What this autofix is, as a name: a digest of Python's version and of every file of its packages
    (path, size, modification time). About a millisecond: a stat of each file, no read."""
    global _BUILD
    if _BUILD is None:
        import autofix
        import autofix.fixers

        digest = hashlib.blake2b(digest_size=10)
        digest.update(f"{sys.implementation.cache_tag} {sys.version_info[:3]}\n".encode())
        for top in (*autofix.__path__, *autofix.fixers.__path__):
            for folder, dirs, files in os.walk(top):
                dirs[:] = sorted(d for d in dirs if d != "__pycache__")
                for name in sorted(files):
                    if name.endswith((".pyc", ".pyo")):
                        continue
                    path = os.path.join(folder, name)
                    try:
                        st = os.stat(path)
                    except OSError:
                        continue
                    rel = os.path.relpath(path, top)
                    digest.update(f"{rel}\0{st.st_size}\0{st.st_mtime_ns}\n".encode())
        _BUILD = digest.hexdigest()
    return _BUILD


class Store:
    """One cache folder, seen through this build's part of it."""

    def __init__(self, root: Path):
        self.root = root
        self.folder = root / build_id()
        self._made: set[str] = set()  # folders known to exist

    def read(self, relative: str) -> object | None:
        """The JSON entry at relative, or None: absent, unreadable, or not whole JSON."""
        try:
            with open(self.folder / relative, "rb") as file:
                return json.loads(file.read())
        except (OSError, ValueError):
            return None

    def write(self, relative: str, data: object) -> bool:
        """Write an entry atomically (a temporary file beside it, renamed over it); False when the
        cache cannot be written, which only costs the next run the work."""
        path = self.folder / relative
        try:
            self._folder(path.parent)
            fd, temp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-", suffix=".json")
        except OSError:
            return False
        try:
            with os.fdopen(fd, "wb") as file:
                file.write(json.dumps(data, separators=(",", ":"), ensure_ascii=False).encode("utf-8"))
            os.chmod(temp, 0o666 & ~_umask())  # as an ordinary file (mkstemp's is the owner's only)
            os.replace(temp, path)
        except (OSError, TypeError, ValueError):
            try:
                os.unlink(temp)
            except OSError:
                pass
            return False
        return True

    def _folder(self, folder: Path) -> None:
        key = str(folder)
        if key in self._made:
            return
        if not self.root.is_dir():
            self.root.mkdir(parents=True, exist_ok=True)
            _mark(self.root)
        folder.mkdir(parents=True, exist_ok=True)
        self._made.add(key)


_UMASK: int | None = None


def _umask() -> int:
    global _UMASK
    if _UMASK is None:
        _UMASK = os.umask(0o022)
        os.umask(_UMASK)
    return _UMASK


def _mark(root: Path) -> None:
    """A new cache folder says what it is: to backup tools (CACHEDIR.TAG) and to git (.gitignore)."""
    for name, text in (("CACHEDIR.TAG", _TAG), (".gitignore", "# Created by autofix: a cache.\n*\n")):
        target = root / name
        if not target.exists():
            try:
                target.write_text(text, encoding="utf-8")
            except OSError:
                pass


def digest(*parts: bytes | str) -> str:
    """A key made of parts, none of which can run into the next."""
    found = hashlib.blake2b(digest_size=16)
    for part in parts:
        data = part.encode("utf-8", "surrogatepass") if isinstance(part, str) else part
        found.update(len(data).to_bytes(8, "little"))
        found.update(data)
    return found.hexdigest()
