"""`--show-launches`: what autofix read, in every format, asserted through its JSON (validated
against docs/autofix-launches.schema.json) and its text; it writes nothing and exits 0."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import jsonschema
import pytest
from click.testing import CliRunner

from autofix.cli import main
from autofix.knowledge.modelfacts import ModelFacts
from autofix.knowledge.models import ModelInfo
from autofix.launchview import model_json

ROOT = Path(__file__).resolve().parents[1]
SCHEMA = json.loads((ROOT / "docs" / "autofix-launches.schema.json").read_text(encoding="utf-8"))
VALIDATOR = jsonschema.Draft202012Validator(SCHEMA)


@pytest.fixture
def tree(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    return tmp_path


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def invoke(*args: str):  # noqa: ANN201
    return CliRunner().invoke(main, ["--show-launches", *args], catch_exceptions=False)


def view(*paths: str) -> list[dict]:
    """The JSON view of paths, checked against the schema; the run exits 0."""
    result = invoke("--format", "json", *paths)
    assert result.exit_code == 0, result.output
    shown = json.loads(result.stdout)
    VALIDATOR.validate(shown)
    return shown["files"]


def launches(path: str) -> list[dict]:
    (entry,) = view(path)
    return entry["launches"]


def flags(launch: dict) -> dict[str, dict]:
    return {f["spelling"]: f for f in launch["flags"]}


def test_the_schema_is_a_valid_versioned_schema() -> None:
    jsonschema.Draft202012Validator.check_schema(SCHEMA)
    assert SCHEMA["$id"] == "urn:autofix:launches:1"
    assert "docs/autofix-launches.schema.json" in (ROOT / "README.md").read_text(encoding="utf-8")


# -- launches, format by format -------------------------------------------------------------


def test_the_schema_names_every_format() -> None:
    from autofix.formats import FORMATS

    file = SCHEMA["$defs"]["file"]["properties"]
    assert set(file["format"]["enum"]) == set(FORMATS)


def test_shell_launch_with_a_quoted_unknown_value(tree: Path) -> None:
    write(tree / "serve.sh", 'python3 -m sglang.launch_server --model-path Qwen/Qwen3-8B --port "$PORT" --tp 2\n')
    (launch,) = launches("serve.sh")
    assert (launch["line"], launch["column"], launch["form"], launch["wrappers"]) == (1, 1, "launch_server", [])
    read = flags(launch)
    port = read["--port"]
    assert (port["dest"], port["value"], port["unresolvable"], port["written"]) == ("port", None, "--port", '--port "$PORT"')
    assert (port["line"], port["column"], port["end_column"]) == (1, 60, 74)
    tp = read["--tp"]
    assert (tp["option"], tp["dest"], tp["value"], tp["unresolvable"]) == ("--tp-size", "tp_size", "2", None)
    assert launch["model"]["mla"] is False and launch["passthroughs"] == []


def test_wrappers_are_shown_outermost_first(tree: Path) -> None:
    write(tree / "serve.sh", "docker run --gpus all -e HF_TOKEN=$HF_TOKEN lmsysorg/sglang:latest "
                             "python3 -m sglang.launch_server --model-path Qwen/Qwen3-8B --port $PORT\n")
    (launch,) = launches("serve.sh")
    assert (launch["form"], launch["wrappers"]) == ("launch_server", ["docker run"])
    assert {f["dest"]: f["unresolvable"] for f in launch["flags"]} == {"model_path": None, "port": "--port"}


def test_a_pass_through_is_shown_and_leaves_the_model_unknown(tree: Path) -> None:
    write(tree / "serve.sh", 'python3 -m sglang.launch_server --model-path deepseek-ai/DeepSeek-V3 "$@"\n')
    (launch,) = launches("serve.sh")
    assert [(p["written"], p["text"], p["column"]) for p in launch["passthroughs"]] == [('"$@"', None, 70)]
    # "$@" after --model-path may set it again: the checks do not know the model.
    assert set(launch["model"].values()) == {None}


def test_a_launch_merged_with_its_config_file_names_it(tree: Path) -> None:
    write(tree / "cfg.yaml", "kv-cache-dtype: fp8_e4m3\nenable-metrics: true\n")
    write(tree / "serve.sh", "python3 -m sglang.launch_server --config cfg.yaml --model-path Qwen/Qwen3-8B\n")
    files = {entry["path"]: entry for entry in view(".")}
    assert files["cfg.yaml"]["read_by"] == ["serve.sh"] and files["cfg.yaml"]["launches"] == []
    (launch,) = files["serve.sh"]["launches"]
    config = launch["config"]
    assert (config["value"], config["file"], config["reason"], config["column"]) == ("cfg.yaml", "cfg.yaml", None, 42)
    # The file's flags come first, placed in the file, as SGLang's merger puts them.
    assert [(f["dest"], f["value"], f.get("path"), f["line"]) for f in launch["flags"]] == [
        ("kv_cache_dtype", "fp8_e4m3", "cfg.yaml", 1),
        ("enable_metrics", True, "cfg.yaml", 2),
        ("model_path", "Qwen/Qwen3-8B", None, 1),
    ]


def test_a_config_file_named_alone_shows_the_launch_that_reads_it(tree: Path) -> None:
    write(tree / "cfg.yaml", "kv-cache-dtype: fp8_e4m3\n")
    write(tree / "serve.sh", "python3 -m sglang.launch_server --config cfg.yaml --model-path Qwen/Qwen3-8B\n")
    files = view("cfg.yaml")
    assert [(f["path"], f["read_by"], len(f["launches"])) for f in files] == [("cfg.yaml", ["serve.sh"], 0),
                                                                               ("serve.sh", [], 1)]


def test_a_config_file_autofix_cannot_read_says_why(tree: Path) -> None:
    write(tree / "serve.sh", "python3 -m sglang.launch_server --config missing.yaml --model-path Qwen/Qwen3-8B\n"
                             "python3 -m sglang.launch_server --config a.yaml --config b.yaml\n")
    first, second = launches("serve.sh")
    assert first["config"]["value"] == "missing.yaml" and first["config"]["file"] is None
    assert "cannot read" in first["config"]["reason"]
    # The unread file may set any flag the command line does not: it is a pass-through.
    assert [p["written"] for p in first["passthroughs"]] == ["--config"]
    assert second["config"] == {**second["config"], "value": None, "file": None, "reason": "SGLang reads one --config FILE"}


def test_python_launches(tree: Path) -> None:
    write(tree / "app.py", 'import sglang as sgl\n\nllm = sgl.Engine(model_path="Qwen/Qwen3-8B", tp_size=2, **extra)\n')
    (launch,) = launches("app.py")
    assert (launch["form"], launch["line"], launch["column"]) == ("engine", 3, 7)
    assert {f["dest"]: f["value"] for f in launch["flags"]} == {"model_path": "Qwen/Qwen3-8B", "tp_size": "2"}
    assert [p["written"] for p in launch["passthroughs"]] == ["extra"]


def test_yaml_launch_is_checked_as_the_release_its_image_pins(tree: Path) -> None:
    write(tree / "pod.yaml", (
        "spec:\n  containers:\n    - image: lmsysorg/sglang:v0.5.18-cu129\n"
        '      command: ["python3", "-m", "sglang.launch_server"]\n'
        "      args:\n        - --model-path\n        - Qwen/Qwen3-8B\n"
        "      # command: python3 -m sglang.launch_server --old\n"
    ))
    (entry,) = view("pod.yaml")
    (launch,) = entry["launches"]
    assert (launch["release"], launch["options"], launch["line"]) == ("0.5.18", "0.5.18", 4)
    assert [(f["dest"], f["value"], f["line"]) for f in launch["flags"]] == [("model_path", "Qwen/Qwen3-8B", 6)]
    assert [(m["line"], m["cause"]) for m in entry["mentions"]] == [(8, "comment")]


def test_sglang_version_and_gpu_are_the_ones_the_checks_use(tree: Path) -> None:
    write(tree / "serve.sh", "python3 -m sglang.launch_server --model-path Qwen/Qwen3-8B\n")
    result = invoke("--format", "json", "--sglang-version", "0.5.20", "--gpu", "h100", "serve.sh")
    (launch,) = json.loads(result.stdout)["files"][0]["launches"]
    assert (launch["release"], launch["options"], launch["gpu"]) == ("0.5.20", "0.5.20", "h100")


def test_markdown_blocks_and_the_mentions_outside_them(tree: Path) -> None:
    write(tree / "README.md", (
        "Run `python -m sglang.launch_server` to start.\n\n"
        "```bash\npython -m sglang.launch_server --model-path Qwen/Qwen3-8B --port 30000\n```\n\n"
        "```text\npython -m sglang.launch_server --model-path in-text\n```\n\n"
        "<!-- autofix: ignore -->\n```bash\npython -m sglang.launch_server --model-path skipped\n```\n"
    ))
    (entry,) = view("README.md")
    (launch,) = entry["launches"]
    assert (launch["line"], [f["dest"] for f in launch["flags"]]) == (4, ["model_path", "port"])
    assert [(m["line"], m["cause"]) for m in entry["mentions"]] == [(1, "prose"), (8, "block-language"),
                                                                    (13, "block-ignored")]


def test_notebook_cells(tree: Path) -> None:
    cells = [
        {"cell_type": "markdown", "metadata": {}, "source": ["Start `python -m sglang.launch_server` first\n"]},
        {"cell_type": "code", "execution_count": 1, "metadata": {},
         "outputs": [{"name": "stdout", "output_type": "stream", "text": ["ran python -m sglang.launch_server\n"]}],
         "source": ["!python -m sglang.launch_server --model-path Qwen/Qwen3-8B --port 30000\n"]},
    ]
    write(tree / "demo.ipynb", json.dumps({"cells": cells, "metadata": {}, "nbformat": 4, "nbformat_minor": 5},
                                          indent=1))
    (entry,) = view("demo.ipynb")
    (launch,) = entry["launches"]
    assert {f["dest"]: f["value"] for f in launch["flags"]} == {"model_path": "Qwen/Qwen3-8B", "port": "30000"}
    assert [m["cause"] for m in entry["mentions"]] == ["cell-text", "output"]


def test_dockerfile_launch(tree: Path) -> None:
    write(tree / "Dockerfile", 'FROM lmsysorg/sglang:v0.5.19\nCMD ["python3", "-m", "sglang.launch_server", '
                               '"--model-path", "Qwen/Qwen3-8B"]\nRUN echo "python3 -m sglang.launch_server"\n')
    (entry,) = view("Dockerfile")
    assert [(launch["line"], launch["release"]) for launch in entry["launches"]] == [(2, "0.5.19")]
    assert [(m["line"], m["cause"]) for m in entry["mentions"]] == [(3, "printed")]


def test_ambiguous_and_unknown_options_and_a_positional_model(tree: Path) -> None:
    write(tree / "serve.sh", "sglang serve deepseek-ai/DeepSeek-V3 --pp 2 --no-such-flag\n")
    (launch,) = launches("serve.sh")
    assert launch["form"] == "serve"
    assert [p["text"] for p in launch["positionals"]] == ["deepseek-ai/DeepSeek-V3"]
    assert launch["model"]["architecture"] == "DeepseekV3ForCausalLM"
    read = flags(launch)
    assert read["--pp"]["problem"] == "ambiguous" and "--pp-size" in read["--pp"]["matches"]
    assert (read["--no-such-flag"]["problem"], read["--no-such-flag"]["dest"]) == ("unknown", None)


# -- mentions not read as a launch ------------------------------------------------------------


def test_shell_mentions_and_why_they_are_not_launches(tree: Path) -> None:
    write(tree / "serve.sh", (
        "# python -m sglang.launch_server --model-path old\n"
        'echo "python -m sglang.launch_server --model-path x"\n'
        "pkill -f sglang.launch_server\n"
        "cat > notes.md <<EOF\npython -m sglang.launch_server --model-path y\nEOF\n"
        'CMD="python -m sglang.launch_server --model-path z"\n'
        "python -m sglang.launch_server --help\n"
    ))
    (entry,) = view("serve.sh")
    assert entry["launches"] == []
    assert [(m["line"], m["cause"], m["text"]) for m in entry["mentions"]] == [
        (1, "comment", "sglang.launch_server"),
        (2, "printed", "sglang.launch_server"),
        (3, "searched", "sglang.launch_server"),
        (5, "heredoc-file", "sglang.launch_server"),
        (7, "variable", "sglang.launch_server"),
        (8, "help", "sglang.launch_server"),
    ]
    printed = entry["mentions"][1]
    assert (printed["column"], printed["end_column"], printed["reason"]) == (17, 37, "printed by `echo`, not run")
    assert "notes.md" in entry["mentions"][3]["reason"]


def test_python_mentions_in_a_docstring_a_string_and_an_import(tree: Path) -> None:
    write(tree / "client.py", (
        '"""Start the server first: python -m sglang.launch_server --model-path x."""\n'
        "import sglang.launch_server\n"
        'HINT = "python -m sglang.launch_server"\n'
        "# sgl.Engine(model_path=...)\n"
    ))
    (entry,) = view("client.py")
    assert [(m["line"], m["cause"]) for m in entry["mentions"]] == [
        (1, "docstring"), (2, "import"), (3, "string"), (4, "comment")]


def test_a_mention_inside_a_launch_read_is_not_listed(tree: Path) -> None:
    write(tree / "serve.sh", "bash -c 'python3 -m sglang.launch_server --model-path Qwen/Qwen3-8B'\n")
    (entry,) = view("serve.sh")
    assert len(entry["launches"]) == 1 and entry["mentions"] == []


def test_the_entry_point_of_an_argv_list_run_elsewhere_is_read_with_its_launch(tree: Path) -> None:
    write(tree / "serve.py", (
        "import subprocess\n\n"
        'cmd = ["python3", "-m", "sglang.launch_server",\n       "--model-path", "Qwen/Qwen3-8B"]\n'
        "subprocess.run(cmd, check=True)\n"
    ))
    (entry,) = view("serve.py")
    (launch,) = entry["launches"]
    assert launch["line"] == 5 and launch["flags"][0]["line"] == 4
    assert entry["mentions"] == []


def test_output_lines_of_a_terminal_session(tree: Path) -> None:
    write(tree / "USAGE.md", (
        "```console\n$ sglang serve Qwen/Qwen3-8B --port 30000\n"
        "started: python3 -m sglang.launch_server --port 30000\n```\n"
    ))
    (entry,) = view("USAGE.md")
    assert len(entry["launches"]) == 1
    assert [(m["line"], m["cause"]) for m in entry["mentions"]] == [(3, "output")]


# -- the command ------------------------------------------------------------------------------


def test_text_view_writes_nothing_and_exits_zero(tree: Path) -> None:
    script = write(tree / "serve.sh", 'python3 -m sglang.launch_server --port "$PORT" --attention-backend tokenspeed_mla\n'
                                      'echo "python3 -m sglang.launch_server"\n')
    before = script.read_bytes()
    result = invoke("serve.sh")
    assert result.exit_code == 0
    lines = result.stdout.splitlines()
    assert lines[0].startswith("serve.sh:1:1: launch `launch_server`, release not pinned")
    assert any('--port "$PORT"' in line and "port = unknown (--port)" in line for line in lines)
    assert "serve.sh:2:18: not read: `sglang.launch_server`: printed by `echo`, not run" in lines
    assert script.read_bytes() == before and sorted(p.name for p in tree.iterdir()) == ["serve.sh"]


def test_a_file_that_cannot_be_parsed_is_shown_with_its_error(tree: Path) -> None:
    write(tree / "bad.py", "import sglang\nsgl.Engine(model_path=\n")
    result = invoke("--format", "json", "bad.py")
    assert result.exit_code == 2
    (entry,) = json.loads(result.stdout)["files"]
    VALIDATOR.validate({"files": [entry]})
    assert entry["error"].startswith("cannot parse") and entry["launches"] == []


@pytest.mark.parametrize("args", [["--fix"], ["--diff"], ["--add-ignore"], ["--format", "sarif"], ["-"]])
def test_usage_errors(tree: Path, args: list[str]) -> None:
    write(tree / "serve.sh", "python3 -m sglang.launch_server --model-path Qwen/Qwen3-8B\n")
    result = CliRunner().invoke(main, ["--show-launches", *args, *(["serve.sh"] if args != ["-"] else [])])
    assert result.exit_code == 2


def test_model_json_shows_what_autofix_knew_of_the_model() -> None:
    known = model_json(ModelInfo("DeepseekV3ForCausalLM", True))
    assert (known["architecture"], known["mla"], known["source"], known["num_attention_heads"]) == (
        "DeepseekV3ForCausalLM", True, None, None)
    facts = ModelFacts("m/config.json", architecture="Qwen3ForCausalLM", num_attention_heads=32)
    assert model_json(ModelInfo("Qwen3ForCausalLM", False, facts)) == {
        **known, "architecture": "Qwen3ForCausalLM", "mla": False, "num_attention_heads": 32, "source": "m/config.json"}


def test_a_local_model_config_shows_its_facts_and_where_they_came_from(tree: Path) -> None:
    write(tree / "ckpt" / "config.json", json.dumps({"architectures": ["Qwen3ForCausalLM"], "num_attention_heads": 32,
                                                     "hidden_size": 4096, "max_position_embeddings": 40960}))
    write(tree / "serve.sh", "sglang serve ./ckpt --tp 2\n")
    (launch,) = launches("serve.sh")
    assert (launch["model"]["num_key_value_heads"], launch["model"]["context_length"]) == (32, 40960)
    assert launch["model"]["source"] == "ckpt/config.json"
    # In text, the facts the config gave (and what SGLang derives from them); not the unknown ones.
    assert ('  model: architecture="Qwen3ForCausalLM", mla=false, num_attention_heads=32, num_key_value_heads=32, '
            'head_dim=128, hidden_size=4096, context_length=40960, source="ckpt/config.json"\n') in invoke("serve.sh").stdout


def test_the_view_imports_nothing_the_check_does_not(tree: Path) -> None:
    write(tree / "serve.sh", "python3 -m sglang.launch_server --model-path Qwen/Qwen3-8B\n")
    write(tree / "app.py", "import sglang as sgl\nsgl.Engine(model_path='Qwen/Qwen3-8B')\n")

    def imported(*args: str) -> set[str]:
        code = (f"import sys\nfrom autofix.cli import main\ntry:\n    main({list(args)!r})\nexcept SystemExit:\n"
                "    pass\nprint(' '.join(sorted(sys.modules)))\n")
        proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=tree,
                              env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)})
        return set(proc.stdout.strip().splitlines()[-1].split())

    added = imported("--show-launches", "serve.sh", "app.py") - imported("serve.sh", "app.py")
    assert added == {"autofix.launchview", "autofix.mentions"}


def test_the_readme_example_is_what_the_view_prints(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    block = readme.split("<!-- show-launches:start", 1)[1].split("<!-- show-launches:end -->", 1)[0]
    shown = block.split("```\n", 1)[1].rsplit("```\n", 1)[0]
    result = invoke("examples/launch.sh")
    assert result.exit_code == 0 and result.stdout == shown


SHAPES = {
    "docker.sh": ("docker run --name sglang -e HF_TOKEN=$HF_TOKEN $IMAGE python3 -m sglang.launch_server "
                  "--model-path m --port $PORT \"$@\"\n"),
    "kept.sh": 'CMD="python -m sglang.launch_server --model-path m"\neval "$CMD"\n',
    "here.sh": "ssh box bash -s <<'EOF'\nnohup sglang serve Qwen/Qwen3-8B --tp 2 &\nEOF\n",
    "job.yaml": "command: [bash, -lc, 'python3 -m sglang_router.launch_server --model-path m --dp 2']\n",
    "Dockerfile": "FROM x\nRUN <<EOF\ntimeout 1h python3 -m sglang.launch_server --model-path m\nEOF\n",
    "build.py": ("def cmd(extra):\n    return ['python', '-m', 'sglang.launch_server', '--model-path', 'm', *extra]\n"
                 "# uses sglang\n"),
    "grown.sh": ('CMD="python -m sglang.launch_server --model-path m"\nCMD="$CMD --tp 2"\n'
                 'if [ -n "$K" ]; then CMD="$CMD --api-key $K"; fi\nexec $CMD\n'),
    "pod.sh": ("cat <<EOF | kubectl apply -f -\nkind: Pod\napiVersion: v1\nspec:\n  containers:\n"
               "  - args: [python3, -m, sglang.launch_server, --model-path, m]\nEOF\n"),
    "run.py": ("import subprocess\ndef _popen(cmd):\n    return subprocess.Popen(cmd)\n"
               "_popen(['python', '-m', 'sglang.launch_server', '--model-path', 'm'])\n"),
    "launch.json": '{"configurations": [{"module": "sglang.launch_server", "args": ["--model-path", "m"]}]}\n',
    "sglang.service": "[Service]\nExecStart=/usr/bin/python3 -m sglang.launch_server --model-path m --port %i\n",
}


def test_every_shape_is_shown_with_its_entry_point_wrappers_and_pass_throughs(tree: Path) -> None:
    for name, text in SHAPES.items():
        write(tree / name, text)
    shown = {entry["path"]: entry["launches"] for entry in view(*SHAPES)}
    seen = {path: [(l["form"], l["wrappers"], [p["written"] for p in l["passthroughs"]]) for l in launches]
            for path, launches in shown.items()}
    assert seen == {
        "docker.sh": [("launch_server", ["docker run"], ['"$@"'])],
        "kept.sh": [("launch_server", ["$CMD"], [])],
        "here.sh": [("serve", ["ssh", "bash", "nohup"], [])],
        "job.yaml": [("router", ["bash"], [])],
        "Dockerfile": [("launch_server", ["timeout"], [])],
        "build.py": [("launch_server", [], ["extra"])],
        "grown.sh": [("launch_server", ["$CMD"], ['"$CMD --api-key $K"'])],  # the addition under `if`
        "pod.sh": [("launch_server", ["kubectl apply -f -"], [])],
        "run.py": [("launch_server", ["_popen()"], [])],
        "launch.json": [("launch_server", [], [])],
        "sglang.service": [("launch_server", [], [])],
    }
    tp = next(f for f in shown["grown.sh"][0]["flags"] if f["dest"] == "tp_size")
    assert (tp["value"], tp["written"]) == ("2", "--tp 2")  # read where the addition writes it
    port = next(f for f in shown["sglang.service"][0]["flags"] if f["dest"] == "port")
    assert port["value"] is None  # a systemd specifier: unknown
    port = next(f for f in shown["docker.sh"][0]["flags"] if f["dest"] == "port")
    assert (port["value"], port["written"]) == (None, "--port $PORT")  # unknown, and that flag's alone
