"""The model config edge: where a launch's model config.json is read from, and what it says.

SGLang serves a model path that exists on disk from that folder, and any other
from the Hugging Face Hub (through the local cache first). autofix reads, in
that order and only ever read-only and at most CONFIG_JSON_LIMIT bytes:

1. a local model folder's config.json, relative to the launch file's folder,
   then the working directory, when it is inside the scanned tree or the
   working directory;
2. for a Hub id (`org/name`), the local Hugging Face cache's copy: the cache
   folder as huggingface_hub finds it (`$HF_HUB_CACHE`, `$HF_HOME/hub`,
   `~/.cache/huggingface/hub`), `models--org--name/snapshots/<refs/main>/config.json`
   (the only snapshot, without refs/main), followed as a symlink only into
   that model's own `blobs` folder;
3. only with `--fetch-model-config` (or `fetch-model-config = true`): the
   Hub's config.json alone, through huggingface_hub's `hf_hub_download` into
   that same cache (honouring `HF_ENDPOINT`; never with `HF_HUB_OFFLINE`).

A failure anywhere (no file, a refused path, a network error, a repository
the Hub does not have) means the facts are unknown, never an error. Each
config is read once per run.
"""

from __future__ import annotations

import importlib.util
import json
import os
import re
from collections.abc import Mapping, Sequence
from pathlib import Path

from autofix.files import display, read_regular, resolved_roots
from autofix.knowledge.modelfacts import ModelFacts, derive

__all__ = ["CONFIG_JSON_LIMIT", "ModelLookup", "ModelSources", "hub_cache"]

CONFIG_JSON_LIMIT = 1 << 20

# A Hub repository id as huggingface_hub's validate_repo_id accepts it (no "--", no "..").
_REPO_ID = re.compile(r"[A-Za-z0-9][\w.-]{0,95}(/[\w.-]{1,96})?")
_COMMIT = re.compile(r"[0-9a-f]{40}")
_TRUE = frozenset({"1", "ON", "YES", "TRUE"})  # huggingface_hub's ENV_VARS_TRUE_VALUES


def hub_cache(environ: Mapping[str, str] | None = None) -> Path:
    """The Hugging Face cache folder, as huggingface_hub.constants resolves HF_HUB_CACHE."""
    env = os.environ if environ is None else environ
    for name in ("HF_HUB_CACHE", "HUGGINGFACE_HUB_CACHE"):
        if env.get(name):
            return Path(os.path.expanduser(env[name]))
    home = env.get("HF_HOME") or os.path.join(env.get("XDG_CACHE_HOME") or os.path.join("~", ".cache"), "huggingface")
    return Path(os.path.expanduser(home)) / "hub"


