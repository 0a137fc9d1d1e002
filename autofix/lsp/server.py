"""`autofix server`: the language server, over stdio (pygls and lsprotocol).

Diagnostics come on open, change and save, from the buffer's text; each finding
with a fix offers it as a quick fix (safe ones preferred, unsafe ones titled so)
and a "disable for this launch" action that writes the suppression comment;
`source.fixAll.autofix` applies what `--fix` would; hovering a finding shows its
rule's `--explain` text. A finding in a `--config` file a launch reads is
published on that file, and a fix over both files is one workspace edit.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from pathlib import Path

from lsprotocol import types
from pygls.lsp.server import LanguageServer
from pygls.uris import from_fs_path, to_fs_path

from autofix.config import ConfigError, Overrides
from autofix.edits import Applicability
from autofix.lsp.checking import Change, Checked, Checker, explain, line_edits
from autofix.pipeline import Reported
from autofix.source import Source, Span
from autofix.suppressions import CODE as UNUSED_CODE

__all__ = ["FIX_ALL", "AutofixServer", "serve"]

FIX_ALL = f"{types.CodeActionKind.SourceFixAll.value}.autofix"
_SETTINGS_FILES = ("pyproject.toml", ".autofix.toml")
log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class _Entry:
    """A finding as published: where (its file's URI and range), and the check that found it."""

    uri: str
    range: types.Range
    reported: Reported
    checked: Checked
    origin: str  # the URI of the checked buffer

    @property
    def diagnostic(self) -> types.Diagnostic:
        fx = self.reported.fixer
        return types.Diagnostic(
            range=self.range,
            message=self.reported.finding.message,
            severity=types.DiagnosticSeverity.Warning if fx.code == UNUSED_CODE else types.DiagnosticSeverity.Error,
            code=fx.code,
            source="autofix",
        )


class AutofixServer(LanguageServer):
    def __init__(self) -> None:
        from importlib.metadata import version

        super().__init__("autofix", version("autofix"), text_document_sync_kind=types.TextDocumentSyncKind.Incremental)
        self.checker = Checker()
        self.entries: dict[str, list[_Entry]] = {}  # a checked buffer's URI -> what its check found, in any file
        self.checks: dict[str, Checked] = {}
        self.readers: dict[str, set[str]] = {}  # a --config file's URI -> the buffers whose launches read it

    # -- positions --------------------------------------------------------------------------

    def _units(self, text: str) -> int:
        encoding = self.workspace.position_encoding or types.PositionEncodingKind.Utf16
        if encoding == types.PositionEncodingKind.Utf8:
            return len(text.encode("utf-8", "surrogatepass"))
        if encoding == types.PositionEncodingKind.Utf32:
            return len(text)
        return len(text.encode("utf-16-le", "surrogatepass")) // 2

    def position(self, source: Source, offset: int) -> types.Position:
        line, column = source.line_col(offset)
        start = offset - column + 1
        return types.Position(line=line - 1, character=self._units(source.text[start:offset]))

    def range(self, source: Source, start: int, end: int) -> types.Range:
        return types.Range(start=self.position(source, start), end=self.position(source, end))

    # -- checking -------------------------------------------------------------------------------

    def buffer(self, path: Path) -> str | None:
        uri = from_fs_path(str(path))
        document = self.workspace.text_documents.get(uri) if uri else None
        return None if document is None else document.source

    def refresh(self, uri: str, follow: bool = True) -> None:
        """Check a buffer (or, for one not open, its file on disk) and publish what changed."""
        document = self.workspace.text_documents.get(uri)
        path = _path_of(uri, self.checker.roots)
        text = document.source if document is not None else _read(path)
        touched = {e.uri for e in self.entries.pop(uri, [])}
        self.checks.pop(uri, None)
        checked = None
        if text is not None:
            try:
                checked = self.checker.check(path, text, self.buffer, document.language_id if document else None)
            except ConfigError as exc:
                self.window_log_message(types.LogMessageParams(types.MessageType.Error, f"autofix: {exc}"))
            except SyntaxError as exc:  # a buffer being typed need not parse: its last findings go
                log.debug("%s: cannot parse: %s", uri, exc)
            except Exception as exc:  # noqa: BLE001 - one buffer's failure must not stop the server
                self.window_log_message(types.LogMessageParams(
                    types.MessageType.Error, f"autofix: {uri}: internal error: {type(exc).__name__}: {exc}"))
        entries = self._entries(uri, checked) if checked is not None else []
        if checked is not None:
            self.checks[uri] = checked
            self.entries[uri] = entries
        for other in self.readers.values():
            other.discard(uri)
        for entry in entries:
            if entry.uri != uri:
                self.readers.setdefault(entry.uri, set()).add(uri)
        for linked in checked.result.linked if checked is not None else ():
            self.readers.setdefault(_uri(Path(linked.name)), set()).add(uri)
        if follow:  # first, so what this file shows of the launches that read it is new too
            self._follow(uri, document, path)
        for target in sorted({uri, *touched, *(e.uri for e in entries)}):
            self.publish(target)

    def _follow(self, uri: str, document, path: Path) -> None:  # noqa: ANN001
        """A --config file changed: check again the buffers whose launches read it (or, the first time,
        the files in the workspace that do)."""
        readers = set(self.readers.get(uri, ()))
        if not readers and document is not None and path.suffix.lower() in (".yaml", ".yml"):
            from autofix.files import may_be_config

            if may_be_config(document.source.encode("utf-8", "surrogatepass")):
                readers = {_uri(p) for p in self.checker.config_readers(path)}
        for reader in sorted(readers - {uri}):
            self.refresh(reader, follow=False)

    def _entries(self, uri: str, checked: Checked) -> list[_Entry]:
        out = []
        for r in checked.findings:
            source = Source(checked.texts[r.path])
            at = r.finding.at
            target = uri if r.path is None else _uri(Path(r.path))
            out.append(_Entry(target, self.range(source, at.start, at.end), r, checked, uri))
        return out

    def found_in(self, uri: str) -> list[_Entry]:
        """What the checks found in a file: its own check's, and those of the launches that read it."""
        own = [e for e in self.entries.get(uri, []) if e.uri == uri]
        others = [e for reader in sorted(self.readers.get(uri, ())) if reader != uri
                  for e in self.entries.get(reader, []) if e.uri == uri]
        seen, out = set(), []
        for e in own + others:  # two launches reading one file find its faults once
            key = (e.range.start.line, e.range.start.character, e.range.end.line, e.range.end.character,
                   e.reported.fixer.code)
            if key not in seen:
                seen.add(key)
                out.append(e)
        return out

    def publish(self, uri: str) -> None:
        document = self.workspace.text_documents.get(uri)
        diagnostics = [e.diagnostic for e in self.found_in(uri)]
        self.text_document_publish_diagnostics(types.PublishDiagnosticsParams(
            uri=uri, diagnostics=diagnostics, version=document.version if document is not None else None))

    # -- edits ----------------------------------------------------------------------------------

    def workspace_edit(self, origin: str, texts: dict[str | None, str],
                       by_file: dict[str | None, list[tuple[Span, str]]]) -> types.WorkspaceEdit:
        """Edits of the checked buffer (None) and the files its launches read, as one workspace edit."""
        changes: dict[str, list[types.TextEdit]] = {}
        for name, edits in by_file.items():
            source = Source(texts[name])
            changes[origin if name is None else _uri(Path(name))] = [
                types.TextEdit(range=self.range(source, span.start, span.end), new_text=text) for span, text in edits]
        return types.WorkspaceEdit(changes=changes)

    def changed(self, origin: str, changes: list[Change]) -> types.WorkspaceEdit:
        """New texts of whole files, as edits of the lines that changed."""
        texts = {c.path: c.before for c in changes}
        return self.workspace_edit(origin, texts, {c.path: line_edits(c.before, c.after) for c in changes})

    def actions(self, params: types.CodeActionParams) -> list[types.CodeAction]:
        uri = params.text_document.uri
        only = params.context.only
        out: list[types.CodeAction] = []
        if _wanted(only, types.CodeActionKind.QuickFix):
            for entry in self.found_in(uri):
                if _overlaps(entry.range, params.range):
                    out += self._quick_fixes(entry)
        checked = self.checks.get(uri)
        if checked is not None and _wanted(only, FIX_ALL) and any(
                r.fix is not None and r.fix.applies(checked.settings.unsafe) for r in checked.findings):
            changes = checked.fix_all()
            if changes:
                out.append(types.CodeAction(title="autofix: fix all", kind=FIX_ALL,
                                            edit=self.changed(uri, changes)))
        return out

    def _quick_fixes(self, entry: _Entry) -> list[types.CodeAction]:
        r, checked = entry.reported, entry.checked
        diagnostic = [entry.diagnostic]
        out = []
        fix = r.fix
        if fix is not None and fix.applicability is not Applicability.DISPLAY:
            safe = fix.applicability is Applicability.SAFE
            out.append(types.CodeAction(
                title=f"{fix.title} ({r.fixer.code})" if safe else f"{fix.title} ({r.fixer.code}, unsafe fix)",
                kind=types.CodeActionKind.QuickFix, diagnostics=diagnostic, is_preferred=safe,
                edit=self.workspace_edit(entry.origin, checked.texts, checked.edits(fix.edits))))
        disabled = checked.disable(r)
        if disabled is not None:
            out.append(types.CodeAction(
                title=f"Disable {r.fixer.code} for this launch", kind=types.CodeActionKind.QuickFix,
                diagnostics=diagnostic, edit=self.changed(entry.origin, [disabled])))
        return out

    def hover(self, params: types.HoverParams) -> types.Hover | None:
        point = types.Range(start=params.position, end=params.position)
        found = [e for e in self.found_in(params.text_document.uri) if _overlaps(e.range, point)]
        if not found:
            return None
        text = "\n---\n\n".join(explain(e.reported) for e in found)
        return types.Hover(contents=types.MarkupContent(kind=types.MarkupKind.Markdown, value=text),
                           range=found[0].range)


def _wanted(only: list[str] | None, kind: str) -> bool:
    """Whether a code action of kind is asked for: `only` names it or a kind it refines."""
    return not only or any(kind == k or kind.startswith(f"{k}.") for k in only)


def _overlaps(a: types.Range, b: types.Range) -> bool:
    def key(p: types.Position) -> tuple[int, int]:
        return p.line, p.character

    return key(a.start) <= key(b.end) and key(b.start) <= key(a.end)


def _uri(path: Path) -> str:
    return from_fs_path(str(path)) or path.as_uri()


def _path_of(uri: str, roots: list[Path]) -> Path:
    """The file a buffer will be saved as; an untitled one is taken to sit in the first workspace folder."""
    found = to_fs_path(uri) if uri.startswith("file:") else None
    if found:
        return Path(found)
    base = roots[0] if roots else Path.cwd()
    return base / (uri.rsplit("/", 1)[-1].rsplit(":", 1)[-1] or "untitled")


def _read(path: Path) -> str | None:
    from autofix.files import read_regular

    try:
        return Source.decode(read_regular(path)).text
    except (OSError, ValueError):
        return None


def make_server() -> AutofixServer:
    server = AutofixServer()

    @server.feature(types.INITIALIZE)
    def initialize(ls: AutofixServer, params: types.InitializeParams) -> None:
        folders = [f.uri for f in params.workspace_folders or ()] or [params.root_uri]
        roots = [Path(p) for p in (to_fs_path(u) for u in folders if u) if p]
        if not roots and params.root_path:
            roots = [Path(params.root_path)]
        options = params.initialization_options if isinstance(params.initialization_options, dict) else {}
        ls.checker = Checker(roots, Overrides(unsafe_fixes=bool(options.get("unsafeFixes", False))))

    @server.feature(types.TEXT_DOCUMENT_DID_OPEN)
    def did_open(ls: AutofixServer, params: types.DidOpenTextDocumentParams) -> None:
        ls.refresh(params.text_document.uri)

    @server.feature(types.TEXT_DOCUMENT_DID_CHANGE)
    def did_change(ls: AutofixServer, params: types.DidChangeTextDocumentParams) -> None:
        ls.refresh(params.text_document.uri)

    @server.feature(types.TEXT_DOCUMENT_DID_SAVE)
    def did_save(ls: AutofixServer, params: types.DidSaveTextDocumentParams) -> None:
        uri = params.text_document.uri
        if uri.rsplit("/", 1)[-1] in _SETTINGS_FILES:  # the configuration changed: every buffer again
            for other in list(ls.workspace.text_documents):
                ls.refresh(other, follow=False)
        ls.refresh(uri)

    @server.feature(types.TEXT_DOCUMENT_DID_CLOSE)
    def did_close(ls: AutofixServer, params: types.DidCloseTextDocumentParams) -> None:
        uri = params.text_document.uri
        # Its own findings go; those of the buffers still open that read it stay (checked again
        # with the file on disk).
        touched = {e.uri for e in ls.entries.pop(uri, [])}
        ls.checks.pop(uri, None)
        for readers in ls.readers.values():
            readers.discard(uri)
        for reader in sorted(ls.readers.get(uri, set()) & set(ls.workspace.text_documents)):
            ls.refresh(reader, follow=False)
        for target in sorted(touched | {uri}):
            ls.publish(target)

    @server.feature(types.TEXT_DOCUMENT_CODE_ACTION,
                    types.CodeActionOptions(code_action_kinds=[types.CodeActionKind.QuickFix, FIX_ALL]))
    def code_action(ls: AutofixServer, params: types.CodeActionParams) -> list[types.CodeAction]:
        return ls.actions(params)

    @server.feature(types.TEXT_DOCUMENT_HOVER)
    def hover(ls: AutofixServer, params: types.HoverParams) -> types.Hover | None:
        return ls.hover(params)

    return server


def serve() -> None:
    """Run the server on stdin and stdout until the client says exit."""
    make_server().start_io()
