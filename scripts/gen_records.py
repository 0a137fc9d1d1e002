#!/usr/bin/env python3
"""Write each hand-written fixer's error record from the catalogue.

One ``autofix/knowledge/records/<record>.json`` per fixer that is not a rule in
the catalogue's shape (those build theirs when asked), made by
``autofix.knowledge.records.build``: nothing in it is typed here. A record file
no fixer names is removed. Run after ``scripts/gen_catalogue.py``::

    python scripts/gen_records.py            # rewrite the records
    python scripts/gen_records.py --check    # exit 1 if a committed file differs
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from autofix.fixer import all_fixers  # noqa: E402
from autofix.knowledge.records import build  # noqa: E402

FOLDER = ROOT / "autofix" / "knowledge" / "records"


def text_of(data: dict) -> str:
    return json.dumps(data, indent=2, ensure_ascii=False) + "\n"


def wanted() -> dict[Path, str]:
    return {FOLDER / f"{fx.record}.json": text_of(build(fx)) for fx in all_fixers() if fx.rule is None}


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="exit 1 if a committed record differs")
    args = parser.parse_args(argv)
    files = wanted()
    stale = [p for p in sorted(FOLDER.glob("*.json")) if p not in files]
    differ = [p for p, text in files.items() if not p.is_file() or p.read_text(encoding="utf-8") != text]
    if args.check:
        for path in [*differ, *stale]:
            print(f"gen_records: {path.relative_to(ROOT)} is not what the catalogue makes", file=sys.stderr)
        return 1 if differ or stale else 0
    for path in differ:
        path.write_text(files[path], encoding="utf-8")
    for path in stale:
        path.unlink()
    print(f"gen_records: {len(files)} records, {len(differ)} written, {len(stale)} removed")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
