"""No false alarms from forks of SGLang: their options, and their config files.

tests/data/near_misses.txt holds the measurement (fork options found in public
code, older SGLang options, the corpus's unknown options, and typos of each
kind); unknown-option reports a flag of unknown release only when it is a near
miss (fixers/_argparse.py `is_near_miss`), and then names the option meant.
A `--config` file written all in underscores is a fork's format.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from autofix.fixer import select
from autofix.formats import FORMATS
from autofix.fixers._argparse import is_near_miss
from autofix.knowledge.options import all_tables, table
from autofix.pipeline import Linked, Settings, fix_text
from autofix.source import Source

DATA = Path(__file__).parent / "data" / "near_misses.txt"
CORPUS = Path(__file__).resolve().parents[2] / "shared" / "corpus"
LAUNCH = "python -m sglang.launch_server --model-path Qwen/Qwen3-8B --port 30000 {}\n"


def measured() -> dict[str, list[str]]:
    """The lists of the data file, by section: one entry a line, comments and blank lines left out."""
    sections: dict[str, list[str]] = {}
    current: list[str] = []
    for line in DATA.read_text(encoding="utf-8").splitlines():
        line = line.split("#", 1)[0].strip()
        if line.startswith("["):
            current = sections.setdefault(line.strip("[]"), [])
        elif line:
            current.append(line)
    return sections


LISTS = measured()


def check(written: str, release: str | None = None, fix: bool = False):  # noqa: ANN201
    settings = Settings(select(["ALL"]), release=release, unsafe=True)
    return fix_text(Source(LAUNCH.format(written)), FORMATS["shell"], settings, fix=fix)


def pairs(section: str) -> list[tuple[str, str | None]]:
    """`written -> meant` entries as (written, meant); a bare entry as (written, None)."""
    return [tuple(e.split(" -> ")) if " -> " in e else (e, None) for e in LISTS[section]]  # type: ignore[misc]


def test_the_measurement_is_there() -> None:
    assert {k: len(v) > 0 for k, v in LISTS.items()} == {"fork": True, "older": True, "typo": True, "corpus": True}


@pytest.mark.parametrize("option", LISTS["fork"] + LISTS["corpus"])
def test_fork_option_of_unknown_release_is_quiet(option: str) -> None:
    assert all(t.lookup(option) is None for t in all_tables()), "not a fork option: a release has it"
    assert check(option).findings == []


@pytest.mark.parametrize("option", LISTS["fork"])
def test_fork_option_of_pinned_release_is_unknown_there_with_no_rename(option: str) -> None:
    [reported] = check(option, release="0.5.22").findings
    assert reported.fixer.code == "SGL101"
    assert reported.finding.message == f"`{option}` is not an option of SGLang 0.5.22"
    assert reported.fix is None


@pytest.mark.parametrize(("option", "renamed"), pairs("older"))
def test_older_option_is_quiet_unless_sglang_renamed_it_by_a_slip(option: str, renamed: str | None) -> None:
    findings = check(option).findings
    if renamed is None:
        assert findings == []
    else:
        [reported] = findings
        assert reported.finding.message.endswith(f"did you mean `{renamed}`?")


@pytest.mark.parametrize(("written", "meant"), pairs("typo"))
def test_typo_is_reported_with_the_option_meant(written: str, meant: str) -> None:
    result = check(written, fix=True)
    [reported] = result.findings
    name = written.split()[0]
    assert reported.fixer.code == "SGL101"
    assert reported.finding.message == f"`{name}` is not an option of any SGLang release; did you mean `{meant}`?"
    assert result.text == LAUNCH.format(written.replace(name, meant, 1))


@pytest.mark.parametrize(("written", "meant"), [
    ("--kv-cache-type", "--kv-cache-dtype"), ("--dtype-kv-cache", "--kv-cache-dtype"),
    ("--kvcache-dtype", "--kv-cache-dtype"), ("--mem-frac-static", "--mem-fraction-static"),
    ("--TP_SIZE", "--tp-size"),
])
def test_near_miss_kinds(written: str, meant: str) -> None:
    assert is_near_miss(written, meant)


@pytest.mark.parametrize(("written", "other"), [
    ("--attn-tp-size", "--attn-dp-size"),  # a short word changed: another parallelism
    ("--app-key", "--api-key"),
    ("--rpc-port", "--grpc-port"),
    ("--disable-prefill-graph", "--disable-prefill-cuda-graph"),  # a word missing
    ("--enable-hip-attention", "--enable-dp-attention"),  # a word changed by two letters
    ("--enable-piecewise-cuda-graph", "--disable-piecewise-cuda-graph"),  # the opposite switch
    ("--tokenizer-metrics-allowed-customer-labels", "--tokenizer-metrics-allowed-custom-labels"),  # a longer word
])
def test_other_names_are_not_near_misses(written: str, other: str) -> None:
    assert not is_near_miss(written, other)


@pytest.mark.skipif(not CORPUS.is_dir(), reason=f"no corpus beside the checkout ({CORPUS})")
def test_no_option_written_in_the_corpus_is_a_near_miss() -> None:
    """Every `--option` in the corpus's files that no release knows (other tools', forks', older
    SGLang's) is left alone: the rule would rename none of them."""
    options = [f for o in table().options for f in o.flags if f.startswith("--")]
    written = {m for p in CORPUS.rglob("*") if p.is_file()
               for m in re.findall(r"(?<![\w-])--[A-Za-z][\w-]*", p.read_text(encoding="utf-8", errors="replace"))}
    unknown = sorted(w for w in written if all(t.lookup(w) is None for t in all_tables()))
    assert len(unknown) > 100
    assert [(w, o) for w in unknown for o in options if is_near_miss(w, o)] == []


def with_config(config: str):  # noqa: ANN201
    """The findings of a script whose launch reads server.yaml, as (code, file, line)."""
    def read_config(path: str) -> Linked | None:
        return Linked(path, Source(config)) if path == "server.yaml" else None

    settings = Settings(select(["ALL"]), read_config=read_config)
    result = fix_text(Source("python -m sglang.launch_server --config server.yaml --port 30000\n"),
                      FORMATS["shell"], settings)
    return [(r.fixer.code, r.path, r.line) for r in result.findings]


@pytest.mark.parametrize("config", [
    "model_path: Qwen/Qwen3-8B\ntp_size: 2\nmem_fraction_static: 0.85\nenable_metrics: true\n",
    "tp_size: 2\nhost: 0.0.0.0\nenable_hip_attention: true\nmem_fraction: 0.8\n",  # a fork's own key, a prefix
    "tp_size: 2\nport: 30000\nenable-hip-attention: true\nchunked_prefill_size: 4096\n",  # a dashed fork key
], ids=["options", "fork-key-and-prefix", "dashed-key-of-no-option"])
def test_config_file_all_in_underscores_is_a_forks_and_gets_no_finding(config: str) -> None:
    assert with_config(config) == []


def test_config_file_with_one_dashed_option_key_reports_its_underscore_keys() -> None:
    config = "model_path: Qwen/Qwen3-8B\ntp_size: 2\nmem-fraction-static: 0.85\n"
    assert with_config(config) == [("SGL120", "server.yaml", 1), ("SGL120", "server.yaml", 2)]


def test_config_file_with_one_underscore_key_is_a_slip() -> None:
    assert with_config("tp_size: 2\nport: 30000\nhost: 0.0.0.0\n") == [("SGL120", "server.yaml", 1)]
