"""`autofix server`: a real LSP client (pygls's) talking to the server in a subprocess over stdio.

Nothing is timed: every wait is for a message, under a generous timeout that only
a hung server reaches.
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path

import pytest
from click.testing import CliRunner
from lsprotocol import types
from pygls.lsp.client import LanguageClient
from pygls.uris import from_fs_path

from autofix.cli import main

ROOT = Path(__file__).resolve().parent.parent
WAIT = int(os.environ.get("AUTOFIX_LSP_WAIT", "120"))  # seconds: only a hung server waits this long

BAD = "python -m sglang.launch_server --model-path deepseek-ai/DeepSeek-V3 --attention-backend tokenspeed_mla\n"
FIXED = BAD.rstrip("\n") + " --kv-cache-dtype fp8_e4m3\n"


class Session:
    """A client with the server started in a folder, and the diagnostics it has published, by URI."""

    def __init__(self, client: LanguageClient, root: Path):
        self.client = client
        self.root = root
        self.published: dict[str, list[types.PublishDiagnosticsParams]] = {}
        self.arrived = asyncio.Condition()
        self.versions: dict[str, int] = {}
        self.texts: dict[str, str] = {}

    def uri(self, name: str) -> str:
        return from_fs_path(str(self.root / name))  # type: ignore[return-value]

    async def diagnostics(self, uri: str, version: int | None = None) -> list[types.Diagnostic]:
        """The first diagnostics published for uri at version (any, when None) not yet taken."""

        def ready() -> bool:
            return any(version is None or p.version == version for p in self.published.get(uri, []))

        async with self.arrived:
            await asyncio.wait_for(self.arrived.wait_for(ready), WAIT)
            queue = self.published[uri]
            found = next(p for p in queue if version is None or p.version == version)
            queue.remove(found)
            return list(found.diagnostics)

    def open(self, name: str, text: str, language: str = "shellscript") -> str:
        uri = self.uri(name)
        self.versions[uri], self.texts[uri] = 1, text
        self.client.text_document_did_open(types.DidOpenTextDocumentParams(
            text_document=types.TextDocumentItem(uri=uri, language_id=language, version=1, text=text)))
        return uri

    def change(self, uri: str, text: str) -> int:
        self.versions[uri] += 1
        self.texts[uri] = text
        self.client.text_document_did_change(types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=self.versions[uri]),
            content_changes=[types.TextDocumentContentChangeWholeDocument(text=text)]))
        return self.versions[uri]

    async def actions(self, uri: str, at: types.Range, diagnostics: list[types.Diagnostic],
                      only: list[str] | None = None) -> list[types.CodeAction]:
        found = await asyncio.wait_for(self.client.text_document_code_action_async(types.CodeActionParams(
            text_document=types.TextDocumentIdentifier(uri=uri), range=at,
            context=types.CodeActionContext(diagnostics=diagnostics, only=only))), WAIT)
        return [a for a in found or [] if isinstance(a, types.CodeAction)]

    def apply(self, edit: types.WorkspaceEdit) -> dict[str, str]:
        """The texts of the open buffers after a workspace edit, as an editor applies it."""
        out = {}
        for uri, edits in (edit.changes or {}).items():
            text = self.texts[uri]
            for e in sorted(edits, key=lambda e: (e.range.start.line, e.range.start.character), reverse=True):
                text = text[: _offset(text, e.range.start)] + e.new_text + text[_offset(text, e.range.end):]
            out[uri] = text
        return out


def _offset(text: str, position: types.Position) -> int:
    """A UTF-16 position's offset in text."""
    lines = text.splitlines(keepends=True)
    before = sum(len(line) for line in lines[: position.line])
    line = lines[position.line] if position.line < len(lines) else ""
    units = 0
    for i, char in enumerate(line):
        if units >= position.character:
            return before + i
        units += 2 if ord(char) > 0xFFFF else 1
    return before + len(line)


