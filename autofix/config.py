"""`[tool.autofix]` in the nearest pyproject.toml."""

from __future__ import annotations

import sys
from dataclasses import dataclass, field
from pathlib import Path

__all__ = ["Config", "ConfigError", "find_config", "load_config"]

KEYS = {"select", "ignore", "exclude", "per-file-ignores", "sglang-version", "unsafe-fixes", "gpu"}


class ConfigError(ValueError):
    pass


@dataclass(frozen=True, slots=True)
class Config:
    path: Path | None = None
    select: tuple[str, ...] = ()
    ignore: tuple[str, ...] = ()
    exclude: tuple[str, ...] = ()
    per_file_ignores: dict[str, tuple[str, ...]] = field(default_factory=dict)
    sglang_version: str | None = None
    unsafe_fixes: bool = False
    gpu: str | None = None  # a GPU name (autofix.knowledge.gpus), as written

    def ignored_for(self, path: Path) -> set[str]:
        """Codes that per-file-ignores turns off for path."""
        if not self.per_file_ignores or self.path is None:
            return set()
        import pathspec

        try:
            rel = path.resolve().relative_to(self.path.parent.resolve()).as_posix()
        except ValueError:
            rel = path.as_posix()
        codes: set[str] = set()
        for pattern, words in self.per_file_ignores.items():
            if pathspec.GitIgnoreSpec.from_lines([pattern]).match_file(rel):
                codes.update(words)
        return codes


def find_config(start: Path) -> Path | None:
    for directory in (start, *start.parents):
        candidate = directory / "pyproject.toml"
        if candidate.is_file():
            return candidate
    return None


def load_config(path: Path | None) -> Config:
    if path is None:
        return Config()
    if sys.version_info >= (3, 11):
        import tomllib
    else:  # pragma: no cover
        import tomli as tomllib
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise ConfigError(f"{path}: {exc}") from None
    table = data.get("tool", {}).get("autofix")
    if table is None:
        return Config(path)
    unknown = sorted(set(table) - KEYS)
    if unknown:
        raise ConfigError(f"{path}: unknown key `{unknown[0]}` in [tool.autofix]")

    def words(key: str) -> tuple[str, ...]:
        value = table.get(key, [])
        if isinstance(value, str):
            value = [value]
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise ConfigError(f"{path}: [tool.autofix] {key} must be a list of strings")
        return tuple(value)

    pfi = table.get("per-file-ignores", {})
    if not isinstance(pfi, dict):
        raise ConfigError(f"{path}: [tool.autofix] per-file-ignores must be a table")
    version = table.get("sglang-version")
    if version is not None and not isinstance(version, str):
        raise ConfigError(f"{path}: [tool.autofix] sglang-version must be a string")
    gpu = table.get("gpu")
    if gpu is not None and not isinstance(gpu, str):
        raise ConfigError(f"{path}: [tool.autofix] gpu must be a string")
    unsafe = table.get("unsafe-fixes", False)
    if not isinstance(unsafe, bool):
        raise ConfigError(f"{path}: [tool.autofix] unsafe-fixes must be true or false")
    return Config(
        path,
        select=words("select"),
        ignore=words("ignore"),
        exclude=words("exclude"),
        per_file_ignores={k: tuple(v) if isinstance(v, list) else (v,) for k, v in pfi.items()},
        sglang_version=version,
        unsafe_fixes=unsafe,
        gpu=gpu,
    )
