"""The command recogniser: what a command line runs, behind which wrappers, in every format."""

from __future__ import annotations

import json
from textwrap import dedent

import pytest

from autofix.command import Entry, Script, recognise
from autofix.fixer import select
from autofix.formats import FORMATS, load
from autofix.knowledge.options import table
from autofix.pipeline import Settings, fix_text
from autofix.source import Source

U = None  # a word autofix cannot know: `$IMAGE`, `$(which python)`


def words(line: str) -> list[str | None]:
    return [U if w == "?" else w for w in line.split()]


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        ("python3 -W ignore -m sglang.launch_server --tp 2", Entry(5, "launch_server")),
        ("sglang serve model --tp 2", Entry(2, "serve")),
        ("python -m sglang_router.launch_server --dp 2", Entry(3, "router")),
        ("? -m sglang.launch_server --tp 2", Entry(3, "launch_server")),  # "$PYTHON" -m ...
        # a docker option's value is never the program, and unknown values among them say nothing
        ("docker run --name sglang --gpus all -e HF_TOKEN=? -v ? -p 30000:30000 img python3 -m sglang.launch_server",
         Entry(16, "launch_server", ("docker run",))),
        ("docker run -it --rm ? python3 -m sglang.launch_server", Entry(8, "launch_server", ("docker run",))),
        ("docker run --entrypoint python3 img -m sglang.launch_server --tp 2",
         Entry(7, "launch_server", ("docker run",))),
        ("podman run -d --device nvidia.com/gpu=all img sglang serve m", Entry(8, "serve", ("podman run",))),
        ("docker compose -f c.yml run --rm -e A=1 sglang python -m sglang.launch_server",
         Entry(12, "launch_server", ("docker compose run",))),
        ("docker exec -it -w /app box bash -lc SCRIPT", Script(8, ("docker exec", "bash"))),
        ("kubectl exec -it pod -n ns -c main -- python3 -m sglang.launch_server",
         Entry(12, "launch_server", ("kubectl exec",))),
        ("singularity exec --nv -B /d:/d img.sif python -m sglang.launch_server",
         Entry(9, "launch_server", ("singularity exec",))),
        ("ssh -p 2222 host SCRIPT", Script(4, ("ssh",))),
        ("ssh host python -m sglang.launch_server --tp 2", Entry(5, "launch_server", ("ssh",))),
        ("nohup env CUDA_VISIBLE_DEVICES=0 timeout 2h numactl -N 0 -m 0 python -m sglang.launch_server",
         Entry(13, "launch_server", ("nohup", "env", "timeout", "numactl"))),
        ("taskset -c 0-7 sglang serve m", Entry(5, "serve", ("taskset",))),
        ("taskset 0x3 sglang serve m", Entry(4, "serve", ("taskset",))),
        ("sudo -E -u svc stdbuf -oL setsid exec time sglang serve m",
         Entry(11, "serve", ("sudo", "stdbuf", "setsid", "exec", "time"))),
        ("srun -N 1 --gres=gpu:8 -J sglang python -m sglang.launch_server", Entry(9, "launch_server", ("srun",))),
        ("mpirun -np 2 -x NCCL_DEBUG python -m sglang.launch_server", Entry(8, "launch_server", ("mpirun",))),
        ("torchrun --nproc-per-node 8 -m sglang.launch_server --tp 8", Entry(5, "launch_server", ("torchrun",))),
        ("uv run --with sglang -m sglang.launch_server", Entry(6, "launch_server", ("uv run",))),
        ("conda run -n sglang --no-capture-output python -m sglang.launch_server",
         Entry(8, "launch_server", ("conda run",))),
        ("bash -ec SCRIPT", Script(2, ("bash",))),
        ("sh -o pipefail -xc SCRIPT", Script(4, ("sh",))),
        ("/bin/bash --login -c SCRIPT", Script(3, ("bash",))),
        # what does not run SGLang's server
        ("bash start.sh", None),
        ("echo python -m sglang.launch_server", None),
        ("grep -r sglang serve", None),
        ("python -c print(1) -m sglang.launch_server", None),
        ("docker build -t sglang .", None),
        ("docker run --name sglang img python train.py", None),
    ],
)
def test_recognise(line: str, expected: object) -> None:
    assert recognise(words(line)) == expected


