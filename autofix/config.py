"""Configuration: `[tool.autofix]` in a pyproject.toml, or the top level of a `.autofix.toml`.

As in ruff, configuration is hierarchical: each file is checked with the
configuration closest to it (in its folder, else the nearest parent folder
that has one); a pyproject.toml without `[tool.autofix]` is passed over, and
in one folder `.autofix.toml` wins over pyproject.toml. The closest
configuration wins whole: nothing is merged from configurations further up.
Patterns (`exclude`, `extend-exclude`, `per-file-ignores`, `per-file-gpu`) are
gitignore-style and relative to the folder of the configuration file that holds
them.
`--config FILE` forces one configuration for every file; its patterns are
relative to the working directory (as ruff does).
"""

from __future__ import annotations

import os
import sys
from collections.abc import Collection, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

__all__ = [
    "CONFIG_NAMES", "Config", "ConfigError", "Effective", "Overrides", "Resolver", "find_config", "load_config",
    "show_text",
]

KEYS = frozenset({
    "select", "extend-select", "ignore", "exclude", "extend-exclude", "per-file-ignores", "sglang-version",
    "unsafe-fixes", "gpu", "fetch-model-config", "per-file-gpu", "cache-dir",
})
# In one folder, the first of these that holds autofix settings is its configuration.
CONFIG_NAMES = (".autofix.toml", "pyproject.toml")
_CONFIG_SET = frozenset(CONFIG_NAMES)
# Folders a walk skips unless the configuration's `exclude` replaces this list.
DEFAULT_EXCLUDE = (
    ".git", ".hg", ".svn", "node_modules", "__pycache__", ".tox", ".nox", ".mypy_cache",
    ".pytest_cache", ".ruff_cache", ".venv", "venv", ".eggs", ".sglang-env", ".autofix_cache",
)


class ConfigError(ValueError):
    pass


@dataclass(frozen=True, slots=True)
class Config:
    path: Path | None = None  # the file it was read from; None: the defaults
    select: tuple[str, ...] = ()
    extend_select: tuple[str, ...] = ()
    ignore: tuple[str, ...] = ()
    exclude: tuple[str, ...] | None = None  # None: DEFAULT_EXCLUDE
    extend_exclude: tuple[str, ...] = ()
    per_file_ignores: dict[str, tuple[str, ...]] = field(default_factory=dict)
    sglang_version: str | None = None
    unsafe_fixes: bool = False
    gpu: str | None = None  # a GPU name (autofix.knowledge.gpus), as written
    fetch_model_config: bool = False  # ask the Hub for a model's config.json the local cache lacks
    # pattern -> a GPU name: the GPU of the files it matches (the last matching pattern wins).
    per_file_gpu: dict[str, str] = field(default_factory=dict)
    cache_dir: str | None = None  # the cache folder (autofix.cache), as written: relative to root
    base: Path | None = None  # the folder its patterns are relative to; None: the file's folder

    @property
    def root(self) -> Path:
        """The folder its patterns are relative to."""
        if self.base is not None:
            return self.base
        return self.path.parent.resolve() if self.path is not None else Path.cwd().resolve()

    def relative(self, path: Path) -> str:
        """path as its patterns see it: relative to the configuration's folder when inside it."""
        resolved = Path(os.path.abspath(path))
        for base in (self.root, Path.cwd().resolve()):
            try:
                return resolved.relative_to(base).as_posix()
            except ValueError:
                continue
        return resolved.as_posix().lstrip("/")

    def ignored_for(self, path: Path) -> set[str]:
        """Codes that per-file-ignores turns off for path."""
        if not self.per_file_ignores:
            return set()
        rel = self.relative(path)
        codes: set[str] = set()
        for pattern, words in self.per_file_ignores.items():
            if _spec((pattern,)).match_file(rel):
                codes.update(words)
        return codes

    def gpu_pattern_for(self, path: Path) -> str | None:
        """The last per-file-gpu pattern that matches path; None when none does."""
        if not self.per_file_gpu:
            return None
        rel = self.relative(path)
        found = None
        for pattern in self.per_file_gpu:
            if _spec((pattern,)).match_file(rel):
                found = pattern
        return found

    def excludes(self, path: Path, is_dir: bool) -> bool:
        """Whether exclude or extend-exclude matches path (a folder when is_dir)."""
        if self.exclude is None and path.name in DEFAULT_EXCLUDE and is_dir:
            return True
        patterns = (*(self.exclude or ()), *self.extend_exclude)
        if not patterns:
            return False
        rel = self.relative(path) + ("/" if is_dir else "")
        return _spec(patterns).match_file(rel)

    def settings(self) -> dict[str, object]:
        """What --show-settings prints (the configuration's own keys)."""
        return {
            "select": list(self.select),
            "extend-select": list(self.extend_select),
            "ignore": list(self.ignore),
            "exclude": list(DEFAULT_EXCLUDE if self.exclude is None else self.exclude),
            "extend-exclude": list(self.extend_exclude),
            "per-file-ignores": {k: list(v) for k, v in self.per_file_ignores.items()},
            "sglang-version": self.sglang_version,
            "unsafe-fixes": self.unsafe_fixes,
            "gpu": self.gpu,
            "fetch-model-config": self.fetch_model_config,
            "per-file-gpu": dict(self.per_file_gpu),
            "cache-dir": self.cache_dir,
        }

    def cache_folder(self) -> Path | None:
        """`cache-dir`, made absolute from the folder its patterns are relative to; None: not set."""
        if self.cache_dir is None:
            return None
        return self.root / os.path.expanduser(self.cache_dir)


