"""What `--statistics` and `--show-fixes` print: findings counted per code, fixes listed per file.

```
2  SGL001  2 fixable  tokenspeed-mla-without-fp8-kv-cache
1  SGL101  0 fixable  unknown-option
```

`--statistics` counts the findings a run reports (with `--fix`, those that
remain), most frequent first, with how many of them `--fix` would fix in this
run (`--unsafe-fixes` counts unsafe fixes too); `--format json` gives a list of
`code`, `name`, `count` and `fixable`. `--show-fixes` lists what `--fix` fixed:

```
Fixed 1 finding(s):
- examples/launch.sh:
    1 × SGL001 (tokenspeed-mla-without-fp8-kv-cache)
```
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from autofix.pipeline import Reported

__all__ = ["Statistics", "fixes_text"]


@dataclass
class Statistics:
    counts: dict[str, list] = field(default_factory=dict)  # code -> [name, count, fixable]

    def add(self, r: Reported, unsafe: bool) -> None:
        entry = self.counts.setdefault(r.fixer.code, [r.fixer.name, 0, 0])
        entry[1] += 1
        if r.fix is not None and not r.fixed and r.fix.applies(unsafe):
            entry[2] += 1

    def rows(self) -> list[tuple[str, str, int, int]]:
        rows = [(code, name, count, fixable) for code, (name, count, fixable) in self.counts.items()]
        return sorted(rows, key=lambda row: (-row[2], row[0]))

    def text(self) -> str:
        rows = self.rows()
        if not rows:
            return ""
        count_w = max(len(str(row[2])) for row in rows)
        code_w = max(len(row[0]) for row in rows)
        fix_w = max(len(f"{row[3]} fixable") for row in rows)
        return "\n".join(f"{count:>{count_w}}  {code:<{code_w}}  {f'{fixable} fixable':<{fix_w}}  {name}"
                         for code, name, count, fixable in rows)

    def json(self) -> str:
        return json.dumps([{"code": code, "name": name, "count": count, "fixable": fixable}
                           for code, name, count, fixable in self.rows()], indent=2)


def fixes_text(fixed: list[tuple[str, Reported]]) -> str:
    """The findings a --fix fixed, counted per file and code, files in the run's order."""
    if not fixed:
        return ""
    by_file: dict[str, dict[tuple[str, str], int]] = {}
    for path, r in fixed:
        codes = by_file.setdefault(path, {})
        codes[(r.fixer.code, r.fixer.name)] = codes.get((r.fixer.code, r.fixer.name), 0) + 1
    lines = [f"Fixed {len(fixed)} finding(s):"]
    for path, codes in by_file.items():
        lines.append(f"- {path}:")
        lines += [f"    {n} × {code} ({name})" for (code, name), n in sorted(codes.items())]
    return "\n".join(lines)
