"""The YAML format: how scalars are read, SGLang's --config merger, argument lists,
shell in scalars, templates, and launches split across a shell script and its
--config file (through the command line, in-process)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from textwrap import dedent

import pytest
from click.testing import CliRunner

from autofix.cli import main
from autofix.fixer import select
from autofix.formats import FORMATS
from autofix.formats import shell as shell_format
from autofix.formats import yaml as yaml_format
from autofix.formats.yaml import document as yaml_document
from autofix.formats.yaml.text import mask_templates, plain_token, read_scalar
from autofix.knowledge.options import table
from autofix.pipeline import Linked, Settings, fix_text, release_in_text
from autofix.source import Source
from judging import architecture_of, argv_of

CORPUS = Path(__file__).resolve().parents[2] / "shared" / "corpus" / "yaml"  # beside the checkout, as CI has it
FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"
KV = "tokenspeed-mla-without-fp8-kv-cache"
NON_MLA = "tokenspeed-mla-on-non-mla-model"


def launches(text: str):  # noqa: ANN201
    return yaml_format.find_launches(Source(text), table())


def tokens(text: str) -> list[str | None]:
    return [a.text for a in yaml_format.config_args(Source(text), table())]


def fix(text: str, **settings: object):  # noqa: ANN201
    return fix_text(Source(text), FORMATS["yaml"], Settings(select(["ALL"]), **settings), fix=True)  # type: ignore[arg-type]


def findings(text: str) -> list[tuple[str, str]]:
    result = fix_text(Source(text), FORMATS["yaml"], Settings(select(["ALL"])))
    return [(r.fixer.name, r.fix.applicability.value if r.fix else "none") for r in result.findings]


# -- where each character of a scalar is written --------------------------------------

SCALARS = {
    "plain": "a: plain text\n",
    "plain-multi-line": "a: one\n  two\n\n  three\n",
    "single-quoted": "a: 'it''s  \n\n   here'\n",
    "double-quoted-escapes": 'a: "x\\ty\\"z\\u00e9 \\\n   joined"\n',
    "literal": "a: |\n  l1\n    l2\n\n  l3\n\n\nb: 1\n",
    "literal-strip": "a: |-\n  l1\n  l2\n",
    "literal-keep": "a: |+\n  l1\n\n",
    "folded": "a: >\n  f1\n  f2\n\n  f3\n    spaced\n  f4\n",
    "crlf": "a: |\r\n  l1\r\n  l2\r\nb: >\r\n  x\r\n  y\r\n",
    "anchor-and-tag": "a: &x !!str v\nb: *x\n",
}


@pytest.mark.parametrize("text", SCALARS.values(), ids=SCALARS.keys())
def test_scalars_read_as_yaml_reads_them(text: str) -> None:
    from ruamel.yaml import YAML

    stack = [YAML(typ="safe", pure=True).compose(text)]
    while stack:
        node = stack.pop()
        if isinstance(node.value, list):
            stack.extend(x for pair in node.value for x in (pair if isinstance(pair, tuple) else (pair,)))
            continue
        doc = yaml_document.Document(Source(text))
        written = read_scalar(text, doc.start(node), node.end_mark.index, node.style or "")
        assert written is not None and written.value == node.value
        for ch, start, end in zip(written.value, written.starts, written.ends):
            if end - start == 1:
                assert text[start] == ch


@pytest.mark.parametrize(
    ("text", "token"),
    [("8", "8"), ("0.50", "0.5"), ("1_000", "1000"), ("010", "8"), ("0x1F", "31"), ("1e3", "1e3"),
     ("null", "None"), ("~", "None"), ("yes", True), ("Off", False), ("fp8_e4m3", "fp8_e4m3"), ("2024-01-01", None)],
)
def test_plain_scalars_read_as_pyyaml_reads_them(text: str, token: object) -> None:
    assert plain_token(text) == token


# -- SGLang --config files ------------------------------------------------------------------


def test_config_tokens_follow_sglangs_merger() -> None:
    text = dedent("""\
        model-path: deepseek-ai/DeepSeek-V3
        tp-size: 8
        mem-fraction-static: 0.850
        trust-remote-code: true
        enable-metrics: false
        kv-cache-dtype: "bf16"
        json-model-override-args: {"architectures": ["X"]}
        cuda-graph-bs: [1, 2, 4]
        lora-paths: []
        served-model-name: null
    """)
    assert tokens(text) == [
        "--model-path", "deepseek-ai/DeepSeek-V3", "--tp-size", "8", "--mem-fraction-static", "0.85",
        "--trust-remote-code", "--kv-cache-dtype", "bf16", "--json-model-override-args", None,
        "--cuda-graph-bs", "1", "2", "4", "--served-model-name", "None",
    ]


def test_config_that_sglang_cannot_load_is_unknown() -> None:
    assert yaml_format.config_args(Source("- a\n- b\n"), table()) is None
    assert yaml_format.config_args(Source("a: [\n"), table()) is None
    assert yaml_format.config_args(Source("a: 1\n---\nb: 2\n"), table()) is None
    assert yaml_format.config_args(Source("# nothing\n"), table()) == []


@pytest.mark.parametrize(
    "text",
    [
        "apiVersion: v1\nkind: Pod\nmetadata:\n  name: x\n",
        "model:\n  name: deepseek-ai/DeepSeek-V3\nframeworks:\n  sglang:\n    attention-backend: tokenspeed_mla\n",
        "type: sglang\nport: 8000\ntensor_parallel_size: 8\nattention_backend: tokenspeed_mla\nimage: x\n",
    ],
    ids=["kubernetes", "nested-options", "underscore-keys"],
)
def test_other_mappings_are_not_config_files(text: str) -> None:
    assert launches(text) == []


def test_config_insert_keeps_crlf_indentation_and_comments() -> None:
    text = "# DeepSeek\r\nmodel-path: deepseek-ai/DeepSeek-V3\r\nattention-backend: tokenspeed_mla # fast\r\nport: 30000"
    assert fix(text).text == (
        "# DeepSeek\r\nmodel-path: deepseek-ai/DeepSeek-V3\r\nattention-backend: tokenspeed_mla # fast\r\n"
        "kv-cache-dtype: fp8_e4m3\r\nport: 30000"
    )


def test_config_insert_on_the_last_line_without_newline() -> None:
    text = "model-path: deepseek-ai/DeepSeek-V3\nattention-backend: tokenspeed_mla"
    assert fix(text).text == text + "\nkv-cache-dtype: fp8_e4m3"


def test_config_insert_quotes_like_the_file() -> None:
    text = "model-path: 'deepseek-ai/DeepSeek-V3'\nattention-backend: 'tokenspeed_mla'\n"
    assert fix(text).text == text + "kv-cache-dtype: 'fp8_e4m3'\n"


def test_config_remove_takes_the_whole_entry() -> None:
    text = "model-path: Qwen/Qwen3-8B\nattention-backend:\n  tokenspeed_mla  # no\nport: 1\n"
    assert fix(text).text == "model-path: Qwen/Qwen3-8B\nport: 1\n"


def test_config_value_from_an_alias_is_left_alone() -> None:
    text = "x: &backend tokenspeed_mla\nmodel-path: Qwen/Qwen3-8B\nattention-backend: *backend\nport: 1\nhost: h\n"
    assert findings(text) == [(NON_MLA, "display-only")]


# -- argument lists -----------------------------------------------------------------------


def test_flow_list_on_several_lines_loses_whole_lines() -> None:
    text = dedent("""\
        command: ["python3", "-m", "sglang.launch_server",
                  "--model-path", "Qwen/Qwen3-8B",
                  "--attention-backend", "tokenspeed_mla",
                  "--port", "30000"]
    """)
    assert fix(text).text == text.replace('          "--attention-backend", "tokenspeed_mla",\n', "")


def test_block_list_of_joined_flags_gets_a_joined_item() -> None:
    text = "command:\n- python3\n- -m\n- sglang.launch_server\n- --model-path=deepseek-ai/DeepSeek-V3\n- --attention-backend=tokenspeed_mla\n"
    assert fix(text).text == text + "- --kv-cache-dtype=fp8_e4m3\n"


def test_numbers_are_quoted_in_a_plain_list() -> None:
    text = "args: [python3, -m, sglang.launch_server, --model-path, deepseek-ai/DeepSeek-V3, --attention-backend, tokenspeed_mla]\n"
    # A Kubernetes list of strings: a token YAML would read as a number is quoted.
    assert fix(text).text == text.replace("tokenspeed_mla]", "tokenspeed_mla, --kv-cache-dtype, fp8_e4m3]")


def test_anchored_list_is_reported_without_a_fix() -> None:
    text = dedent("""\
        x-sglang: &sglang
          command: [python3, -m, sglang.launch_server, --model-path, deepseek-ai/DeepSeek-V3, --attention-backend, tokenspeed_mla]
        services:
          a:
            <<: *sglang
    """)
    assert findings(text) == [(KV, "display-only")]
    assert fix(text).text == text


def test_args_without_a_command_are_not_a_launch() -> None:
    assert launches("args: [--model-path, deepseek-ai/DeepSeek-V3, --attention-backend, tokenspeed_mla]\n") == []


def test_billion_laughs_is_walked_once() -> None:
    text = 'a0: &a0 ["lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol"]\n'
    for i in range(1, 30):
        text += f"a{i}: &a{i} [" + ", ".join([f"*a{i - 1}"] * 9) + "]\n"
    text += "command: [python3, -m, sglang.launch_server, --model-path, *a29]\nargs: *a29\n"
    [launch] = launches(text)
    assert launch.args[1].text is None


# -- shell in scalars ----------------------------------------------------------------------


def test_escape_in_the_changed_region_is_reported_without_a_fix() -> None:
    text = 'run: "python3 -m sglang.launch_server --model-path Qwen/Qwen3-8B --attention-backend tokenspeed\\x5fmla"\n'
    assert findings(text) == [(NON_MLA, "safe")]  # deleting an escape whole is exact
    text = 'run: "python3 -m sglang.launch_server --model-path deepseek-ai/DeepSeek-V3 --attention-backend tokenspeed_mla --kv-cache-dtype b\\x66\\x316"\n'
    assert findings(text) == [(KV, "display-only")]


def test_compose_command_string_keeps_a_flag_per_line() -> None:
    text = dedent("""\
        services:
          a:
            command: python3 -m sglang.launch_server
              --model-path deepseek-ai/DeepSeek-V3
              --attention-backend tokenspeed_mla
    """)
    assert fix(text).text == text + "      --kv-cache-dtype fp8_e4m3\n"


def test_expressions_of_github_actions_are_unknown() -> None:
    quoted = 'run: python3 -m sglang.launch_server --model-path "${{ matrix.model }}" --attention-backend tokenspeed_mla\n'
    assert findings(quoted) == [(KV, "safe")]
    # Unquoted, an expression after a flag that takes a value is that value, unknown ...
    assert findings(quoted.replace('"', "")) == [(KV, "safe")]
    # ... and where a flag may stand it may write several words: one may set the KV cache
    # dtype, so the finding is for the flags written; written before the backend, it leaves
    # no place for a fix before it.
    assert findings(quoted.replace('--model-path "${{ matrix.model }}"', "${{ matrix.args }}")) == [(KV, "none")]


# -- templates ---------------------------------------------------------------------------


def test_template_masking_keeps_offsets() -> None:
    text = '{{- if .Values.on }}\nimage: {{ .Values.image }}\nname: "{{ .Release.Name }}-x"\n{{- end }}\n'
    masked = mask_templates(text)
    assert len(masked.text) == len(text)
    assert masked.text.splitlines()[0].strip() == ""
    assert sorted(masked.lines) == [0, len(text) - len("{{- end }}\n")]
    assert masked.outputs == frozenset()


def test_template_that_writes_items_may_set_any_flag() -> None:
    text = dedent("""\
        command: ["python3", "-m", "sglang.launch_server"]
        args:
          - --model-path
          - deepseek-ai/DeepSeek-V3
          - --attention-backend
          - tokenspeed_mla
          {{- range .Values.extraArgs }}
          - {{ . | quote }}
          {{- end }}
    """)
    assert findings(text) == [(KV, "unsafe")]  # for the items written: the range may add others
    # A condition around literal items writes nothing unknown.
    conditional = text.replace("{{- range .Values.extraArgs }}", "{{- if .Values.metrics }}")
    assert findings(conditional.replace("{{ . | quote }}", "--enable-metrics")) == [(KV, "safe")]


def test_unparsable_template_stays_quiet_and_broken_yaml_is_an_error() -> None:
    assert launches("{{ if }}\n  a: [\n") == []
    with pytest.raises(SyntaxError):
        launches("run: python3 -m sglang.launch_server\n  a: [\n")
    assert yaml_format.syntax_errors("a: [\n") == 1
    assert yaml_format.syntax_errors("a: {{ .Values.a }}\n") == 0


# -- the corpus: real files, no finding, no change -----------------------------------------


@pytest.mark.skipif(not CORPUS.is_dir(), reason="the shared YAML corpus is not here")
def test_corpus_gives_no_finding_and_no_change(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    copy = tmp_path / "corpus"
    shutil.copytree(CORPUS, copy)
    monkeypatch.chdir(tmp_path)
    runner = CliRunner()
    assert runner.invoke(main, [str(CORPUS)], catch_exceptions=False).exit_code == 0
    result = runner.invoke(main, ["--fix", "corpus"], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    for original in CORPUS.iterdir():
        assert (copy / original.name).read_bytes() == original.read_bytes()


# -- launches split across files ------------------------------------------------------------

SERVE_SH = "#!/bin/bash\npython3 -m sglang.launch_server --config serve.yaml --attention-backend tokenspeed_mla --port 30000\n"
SERVE_YAML = "# Shared by the DeepSeek servers.\nmodel-path: deepseek-ai/DeepSeek-V3\ntp-size: 8\nkv-cache-dtype: bf16\n"

# name -> (serve.sh, serve.yaml) before, and after --fix
SPLIT = {
    "bad-value-in-the-config": (SERVE_SH, SERVE_YAML, SERVE_SH, SERVE_YAML.replace("bf16", "fp8_e4m3")),
    "trigger-in-the-config": (
        "python3 -m sglang.launch_server --config serve.yaml --port 30000\n",
        "model-path: deepseek-ai/DeepSeek-V3\r\nattention-backend: tokenspeed_mla\r\ntp-size: 8\r\n",
        "python3 -m sglang.launch_server --config serve.yaml --port 30000\n",
        "model-path: deepseek-ai/DeepSeek-V3\r\nattention-backend: tokenspeed_mla\r\nkv-cache-dtype: fp8_e4m3\r\ntp-size: 8\r\n",
    ),
    "trigger-on-the-command-line": (
        "sglang serve --config serve.yaml --attention-backend tokenspeed_mla\n",
        "model-path: deepseek-ai/DeepSeek-V3\n",
        "sglang serve --config serve.yaml --attention-backend tokenspeed_mla --kv-cache-dtype fp8_e4m3\n",
        "model-path: deepseek-ai/DeepSeek-V3\n",
    ),
    "command-line-wins": (
        "python3 -m sglang.launch_server --config serve.yaml \\\n  --kv-cache-dtype bf16\n",
        "model-path: deepseek-ai/DeepSeek-V3\nattention-backend: tokenspeed_mla\nkv-cache-dtype: fp8_e4m3\n",
        "python3 -m sglang.launch_server --config serve.yaml \\\n  --kv-cache-dtype fp8_e4m3\n",
        "model-path: deepseek-ai/DeepSeek-V3\nattention-backend: tokenspeed_mla\nkv-cache-dtype: fp8_e4m3\n",
    ),
    "removed-from-both-files": (
        "python3 -m sglang.launch_server --config serve.yaml \\\n  --decode-attention-backend tokenspeed_mla \\\n  --port 1\n",
        "model-path: Qwen/Qwen3-8B\nattention-backend: tokenspeed_mla  # from the DeepSeek file\nkv-cache-dtype: fp8_e4m3\n",
        "python3 -m sglang.launch_server --config serve.yaml \\\n  --port 1\n",
        "model-path: Qwen/Qwen3-8B\nkv-cache-dtype: fp8_e4m3\n",
    ),
}


def invoke(*args: str):  # noqa: ANN201
    return CliRunner().invoke(main, list(args), catch_exceptions=False)


@pytest.mark.parametrize("target", ["serve.sh", "serve.yaml", "."])
@pytest.mark.parametrize("case", SPLIT.values(), ids=SPLIT.keys())
def test_split_launch_is_fixed_the_same_from_either_file_or_the_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, case: tuple[str, str, str, str], target: str
) -> None:
    sh, config, fixed_sh, fixed_config = case
    monkeypatch.chdir(tmp_path)
    (tmp_path / "serve.sh").write_bytes(sh.encode())
    (tmp_path / "serve.yaml").write_bytes(config.encode())
    result = invoke("--fix", target)
    assert result.exit_code == 0, result.output
    assert (tmp_path / "serve.sh").read_bytes() == fixed_sh.encode()
    assert (tmp_path / "serve.yaml").read_bytes() == fixed_config.encode()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["serve.sh", "serve.yaml"]


@pytest.mark.parametrize("target", ["serve.sh", "serve.yaml", "."])
def test_split_launch_finding_is_reported_once_in_the_file_that_holds_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, target: str
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "serve.sh").write_text(SERVE_SH + SERVE_SH.replace("30000", "30001").split("\n", 1)[1])
    (tmp_path / "serve.yaml").write_text(SERVE_YAML)
    result = invoke(target)
    assert result.exit_code == 1
    assert [line for line in result.stdout.splitlines() if "SGL" in line] == [
        "serve.yaml:4:1: SGL001 [tokenspeed-mla-without-fp8-kv-cache] "
        "`tokenspeed_mla` needs `--kv-cache-dtype fp8_e4m3`, got `bf16`"
    ]
    diff = invoke("--diff", target)
    assert diff.exit_code == 1
    assert diff.stdout.count("+++ b/serve.yaml") == 1


def test_config_with_equals_is_ignored_as_sglang_ignores_it(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    launch = "python3 -m sglang.launch_server --config=serve.yaml --model-path deepseek-ai/DeepSeek-V3 --attention-backend tokenspeed_mla\n"
    (tmp_path / "serve.sh").write_text(launch)
    (tmp_path / "serve.yaml").write_text("kv-cache-dtype: fp8_e4m3\n")
    # serve.yaml is no part of the launch: alone, it is nothing to fix.
    # (config-file-ignored reports the --config=FILE itself; here only the reading matters.)
    assert invoke("--fix", "--ignore", "SGL121", "serve.yaml").exit_code == 0
    assert (tmp_path / "serve.sh").read_text() == launch
    assert invoke("--fix", "--ignore", "SGL121", ".").exit_code == 0
    assert (tmp_path / "serve.sh").read_text() == launch.replace("\n", " --kv-cache-dtype fp8_e4m3\n")
    assert (tmp_path / "serve.yaml").read_text() == "kv-cache-dtype: fp8_e4m3\n"


def test_split_launch_json_names_the_file_of_each_edit(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "serve.sh").write_text("sglang serve --config serve.yaml --port 1\n")
    (tmp_path / "serve.yaml").write_text("model-path: Qwen/Qwen3-8B\nattention-backend: tokenspeed_mla\n")
    (finding,) = json.loads(invoke("--format", "json", "serve.sh").stdout)
    assert (finding["path"], finding["line"], finding["name"]) == ("serve.yaml", 2, NON_MLA)
    assert finding["fix"]["edits"] == [
        {"start": {"line": 2, "column": 1}, "end": {"line": 3, "column": 1}, "content": ""}
    ]


def test_config_outside_the_tree_is_unknown(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "outside.yaml").write_text("kv-cache-dtype: fp8_e4m3\n")
    project = tmp_path / "project"
    project.mkdir()
    monkeypatch.chdir(project)
    launch = "python3 -m sglang.launch_server --config ../outside.yaml --model-path deepseek-ai/DeepSeek-V3 --attention-backend tokenspeed_mla\n"
    (project / "serve.sh").write_text(launch)
    # The file may set the KV cache dtype: quiet. A missing file is no better known.
    assert invoke("serve.sh").exit_code == 0
    (project / "serve.sh").write_text(launch.replace("../outside.yaml", "missing.yaml"))
    assert invoke("serve.sh").exit_code == 0


def test_fix_text_reads_no_file() -> None:
    asked: list[str] = []

    def read_config(path: str) -> Linked | None:
        asked.append(path)
        return Linked("conf/serve.yaml", Source("model-path: deepseek-ai/DeepSeek-V3\nattention-backend: tokenspeed_mla\n"))

    source = Source("sglang serve --config serve.yaml --port 1\n")
    result = fix_text(source, FORMATS["shell"], Settings(select(["ALL"]), read_config=read_config), fix=True)
    assert asked == ["serve.yaml"]
    assert result.text == source.text
    [linked] = result.linked
    assert linked.name == "conf/serve.yaml"
    assert linked.text == "model-path: deepseek-ai/DeepSeek-V3\nattention-backend: tokenspeed_mla\nkv-cache-dtype: fp8_e4m3\n"
    [reported] = result.findings
    assert (reported.path, reported.line, reported.fixed) == ("conf/serve.yaml", 2, True)


# -- SGLang's own judgement (the parser environment of scripts/sglang_env.sh) -----------------

ORACLE_RELEASES = ("0.5.18", "0.5.19", "0.5.22")


def _oracle():  # noqa: ANN202
    return pytest.importorskip("oracle", reason="tests/oracle.py (SGLang's parser as a test oracle) is absent")


def _config_fixtures() -> list[tuple[Path, object]]:
    """Every --config fixture (as written and as fixed) with the launch autofix reads in it."""
    found = []
    for path in sorted(FIXTURES.rglob("*.y*ml")):
        for launch in yaml_format.find_launches(Source.decode(path.read_bytes()), table()):
            if launch.form == "config" and all(a.text is not None for a in launch.args):
                found.append((path, launch))
    return found


@pytest.mark.parametrize("release", ORACLE_RELEASES)
def test_config_files_read_as_sglangs_merger_reads_them(release: str) -> None:
    oracle = _oracle()
    oracle.require(release)
    cases = _config_fixtures()
    assert cases
    merged = oracle.parse(release, [["--config", str(path)] for path, _ in cases])
    direct = oracle.parse(release, [[a.text for a in launch.args] for _, launch in cases])  # type: ignore[attr-defined]
    for (path, _), by_sglang, by_autofix in zip(cases, merged, direct):
        if not by_sglang["ok"] and by_sglang["error"].startswith("ValueError: Unsupported config option"):
            continue  # the merger refuses the file before argparse reads it: unsupported-config-option's
        assert by_sglang["ok"] == by_autofix["ok"], (path, by_sglang["error"], by_autofix["error"])
        assert by_sglang["args"] == by_autofix["args"], path


@pytest.mark.parametrize("release", ORACLE_RELEASES)
def test_fixed_config_files_and_argument_lists_are_accepted_by_sglang(release: str) -> None:
    oracle = _oracle()
    oracle.require(release)
    argvs, architectures, names = [], [], []
    for fixed in sorted(FIXTURES.rglob("*.fixed.y*ml")):
        original = fixed.with_name(fixed.name.replace(".fixed", ""))
        pinned = release_in_text(original.read_text(encoding="utf-8"))
        if pinned is not None and pinned != release:
            continue  # judged in its own release by test_sglang_accepts
        result = fix_text(Source.decode(original.read_bytes()), FORMATS["yaml"], Settings(select(["ALL"])))
        flagged = {r.launch_line for r in result.findings if r.fix is not None and r.fix.applies(False)}
        before = yaml_format.find_launches(Source.decode(original.read_bytes()), table())
        after = yaml_format.find_launches(Source.decode(fixed.read_bytes()), table())
        for old, launch in zip(before, after):
            if Source.decode(original.read_bytes()).line_col(old.span.start)[0] not in flagged:
                continue
            texts = argv_of(launch)
            if texts is None:
                continue
            argvs.append(["--config", str(fixed)] if launch.form == "config" else texts)
            architectures.append(architecture_of(launch))
            names.append(f"{fixed.relative_to(FIXTURES)} line {launch.span.start}")
    assert argvs
    parsed = oracle.parse(release, argvs)
    for name, result in zip(names, parsed):
        assert result["ok"], f"SGLang {release} refuses {name}: {result['error']}"
    verdicts = oracle.rules(release, [{"args": p["args"], "architecture": a} for p, a in zip(parsed, architectures)])
    for name, verdict in zip(names, verdicts):
        assert verdict["ok"], f"SGLang {release} refuses {name}: {verdict['error']}"


@pytest.mark.parametrize("release", ORACLE_RELEASES)
def test_fixed_split_launches_are_accepted_by_sglang(release: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    oracle = _oracle()
    oracle.require(release)
    monkeypatch.chdir(tmp_path)
    argvs, architectures = [], []
    for name, (sh, config, _, _) in SPLIT.items():
        folder = tmp_path / name
        folder.mkdir()
        (folder / "serve.sh").write_bytes(sh.encode())
        (folder / "serve.yaml").write_bytes(config.encode())
        assert invoke("--fix", name).exit_code == 0
        [launch] = shell_format.find_launches(Source((folder / "serve.sh").read_text()), table())
        merged = launch.with_config(yaml_format.config_args(Source((folder / "serve.yaml").read_text()), table()))
        argv = [a.text for a in launch.args]
        argv[argv.index("--config") + 1] = str(folder / "serve.yaml")
        if launch.form == "serve" and launch.positionals and launch.args[0] is launch.positionals[0]:
            argv = ["--model-path", *argv]
        argvs.append(argv)
        architectures.append(architecture_of(merged))
    parsed = oracle.parse(release, argvs)
    for name, result in zip(SPLIT, parsed):
        assert result["ok"], (name, result["error"])
    verdicts = oracle.rules(release, [{"args": p["args"], "architecture": a} for p, a in zip(parsed, architectures)])
    for name, verdict in zip(SPLIT, verdicts):
        assert verdict["ok"], (name, verdict["error"])