class ModelSources:
    """The places one run reads model configs from, and what it has read from them."""

    def __init__(self, environ: Mapping[str, str] | None = None):
        env = os.environ if environ is None else environ
        self.cache = hub_cache(env)
        self.endpoint = env.get("HF_ENDPOINT") or None
        self.offline = any(env.get(name, "").upper() in _TRUE for name in ("HF_HUB_OFFLINE", "TRANSFORMERS_OFFLINE"))
        self._read: dict[tuple[str, ...], ModelFacts | None] = {}

    def show(self) -> dict[str, object]:
        """What --show-settings says of where model configs are read (beside local folders inside the
        checked tree or the working directory)."""
        return {
            "hf-cache": str(self.cache),
            "hf-cache-found": self.cache.is_dir(),
            "hf-endpoint": self.endpoint,
            "hf-hub-offline": self.offline,
            "huggingface-hub-installed": importlib.util.find_spec("huggingface_hub") is not None,
        }

    def local(self, config: Path, roots: Sequence[Path]) -> ModelFacts | None:
        """A local model folder's config.json, when it is inside one of roots."""
        try:
            resolved = Path(os.path.realpath(config))
        except (OSError, ValueError):
            return None
        if not any(resolved.is_relative_to(root) for root in roots):
            return None
        key = ("local", str(resolved))
        if key not in self._read:
            self._read[key] = _facts(resolved, display(config))
        return self._read[key]

    def hub(self, repo_id: str, fetch: bool) -> ModelFacts | None:
        """The cache's config.json of a Hub repository; with fetch, the Hub's when the cache has none."""
        key = ("hub", repo_id)
        if key not in self._read:
            self._read[key] = self._cached(repo_id)
        if self._read[key] is None and fetch and ("fetched", repo_id) not in self._read:
            self._read[("fetched", repo_id)] = None
            if self._download(repo_id):
                self._read[key] = self._cached(repo_id)
        return self._read[key]

    def _cached(self, repo_id: str) -> ModelFacts | None:
        found = self._snapshot_config(repo_id)
        return _facts(found[1], str(found[0])) if found is not None else None

    def _snapshot_config(self, repo_id: str) -> tuple[Path, Path] | None:
        """The cached config.json of repo_id and the file it resolves to, or None; never a file outside
        the model's cache folder (its snapshots, or through a symlink its blobs)."""
        try:
            root = Path(os.path.realpath(self.cache))
            repo = root / ("models--" + repo_id.replace("/", "--"))
            if os.path.realpath(repo) != str(repo) or not repo.is_dir():
                return None
            snapshot = self._snapshot(repo)
            if snapshot is None:
                return None
            config = snapshot / "config.json"
            resolved = Path(os.path.realpath(config))
        except (OSError, ValueError):
            return None
        if resolved.is_relative_to(repo / "blobs") or (resolved == config and not config.is_symlink()):
            return config, resolved
        return None

    @staticmethod
    def _snapshot(repo: Path) -> Path | None:
        """refs/main's snapshot, else the only one that holds a config.json."""
        ref = repo / "refs" / "main"
        if os.path.realpath(ref) == str(ref) and ref.is_file():
            commit = read_regular(ref, 64).decode("ascii", errors="replace").strip()
            return repo / "snapshots" / commit if _COMMIT.fullmatch(commit) else None
        snapshots = repo / "snapshots"
        found = [s for s in snapshots.iterdir() if (s / "config.json").exists()] if snapshots.is_dir() else []
        return found[0] if len(found) == 1 else None

    def _download(self, repo_id: str) -> bool:
        """config.json alone, from the Hub into the cache; False when it could not be had.

        huggingface_hub's telemetry is off (it would also ask the Hub for its list of agent
        harnesses), and so are its progress bars and warnings: autofix prints its own output only.
        An unreachable Hub costs what huggingface_hub's retries take, once a model a run.
        """
        if self.offline:
            return False
        try:
            from huggingface_hub import constants, hf_hub_download
            from huggingface_hub.utils import disable_progress_bars, logging
        except ImportError:
            return False
        constants.HF_HUB_DISABLE_TELEMETRY = True
        disable_progress_bars()
        logging.set_verbosity_error()
        try:
            hf_hub_download(repo_id, "config.json", cache_dir=self.cache, endpoint=self.endpoint)
        except Exception:  # noqa: BLE001 - no network, no such repository, a gated one: unknown
            return False
        return True


class ModelLookup:
    """The facts of a launch's model path, as resolve_model asks for them (see the module's order).

    A path that exists on disk is SGLang's local folder: its config.json is read
    only inside the roots, and the Hub is not asked for it.
    """

    def __init__(self, launch_dir: Path, roots: Sequence[Path], sources: ModelSources | None = None,
                 fetch: bool = False):
        self.launch_dir = launch_dir
        self.roots = resolved_roots(os.getcwd(), tuple(roots))
        self.sources = sources if sources is not None else ModelSources()
        self.fetch = fetch

    def __call__(self, model_path: str) -> ModelFacts | None:
        if not model_path or "\x00" in model_path:
            return None
        try:
            for base in (self.launch_dir, Path.cwd()):
                folder = base / model_path
                if (folder / "config.json").is_file():
                    return self.sources.local(folder / "config.json", self.roots)
                if folder.exists():
                    return None
        except (OSError, ValueError):  # a name too long for the file system, say: not a folder
            pass
        if _REPO_ID.fullmatch(model_path) and "--" not in model_path and ".." not in model_path:
            return self.sources.hub(model_path, self.fetch)
        return None


def _facts(config: Path, source: str) -> ModelFacts | None:
    try:
        if config.stat().st_size > CONFIG_JSON_LIMIT:
            return None
        data = json.loads(read_regular(config, CONFIG_JSON_LIMIT + 1).decode("utf-8"))
    except (OSError, ValueError):
        return None
    return derive(data, source) if isinstance(data, dict) else None
