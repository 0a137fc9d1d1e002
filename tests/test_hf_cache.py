"""A launch's model looked up in the local Hugging Face cache: read-only, without network, and never a
file outside the model's own cache folder (its snapshots, and through their symlinks its blobs)."""

from __future__ import annotations

import json
import os
import socket
from pathlib import Path

import pytest
from click.testing import CliRunner

from autofix.cli import main
from autofix.modelconfigs import CONFIG_JSON_LIMIT, ModelLookup, ModelSources, hub_cache

COMMIT = "0123456789abcdef0123456789abcdef01234567"
OTHER = "fedcba9876543210fedcba9876543210fedcba98"
QWEN = {"architectures": ["Qwen3ForCausalLM"], "num_attention_heads": 32, "num_key_value_heads": 8}
DEEPSEEK = {"architectures": ["DeepseekV3ForCausalLM"], "kv_lora_rank": 512}
# An id autofix's tables do not know: only a config says what it is.
PRIVATE = "acme/private-model"


def cache_model(cache: Path, repo_id: str, config: dict | bytes, commit: str = COMMIT, ref: bool = True) -> Path:
    """A model laid out as huggingface_hub caches it: the blob, a snapshot symlink to it, refs/main."""
    repo = cache / ("models--" + repo_id.replace("/", "--"))
    data = config if isinstance(config, bytes) else json.dumps(config).encode()
    blob = repo / "blobs" / f"blob-{commit}"
    blob.parent.mkdir(parents=True, exist_ok=True)
    blob.write_bytes(data)
    snapshot = repo / "snapshots" / commit
    snapshot.mkdir(parents=True, exist_ok=True)
    (snapshot / "config.json").symlink_to(os.path.relpath(blob, snapshot))
    if ref:
        (repo / "refs").mkdir(exist_ok=True)
        (repo / "refs" / "main").write_text(commit)
    return snapshot / "config.json"


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "hf" / "hub"
    folder.mkdir(parents=True)
    monkeypatch.setenv("HF_HUB_CACHE", str(folder))
    return folder


