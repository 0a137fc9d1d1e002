"""What the language server asks of autofix, in autofix's own terms: no pygls here.

A buffer is checked as the command line checks the file it will be saved as:
the nearest configuration (`[tool.autofix]` or `.autofix.toml`) gives the
fixers, the release, unsafe fixes and the GPU; a pin beside the file gives the
release; a `--config FILE` of a launch is read from the editor's buffer of that
file when one is open, else from the disk. Offsets here are autofix's
(characters); the server turns them into the client's positions.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from autofix.config import Overrides, Resolver
from autofix.edits import Applicability, Edit
from autofix.formats import FORMATS, FormatSpec, detect
from autofix.pipeline import Linked, Reported, Result, Settings, fix_text
from autofix.source import Source, Span

__all__ = ["Change", "Checked", "Checker", "explain", "line_edits", "spec_for"]

# An editor's language ids, for a buffer whose name says nothing (an untitled one).
_LANGUAGES = {
    "shellscript": "shell", "sh": "shell", "bash": "shell", "yaml": "yaml", "python": "python",
    "dockerfile": "dockerfile", "markdown": "markdown", "jsonc": "json",
}

Buffers = Callable[[Path], "str | None"]  # an open buffer's text by path; None: not open


def spec_for(path: Path, text: str, language: str | None = None) -> FormatSpec | None:
    """The format autofix reads a buffer as: from its name or shebang, else from the editor's language id."""
    spec = detect(path.name, text[:128].encode("utf-8", "surrogatepass"))
    if spec is None and language in _LANGUAGES:
        spec = FORMATS[_LANGUAGES[language]]
    return spec


@dataclass(frozen=True, slots=True)
class Change:
    """A new text for one file: the checked one (path None) or a `--config` file a launch reads."""

    path: str | None
    before: str
    after: str


@dataclass
class Checked:
    """One check of a buffer: its findings, and the texts they point into."""

    path: Path
    spec: FormatSpec
    settings: Settings
    source: Source
    result: Result
    # The texts findings and edits point into: None for the checked buffer, else a linked file's name.
    texts: dict[str | None, str] = field(default_factory=dict)

    @property
    def findings(self) -> list[Reported]:
        return self.result.remaining

    def linked_path(self, name: str | None) -> Path:
        return self.path if name is None else Path(name)

    def edits(self, edits: Sequence[Edit]) -> dict[str | None, list[tuple[Span, str]]]:
        """The edits of one fix by file (None: the checked buffer), each a span of that file's text."""
        by_file: dict[str | None, list[tuple[Span, str]]] = {}
        for edit in edits:
            by_file.setdefault(edit.path, []).append((edit.span, edit.text))
        return by_file

    def fix_all(self) -> list[Change]:
        """Every fix `--fix` would apply (unsafe ones only where the configuration asks for them)."""
        fixed = fix_text(self.source, self.spec, self.settings, fix=True)
        if fixed.error is not None:
            return []
        out = [Change(None, self.source.text, fixed.text)] if fixed.changed else []
        return out + [Change(f.name, f.source.text, f.text) for f in fixed.linked if f.changed]

    def disable(self, reported: Reported) -> Change | None:
        """The text with `# autofix: ignore[CODE]` before the launch of a finding (as --add-ignore writes
        it); None where no comment can go or it would not silence exactly that finding."""
        from autofix.suppressions import add_ignores

        from autofix.suppressions import CODE

        if reported.fixer.code == CODE:  # a suppression comment itself: its fix removes it
            return None
        line, code = reported.launch_line, reported.fixer.code

        def same_launch(text: str) -> list[Reported]:
            # The launch is on its line, or one below once a comment line went in above it.
            found = fix_text(self.source.with_text(text), self.spec, self.settings).remaining
            return [r for r in found if r.fixer.code == code and r.launch_line in (line, line + 1)]

        try:
            group = same_launch(self.source.text)
            mine = [r for r in group if r.launch_line == line]
            added = add_ignores(self.source.text, mine, self.spec.name, lambda text: same_launch(text))
        except SyntaxError:
            return None
        if added.added != 1 or added.left:
            return None
        return Change(None, self.source.text, added.text)


