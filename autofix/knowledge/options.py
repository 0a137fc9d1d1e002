"""SGLang's option table for one release, and argparse's way of reading a flag."""

from __future__ import annotations

import bisect

import functools
import json
from dataclasses import dataclass
from importlib import resources

from autofix.knowledge.releases import DEFAULT_RELEASE, RELEASES, nearest_table, parse_release

__all__ = ["Ambiguous", "Option", "OptionTable", "all_tables", "table"]


@dataclass(frozen=True, slots=True)
class Option:
    dest: str
    flags: tuple[str, ...]
    action: str
    nargs: int | str | None
    type: str | None
    choices: tuple[str, ...] | None
    default: object

    @property
    def primary(self) -> str:
        """The spelling autofix writes: SGLang's own first long option."""
        return self.flags[0]

    @property
    def takes_value(self) -> bool:
        if self.action in ("store_true", "store_false", "store_const", "count", "help", "boolean_optional"):
            return False
        return self.nargs != 0

    @property
    def is_boolean(self) -> bool:
        """A switch: it takes no value (store_true and SGLang's own zero-argument actions)."""
        return not self.takes_value and self.action not in ("help", "count")


@dataclass(frozen=True, slots=True)
class Ambiguous:
    spelling: str
    matches: tuple[str, ...]


class OptionTable:
    """Options of one SGLang release, looked up the way argparse does."""

    def __init__(self, release: str, options: list[Option], config_unsupported: frozenset[str]):
        self.release = release
        self.options = options
        self.config_unsupported = config_unsupported
        self._by_flag = {flag: opt for opt in options for flag in opt.flags}
        self._by_dest: dict[str, Option] = {}
        for opt in options:
            self._by_dest.setdefault(opt.dest, opt)
        self._long = sorted(self._by_flag)
        self._prefixes: dict[str, tuple[Option, str] | Ambiguous | None] = {}  # abbreviations resolved so far

    def by_dest(self, dest: str) -> Option | None:
        return self._by_dest.get(dest)

    def lookup(self, spelling: str) -> tuple[Option, str] | Ambiguous | None:
        """Resolve '--tp' or '--tp-size' to (option, the flag string matched).

        Exact option strings win; otherwise a unique prefix of a long option,
        as argparse's allow_abbrev does; several prefixes are ambiguous.
        """
        opt = self._by_flag.get(spelling)
        if opt is not None:
            return opt, spelling
        if not spelling.startswith("--") or len(spelling) < 3:
            return None
        if spelling not in self._prefixes:
            # The long flags that start with spelling: a run of the sorted list.
            at = bisect.bisect_left(self._long, spelling)
            matches = []
            while at < len(self._long) and self._long[at].startswith(spelling):
                matches.append(self._long[at])
                at += 1
            found: tuple[Option, str] | Ambiguous | None = None
            if len(matches) == 1:
                found = self._by_flag[matches[0]], matches[0]
            elif matches:
                found = Ambiguous(spelling, tuple(matches))
            self._prefixes[spelling] = found
        return self._prefixes[spelling]


@functools.cache
def table(release: str | None = None) -> OptionTable:
    """The option table of release (or of the nearest older one autofix knows)."""
    if release is None:
        release = DEFAULT_RELEASE
    if release not in RELEASES:
        parsed = parse_release(release)
        release = nearest_table(parsed) if parsed else DEFAULT_RELEASE
    data = json.loads(resources.files("autofix.knowledge").joinpath(f"data/options-{release}.json").read_text())
    options = [
        Option(
            dest=o["dest"],
            flags=tuple(o["flags"]),
            action=o["action"],
            nargs=o["nargs"],
            type=o["type"],
            choices=tuple(o["choices"]) if o["choices"] is not None else None,
            default=o["default"],
        )
        for o in data["options"]
        if o["flags"]
    ]
    return OptionTable(release, options, frozenset(data.get("config_unsupported", ())))


def all_tables() -> tuple[OptionTable, ...]:
    """Every release's table, oldest first: what a launch of unknown release may run on."""
    return tuple(table(release) for release in RELEASES)
