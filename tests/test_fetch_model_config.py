"""--fetch-model-config: config.json alone from the Hub, through huggingface_hub, against a local server
that answers as the Hub does (`/{repo}/resolve/{revision}/{file}` with X-Repo-Commit and ETag)."""

from __future__ import annotations

import hashlib
import json
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from click.testing import CliRunner

from autofix.cli import main

pytest.importorskip("huggingface_hub")

COMMIT = "0123456789abcdef0123456789abcdef01234567"
PRIVATE = "acme/private-model"  # no autofix table knows it
QWEN = json.dumps({"architectures": ["Qwen3ForCausalLM"], "num_attention_heads": 32}).encode()
SELECT = ["--select", "tokenspeed-mla-on-non-mla-model", "--sglang-version", "0.5.22"]


class Hub(ThreadingHTTPServer):
    """The Hub's file endpoint for the repositories in `files`; what was asked, in `requests`."""

    def __init__(self, files: dict[str, bytes]):
        super().__init__(("127.0.0.1", 0), _Handler)
        self.files = files
        self.requests: list[tuple[str, str]] = []

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}"


class _Handler(BaseHTTPRequestHandler):
    server: Hub

    def do_HEAD(self) -> None:  # noqa: N802 - http.server's name
        self._answer(body=False)

    def do_GET(self) -> None:  # noqa: N802
        self._answer(body=True)

    def _answer(self, body: bool) -> None:
        self.server.requests.append((self.command, self.path))
        repo, sep, rest = self.path.lstrip("/").partition("/resolve/")
        data = self.server.files.get(f"{repo}/{rest.split('/', 1)[-1]}") if sep else None
        if data is None:
            self.send_response(404)
            self.send_header("X-Error-Code", "RepoNotFound")
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        self.send_response(200)
        self.send_header("X-Repo-Commit", COMMIT)
        self.send_header("ETag", '"' + hashlib.sha1(data).hexdigest() + '"')
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        if body:
            self.wfile.write(data)

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def hub(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Hub]:
    server = Hub({f"{PRIVATE}/config.json": QWEN, f"{PRIVATE}/model.safetensors": b"weights"})
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    monkeypatch.setenv("HF_ENDPOINT", server.url)
    monkeypatch.setenv("HF_HUB_CACHE", str(tmp_path / "hf" / "hub"))
    monkeypatch.setenv("HF_HOME", str(tmp_path / "hf"))  # no token of the machine's is read
    monkeypatch.delenv("HF_HUB_OFFLINE", raising=False)
    monkeypatch.delenv("TRANSFORMERS_OFFLINE", raising=False)
    yield server
    server.shutdown()
    server.server_close()


def _run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, model: str, *options: str):  # noqa: ANN202
    (tmp_path / "serve.sh").write_text(f"sglang serve {model} --attention-backend tokenspeed_mla\n")
    monkeypatch.chdir(tmp_path)
    return CliRunner().invoke(main, [*SELECT, *options, "serve.sh"])


def test_fetched_config_decides_the_rule(hub: Hub, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    result = _run(tmp_path, monkeypatch, PRIVATE, "--fetch-model-config")
    assert result.exit_code == 1, result.output
    assert "tokenspeed-mla-on-non-mla-model" in result.output
    # config.json alone, and into huggingface_hub's cache, where the next run finds it without asking.
    assert {path for _, path in hub.requests} == {f"/{PRIVATE}/resolve/main/config.json"}
    assert list((tmp_path / "hf" / "hub" / "models--acme--private-model" / "snapshots").glob("*/config.json"))
    asked = len(hub.requests)
    again = _run(tmp_path, monkeypatch, PRIVATE)
    assert (again.exit_code, len(hub.requests)) == (1, asked)


def test_without_the_flag_the_hub_is_not_asked(hub: Hub, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    result = _run(tmp_path, monkeypatch, PRIVATE)
    assert (result.exit_code, hub.requests) == (0, [])


def test_configuration_key_turns_it_on(hub: Hub, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / ".autofix.toml").write_text("fetch-model-config = true\n")
    result = _run(tmp_path, monkeypatch, PRIVATE)
    assert result.exit_code == 1, result.output
    assert hub.requests


def test_offline_mode_keeps_it_off(hub: Hub, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    result = _run(tmp_path, monkeypatch, PRIVATE, "--fetch-model-config")
    assert (result.exit_code, hub.requests) == (0, [])


def test_a_repository_the_hub_lacks_is_unknown(hub: Hub, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    result = _run(tmp_path, monkeypatch, "acme/missing", "--fetch-model-config")
    assert (result.exit_code, result.output) == (0, "")
    assert hub.requests  # it was asked, and the 404 means unknown, not an error


def test_no_server_is_unknown(hub: Hub, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    hub.shutdown()
    hub.server_close()
    monkeypatch.setattr(time, "sleep", lambda seconds: None)  # huggingface_hub's retries, without the waits
    result = _run(tmp_path, monkeypatch, PRIVATE, "--fetch-model-config")
    assert (result.exit_code, result.output) == (0, "")  # output: stdout and stderr, nothing of huggingface_hub's