BAD = "--attention-backend tokenspeed_mla"  # SGLang refuses it without --kv-cache-dtype fp8_e4m3
KV = "tokenspeed-mla-without-fp8-kv-cache"


def check(fmt: str, text: str) -> tuple[list[str], str]:
    result = fix_text(Source(text), FORMATS[fmt], Settings(select(["ALL"])), fix=True)
    return [r.fixer.name for r in result.findings], result.text


def wrappers(fmt: str, text: str) -> list[tuple[str, ...]]:
    return [launch.wrappers for launch in load(FORMATS[fmt]).find_launches(Source(text), table(None))]


SHELL_CASES = [
    # unquoted values in the launch and in the wrapper's options stay local to their flags
    (f'docker run --name sglang -e HF_TOKEN=$HF_TOKEN -v $HOME/.cache:/root/.cache $IMAGE \\\n'
     f'  python3 -m sglang.launch_server --model-path ${{MODEL}} --port $PORT --tp $TP {BAD}\n', ("docker run",)),
    (f'"$PYTHON" -m sglang.launch_server --model-path m {BAD}\n', ()),
    (f'$(which python) -m sglang.launch_server --model-path m {BAD}\n', ()),
    (f"bash -lc 'python -m sglang.launch_server --model-path m {BAD}'\n", ("bash",)),
    (f"ssh gpu-box 'python -m sglang.launch_server --model-path m {BAD}'\n", ("ssh",)),
    (f"python -m sglang_router.launch_server --model-path m --dp 2 {BAD}\n", ()),
    (f"torchrun --nproc-per-node 2 -m sglang.launch_server --model-path m {BAD}\n", ("torchrun",)),
]


@pytest.mark.parametrize(("text", "wrapped"), SHELL_CASES)
def test_shell_launches_behind_wrappers(text: str, wrapped: tuple[str, ...]) -> None:
    assert wrappers("shell", text) == [wrapped]
    names, fixed = check("shell", text)
    assert names == [KV]
    assert fixed == text.replace(BAD, f"{BAD} --kv-cache-dtype fp8_e4m3")


def test_dockerfile_exec_form_and_shell_form() -> None:
    exec_form = f'CMD ["docker-entrypoint", "sh", "-ec", "python3 -m sglang.launch_server --model-path m {BAD}"]\n'
    assert wrappers("dockerfile", exec_form) == [("docker-entrypoint", "sh")]
    assert check("dockerfile", exec_form)[0] == [KV]
    shell_form = f"CMD nohup python3 -m sglang.launch_server --model-path $MODEL {BAD}\n"
    assert wrappers("dockerfile", shell_form) == [("nohup",)]
    assert check("dockerfile", shell_form) == ([KV], shell_form.replace(BAD, f"{BAD} --kv-cache-dtype fp8_e4m3"))


def test_yaml_argument_lists_and_shell_scalars() -> None:
    args = dedent(f"""\
        containers:
          - command: ["bash", "-ec"]
            args:
              - python3 -m sglang.launch_server --model-path m {BAD}
          - command: [numactl, --cpunodebind=0, python3, -m, sglang.launch_server, --model-path, m,
                      --attention-backend, tokenspeed_mla]
        """)
    assert wrappers("yaml", args) == [("bash",), ("numactl",)]
    assert check("yaml", args)[0] == [KV, KV]
    run = f"run: docker run --rm -e TOKEN=${{{{ secrets.HF }}}} img sglang serve m {BAD}\n"
    assert wrappers("yaml", run) == [("docker run",)]


def test_python_argv_lists_and_command_strings() -> None:
    text = dedent(f"""\
        import subprocess, sys
        subprocess.run(["ssh", "box", "python -m sglang.launch_server --model-path m {BAD}"])
        subprocess.run([sys.executable, "-m", "sglang.launch_server", "--model-path", "m",
                        "--attention-backend", "tokenspeed_mla"])
        subprocess.run(["sh", "-ec", "python -m sglang.launch_server --model-path m {BAD}"])
        """)
    assert wrappers("python", text) == [("ssh",), (), ("sh",)]
    assert check("python", text)[0] == [KV, KV, KV]