_SPECS: dict[tuple[str, ...], object] = {}


def _spec(patterns: tuple[str, ...]):  # noqa: ANN202 - pathspec.GitIgnoreSpec
    """Gitignore-style patterns; pathspec is imported only when there are some."""
    spec = _SPECS.get(patterns)
    if spec is None:
        import pathspec

        spec = _SPECS[patterns] = pathspec.GitIgnoreSpec.from_lines(patterns)
    return spec


def _toml():  # noqa: ANN202 - a module
    if sys.version_info >= (3, 11):
        import tomllib
    else:  # pragma: no cover
        import tomli as tomllib
    return tomllib


def _table(path: Path) -> dict | None:
    """The autofix table of a configuration file; None: the file holds no autofix settings."""
    tomllib = _toml()
    try:
        data = path.read_bytes()
        if path.name == "pyproject.toml" and b"autofix" not in data:
            return None
        parsed = tomllib.loads(data.decode("utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise ConfigError(f"{path}: {getattr(exc, 'strerror', None) or exc}") from None
    except (RecursionError, MemoryError):  # TOML nested ~1,000 deep
        raise ConfigError(f"{path}: nested too deeply to read") from None
    if path.name == "pyproject.toml":
        tool = parsed.get("tool", {})
        if not isinstance(tool, dict):
            raise ConfigError(f"{path}: `tool` must be a table (as [tool.autofix])")
        table = tool.get("autofix")
        if table is not None and not isinstance(table, dict):
            raise ConfigError(f"{path}: [tool.autofix] must be a table")
        return table
    return parsed


def find_config(start: Path) -> Path | None:
    """The configuration file closest to the folder start: in it, else in the nearest parent."""
    for directory in (start, *start.parents):
        found = _config_in(directory)
        if found is not None:
            return found
    return None


def _config_in(directory: Path) -> Path | None:
    for name in CONFIG_NAMES:
        candidate = directory / name
        if candidate.is_file() and _table(candidate) is not None:
            return candidate
    return None


def load_config(path: Path | None) -> Config:
    """The configuration in path (a pyproject.toml or a .autofix.toml); None: the defaults."""
    if path is None:
        return Config()
    table = _table(path)
    if table is None:
        return Config(path)
    where = "[tool.autofix]" if path.name == "pyproject.toml" else "the configuration"
    unknown = sorted(set(table) - KEYS)
    if unknown:
        raise ConfigError(f"{path}: unknown key `{unknown[0]}` in {where}")

    def words(key: str) -> tuple[str, ...]:
        value = table.get(key, [])
        if isinstance(value, str):
            value = [value]
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise ConfigError(f"{path}: `{key}` must be a list of strings")
        return tuple(value)

    for key in ("exclude", "extend-exclude"):
        for pattern in words(key):
            try:
                _spec((pattern,))
            except Exception as exc:  # noqa: BLE001 - pathspec's errors (re.error among them)
                raise ConfigError(f"{path}: `{key}`: not a pattern: {pattern!r} ({exc})") from None

    pfi = table.get("per-file-ignores", {})
    if not isinstance(pfi, dict):
        raise ConfigError(f"{path}: `per-file-ignores` must be a table")
    per_file: dict[str, tuple[str, ...]] = {}
    for pattern, codes in pfi.items():
        codes = [codes] if isinstance(codes, str) else codes
        if not isinstance(codes, list) or not all(isinstance(c, str) for c in codes):
            raise ConfigError(f"{path}: `per-file-ignores` {pattern!r} must be a list of codes")
        per_file[pattern] = tuple(codes)
    version = table.get("sglang-version")
    if version is not None and not isinstance(version, str):
        raise ConfigError(f"{path}: `sglang-version` must be a string")
    gpu = table.get("gpu")
    if gpu is not None and not isinstance(gpu, str):
        raise ConfigError(f"{path}: `gpu` must be a string")
    flags = {key: table.get(key, False) for key in ("unsafe-fixes", "fetch-model-config")}
    for key, value in flags.items():
        if not isinstance(value, bool):
            raise ConfigError(f"{path}: `{key}` must be true or false")
    cache_dir = table.get("cache-dir")
    if cache_dir is not None and (not isinstance(cache_dir, str) or not cache_dir):
        raise ConfigError(f"{path}: `cache-dir` must be a folder's path")
    per_file_gpu = table.get("per-file-gpu", {})
    if not isinstance(per_file_gpu, dict) or not all(isinstance(v, str) for v in per_file_gpu.values()):
        raise ConfigError(f"{path}: `per-file-gpu` must be a table of GPU names")
    return Config(
        path,
        select=words("select"),
        extend_select=words("extend-select"),
        ignore=words("ignore"),
        exclude=words("exclude") if "exclude" in table else None,
        extend_exclude=words("extend-exclude"),
        per_file_ignores=per_file,
        sglang_version=version,
        unsafe_fixes=flags["unsafe-fixes"],
        gpu=gpu,
        fetch_model_config=flags["fetch-model-config"],
        per_file_gpu=per_file_gpu,
        cache_dir=cache_dir,
    )


class Resolver:
    """The configuration of each file: the closest one, or the one --config forces.

    Looks each folder up once per run. A broken configuration file raises
    ConfigError when a file under it is first resolved.
    """

    def __init__(self, forced: Path | None = None, overrides: Overrides | None = None):
        # As with ruff: a configuration given by --config has its patterns relative to the working directory.
        self.forced = replace(load_config(forced), base=Path.cwd().resolve()) if forced is not None else None
        self.overrides = overrides or Overrides()
        # Only these fixer codes may run (--from-log); None: no such limit.
        self.only: set[str] | None = None
        self._by_dir: dict[str, Config] = {}  # folder (absolute, as a string: a tree has thousands) -> its configuration
        self._loaded: dict[Path, Config] = {}
        self._effective: dict[int, Effective] = {}

    def for_dir(self, folder: Path, names: Collection[str] | None = None) -> Config:
        """The configuration of the files in folder; names: the folder's listing, when known (saves a look)."""
        if self.forced is not None:
            return self.forced
        known = self._by_dir.get(os.path.abspath(folder))
        if known is not None:
            return known
        folder = Path(os.path.abspath(folder))
        chain: list[str] = []
        config: Config | None = None
        directory = folder
        while True:  # up to the nearest folder already known or holding a configuration
            key = str(directory)
            if key in self._by_dir:
                config = self._by_dir[key]
                break
            chain.append(key)
            found = _config_in(directory) if names is None or directory != folder or _CONFIG_SET & set(names) else None
            if found is not None:
                config = self._load(found)
                break
            if directory.parent == directory:
                break
            directory = directory.parent
        if config is None:
            config = Config()
        for key in chain:
            self._by_dir[key] = config
        return config

    def for_path(self, path: Path) -> Config:
        """The configuration of a file (or of a folder's contents, for a folder)."""
        path = Path(os.path.abspath(path))
        return self.for_dir(path if path.is_dir() else path.parent)

    def excludes(self, path: Path, is_dir: bool) -> bool:
        """Whether the configuration of path's folder excludes path."""
        return self.for_dir(Path(os.path.abspath(path)).parent).excludes(path, is_dir)

    def restrict(self, codes: set[str] | None) -> None:
        """Let only these fixer codes run (--from-log); None: no limit."""
        self.only = codes
        self._effective.clear()

    def effective(self, path: Path) -> Effective:
        """What applies to a file: its configuration with the command line on top."""
        config = self.for_path(path)
        key = id(config)
        if key not in self._effective:
            self._effective[key] = _effective(config, self.overrides, self.only)
        return self._effective[key]

    def _load(self, path: Path) -> Config:
        if path not in self._loaded:
            self._loaded[path] = load_config(path)
        return self._loaded[path]


@dataclass(frozen=True, slots=True)
class Overrides:
    """What the command line says: --select replaces the configured selection, --ignore adds to it."""

    select: tuple[str, ...] = ()
    extend_select: tuple[str, ...] = ()
    ignore: tuple[str, ...] = ()
    sglang_version: str | None = None
    unsafe_fixes: bool = False
    gpu: str | None = None  # --gpu
    fetch_model_config: bool = False  # --fetch-model-config


@dataclass(frozen=True, slots=True)
class Effective:
    """The settings a file is checked with."""

    config: Config
    fixers: tuple  # tuple[Fixer, ...]: the selected fixers, before per-file-ignores
    release: str | None
    unsafe: bool
    unused_suppressions: bool  # AF100 is selected
    gpu: object = None  # autofix.knowledge.gpus.Gpu: --gpu, else the configuration's `gpu`; None: not named
    fetch_model_config: bool = False  # --fetch-model-config, or the configuration's `fetch-model-config`
    # per-file-gpu's patterns and their GPUs; empty under --gpu, which wins over every file's.
    per_file_gpu: dict = field(default_factory=dict)
    upgrading: bool = False  # the release is --sglang-version's, not (only) the configuration's

    def settings_for(self, path: Path, neighbour_release: str | None, model_lookup: object,
                     read_config: object = None, only_config: str | None = None) -> object:
        """The pipeline's Settings for checking path: the one place they are built (files, stdin, the
        language server)."""
        from autofix.pipeline import Settings

        return Settings(
            self.fixers_for(path), self.release, neighbour_release, self.unsafe, model_lookup,  # type: ignore[arg-type]
            read_config, only_config, gpu=self.gpu_for(path),  # type: ignore[arg-type]
            unused_suppressions=self.reports_unused_for(path), upgrading=self.upgrading,
            configured_release=self.config.sglang_version,
        )

    def gpu_for(self, path: Path) -> object:
        """The GPU a file's launches run on, as the configuration and --gpu name it (None: not named,
        and then the GPU the file names, if any: autofix.gpuhints)."""
        pattern = self.config.gpu_pattern_for(path) if self.per_file_gpu else None
        return self.per_file_gpu[pattern] if pattern is not None else self.gpu

    def fixers_for(self, path: Path) -> Sequence:
        """The fixers for one file: the selected ones less its per-file-ignores (the selection
        itself where none apply, so every file shares one rule index)."""
        off = self.config.ignored_for(path)
        if not off:
            return self.fixers
        return [fx for fx in self.fixers if not any(fx.code.startswith(c) or fx.name == c for c in off)]

    def reports_unused_for(self, path: Path) -> bool:
        from autofix.suppressions import selects

        return self.unused_suppressions and not selects(self.config.ignored_for(path))

    def show(self, path: Path) -> dict[str, object]:
        """What --show-settings prints for path."""
        return {
            "path": str(path),
            "config": str(self.config.path) if self.config.path is not None else None,
            "excluded": self.config.excludes(Path(os.path.abspath(path)), Path(path).is_dir()),
            "fixers": [fx.code for fx in self.fixers_for(path)]
            + (["AF100"] if self.reports_unused_for(path) else []),
            "release": self.release,  # None: detected per launch
            "gpu": getattr(self.gpu_for(path), "name", None),
            "unsafe": self.unsafe,
            "fetch-model-config": self.fetch_model_config,
            "settings": self.config.settings(),
        }


def show_text(shown: dict) -> str:
    """--show-settings as text: one `key = value` line each, TOML-like."""
    import json

    lines = [f"# {shown['path']}"]
    lines += [f"{key} = {json.dumps(value)}" for key, value in shown.items() if key not in ("path", "settings")]
    lines += ["", "[settings]"]
    lines += [f"{key} = {json.dumps(value)}" for key, value in shown["settings"].items()]
    return "\n".join(lines)


def _effective(config: Config, overrides: Overrides, only: set[str] | None) -> Effective:
    from autofix import fixer as registry
    from autofix.knowledge.releases import parse_release
    from autofix.suppressions import fixer_words, selects

    where = str(config.path) if config.path is not None else "the defaults"
    for key, words in (("select", config.select), ("extend-select", config.extend_select), ("ignore", config.ignore),
                       ("per-file-ignores", [w for ws in config.per_file_ignores.values() for w in ws])):
        unknown = registry.unknown_codes(fixer_words(words))
        if unknown:
            raise ConfigError(f"{where}: `{key}`: unknown fixer code or name: {unknown[0]}")
    if config.sglang_version is not None and parse_release(config.sglang_version) is None:
        raise ConfigError(f"{where}: `sglang-version`: not a release: {config.sglang_version}")
    from autofix.knowledge.gpus import gpu_named

    gpu = None
    if overrides.gpu or config.gpu:
        gpu = gpu_named(overrides.gpu or config.gpu)
        if gpu is None and not overrides.gpu:
            raise ConfigError(f"{where}: `gpu`: unknown GPU {config.gpu!r}")
    per_file_gpu = {}
    for pattern, name in config.per_file_gpu.items():
        per_file_gpu[pattern] = gpu_named(name)
        if per_file_gpu[pattern] is None:
            raise ConfigError(f"{where}: `per-file-gpu` {pattern!r}: unknown GPU {name!r}")
    select = list(overrides.select) or list(config.select)
    extend = [*config.extend_select, *overrides.extend_select]
    ignore = [*config.ignore, *overrides.ignore]
    kept = {fx.code for fx in registry.select(["ALL"], fixer_words(ignore))}
    chosen: dict[str, object] = {}
    for words in (select, extend):
        names = fixer_words(words)
        if names or (words is select and not select):
            chosen.update((fx.code, fx) for fx in registry.select(names))
    fixers = [fx for code, fx in sorted(chosen.items()) if code in kept and (only is None or code in only)]
    unused = (selects(select) or selects(extend)) and not selects(ignore) and only is None
    return Effective(
        config,
        tuple(fixers),
        overrides.sglang_version or config.sglang_version,
        overrides.unsafe_fixes or config.unsafe_fixes,
        unused,
        gpu,
        overrides.fetch_model_config or config.fetch_model_config,
        {} if overrides.gpu else per_file_gpu,
        overrides.sglang_version is not None,
    )
