"""Formats: text -> [Launch], and how an edit is spelled in that format.

Each format module is imported only when a file of its kind needs parsing.
"""

from __future__ import annotations

import importlib
import re
from dataclasses import dataclass
from pathlib import PurePath

__all__ = ["FORMATS", "FormatSpec", "detect", "load"]


@dataclass(frozen=True, slots=True)
class FormatSpec:
    name: str
    module: str
    # Bytes a file must contain before it is worth parsing.
    needles: tuple[bytes, ...]

    def worth_parsing(self, data: bytes) -> bool:
        if data.startswith((b"\xff\xfe", b"\xfe\xff")):  # UTF-16: parsed to be reported as unreadable
            data = data.decode("utf-16", errors="replace").encode("utf-8")
        return any(needle in data for needle in self.needles)


SHELL = FormatSpec("shell", "autofix.formats.shell", (b"sglang",))
# SGLang --config files need not say "sglang": their option keys are enough.
YAML = FormatSpec(
    "yaml", "autofix.formats.yaml",
    (b"sglang", b"model-path", b"attention-backend", b"kv-cache-dtype", b"dcp-size", b"context-parallel-size"),
)
PYTHON = FormatSpec("python", "autofix.formats.python", (b"sglang",))
DOCKERFILE = FormatSpec("dockerfile", "autofix.formats.dockerfile", (b"sglang",))
MARKDOWN = FormatSpec("markdown", "autofix.formats.markdown", (b"sglang",))
NOTEBOOK = FormatSpec("notebook", "autofix.formats.notebook", (b"sglang",))
# Editors' launch configurations (VS Code's launch.json): JSON with comments.
JSON = FormatSpec("json", "autofix.formats.launchjson", (b"sglang.launch_server", b"sglang_router.launch_server"))
SYSTEMD = FormatSpec("systemd", "autofix.formats.systemd", (b"sglang",))

# The tags of the Markdown code blocks read, by the format that reads them (an untagged block is read
# when it names a launch): formats/markdown.py reads them, mentions.py tells the others apart.
BLOCK_TAGS = {
    "shell": frozenset({"bash", "sh", "shell", "shellscript", "zsh", "console", "shell-session", "shellsession"}),
    "yaml": frozenset({"yaml", "yml"}),
    "python": frozenset({"python", "py", "python3"}),
    "json": frozenset({"json", "jsonc"}),
    "systemd": frozenset({"ini", "systemd"}),
}

# A terminal prompt opening a line of a Markdown console block: `$ `, `(venv) $ `, `user@host:~/src$ `
# (or `#` for root after user@host); what follows it is the command.
PROMPT = re.compile(r"[ \t]*(?:\([\w.-]+\)[ \t]*)?(?:[\w.-]+@[\w.-]+(?::[^\s$#]*)?(?:\$|#) |\$ )")

FORMATS: dict[str, FormatSpec] = {spec.name: spec for spec in (SHELL, YAML, PYTHON, DOCKERFILE, MARKDOWN, NOTEBOOK, JSON, SYSTEMD)}

_SUFFIXES = {
    ".sh": SHELL, ".bash": SHELL, ".yaml": YAML, ".yml": YAML, ".py": PYTHON,
    ".dockerfile": DOCKERFILE, ".containerfile": DOCKERFILE,
    ".md": MARKDOWN, ".mdx": MARKDOWN, ".markdown": MARKDOWN, ".ipynb": NOTEBOOK,
    ".code-workspace": JSON, ".service": SYSTEMD,
}
# VS Code keeps launch configurations in `.vscode/launch.json`: other JSON files (a model's
# config.json, a 10 MB tokenizer.json) are data, never opened.
_JSON_NAMES = frozenset({"launch.json"})
# Dockerfile, Dockerfile.dev, Containerfile (a suffix names the variant, not the format).
_DOCKERFILE_NAME = re.compile(r"(?:Dockerfile|Containerfile)(?:\..*)?\Z", re.IGNORECASE)
_SHEBANG = re.compile(rb"#![ \t]*(?:/usr)?/bin/(?:env[ \t]+(?:-S[ \t]+)?)?(?:ba|da|k|z)?sh\b")
_PYTHON_SHEBANG = re.compile(rb"#![ \t]*(?:/usr)?/bin/(?:env[ \t]+(?:-S[ \t]+)?)?python[0-9.]*\b")


def detect(path: str, head: bytes = b"") -> FormatSpec | None:
    """The format of a file, from its name, else from a shebang in its first bytes."""
    spec = _SUFFIXES.get(PurePath(path).suffix.lower())
    if spec is not None:
        return spec
    if _DOCKERFILE_NAME.match(PurePath(path).name):
        return DOCKERFILE
    if PurePath(path).name.lower() in _JSON_NAMES:
        return JSON
    if head.startswith(b"#!"):
        if _SHEBANG.match(head):
            return SHELL
        if _PYTHON_SHEBANG.match(head):
            return PYTHON
    return None


def load(spec: FormatSpec):  # noqa: ANN201 - a module
    return importlib.import_module(spec.module)