def test_markdown_and_notebooks() -> None:
    md = f"```console\n$ docker run --gpus all -p 30000:30000 img \\\n    sglang serve m {BAD}\n```\n"
    assert wrappers("markdown", md) == [("docker run",)]
    assert check("markdown", md)[0] == [KV]
    cell = {"cell_type": "code", "metadata": {}, "outputs": [], "execution_count": None,
            "source": [f"!nohup python -m sglang.launch_server --model-path m --port $PORT {BAD} &"]}
    nb = json.dumps({"cells": [cell], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}, indent=1) + "\n"
    assert wrappers("notebook", nb) == [("nohup",)]
    assert check("notebook", nb)[0] == [KV]


# -- launches kept elsewhere: here-documents, variables, arrays, eval ----------------

NEAR = "--attention-backend FA3"  # a near miss SGLang refuses: invalid-choice, fixed to fa3


def fixed_shell(text: str) -> str:
    return check("shell", text)[1]


@pytest.mark.parametrize(
    ("text", "wrapped"),
    [
        (f"ssh gpu-box bash -s <<'EOF'\npython -m sglang.launch_server --model-path m {NEAR}\nEOF\n", ("ssh", "bash")),
        (f"bash <<EOF\nnohup python -m sglang.launch_server --model-path $M {NEAR} &\nEOF\n", ("bash", "nohup")),
        (f"cat > start.sh <<EOF\n#!/bin/bash\npython -m sglang.launch_server --tp \\$TP {NEAR}\nEOF\n", ("> start.sh",)),
        (f'CMD="python -m sglang.launch_server --model-path $M {NEAR}"\neval "$CMD"\n', ("$CMD",)),
        (f'CMD="X=1 ${{PREFIX}} python3 -m sglang.launch_server \\\\\n  --model-path \\"$M\\" {NEAR}"\n'
         'if [ -n "$NODE" ]; then CMD="$CMD --node-rank 1"; fi\nsetsid bash -c "$CMD" &\n', ("$CMD",)),
        (f"eval \"python -m sglang.launch_server --model-path m {NEAR}\"\n", ("eval",)),
    ],
)
def test_scripts_kept_in_heredocs_and_variables(text: str, wrapped: tuple[str, ...]) -> None:
    (launch,) = load(FORMATS["shell"]).find_launches(Source(text), table(None))
    assert launch.wrappers[: len(wrapped)] == wrapped
    assert fixed_shell(text) == text.replace("FA3", "fa3")


def test_heredocs_that_are_not_scripts_are_not_read() -> None:
    for text in (f"cat <<EOF\npython -m sglang.launch_server {NEAR}\nEOF\n",
                 f"cat > notes.md <<EOF\npython -m sglang.launch_server {NEAR}\nEOF\n",
                 f"python3 <<EOF\nprint('python -m sglang.launch_server {NEAR}')\nEOF\n"):
        assert check("shell", text) == ([], text)


def test_a_command_array_extended_under_conditions() -> None:
    text = dedent(f"""\
        ARGS=(python -m sglang.launch_server --model-path m {NEAR}
              --attention-backend tokenspeed_mla)
        [[ -n "$Q" ]] && ARGS+=(--kv-cache-dtype "$Q")
        "${{ARGS[@]}}"
        """)
    (launch,) = load(FORMATS["shell"]).find_launches(Source(text), table(None))
    assert launch.written_dests() is None  # the appends may add any flag ...
    names, fixed = check("shell", text)
    assert names == ["invalid-choice"]  # ... so only what holds whatever they add is reported
    assert fixed == text.replace("FA3", "fa3")


