"""Suppression comments: which ones suppress nothing (AF100), and writing them (--add-ignore).

`# autofix: ignore` or `# autofix: ignore[CODE,...]` on a launch's line or the
line before it silences fixers there (pipeline._suppressed decides that).

AF100 `unused-suppression` (opt-in, as ruff's RUF100) reports a comment, or a
code in it, that suppressed nothing in this run, and its safe fix removes the
comment or the unused codes. A code is judged only when its fixer ran on the
file (selected, and its record holds in the launch's release): a code for a
fixer that did not run is left alone, since it may suppress something under
another selection. A code no fixer has is reported. AF100 is no SGLang error
record, so it is not a registered fixer.

`--add-ignore` writes `# autofix: ignore[CODE]` on a new line before each
launch with findings, in the launch line's indentation: a `#` comment in shell,
YAML, Python, Dockerfiles and Markdown blocks (sh, yaml, python, dockerfile), a
new `"# ...\\n"` line of the cell source in notebooks; in JSON files none is written (a
`// autofix: ignore[CODE]` line written by hand is read). Where no comment can go
(after a `\\` continuation, inside a string, a notebook cell held in one JSON
string), or the comment would change what the launch is, the finding is left as
it is and reported.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from autofix.edits import Edit, Fix
from autofix.fixer import Finding, Fixer
from autofix.source import Span

__all__ = ["CODE", "NAME", "UNUSED", "Added", "add_ignores", "fixer_words", "selects", "unused"]

CODE = "AF100"
NAME = "unused-suppression"

# A suppression comment: `#`, then the words pipeline._suppressed reads.
COMMENT = re.compile(r"#[ \t]*(?P<body>autofix:\s*ignore(?:\[(?P<codes>[^\]]*)\])?)")
# A notebook cell-source line that holds only a comment: `    "# autofix: ignore[X]\n",`
_NOTEBOOK_LINE = re.compile(r'[ \t]*"#[^"\\]*(?:\\n)?",?[ \t]*\r?\Z')


def _is_af(word: str) -> bool:
    return word == NAME or (word.startswith("AF") and CODE.startswith(word))


def selects(words: Iterable[str]) -> bool:
    """Whether a --select/--ignore list names AF100 (its code, a prefix of it, its name, or ALL)."""
    return any(w == "ALL" or _is_af(w) for w in words)


def fixer_words(words: Iterable[str]) -> list[str]:
    """The words of a selection that name fixers (AF100 taken out)."""
    return [w for w in words if not _is_af(w)]


def _no_check(launch):  # noqa: ANN001, ANN202 - AF100 reads comments, not launches
    return iter(())


UNUSED = Fixer(CODE, NAME, "", "", ("0.0.0", "999.0.0"), _no_check, default=False)


def unused(
    text: str,
    used: set[tuple[int, str | None]],
    ran: set[str],
    known: dict[str, str],
    notebook: bool = False,
) -> list[Finding]:
    """The suppression comments in text that suppressed nothing.

    used: (offset of the comment's `autofix:`, the word that matched, None for a
    bare `autofix: ignore`) for every suppression that silenced a finding; ran:
    the codes of the fixers that ran; known: every fixer's code and name -> code.
    """
    found: list[Finding] = []
    for match in COMMENT.finditer(text):
        at = match.start("body")
        codes = match.group("codes")
        if codes is None:
            if ran and (at, None) not in used:
                found.append(_remove(text, match, "unused suppression: nothing here to suppress", notebook))
            continue
        words = [w.strip() for w in codes.split(",") if w.strip()]
        dead = [w for w in words if w not in known or (known[w] in ran and (at, w) not in used)]
        if words and not dead:
            continue
        unknown = [w for w in dead if w not in known]
        why = ", ".join(f"`{w}`" + (" (no such fixer)" if w in unknown else "") for w in dead) or "no codes"
        if len(dead) == len(words):
            found.append(_remove(text, match, f"unused suppression: {why}", notebook))
        else:
            kept = [w for w in words if w not in dead]
            joiner = ", " if ", " in codes else ","
            span = Span(match.start("codes"), match.end("codes"))
            fix = Fix.safe(f"Remove {why} from the suppression", [Edit(span, joiner.join(kept))])
            found.append(Finding(span, f"unused suppression: {why}", fix))
    return found


def _remove(text: str, match: re.Match, message: str, notebook: bool) -> Finding:
    """A finding on the whole comment, with the edit that removes it (and its line, when alone on it)."""
    span = Span(match.start(), match.end())
    line_start = text.rfind("\n", 0, match.start()) + 1
    line_end = text.find("\n", match.end())
    line_end = len(text) if line_end == -1 else line_end
    before, after = text[line_start : match.start()], text[match.end() : line_end].rstrip("\r")
    edit: Edit | None = None
    if notebook:
        if _NOTEBOOK_LINE.match(text[line_start:line_end]) and _next_line_is_element(text, line_end):
            edit = Edit.delete(Span(line_start, min(line_end + 1, len(text))))
        elif after.startswith(('"', '\\n"')) and before.strip(' \t"'):
            # A comment after code in a cell line: keep the code and the line's end.
            edit = Edit.delete(Span(line_start + len(before.rstrip(" \t")), match.end()))
    elif not before.strip():
        # A comment on a line of its own: the line goes with it.
        edit = Edit.delete(Span(line_start, min(line_end + 1, len(text))))
    elif not after.strip():
        # A comment after code: keep the code, drop the blanks before the comment.
        edit = Edit.delete(Span(line_start + len(before.rstrip(" \t")), match.end() + len(after)))
    fix = Fix.safe("Remove the unused suppression", [edit]) if edit is not None else None
    return Finding(span, message, fix)


def _next_line_is_element(text: str, line_end: int) -> bool:
    """Whether the next line continues the JSON list (so removing this element keeps the commas right)."""
    rest = text[line_end + 1 :].lstrip(" \t")
    return rest.startswith('"')


# -- --add-ignore ---------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Added:
    """What --add-ignore made of a file: its new text, and the findings no comment could take."""

    text: str
    added: int  # comments written or extended
    left: tuple  # tuple[Reported, ...]


def add_ignores(text: str, findings: Sequence, fmt: str, recheck) -> Added:  # noqa: ANN001
    """Suppression comments for findings (pipeline.Reported, from a check of text in format fmt).

    recheck(text) -> the findings of a check of text: every comment is kept
    only when, with it, its launch's findings are gone and nothing else
    changed; and, where it is a new line, when it is a comment of the file's
    own syntax (YAML and Python files mean the same with it: not text in a
    string or a block scalar) and, made inert, it brings every finding back.
    """
    notebook = fmt == "notebook"
    by_line: dict[int, list] = {}
    for r in findings:
        by_line.setdefault(r.launch_line, []).append(r)
    baseline = _keys(findings)
    current, added, left = text, 0, []
    # From the end of the file backwards, so line numbers above stay valid.
    for line in sorted(by_line, reverse=True):
        group = by_line[line]
        codes = list(dict.fromkeys(r.fixer.code for r in group))
        candidate = _merge(current, line, codes, notebook)
        merged = candidate is not None
        if not merged and fmt != "json":  # JSON has no comments (an editor's JSON may: `// autofix: ignore`)
            candidate = _insert(current, line, codes, notebook, "ignore")
        if candidate is None or _keys(recheck(candidate)) != baseline - _keys(group):
            left.extend(group)
            continue
        if not merged:
            # The same line made inert must bring every finding back: it is a comment, not launch text.
            inert = _insert(current, line, codes, notebook, "inert")
            if inert is None or not _same_meaning(current, inert, fmt) or _keys(recheck(inert)) != baseline:
                left.extend(group)
                continue
        current, added = candidate, added + 1
    return Added(current, added, tuple(left))


def _same_meaning(before: str, after: str, fmt: str) -> bool:
    """Whether a YAML or Python file means the same after a line was added (so the line is a comment)."""
    if fmt == "yaml":
        from ruamel.yaml import YAML
        from ruamel.yaml.error import YAMLError

        def events(text: str) -> list[tuple[object, ...]]:
            # Parser events, not loaded data: an alias stays one event (a "billion laughs" file is not
            # expanded), and no tag is constructed.
            return [(type(e).__name__, getattr(e, "anchor", None), getattr(e, "tag", None),
                     getattr(e, "value", None), getattr(e, "implicit", None))
                    for e in YAML(typ="safe", pure=True).parse(text)]

        try:
            return events(before) == events(after)
        except YAMLError:
            return False  # e.g. a Helm template: no proof the line is a comment
    if fmt == "python":
        import ast

        try:
            return ast.dump(ast.parse(before)) == ast.dump(ast.parse(after))
        except (SyntaxError, ValueError):
            return False
    return True


def _keys(findings: Iterable) -> Counter:
    """Findings compared across an inserted line: by code and message (lines move)."""
    return Counter((r.fixer.code, r.finding.message) for r in findings)


def _line_starts(text: str) -> list[int]:
    return [0, *(i + 1 for i, c in enumerate(text) if c == "\n")]


def _insert(text: str, line: int, codes: list[str], notebook: bool, word: str) -> str | None:
    """text with a new `# autofix: <word>[codes]` line before 1-based line; None where none can go."""
    starts = _line_starts(text)
    if line - 1 >= len(starts):
        return None
    at = starts[line - 1]
    end = text.find("\n", at)
    current = text[at : len(text) if end == -1 else end]
    newline = "\r\n" if current.endswith("\r") else "\n"
    indent = current[: len(current) - len(current.lstrip(" \t"))]
    if line > 1 and not notebook:
        previous = text[starts[line - 2] : at].rstrip("\r\n")
        # After a `\` continuation a comment line would end the command.
        if previous.rstrip(" \t").endswith("\\"):
            return None
    label = ", ".join(codes)
    if notebook:
        if not current.lstrip(" \t").startswith('"'):
            return None
        return f'{text[:at]}{indent}"# autofix: {word}[{label}]\\n",{newline}{text[at:]}'
    return f"{text[:at]}{indent}# autofix: {word}[{label}]{newline}{text[at:]}"


def _merge(text: str, line: int, codes: list[str], notebook: bool) -> str | None:
    """Where the line before already holds `autofix: ignore[...]`: the new codes added to it."""
    if line < 2:
        return None
    starts = _line_starts(text)
    start = starts[line - 2]
    previous = text[start : starts[line - 1]].rstrip("\r\n")
    match = COMMENT.search(previous)
    if match is None or match.group("codes") is None:
        return None
    if notebook and not _NOTEBOOK_LINE.match(previous):
        return None
    words = [w.strip() for w in match.group("codes").split(",") if w.strip()]
    new = ", ".join([*words, *(c for c in codes if c not in words)])
    return text[: start + match.start("codes")] + new + text[start + match.end("codes") :]