class Checker:
    """Checks buffers with the settings of the files they will be saved as."""

    def __init__(self, roots: Sequence[Path] = (), overrides: Overrides | None = None):
        self.roots = list(roots)  # the workspace folders: where `--config` files and model folders may be read
        self.overrides = overrides or Overrides()

    def check(self, path: Path, text: str, buffers: Buffers, language: str | None = None,
              only_config: str | None = None) -> Checked | None:
        """The findings of a buffer; None when it is no file autofix reads, is excluded, or cannot hold a launch.

        Raises ConfigError for a broken configuration and SyntaxError for a buffer that does not parse.
        """
        from autofix.files import neighbour_release
        from autofix.modelconfigs import ModelLookup

        spec = spec_for(path, text, language)
        if spec is None or not spec.worth_parsing(text.encode("utf-8", "surrogatepass")):
            return None
        # A fresh resolver each time: the configuration may have been edited since the last check.
        resolver = Resolver(None, self.overrides)
        path = Path(os.path.abspath(path))
        if resolver.excludes(path, False):
            return None
        effective = resolver.effective(path)
        folder = path.parent
        roots = [*self.roots, folder]
        reader = _BufferConfigReader(folder, roots, buffers)
        settings = effective.settings_for(path, neighbour_release(folder),
                                          ModelLookup(folder, roots, fetch=effective.fetch_model_config),
                                          reader, only_config)
        source = Source(text)
        result = fix_text(source, spec, settings)
        if result.error is not None:
            return None
        texts: dict[str | None, str] = {None: text, **{f.name: f.source.text for f in result.linked}}
        return Checked(path, spec, settings, source, result, texts)

    def config_readers(self, config: Path) -> list[Path]:
        """The files in the workspace whose launches read config through `--config`."""
        from autofix.files import ConfigIndex

        roots = [*self.roots, config.parent]
        return ConfigIndex(roots, search=self.roots or [config.parent]).referrers(config)


class _BufferConfigReader:
    """A launch's `--config FILE`, found as the command line finds it, read from its open buffer if any."""

    def __init__(self, folder: Path, roots: Sequence[Path], buffers: Buffers):
        from autofix.files import ConfigReader

        self.reader = ConfigReader(folder, roots)
        self.buffers = buffers

    def __call__(self, value: str) -> Linked | None:
        path = self.reader.resolve(value)
        if path is None:
            return None
        text = self.buffers(path)
        if text is None:
            found = self.reader(value)
            return None if found is None else Linked(str(path), found.source)
        return Linked(str(path), Source(text))


def line_edits(before: str, after: str) -> list[tuple[Span, str]]:
    """Replacements of whole lines that turn before into after: the spans of before that change, and
    their new text (an editor keeps its cursor and folds where lines did not change)."""
    import difflib

    old, new = before.splitlines(keepends=True), after.splitlines(keepends=True)
    starts = [0]
    for line in old:
        starts.append(starts[-1] + len(line))
    out = []
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, old, new, autojunk=False).get_opcodes():
        if tag != "equal":
            out.append((Span(starts[i1], starts[i2]), "".join(new[j1:j2])))
    return out


def explain(reported: Reported) -> str:
    """The hover of a finding: its message, then what `autofix --explain CODE` prints of its rule (Markdown)."""
    fx = reported.fixer
    lines = [f"**{fx.code}** `{fx.name}`: {reported.finding.message}", ""]
    fix = reported.fix
    if fix is not None and fix.applicability is not Applicability.DISPLAY:
        lines += [f"Fix ({fix.applicability.value}): {fix.title}", ""]
    if fx.record:
        lines += [f"record {fx.record}; SGLang {fx.releases[0]} to {fx.releases[1]}", "",
                  f"message pattern: `{fx.pattern}`", ""]
    lines.append(fx.doc)
    return "\n".join(lines).rstrip() + "\n"