def test_dockerfile_heredocs_that_are_scripts() -> None:
    text = dedent(f"""\
        FROM lmsysorg/sglang:latest
        RUN <<EOF
        set -e
        python3 -m sglang.launch_server --model-path m {NEAR}
        EOF
        COPY <<EOF /start.sh
        #!/bin/bash
        exec python3 -m sglang.launch_server --model-path m {NEAR} "$@"
        EOF
        """)
    names, fixed = check("dockerfile", text)
    assert names == ["invalid-choice", "invalid-choice"]
    assert fixed == text.replace("FA3", "fa3")


def test_an_append_at_top_level_does_not_replace_the_array() -> None:
    text = f'ARGS=(python -m sglang.launch_server --model-path m {NEAR})\nARGS+=($EXTRA)\nexec "${{ARGS[@]}}"\n'
    (launch,) = load(FORMATS["shell"]).find_launches(Source(text), table(None))
    assert launch.wrappers == ("exec",)
    assert fixed_shell(text) == text.replace("FA3", "fa3")


def test_python_argv_list_returned_by_a_helper() -> None:
    text = dedent(f"""\
        import subprocess

        class Server:
            def _build_cmd(self) -> list:
                cmd = ["python", "-m", "sglang.launch_server", "--model-path", self.model,
                       "--attention-backend", "FA3"]
                for key, value in self.kwargs.items():
                    cmd.extend([f"--{{key}}", str(value)])
                return cmd

            def start(self):
                self.process = subprocess.Popen(self._build_cmd())
        """)
    (launch,) = load(FORMATS["python"]).find_launches(Source(text), table(None))
    assert launch.written_dests() is None  # the loop may add any flag
    assert check("python", text) == (["invalid-choice"], text.replace('"FA3"', '"fa3"'))


def test_python_argv_lists_bound_in_the_branches_of_a_condition() -> None:
    text = dedent("""\
        import subprocess

        def main(tp):
            if tp:
                cmd = ["python3", "-m", "sglang.launch_server", "--model-path", "m", "--tp", "2",
                       "--attention-backend", "FA3"]
            elif tp is None:
                cmd = ["python3", "-m", "sglang.launch_server", "--model-path", "m", "--attention-backend", "FA3"]
            else:
                cmd = ["python3", "-m", "sglang.launch_server", "--model-path", "m"]
            subprocess.Popen(cmd)
        """)
    launches = load(FORMATS["python"]).find_launches(Source(text), table(None))
    assert [l.written_dests() for l in launches] == [
        {"model_path", "tp_size", "attention_backend"}, {"model_path", "attention_backend"}, {"model_path"}]
    assert check("python", text) == (["invalid-choice", "invalid-choice"], text.replace('"FA3"', '"fa3"'))


def test_python_list_overwritten_on_every_path_is_not_a_launch() -> None:
    text = dedent(f"""\
        import subprocess
        if x:
            cmd = ["python3", "-m", "sglang.launch_server", "--model-path", "m", "--attention-backend", "FA3"]
        cmd = ["python3", "-m", "sglang.launch_server", "--model-path", "m"]
        subprocess.run(cmd)
        """)
    (launch,) = load(FORMATS["python"]).find_launches(Source(text), table(None))
    assert launch.written_dests() == {"model_path"}
    assert check("python", text) == ([], text)


@pytest.mark.parametrize(
    "runner",
    [
        "def _popen(cmd, **kwargs):\n    return subprocess.Popen(cmd, stdout=subprocess.PIPE, **kwargs)\n",
        "def _popen(cmd):\n    subprocess.run(cmd, shell=True)\n",
        "def _popen(cmd):\n    os.system(cmd)\n",
    ],
)
def test_python_launch_handed_to_a_function_of_the_module_that_runs_it(runner: str) -> None:
    shell = "shell" in runner or "system" in runner
    argv = ('"python3 -m sglang.launch_server --model-path m --attention-backend FA3"' if shell else
            '["python3", "-m", "sglang.launch_server", "--model-path", "m", "--attention-backend", "FA3"]')
    text = f"import os, subprocess\n{runner}\ndef start():\n    cmd = {argv}\n    return _popen(cmd)\n"
    (launch,) = load(FORMATS["python"]).find_launches(Source(text), table(None))
    assert launch.wrappers == ("_popen()",)
    assert check("python", text) == (["invalid-choice"], text.replace("FA3", "fa3"))