@pytest.fixture
def no_network(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Sockets refused, and HF_HUB_OFFLINE set, as a machine without network has them."""
    calls: list[str] = []

    def refuse(*args, **kwargs):  # noqa: ANN002, ANN003, ANN202
        calls.append(repr(args)[:80])
        raise OSError("network use in a test of the Hugging Face cache")

    for name in ("socket", "create_connection", "getaddrinfo", "gethostbyname"):
        monkeypatch.setattr(socket, name, refuse)
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    return calls


def lookup(tmp_path: Path, fetch: bool = False) -> ModelLookup:
    return ModelLookup(tmp_path, [tmp_path], ModelSources(), fetch=fetch)


def test_cached_config_gives_the_facts(cache: Path, tmp_path: Path, no_network: list[str]) -> None:
    config = cache_model(cache, PRIVATE, QWEN)
    facts = lookup(tmp_path)(PRIVATE)
    assert (facts.architecture, facts.num_key_value_heads, facts.source) == ("Qwen3ForCausalLM", 8, str(config))
    assert no_network == []


def test_a_run_reads_the_cache_without_network(cache: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                               no_network: list[str]) -> None:
    """Only the cached config says the model is not MLA, so only with it is the backend reported."""
    (tmp_path / "serve.sh").write_text(f"sglang serve {PRIVATE} --attention-backend tokenspeed_mla\n")
    monkeypatch.chdir(tmp_path)
    args = ["--select", "tokenspeed-mla-on-non-mla-model", "--sglang-version", "0.5.22", "serve.sh"]
    before = CliRunner().invoke(main, args)
    cache_model(cache, PRIVATE, QWEN)
    after = CliRunner().invoke(main, args)
    assert (before.exit_code, after.exit_code) == (0, 1), before.output + after.output
    assert "tokenspeed-mla-on-non-mla-model" in after.output
    assert no_network == []


def test_refs_main_names_the_snapshot(cache: Path, tmp_path: Path) -> None:
    cache_model(cache, PRIVATE, DEEPSEEK, commit=OTHER, ref=False)
    cache_model(cache, PRIVATE, QWEN, commit=COMMIT)
    assert lookup(tmp_path)(PRIVATE).architecture == "Qwen3ForCausalLM"


def test_without_refs_main_only_a_single_snapshot_is_read(cache: Path, tmp_path: Path) -> None:
    cache_model(cache, PRIVATE, QWEN, ref=False)
    assert lookup(tmp_path)(PRIVATE).architecture == "Qwen3ForCausalLM"
    cache_model(cache, PRIVATE, DEEPSEEK, commit=OTHER, ref=False)
    assert lookup(tmp_path)(PRIVATE) is None  # two snapshots, no ref: which one SGLang loads is unknown


class _Opened:
    def __init__(self, monkeypatch: pytest.MonkeyPatch):
        self.paths: list[str] = []
        real = os.open

        def recording(path, *args, **kwargs):  # noqa: ANN001, ANN002, ANN003, ANN202
            self.paths.append(os.path.realpath(os.fsdecode(path)))
            return real(path, *args, **kwargs)

        monkeypatch.setattr(os, "open", recording)

    def saw(self, path: Path) -> bool:
        return os.path.realpath(path) in self.paths


def test_snapshot_symlink_out_of_the_cache_is_refused(cache: Path, tmp_path: Path,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    outside = tmp_path / "secret" / "config.json"
    outside.parent.mkdir()
    outside.write_text(json.dumps(QWEN))
    config = cache_model(cache, PRIVATE, QWEN)
    config.unlink()
    config.symlink_to(outside)
    opened = _Opened(monkeypatch)
    assert lookup(tmp_path / "elsewhere")(PRIVATE) is None
    assert not opened.saw(outside)


def test_symlink_into_another_models_blobs_is_refused(cache: Path, tmp_path: Path) -> None:
    other = cache_model(cache, "acme/other", QWEN)
    config = cache_model(cache, PRIVATE, DEEPSEEK)
    config.unlink()
    config.symlink_to(os.path.realpath(other))
    assert lookup(tmp_path)(PRIVATE) is None


def test_model_folder_symlinked_out_of_the_cache_is_refused(cache: Path, tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere"
    cache_model(elsewhere, PRIVATE, QWEN)
    (cache / "models--acme--private-model").symlink_to(elsewhere / "models--acme--private-model")
    assert lookup(tmp_path)(PRIVATE) is None


@pytest.mark.parametrize("ref", ["../../../../secret", "main", COMMIT + "/../" + OTHER])
def test_refs_main_that_is_no_commit_is_refused(cache: Path, tmp_path: Path, ref: str) -> None:
    cache_model(cache, PRIVATE, QWEN)
    (cache / "models--acme--private-model" / "refs" / "main").write_text(ref)
    assert lookup(tmp_path)(PRIVATE) is None


def test_a_regular_file_in_the_snapshot_is_read(cache: Path, tmp_path: Path) -> None:
    """As huggingface_hub leaves it where the file system has no symlinks."""
    config = cache_model(cache, PRIVATE, DEEPSEEK)
    config.unlink()
    config.write_text(json.dumps(QWEN))
    assert lookup(tmp_path)(PRIVATE).architecture == "Qwen3ForCausalLM"


def test_oversized_or_broken_configs_are_unknown(cache: Path, tmp_path: Path) -> None:
    cache_model(cache, PRIVATE, b"{" + b" " * CONFIG_JSON_LIMIT + b"}")
    cache_model(cache, "acme/broken", b"{not json")
    cache_model(cache, "acme/list", b"[1, 2]")
    assert [lookup(tmp_path)(name) for name in (PRIVATE, "acme/broken", "acme/list")] == [None, None, None]


@pytest.mark.parametrize("path", ["/abs/acme/private-model", "acme--x/y", "acme/../x", "a/b/c", "", "x\x00y",
                                  "./acme/private-model", "-acme/x"])
def test_paths_that_are_no_hub_id_are_not_looked_up(cache: Path, tmp_path: Path, path: str) -> None:
    cache_model(cache, "acme/x", QWEN)
    cache_model(cache, PRIVATE, QWEN)
    assert lookup(tmp_path)(path) is None


def test_a_local_folder_wins_over_the_cache(cache: Path, tmp_path: Path) -> None:
    """SGLang serves an existing folder from disk: the cache's copy of the same name is not its config."""
    cache_model(cache, PRIVATE, QWEN)
    (tmp_path / PRIVATE).mkdir(parents=True)
    assert lookup(tmp_path)(PRIVATE) is None
    (tmp_path / PRIVATE / "config.json").write_text(json.dumps(DEEPSEEK))
    assert lookup(tmp_path)(PRIVATE).architecture == "DeepseekV3ForCausalLM"


def test_each_config_is_read_once_a_run(cache: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    config = cache_model(cache, PRIVATE, QWEN)
    sources = ModelSources()
    opened = _Opened(monkeypatch)
    first, second = ModelLookup(tmp_path / "a", [tmp_path], sources), ModelLookup(tmp_path / "b", [tmp_path], sources)
    assert first(PRIVATE) == second(PRIVATE) is not None
    assert opened.paths.count(os.path.realpath(config)) == 1


@pytest.mark.parametrize(
    ("environ", "expected"),
    [
        ({"HF_HUB_CACHE": "/c/hub", "HF_HOME": "/h"}, "/c/hub"),
        ({"HUGGINGFACE_HUB_CACHE": "/legacy", "HF_HOME": "/h"}, "/legacy"),
        ({"HF_HOME": "/h", "XDG_CACHE_HOME": "/x"}, "/h/hub"),
        ({"XDG_CACHE_HOME": "/x"}, "/x/huggingface/hub"),
        ({}, os.path.expanduser("~/.cache/huggingface/hub")),
    ],
    ids=["HF_HUB_CACHE", "legacy", "HF_HOME", "XDG_CACHE_HOME", "default"],
)
def test_cache_folder_is_found_as_huggingface_hub_finds_it(environ: dict, expected: str) -> None:
    assert hub_cache(environ) == Path(expected)


# -- what --show-settings says of them ------------------------------------------------


def _shown(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, *options: str) -> dict:
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(main, ["--show-settings", "--format", "json", *options, "."])
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)[0]


def test_show_settings_names_the_model_config_sources(cache: Path, tmp_path: Path,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    shown = _shown(tmp_path, monkeypatch)
    assert shown["model-configs"]["hf-cache"] == str(cache)
    assert (shown["model-configs"]["hf-cache-found"], shown["fetch-model-config"]) == (True, False)
    monkeypatch.setenv("HF_HUB_CACHE", str(tmp_path / "absent"))
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    shown = _shown(tmp_path, monkeypatch, "--fetch-model-config")
    assert (shown["model-configs"]["hf-cache-found"], shown["model-configs"]["hf-hub-offline"]) == (False, True)
    assert shown["fetch-model-config"] is True
    assert shown["model-configs"]["huggingface-hub-installed"] is True  # the test extra installs it


def test_fetch_from_the_configuration_is_shown(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / ".autofix.toml").write_text("fetch-model-config = true\n")
    shown = _shown(tmp_path, monkeypatch)
    assert (shown["fetch-model-config"], shown["settings"]["fetch-model-config"]) == (True, True)


def test_fetch_key_must_be_a_boolean(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / ".autofix.toml").write_text('fetch-model-config = "yes"\n')
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(main, ["."])
    assert result.exit_code == 2
    assert "`fetch-model-config` must be true or false" in result.output


def test_fetch_without_huggingface_hub_is_a_usage_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import importlib.util

    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == "huggingface_hub" else real(name, *a))
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(main, ["--fetch-model-config", "."])
    assert result.exit_code == 2
    assert "pip install 'autofix[hub]'" in result.output
