"""Plant a flag SGLang refuses right after every launch's entry point, and count how many autofix reports.

    python scripts/planted.py [PATH ...]      (default: the shared corpus beside the checkout)

For each file and each place its text names an entry point (`sglang.launch_server`,
`sglang_router.launch_server`, `sglang serve`), the entry point is followed by
`--kv-cache-dtype fp8-e4m3`, spelled the way the place writes words: inside a
quoted argv element (`"sglang.launch_server", "--kv-cache-dtype", ...`) as
elements of their own, else as words. A launch counts as reported when autofix
gives an invalid-choice finding on the planted flag. Prints the share per
format and lists the places it missed: what the launch reader has yet to read.
Places that are no launch (prose, an `echo`) are missed too, so the share is a
floor; read the misses.
"""

from __future__ import annotations

import re
import sys
from collections import Counter
from pathlib import Path

from autofix.fixer import select
from autofix.formats import detect
from autofix.pipeline import Settings, fix_text
from autofix.source import Source

ROOT = Path(__file__).resolve().parent.parent
ENTRY = re.compile(r"sglang(?:_router)?\.launch_server\b|\bsglang serve\b")
# A launch configuration's `"module": "sglang.launch_server"`: its flags are the `"args"` list after it.
_ARGS_KEY = re.compile(r'"args"[ \t]*:[ \t]*\[')


def _module_args(text: str, end: int) -> int | None:
    """After a launch configuration's `"module": "sglang.launch_server"`, where its `"args": [` list
    opens (other keys, `"env": {...}` among them, may come between); None when the object has none."""
    if not text.startswith('"', end) or not re.match(r'"[ \t]*,', text[end:]):
        return None
    depth = 0
    for i in range(end + 1, len(text)):
        ch = text[i]
        if ch in "{[":
            depth += 1
        elif ch in "}]":
            if depth == 0:
                return None  # the configuration ends
            depth -= 1
        elif depth == 0 and ch == '"' and (m := _ARGS_KEY.match(text, i)):
            return m.end()
    return None


VALUE = "fp8-e4m3"  # a near miss of fp8_e4m3, refused by every release


def plants(text: str) -> list[tuple[int, str]]:
    """(offset of the planted flag, planted text) for every entry point."""
    out = []
    for match in ENTRY.finditer(text):
        end = match.end()
        quote = text[match.start() - 1] if match.start() else ""
        item = re.match(r"[ \t]*- [\"']?\Z", text[text.rfind("\n", 0, match.start()) + 1 : match.start()])
        if item and re.match(r"[\"']?[ \t]*(?:#.*)?(?:\n|\Z)", text[end:]):  # a YAML list item: plant items
            indent = item.group().split("-")[0]
            line_end = text.find("\n", end) if "\n" in text[end:] else len(text)
            out.append((line_end, f"\n{indent}- --kv-cache-dtype\n{indent}- {VALUE}"))
        elif (args := _module_args(text, end)) is not None:  # an editor's `"module": "...", "args": [`
            out.append((args, ' "--kv-cache-dtype", "fp8-e4m3",'))
        elif quote in "\"'" and text[end : end + 1] == quote:  # an argv element: plant elements
            out.append((end + 1, f", {quote}--kv-cache-dtype{quote}, {quote}{VALUE}{quote}"))
        elif match.group().endswith("serve") and not re.match(r"[ \t]+[^\s\\-]", text[end:]):
            continue  # `sglang serve` with no model after it: nothing to plant a flag after
        elif match.group().endswith("serve"):
            word = re.match(r"[ \t]+[^\s\\]+", text[end:])
            out.append((end + word.end(), f" --kv-cache-dtype {VALUE}"))  # type: ignore[union-attr]
        else:
            out.append((end, f" --kv-cache-dtype {VALUE}"))
    return out


def reported(path: Path, text: str, at: int, planted: str) -> bool:
    new = text[:at] + planted + text[at:]
    spec = detect(str(path), new[:256].encode())
    if spec is None:
        return False
    try:
        result = fix_text(Source(new, str(path)), spec, Settings(select(["ALL"])))
    except SyntaxError:  # the plant broke the file (it landed in a string or a docstring): no launch there
        return False
    where = new.index(VALUE, at)
    return any(r.fixer.name == "invalid-choice" and r.finding.at.start <= where < r.finding.at.end + len(VALUE) + 2
               for r in result.findings)


def main(paths: list[str]) -> int:
    roots = [Path(p) for p in paths] or [ROOT.parent / "shared" / "corpus"]
    files = sorted(f for r in roots for f in (r.rglob("*") if r.is_dir() else [r]) if f.is_file())
    total: Counter[str] = Counter()
    hit: Counter[str] = Counter()
    misses = []
    for path in files:
        spec = detect(str(path), path.read_bytes()[:256])
        if spec is None:
            continue
        text = path.read_text(encoding="utf-8", errors="replace")
        for at, planted in plants(text):
            total[spec.name] += 1
            if reported(path, text, at, planted):
                hit[spec.name] += 1
            else:
                line = text.count("\n", 0, at) + 1
                misses.append(f"{path}:{line}: {text.splitlines()[line - 1].strip()[:100]}")
    for name in sorted(total):
        print(f"{name:10} {hit[name]:4}/{total[name]:<4} {100 * hit[name] / total[name]:5.1f}%")
    all_hit, all_total = sum(hit.values()), sum(total.values())
    print(f"{'all':10} {all_hit:4}/{all_total:<4} {100 * all_hit / max(all_total, 1):5.1f}%")
    print("\nmissed:", *misses, sep="\n  ")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