def test_python_method_that_runs_its_parameter() -> None:
    text = dedent("""\
        import subprocess

        class Server:
            def _run(self, argv):
                self.proc = subprocess.Popen(argv)

            def start(self):
                self._run(["python3", "-m", "sglang.launch_server", "--model-path", "m", "--attention-backend", "FA3"])
        """)
    assert check("python", text) == (["invalid-choice"], text.replace('"FA3"', '"fa3"'))


def test_a_function_that_does_not_run_its_parameter_is_no_runner() -> None:
    text = dedent("""\
        import subprocess

        def log(cmd):
            subprocess.run(["echo", "starting"])
            print(cmd)

        log(["python3", "-m", "sglang.launch_server", "--model-path", "m", "--attention-backend", "FA3"])
        """)
    assert load(FORMATS["python"]).find_launches(Source(text), table(None)) == []


POD = """\
apiVersion: v1
kind: Pod
spec:
  containers:
  - name: sglang
    command: [python3, -m, sglang.launch_server, --attention-backend, FA3]
    args:
    - --model-path
    - ${MODEL}
"""


@pytest.mark.parametrize(
    ("opening", "reader"),
    [
        ("kubectl apply -f - <<EOF", "kubectl apply -f -"),
        ("cat <<EOF | kubectl apply -f -", "kubectl apply -f -"),
        ("cat <<'EOF' | oc create --filename=-", "oc create --filename=-"),
        ("cat > deploy/pod.yaml <<EOF", "> deploy/pod.yaml"),
        ("cat <<EOF > pod.yml", "> pod.yml"),
    ],
)
def test_a_here_document_that_is_a_yaml_file(opening: str, reader: str) -> None:
    text = f"#!/bin/bash\nset -e\n{opening}\n{POD}EOF\n"
    (launch,) = load(FORMATS["shell"]).find_launches(Source(text), table(None))
    assert launch.wrappers == (reader,)
    model = next(a for a in launch.args if a.span.start == text.index("${MODEL}"))
    # The shell expands ${MODEL} before kubectl reads the file; a quoted delimiter keeps it literal.
    assert model.text == (None if "'EOF'" not in opening else "${MODEL}")
    assert check("shell", text) == (["invalid-choice"], text.replace("FA3", "fa3"))


@pytest.mark.parametrize(
    "opening",
    ["cat <<EOF | grep sglang", "cat > notes.txt <<EOF", "kubectl apply -f pod.yaml <<EOF"],
)
def test_a_here_document_no_yaml_reader_reads_is_not_read(opening: str) -> None:
    text = f"{opening}\n{POD}EOF\n"
    assert load(FORMATS["shell"]).find_launches(Source(text), table(None)) == []


def test_a_yaml_here_document_with_backslashes_is_not_read() -> None:
    pod = POD.replace("${MODEL}", "a\\\\b")  # `\\` in the body: the shell reads it as one backslash
    text = f"kubectl apply -f - <<EOF\n{pod}EOF\n"
    assert load(FORMATS["shell"]).find_launches(Source(text), table(None)) == []


@pytest.mark.parametrize("run", ['eval "$CMD"', "$CMD", 'ssh node1 "$CMD"', 'bash -c "$CMD"'])
def test_a_kept_command_grown_by_additions_in_its_own_block(run: str) -> None:
    text = (f'CMD="python3 -m sglang.launch_server --model-path m"\nCMD="$CMD --tp 2"\n'
            f'CMD+=" {NEAR} --port $PORT"\n{run}\n')
    (launch,) = load(FORMATS["shell"]).find_launches(Source(text), table(None))
    assert launch.written_dests() == {"model_path", "tp_size", "attention_backend", "port"}  # closed: all read
    assert check("shell", text) == (["invalid-choice"], text.replace("FA3", "fa3"))