def run_session(root: Path, body: Callable[[Session], Awaitable[None]], options: dict | None = None) -> None:
    async def go() -> None:
        client = LanguageClient("autofix-tests", "1")
        session = Session(client, root)

        @client.feature(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
        async def published(params: types.PublishDiagnosticsParams) -> None:
            async with session.arrived:
                session.published.setdefault(params.uri, []).append(params)
                session.arrived.notify_all()

        env = {**os.environ, "PYTHONPATH": str(ROOT), "AUTOFIX_NO_CACHE": "1"}
        await client.start_io(sys.executable, "-m", "autofix", "server", cwd=str(root), env=env)
        try:
            result = await asyncio.wait_for(client.initialize_async(types.InitializeParams(
                capabilities=types.ClientCapabilities(), root_uri=from_fs_path(str(root)),
                workspace_folders=[types.WorkspaceFolder(uri=from_fs_path(str(root)), name="project")],  # type: ignore[arg-type]
                initialization_options=options)), WAIT)
            assert result.server_info is not None and result.server_info.name == "autofix"
            client.initialized(types.InitializedParams())
            await body(session)
            await asyncio.wait_for(client.shutdown_async(None), WAIT)
        finally:
            client.exit(None)  # the server ends on exit, whatever the test made of it
            await asyncio.wait_for(client.stop(), WAIT)

    asyncio.run(go())


def test_a_quick_fix_round_trip_clears_the_diagnostic(tmp_path: Path) -> None:
    # The disk holds another text: what is checked is the unsaved buffer.
    (tmp_path / "launch.sh").write_text("echo not yet\n")

    async def body(s: Session) -> None:
        uri = s.open("launch.sh", BAD)
        [diagnostic] = await s.diagnostics(uri, 1)
        assert (diagnostic.code, diagnostic.source, diagnostic.severity) == (
            "SGL001", "autofix", types.DiagnosticSeverity.Error)
        assert "needs `--kv-cache-dtype fp8_e4m3`" in diagnostic.message
        start = BAD.index("--attention-backend")
        assert (diagnostic.range.start.line, diagnostic.range.start.character) == (0, start)
        assert (diagnostic.range.end.line, diagnostic.range.end.character) == (0, len(BAD) - 1)
        actions = await s.actions(uri, diagnostic.range, [diagnostic])
        quick = [a for a in actions if a.kind == types.CodeActionKind.QuickFix]
        assert [a.title for a in quick] == ["Set `--kv-cache-dtype fp8_e4m3` (SGL001)", "Disable SGL001 for this launch"]
        fixes = [a for a in quick if a.is_preferred]
        assert len(fixes) == 1 and list(fixes[0].diagnostics or ()) == [diagnostic]
        [text] = s.apply(fixes[0].edit).values()  # type: ignore[arg-type]
        assert text == FIXED
        version = s.change(uri, text)
        assert await s.diagnostics(uri, version) == []

    run_session(tmp_path, body)
    assert (tmp_path / "launch.sh").read_text() == "echo not yet\n"  # the server writes nothing


def test_disable_for_this_launch_writes_the_suppression_comment(tmp_path: Path) -> None:
    async def body(s: Session) -> None:
        text = "#!/bin/bash\nset -e\n" + BAD
        uri = s.open("launch.sh", text)
        [diagnostic] = await s.diagnostics(uri, 1)
        [disable] = [a for a in await s.actions(uri, diagnostic.range, [diagnostic]) if a.title.startswith("Disable")]
        assert disable.title == "Disable SGL001 for this launch"
        [new] = s.apply(disable.edit).values()  # type: ignore[arg-type]
        assert new == "#!/bin/bash\nset -e\n# autofix: ignore[SGL001]\n" + BAD
        assert await s.diagnostics(uri, s.change(uri, new)) == []

    run_session(tmp_path, body)


def test_hover_on_a_finding_shows_the_rules_explain_text(tmp_path: Path) -> None:
    explained = CliRunner().invoke(main, ["--explain", "SGL001"]).output

    async def body(s: Session) -> None:
        uri = s.open("launch.sh", BAD)
        [diagnostic] = await s.diagnostics(uri, 1)
        inside = types.Position(line=0, character=diagnostic.range.start.character + 3)
        hover = await asyncio.wait_for(s.client.text_document_hover_async(types.HoverParams(
            text_document=types.TextDocumentIdentifier(uri=uri), position=inside)), WAIT)
        assert hover is not None and isinstance(hover.contents, types.MarkupContent)
        value = hover.contents.value
        assert value.startswith("**SGL001** `tokenspeed-mla-without-fp8-kv-cache`: `tokenspeed_mla` needs")
        doc = explained.split("\n\n## Error record")[0].split("\n\n", 1)[1]  # the rule's docs, as --explain
        assert doc.strip() and doc.strip() in value
        outside = await asyncio.wait_for(s.client.text_document_hover_async(types.HoverParams(
            text_document=types.TextDocumentIdentifier(uri=uri), position=types.Position(line=0, character=2))), WAIT)
        assert outside is None

    run_session(tmp_path, body)


def test_fix_all_applies_the_safe_fixes_of_the_buffer(tmp_path: Path) -> None:
    other = BAD.replace("--attention-backend", "--kv-cache-dtype bf16 --attention-backend")

    async def body(s: Session) -> None:
        uri = s.open("launch.sh", BAD + other)
        assert len(await s.diagnostics(uri, 1)) == 2
        everything = types.Range(start=types.Position(line=0, character=0), end=types.Position(line=2, character=0))
        [fix_all] = await s.actions(uri, everything, [], only=[types.CodeActionKind.SourceFixAll])
        assert (fix_all.kind, fix_all.title) == ("source.fixAll.autofix", "autofix: fix all")
        [text] = s.apply(fix_all.edit).values()  # type: ignore[arg-type]
        assert text == FIXED + other.replace("bf16", "fp8_e4m3")
        assert await s.diagnostics(uri, s.change(uri, text)) == []
        # Asked for quick fixes only, no fix-all comes.
        quick = await s.actions(uri, everything, [], only=[types.CodeActionKind.QuickFix])
        assert quick == []

    run_session(tmp_path, body)


def test_a_launch_split_across_a_script_and_its_config_file_is_fixed_with_one_workspace_edit(tmp_path: Path) -> None:
    script = "python -m sglang.launch_server --config cfg.yaml --model-path deepseek-ai/DeepSeek-V3 --kv-cache-dtype bf16\n"
    config = "attention-backend: tokenspeed_mla\ntp_size: 8\n"
    (tmp_path / "cfg.yaml").write_text("attention-backend: flashinfer\n")  # the buffer wins over the disk

    async def body(s: Session) -> None:
        config_uri = s.open("cfg.yaml", config, "yaml")
        assert await s.diagnostics(config_uri, 1) == []  # no script read yet: nothing is known of it
        uri = s.open("launch.sh", script)
        [in_script] = await s.diagnostics(uri, 1)
        assert in_script.code == "SGL001"
        [in_config] = await s.diagnostics(config_uri, 1)
        assert (in_config.code, in_config.range.start.line) == ("SGL120", 1)
        # The config file's quick fix comes from the script's check.
        [rename] = [a for a in await s.actions(config_uri, in_config.range, [in_config]) if a.is_preferred]
        assert s.apply(rename.edit) == {config_uri: "attention-backend: tokenspeed_mla\ntp-size: 8\n"}  # type: ignore[arg-type]
        everything = types.Range(start=types.Position(line=0, character=0), end=types.Position(line=1, character=0))
        [fix_all] = await s.actions(uri, everything, [], only=[FIX_ALL])
        assert s.apply(fix_all.edit) == {  # type: ignore[arg-type]
            uri: script.replace("bf16", "fp8_e4m3"),
            config_uri: "attention-backend: tokenspeed_mla\ntp-size: 8\n",
        }
        # Editing the config file checks again the script that reads it.
        s.change(config_uri, "attention-backend: flashinfer\ntp-size: 8\n")
        assert await s.diagnostics(uri, 1) == []
        # Closed, the config file is read from the disk again.
        (tmp_path / "cfg.yaml").write_text("attention-backend: tokenspeed_mla\n")
        s.client.text_document_did_close(types.DidCloseTextDocumentParams(
            text_document=types.TextDocumentIdentifier(uri=config_uri)))
        assert [d.code for d in await s.diagnostics(uri, 1)] == ["SGL001"]

    run_session(tmp_path, body)


FIX_ALL = "source.fixAll.autofix"


def test_settings_come_from_the_nearest_configuration(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text("[tool.autofix]\nignore = [\"SGL001\"]\n")
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / ".autofix.toml").write_text("select = [\"SGL001\"]\n")

    async def body(s: Session) -> None:
        top = s.open("launch.sh", BAD)
        assert await s.diagnostics(top, 1) == []
        nested = s.open("sub/launch.sh", BAD)
        assert [d.code for d in await s.diagnostics(nested, 1)] == ["SGL001"]

    run_session(tmp_path, body)


def test_every_file_kind_autofix_reads_gets_diagnostics(tmp_path: Path) -> None:
    launch = BAD.strip()
    texts = {
        "serve.yaml": ("yaml", "command: [" + launch.replace(" ", ", ") + "]\n"),
        "serve.py": ("python", f"import subprocess\nsubprocess.run({launch.split()!r})\n"),
        "Dockerfile": ("dockerfile", f"FROM lmsysorg/sglang:v0.5.22\nCMD {json.dumps(launch.split())}\n"),
        "README.md": ("markdown", f"# Serve\n\n```bash\n{launch}\n```\n"),
        "demo.ipynb": ("json", json.dumps({"cells": [{"cell_type": "code", "metadata": {}, "outputs": [],
                                                      "execution_count": None, "source": [f"!{launch}\n"]}],
                                           "metadata": {}, "nbformat": 4, "nbformat_minor": 5}, indent=1)),
    }

    async def body(s: Session) -> None:
        for name, (language, text) in texts.items():
            uri = s.open(name, text, language)
            assert [d.code for d in await s.diagnostics(uri, 1)] == ["SGL001"], name

    run_session(tmp_path, body)


def test_a_check_does_not_import_the_language_server(tmp_path: Path) -> None:
    (tmp_path / "launch.sh").write_text(BAD)
    probe = ("import json, sys\nfrom autofix.cli import main\ntry:\n    main(['--no-cache', 'launch.sh'])\n"
             "except SystemExit as exc:\n    code = exc.code\nprint(json.dumps([code, sorted(sys.modules)]))\n")
    done = subprocess.run([sys.executable, "-c", probe], cwd=tmp_path, capture_output=True, text=True, timeout=WAIT,
                          env={**os.environ, "PYTHONPATH": str(ROOT)})
    code, modules = json.loads(done.stdout.strip().splitlines()[-1])
    assert code == 1  # the launch was checked
    assert not {m.split(".")[0] for m in modules} & {"pygls", "lsprotocol", "cattrs"}
    assert "autofix.lsp" not in modules


def test_server_is_a_subcommand_with_its_own_help() -> None:
    done = CliRunner().invoke(main, ["server", "--help"], prog_name="autofix")
    assert done.exit_code == 0
    assert "Usage: autofix server" in done.output and "language server" in done.output
    assert "`autofix server`" in CliRunner().invoke(main, ["--help"]).output


def test_a_file_named_server_is_checked_as_dot_slash_server(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "server").write_text("#!/bin/bash\n" + BAD)
    monkeypatch.chdir(tmp_path)
    done = CliRunner().invoke(main, ["--no-cache", "./server"])
    assert done.exit_code == 1 and "SGL001" in done.output


PREFIX = "python -m sglang.launch_server --model-path Qwen/Qwen3-8B --tp 4 --pp 2\n"  # an unsafe fix only


@pytest.mark.parametrize("unsafe", [False, True], ids=["safe-only", "unsafe-fixes-asked"])
def test_unsafe_fixes_are_offered_one_by_one_and_fixed_all_only_when_asked(tmp_path: Path, unsafe: bool) -> None:
    async def body(s: Session) -> None:
        uri = s.open("launch.sh", BAD + PREFIX)
        by_line = {d.range.start.line: d for d in await s.diagnostics(uri, 1)}
        assert sorted(by_line) == [0, 1]
        [rename] = [a for a in await s.actions(uri, by_line[1].range, [by_line[1]], only=[types.CodeActionKind.QuickFix])
                    if not a.title.startswith("Disable")]
        assert rename.title.endswith(", unsafe fix)") and not rename.is_preferred
        assert list(s.apply(rename.edit).values()) == [BAD + PREFIX.replace("--pp 2", "--pp-size 2")]  # type: ignore[arg-type]
        everything = types.Range(start=types.Position(line=0, character=0), end=types.Position(line=2, character=0))
        [fix_all] = await s.actions(uri, everything, [], only=[FIX_ALL])
        fixed_prefix = PREFIX.replace("--pp 2", "--pp-size 2") if unsafe else PREFIX
        assert list(s.apply(fix_all.edit).values()) == [FIXED + fixed_prefix]  # type: ignore[arg-type]

    run_session(tmp_path, body, {"unsafeFixes": True} if unsafe else None)


def test_a_config_file_opened_alone_is_checked_through_the_scripts_on_disk_that_read_it(tmp_path: Path) -> None:
    (tmp_path / "launch.sh").write_text("python -m sglang.launch_server --config cfg.yaml --model-path Qwen/Qwen3-8B\n")

    async def body(s: Session) -> None:
        config_uri = s.open("cfg.yaml", "model-path: Qwen/Qwen3-8B\ntp_size: 2\n", "yaml")
        [found] = await s.diagnostics(config_uri, 1)
        assert (found.code, found.range.start.line) == ("SGL120", 1)

    run_session(tmp_path, body)


def test_positions_are_in_utf16_code_units(tmp_path: Path) -> None:
    text = BAD.replace("deepseek-ai/DeepSeek-V3", "/models/\N{ROCKET}/DeepSeek-V3")  # one character, two units

    async def body(s: Session) -> None:
        uri = s.open("launch.sh", text)
        [diagnostic] = await s.diagnostics(uri, 1)
        assert diagnostic.range.start.character == text.index("--attention-backend") + 1
        [fix] = [a for a in await s.actions(uri, diagnostic.range, [diagnostic]) if a.is_preferred]
        assert list(s.apply(fix.edit).values()) == [text.rstrip("\n") + " --kv-cache-dtype fp8_e4m3\n"]  # type: ignore[arg-type]

    run_session(tmp_path, body)
