"""`autofix --schema`: the JSON Schema of SGLang's --config files, checked against every --config fixture.

A fixture autofix reads as a --config file (a YAML file whose launch is the
`config` form) is validated as SGLang reads it (`yaml.safe_load`) against the
schema of the release autofix reads it with (every release when none is
pinned: one must accept it, as autofix stays quiet unless every release
refuses a key). One with no finding of autofix's key and value rules passes;
one whose key a config rule flags (an underscore key, a key the merger
refuses) fails at that key.
"""

from __future__ import annotations

import json
import os
import re
import tempfile
from pathlib import Path

import jsonschema
import pytest
import yaml
from click.testing import CliRunner

from autofix.cli import main
from autofix.configschema import schema
from autofix.fixer import select
from autofix.formats import detect
from autofix.knowledge.releases import RELEASES
from autofix.pipeline import Settings, fix_text
from autofix.source import Source

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "fixtures"
REFUSED_KEYS = {"SGL120", "SGL122"}  # config-key-with-underscores, unsupported-config-option
# The rules whose findings in a --config file the schema expresses too: an unknown key, a value that is
# an ambiguous prefix, a removed option, not a choice (or a removed one), not of the option's type, after a
# switch, or missing.
KEY_AND_VALUE = REFUSED_KEYS | {"SGL100", "SGL101", "SGL102", "SGL103", "SGL106", "SGL107", "SGL108", "SGL110", "SGL123"}


def invoke(*args: str):  # noqa: ANN201
    return CliRunner().invoke(main, list(args), catch_exceptions=False)


@pytest.fixture(scope="module")
def validators() -> dict[str, jsonschema.Draft202012Validator]:
    return {release: jsonschema.Draft202012Validator(schema(release)) for release in RELEASES}


def config_fixtures() -> list[tuple[Path, str | None, str, dict[int, str]]]:
    """Every YAML fixture autofix reads as an SGLang --config file: the release it is pinned to, the table it
    is read with, and the keys that table does not have (line -> key)."""
    paths = sorted(str(p) for p in FIXTURES.rglob("*") if p.suffix in (".yaml", ".yml"))
    here = os.getcwd()
    with tempfile.TemporaryDirectory() as empty:
        os.chdir(empty)  # no script in the working directory reads them: each is read alone
        try:
            shown = json.loads(invoke("--show-launches", "--format", "json", "--no-cache", *paths).stdout)
        finally:
            os.chdir(here)
    found = []
    for entry in shown["files"]:
        launches = entry["launches"]
        if len(launches) == 1 and launches[0]["form"] == "config":
            (launch,) = launches
            unknown = {f["line"]: f["spelling"][2:] for f in launch["flags"] if f["problem"] == "unknown"}
            found.append((Path(entry["path"]), launch["release"], launch["options"], unknown))
    return found


CONFIGS = config_fixtures()


def findings(path: Path) -> list:
    source = Source.decode(path.read_bytes())
    return [r for r in fix_text(source, detect(path.name), Settings(select(["ALL"]))).findings if r.path is None]


def errors(validator: jsonschema.Draft202012Validator, data: object) -> list[jsonschema.ValidationError]:
    return list(validator.iter_errors(data))


def failing_keys(errs: list[jsonschema.ValidationError]) -> set[str]:
    return {key for e in errs for key in ({str(e.path[0])} if e.path else _unexpected(e))}


def test_there_are_config_fixtures_of_both_kinds() -> None:
    assert len(CONFIGS) >= 40
    codes = {r.fixer.code for path, *_ in CONFIGS for r in findings(path)}
    assert REFUSED_KEYS <= codes


@pytest.mark.parametrize(("path", "release", "options", "unknown"), CONFIGS,
                         ids=[str(c[0].relative_to(FIXTURES)) for c in CONFIGS])
def test_config_fixture_against_the_schema(path: Path, release: str | None, options: str, unknown: dict[int, str],
                                           validators) -> None:  # noqa: ANN001
    text = path.read_text(encoding="utf-8")
    data = yaml.safe_load(text)
    found = findings(path)
    lines = text.splitlines()
    refused = {lines[r.line - 1].strip().split(":", 1)[0].strip("'\"") for r in found if r.fixer.code in REFUSED_KEYS}
    checked = [release] if release else list(RELEASES)
    verdicts = {r: errors(validators[r], data) for r in checked}
    if refused:
        for r, errs in verdicts.items():
            assert refused & failing_keys(errs), f"SGLang {r}: the schema fails {failing_keys(errs)}, autofix flags {refused}"
    elif re.search(r"todo-flag: (unsupported-config-option|config-key-with-underscores)", text):
        # SGLang refuses it and autofix does not say so yet; the schema does.
        assert all(verdicts.values()), f"{path.name}: SGLang refuses it, the schema accepts it"
    elif any(r.fixer.code in KEY_AND_VALUE for r in found):
        return  # a value autofix reports: what the schema says of it is tested below
    elif set(unknown) - {r.line for r in found}:
        # Keys no SGLang option has, left alone by autofix in a YAML file read on its own (another tool's
        # settings, perhaps): as an SGLang --config file, the schema refuses exactly them.
        assert failing_keys(errors(validators[options], data)) == set(unknown.values())
    else:
        assert any(not errs for errs in verdicts.values()), {r: [e.message[:200] for e in errs]
                                                              for r, errs in verdicts.items()}