def test_an_addition_under_a_condition_leaves_the_kept_command_open() -> None:
    text = ('CMD="python3 -m sglang.launch_server --model-path m"\n'
            'if [ -n "$TP" ]; then\n  CMD="$CMD --tp $TP"\nfi\n'
            f'CMD="${{CMD}} {NEAR}"\n$CMD\n')
    (launch,) = load(FORMATS["shell"]).find_launches(Source(text), table(None))
    assert launch.written_dests() is None
    assert [a.text for a in launch.args if a.splat] == [None]
    assert check("shell", text) == (["invalid-choice"], text.replace("FA3", "fa3"))


def test_a_reassignment_ends_what_additions_are_read() -> None:
    text = ('CMD="python3 -m sglang.launch_server --model-path m"\nCMD="$CMD --tp 2"\n'
            'CMD="python3 -m sglang.launch_server --model-path n"\n$CMD\n')
    first, second = load(FORMATS["shell"]).find_launches(Source(text), table(None))
    assert first.written_dests() is None and second.written_dests() is None  # either may be the one run


@pytest.mark.parametrize("run", ["exec $CMD", "nohup $CMD > server.log 2>&1 &", "sudo -E $CMD", 'exec "$CMD"'])
def test_a_kept_command_run_behind_wrappers(run: str) -> None:
    text = f'CMD="python -m sglang.launch_server --model-path m {NEAR}"\nif [ -n "$K" ]; then CMD="$CMD --api-key $K"; fi\n{run}\n'
    assert check("shell", text) == (["invalid-choice"], text.replace("FA3", "fa3"))


@pytest.mark.parametrize("declare", ["", "local ", "local -a ", "declare -a "])
def test_an_array_assigned_in_a_function_and_run_there(declare: str) -> None:
    text = f'run() {{\n    {declare}cmd=(\n        python -m sglang.launch_server --model-path "$M"\n        {NEAR}\n    )\n    "${{cmd[@]}}"\n}}\nrun\n'
    (launch,) = load(FORMATS["shell"]).find_launches(Source(text), table(None))
    assert launch.written_dests() == {"model_path", "attention_backend"}
    assert fixed_shell(text) == text.replace("FA3", "fa3")


def test_an_array_assigned_in_a_function_is_not_seen_outside_it() -> None:
    text = 'setup() {\n    cmd=(python -m sglang.launch_server --model-path m --attention-backend FA3)\n}\nsetup\n"${cmd[@]}"\n'
    assert load(FORMATS["shell"]).find_launches(Source(text), table(None)) == []


def test_a_literal_dollar_in_a_word_leaves_the_rest_of_the_launch_read() -> None:
    text = f"python -m sglang.launch_server --model-path m {NEAR} --dist-init-addr $NODE0$:5757\n"
    (launch,) = load(FORMATS["shell"]).find_launches(Source(text), table(None))
    assert [a.text for a in launch.args][-2:] == ["--dist-init-addr", None]  # the word is one unknown value
    assert fixed_shell(text) == text.replace("FA3", "fa3")


@pytest.mark.parametrize(("text", "wrapper", "open_"), [
    ('services:\n  a:\n    entrypoint: ["/bin/bash", "/scripts/entrypoint.sh"]\n'
     f"    command: python3 -m sglang.launch_server --model-path m {NEAR}\n",
     "/bin/bash /scripts/entrypoint.sh", True),  # a shell running a script file, handed the launch
    ("spec:\n  containers:\n  - command: [/entrypoint.sh]\n"
     f"    args: [python3, -m, sglang.launch_server, --model-path, m, {NEAR.replace(' ', ', ')}]\n",
     "entrypoint.sh", False),  # an unknown program: scanned for the entry point, as srun is
])
def test_a_launch_handed_to_an_entrypoint_script(text: str, wrapper: str, open_: bool) -> None:
    (launch,) = load(FORMATS["yaml"]).find_launches(Source(text), table(None))
    assert launch.wrappers[0] == wrapper
    assert (launch.written_dests() is None) == open_  # a script run by a shell may add flags of its own
    assert check("yaml", text) == (["invalid-choice"], text.replace("FA3", "fa3"))


def test_an_entrypoint_script_with_arguments_that_are_no_launch_is_not_read() -> None:
    text = 'services:\n  a:\n    entrypoint: ["/start.sh"]\n    command: ["--port", "8000"]\n'
    assert load(FORMATS["yaml"]).find_launches(Source(text), table(None)) == []


