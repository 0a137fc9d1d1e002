"""SGLang releases autofix has tables for, and how release strings compare."""

from __future__ import annotations

import functools
import re
from pathlib import Path

__all__ = ["DEFAULT_RELEASE", "RELEASES", "Release", "checked_as", "parse_release", "release_of", "unknown_release"]

Release = tuple[int, ...]

# Every release whose option table and catalogue are generated into knowledge/data: the one list,
# in releases.txt beside this file, which the scripts and the parser environment read too.
RELEASES: tuple[str, ...] = tuple(
    line.strip() for line in (Path(__file__).with_name("releases.txt")).read_text(encoding="utf-8").splitlines()
    if line.strip()
)

# The table used to read a launch whose release is not known: the newest
# release in which the seed records hold.
DEFAULT_RELEASE = "0.5.22"

_RELEASE = re.compile(r"v?(\d+)\.(\d+)\.(\d+)(?:\.post\d+|rc\d+)?$")


@functools.lru_cache(maxsize=256)  # every fixer asks, for every launch
def parse_release(text: str) -> Release | None:
    """'0.5.18', 'v0.5.18', '0.5.18.post1' -> (0, 5, 18); anything else -> None."""
    match = _RELEASE.match(text.strip())
    if match is None:
        return None
    return tuple(int(part) for part in match.groups())


def release_of(text: str | None) -> str | None:
    """The release a version names, for checking: '0.5.18.post1', 'v0.5.18rc1' -> '0.5.18'; None when none.

    A post release (`.postN`) is its release with fixes: it has that release's
    options and checks. A release candidate (`rcN`) is the code its release
    was cut from: checked as that release, as the nearest knowledge autofix
    has of it (an `rc` of a release newer than autofix knows is then checked
    as the newest, with the warning any newer release gets).
    """
    parsed = parse_release(text) if text is not None else None
    return ".".join(map(str, parsed)) if parsed is not None else None


def nearest_table(release: Release) -> str:
    """The generated table closest to release (the release itself when known)."""
    known = [(parse_release(r), r) for r in RELEASES]
    older = [r for v, r in known if v <= release]
    return older[-1] if older else RELEASES[0]


def checked_as(release: str) -> str:
    """The release whose knowledge checks release: a newer one than any autofix knows is
    checked as the newest (what a new release keeps of the last one is most of it)."""
    parsed = parse_release(release)
    if parsed is not None and parsed > parse_release(RELEASES[-1]):  # type: ignore[operator]
        return RELEASES[-1]
    return release


def unknown_release(release: str) -> str | None:
    """Why release cannot be checked (the sentence names the known ones); None when it can."""
    parsed = parse_release(release)
    known = f"autofix knows SGLang {RELEASES[0]} to {RELEASES[-1]}"
    if parsed is None:
        return f"{known}; {release!r} is not an SGLang release"
    if parsed < parse_release(RELEASES[0]):  # type: ignore[operator]
        return f"{known}; {release} is older than any of them"
    if parsed <= parse_release(RELEASES[-1]) and ".".join(map(str, parsed)) not in RELEASES:  # type: ignore[operator]
        return f"{known}; SGLang never had {release}"
    return None