def _unexpected(error: jsonschema.ValidationError) -> set[str]:
    """The keys an additionalProperties error names ("'a', 'b' do not match any of the regexes: ...")."""
    return set(re.findall(r"'([^']*)'", re.split(r" (?:do|does) not match", error.message, maxsplit=1)[0]))


def test_schema_is_a_valid_draft_2020_12_schema(validators) -> None:  # noqa: ANN001
    for release in RELEASES:
        jsonschema.Draft202012Validator.check_schema(validators[release].schema)
        assert validators[release].schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"


@pytest.mark.parametrize(
    ("text", "valid"),
    [
        ("model-path: Qwen/Qwen3-8B\ntp-size: 2\n", True),
        ("tensor-parallel-size: 2\n", True),  # an alias
        ("tp: 2\n", True),  # a prefix argparse resolves to one option
        ("pp: 2\n", False),  # a prefix of several options: argparse refuses it
        ("tp_size: 2\n", False),  # underscores: argparse knows only dashes
        ("tp-size: '2'\n", True),
        ("tp-size: 2.5\n", False),
        ("tp-size:\n", False),  # the text None
        ("mem-fraction-static: 0.85\n", True),
        ("mem-fraction-static: high\n", False),
        ("kv-cache-dtype: fp8_e4m3\n", True),
        ("kv-cache-dtype: fp9\n", False),
        ("enable-metrics: true\n", True),
        ("enable-metrics: false\n", True),
        ("enable-metrics: 'yes'\n", False),
        ("enable-metr: true\n", False),  # a switch's prefix: `--enable-metr true`, a value argparse refuses
        ("dcp-replicate-q-proj: false\n", False),  # the merger refuses --X/--no-X switches, whatever the value
        ("lora-paths: [a]\n", False),
        ("json-model-override-args: {rope_scaling: {factor: 4}}\n", True),  # a mapping is written as its JSON
        ("served-model-name: [one]\n", True),  # a list of one is `--served-model-name one`
        ("served-model-name: [one, two]\n", False),
        ("", True),  # an empty file is an empty configuration
    ],
)
def test_schema_reads_keys_and_values_as_sglang_does(text: str, valid: bool, validators) -> None:  # noqa: ANN001
    assert not errors(validators["0.5.23"], yaml.safe_load(text)) is valid, text


def test_switch_aliases_are_keys_only_from_the_release_whose_merger_reads_them(validators) -> None:  # noqa: ANN001
    # 0.5.23's merger reads a switch under any long spelling; 0.5.22's only under its dest.
    assert not errors(validators["0.5.23"], {"enable-hicache": True})
    assert not errors(validators["0.5.22"], {"enable-hierarchical-cache": True})
    assert errors(validators["0.5.22"], {"enable-hicache": True})


def test_schema_follows_the_release(validators) -> None:  # noqa: ANN001
    # --cuda-graph-max-bs: removed in 0.5.20.
    assert not errors(validators["0.5.19"], {"cuda-graph-max-bs": 256})
    assert errors(validators["0.5.20"], {"cuda-graph-max-bs": 256})
    # enable-dp-attention became a deprecated switch the merger refuses in 0.5.22.
    assert not errors(validators["0.5.21"], {"enable-dp-attention": True})
    assert errors(validators["0.5.22"], {"enable-dp-attention": True})


def test_schema_command(tmp_path: Path) -> None:
    result = invoke("--schema", "--sglang-version", "0.5.19")
    assert result.exit_code == 0
    printed = json.loads(result.stdout)
    assert printed == schema("0.5.19")
    assert printed["$id"] == "urn:autofix:sglang-config:0.5.19"
    assert printed["properties"]["tp-size"] == {"$ref": "#/$defs/tp_size"}
    assert printed["$defs"]["kv_cache_dtype"]["default"] == "auto"
    assert json.loads(invoke("--schema").stdout)["$id"] == f"urn:autofix:sglang-config:{RELEASES[-1]}"
    newer = invoke("--schema", "--sglang-version", "0.9.0")
    assert newer.exit_code == 0 and json.loads(newer.stdout)["$id"] == f"urn:autofix:sglang-config:{RELEASES[-1]}"
    assert invoke("--schema", "--sglang-version", "0.5.5").exit_code == 2