@pytest.mark.parametrize("delimiter", ["EOF", "'EOF'", "- EOF"])
def test_a_command_captured_from_a_here_document(delimiter: str) -> None:
    text = f"cmd=$(cat <<{delimiter}\npython -m sglang.launch_server --model-path /m \\\n    {NEAR}\nEOF\n)\neval $cmd\n"
    (launch,) = load(FORMATS["shell"]).find_launches(Source(text), table(None))
    assert launch.wrappers == ("$cmd",) and launch.written_dests() == {"model_path", "attention_backend"}
    assert fixed_shell(text) == text.replace("FA3", "fa3")


def test_a_captured_here_document_never_run_is_not_a_launch() -> None:
    text = f"usage=$(cat <<EOF\npython -m sglang.launch_server --model-path /m {NEAR}\nEOF\n)\necho \"$usage\"\n"
    assert load(FORMATS["shell"]).find_launches(Source(text), table(None)) == []


def test_yaml_command_keys_of_other_tools() -> None:
    text = dedent(f"""\
        frameworks:
          sglang:
            server_command: python -m sglang.launch_server {NEAR}
            base_server_flags:
              model_path: moonshotai/Kimi-K2.5
            test_command: pytest -q
        """)
    (launch,) = load(FORMATS["yaml"]).find_launches(Source(text), table(None))
    assert launch.written_dests() is None  # the tool adds its own flags: no finding about a missing --model-path
    assert check("yaml", text) == (["invalid-choice"], text.replace("FA3", "fa3"))


def test_the_routers_own_options_are_its_to_judge() -> None:
    text = ("python -m sglang_router.launch_server --model-path m --dp 2 --router-policy cache_aware "
            "--router-dp-worker-base-port 31000 --kv-cache-type fp8_e4m3\n")
    names = check("shell", "pip install sglang==0.5.23\n" + text)[0]  # pinned: every unknown option is reported
    assert names == ["unknown-option"]  # --kv-cache-type, not the router's --router-* options


@pytest.mark.parametrize(
    ("fmt", "text"),
    [
        ("markdown", f"```bash\nssh box bash -s <<'EOF'\npython -m sglang.launch_server --model-path m {NEAR}\nEOF\n```\n"),
        ("markdown", f'```sh\nCMD="python -m sglang.launch_server --model-path m {NEAR}"\neval "$CMD"\n```\n'),
        ("yaml", f'run: |\n  CMD="python -m sglang.launch_server --model-path m {NEAR}"\n  bash -c "$CMD"\n'),
        ("yaml", f"script:\n  - |\n    bash <<EOF\n    sglang serve Qwen/Qwen3-8B {NEAR}\n    EOF\n"),
        ("dockerfile", f'FROM x\nRUN eval "python3 -m sglang.launch_server --model-path m {NEAR}"\n'),
        ("python", f'import os\nos.system("docker run --rm -e T=$T img python3 -m sglang.launch_server --model-path m {NEAR}")\n'),
    ],
)
def test_kept_and_wrapped_launches_in_every_host_format(fmt: str, text: str) -> None:
    assert check(fmt, text) == (["invalid-choice"], text.replace("FA3", "fa3"))


@pytest.mark.parametrize(
    ("fmt", "text", "passed"),
    [
        ("yaml", "command: [python3, -m, sglang.launch_server, --model-path, m, --attention-backend, tokenspeed_mla]\n"
                 "args: ['{{ .Values.extra }}']\n", None),
        ("dockerfile", 'FROM x\nENTRYPOINT ["python3", "-m", "sglang.launch_server", "--model-path", "m",'
                       ' "--attention-backend", "tokenspeed_mla"]\nCMD --port $PORT\n', None),
        ("markdown", '```bash\npython -m sglang.launch_server --model-path m --attention-backend tokenspeed_mla "$@"\n```\n',
         '"$@"'),
        ("python", "import subprocess\ndef serve(extra):\n    subprocess.run(['python', '-m', 'sglang.launch_server',"
                   " '--model-path', 'm', '--attention-backend', 'tokenspeed_mla', *extra])\n", "extra"),
    ],
)
def test_pass_throughs_in_every_format(fmt: str, text: str, passed: str | None) -> None:
    result = fix_text(Source(text), FORMATS[fmt], Settings(select(["ALL"])))
    (finding,) = result.findings
    assert finding.fixer.name == KV
    if passed is None:  # a shell-form CMD after an ENTRYPOINT, a template's items: any tokens
        assert "may add others" in finding.finding.message
    else:
        assert f"`{passed}` may add others" in finding.finding.message
        assert finding.fix is not None and finding.fix.applicability.value == "unsafe"


def test_execute_shell_command_reads_as_launch_server_cmd() -> None:
    text = ('from sglang.utils import execute_shell_command\n'
            f'proc = execute_shell_command("python -m sglang.launch_server --model-path m {NEAR}")\n')
    assert check("python", text) == (["invalid-choice"], text.replace("FA3", "fa3"))


def test_dev_builds_are_no_release() -> None:
    from autofix.pipeline import release_in_text

    assert release_in_text("pip install sglang==0.0.0.dev11416+g92e8bb79e\n") is None
    assert release_in_text("image: lmsysorg/sglang:v0.5.18.post1-cu129\n") == "0.5.18"


def test_compose_entrypoint_and_command_strings_are_one_argv() -> None:
    text = dedent("""\
        services:
          a:
            entrypoint: python3 -m sglang.launch_server
            command: --model-path m --attention-backend tokenspeed_mla --port 30000
          b:
            entrypoint: python3 -m sglang.launch_server
            command: >
              --model-path m
              --attention-backend tokenspeed_mla
          c:
            entrypoint: ["python3", "-m", "sglang.launch_server"]
            command: --model-path m --attention-backend tokenspeed_mla
        """)
    names, fixed = check("yaml", text)
    assert names == [KV, KV, KV]
    assert fixed == dedent("""\
        services:
          a:
            entrypoint: python3 -m sglang.launch_server
            command: --model-path m --attention-backend tokenspeed_mla --kv-cache-dtype fp8_e4m3 --port 30000
          b:
            entrypoint: python3 -m sglang.launch_server
            command: >
              --model-path m
              --attention-backend tokenspeed_mla
              --kv-cache-dtype fp8_e4m3
          c:
            entrypoint: ["python3", "-m", "sglang.launch_server"]
            command: --model-path m --attention-backend tokenspeed_mla --kv-cache-dtype fp8_e4m3
        """)


def test_os_exec_argv() -> None:
    text = dedent(f"""\
        import os, sys
        args = ["--model-path", "m", "--attention-backend", "FA3"]
        os.execv(sys.executable, [sys.executable, "-m", "sglang.launch_server"] + args)
        """)
    assert check("python", text) == (["invalid-choice"], text.replace('"FA3"', '"fa3"'))


def test_a_function_that_runs_its_argument() -> None:
    text = dedent(f"""\
        in_box() {{ docker exec box bash -c "$1"; }}
        in_box "python -m sglang.launch_server --model-path m {NEAR}"
        run_cmd() {{
          echo "$1"
          eval "$1"
        }}
        cmd="python3 -m sglang.launch_server --model-path m {NEAR}"
        run_cmd "$cmd"
        """)
    assert [l.wrappers[0] for l in load(FORMATS["shell"]).find_launches(Source(text), table(None))] == ["in_box", "$cmd"]
    assert fixed_shell(text) == text.replace("FA3", "fa3")


def test_an_untagged_markdown_block_that_opens_with_a_mapping_is_yaml() -> None:
    text = ("```\nservices:\n  s:\n    entrypoint: python3 -m sglang.launch_server\n"
            f"    command: --model-path m {NEAR}\n```\n\n```\nenv: X=1 python -m sglang.launch_server {NEAR}\n```\n")
    names, fixed = check("markdown", text)
    assert names == ["invalid-choice"]  # the compose block; `env: X=1 ...` is read as YAML and holds no launch
    assert fixed == text.replace("FA3", "fa3", 1)
