"""Property-based tests (hypothesis): launches in every format with random flag order, spelling
(`--tp`/`--tp-size`, `--flag=value`), quoting, continuations, comments, blank space, LF/CRLF/mixed newlines, some
holding the seed mistake (`--attention-backend tokenspeed_mla` on DeepSeek without an fp8 KV cache).

Properties: --fix changes only the bytes its reported edits cover; the result has no more syntax errors
(the format module's syntax_errors) than the input; a second run changes nothing.

Examples per property: 60 (profile "ci"); AUTOFIX_HYPOTHESIS_EXAMPLES=N for more.
"""

from __future__ import annotations

import os

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import adversarial_tree as adv
from autofix.edits import choose, splice
from autofix.fixer import all_fixers, select
from autofix.formats import FORMATS, load
from autofix.pipeline import Settings, fix_text
from autofix.source import Source

settings.register_profile(
    "autofix", max_examples=int(os.environ.get("AUTOFIX_HYPOTHESIS_EXAMPLES", "60")), deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large], database=None,
)
settings.load_profile("autofix")

SEED = select(["tokenspeed-mla-without-fp8-kv-cache"], [])
ALL = Settings(all_fixers(), unsafe=True, gpu="h100")
MODELS = ["deepseek-ai/DeepSeek-V3", "deepseek-ai/DeepSeek-R1", "Qwen/Qwen3-8B", "meta-llama/Llama-3.1-8B-Instruct"]
ENTRIES = [["python3", "-m", "sglang.launch_server", "--model-path"], ["python", "-m", "sglang.launch_server",
           "--model"], ["sglang", "serve"]]


@st.composite
def launches(draw) -> list[tuple[str, str | None]]:  # noqa: ANN001
    """(flag, value) pairs after the model: value None for a switch."""
    opts: list[tuple[str, str | None]] = []
    if draw(st.booleans()):
        opts.append(("--attention-backend", draw(st.sampled_from(["tokenspeed_mla", "tokenspeed_mla", "triton",
                                                                   "flashinfer", "fa3"]))))
    if draw(st.booleans()):
        opts.append(("--kv-cache-dtype", draw(st.sampled_from(["fp8_e4m3", "auto", "bf16"]))))
    if draw(st.booleans()):
        opts.append((draw(st.sampled_from(["--tp", "--tp-size", "--tensor-parallel-size"])),
                     str(draw(st.sampled_from([1, 2, 8])))))
    if draw(st.booleans()):
        opts.append(("--port", str(draw(st.integers(1024, 65535)))))
    if draw(st.booleans()):
        opts.append(("--trust-remote-code", None))
    if draw(st.booleans()):
        opts.append(("--mem-fraction-static", draw(st.sampled_from(["0.8", "0.85"]))))
    return draw(st.permutations(opts))


def _argv(entry: list[str], model: str, opts, equals: list[bool]) -> list[str]:  # noqa: ANN001
    argv = [*entry, model]
    for (flag, value), eq in zip(opts, equals):
        if value is None:
            argv.append(flag)
        elif eq:
            argv.append(f"{flag}={value}")
        else:
            argv += [flag, value]
    return argv


@st.composite
def launch_argv(draw) -> list[str]:  # noqa: ANN001
    opts = draw(launches())
    return _argv(draw(st.sampled_from(ENTRIES)), draw(st.sampled_from(MODELS)), opts,
                 draw(st.lists(st.booleans(), min_size=len(opts), max_size=len(opts))))


def _quote(word: str, style: str) -> str:
    return {"none": word, "single": f"'{word}'", "double": f'"{word}"'}[style]


@st.composite
def shell_text(draw, markdown: bool = False) -> str:  # noqa: ANN001
    lines = ["#!/bin/bash"] if not markdown else []
    for _ in range(draw(st.integers(1, 3))):
        if draw(st.booleans()):
            lines.append("# " + draw(st.sampled_from(["start the server", "sglang serve", "TODO: tune --tp"])))
        argv = draw(launch_argv())
        words = [_quote(w, draw(st.sampled_from(["none", "none", "single", "double"]))) for w in argv]
        out = words[0]
        for word in words[1:]:
            out += draw(st.sampled_from([" ", " ", "  ", " \\\n  ", " \\\n\t"])) + word
        lines.append(out + draw(st.sampled_from(["", " &", "  # serve"])))
        if draw(st.booleans()):
            lines.append("")
    return "\n".join(lines) + draw(st.sampled_from(["\n", "", "\n\n"]))


@st.composite
def yaml_text(draw) -> str:  # noqa: ANN001
    argv = draw(launch_argv())
    style = draw(st.sampled_from(["block", "flow", "string"]))
    q = draw(st.sampled_from(["", "'", '"']))
    head = ("apiVersion: apps/v1\nkind: Deployment\nspec:\n  template:\n    spec:\n      containers:\n"
            "        - name: sglang\n          image: lmsysorg/sglang:latest\n")
    if draw(st.booleans()):
        head += "          # the server\n"
    if style == "block":
        body = "          command:\n" + "".join(f"            - {q}{w}{q}\n" for w in argv)
    elif style == "flow":
        body = "          command: [" + ", ".join(f"{q}{w}{q}" for w in argv) + "]\n"
    else:
        body = '          command: ["bash", "-c"]\n          args:\n            - |\n              ' + " ".join(argv) + "\n"
    return head + body


@st.composite
def python_text(draw) -> str:  # noqa: ANN001
    if draw(st.booleans()):
        argv = draw(launch_argv())
        q = draw(st.sampled_from(["'", '"']))
        sep = draw(st.sampled_from([", ", ",\n    "]))
        items = sep.join(f"{q}{w}{q}" for w in argv)
        return f"import subprocess\n\n# launch\nsubprocess.run([{items}], check=True)\n"
    model = draw(st.sampled_from(MODELS))
    kwargs = [f'model_path="{model}"']
    if draw(st.booleans()):
        kwargs.append('attention_backend="' + draw(st.sampled_from(["tokenspeed_mla", "triton"])) + '"')
    if draw(st.booleans()):
        kwargs.append('kv_cache_dtype="' + draw(st.sampled_from(["fp8_e4m3", "auto"])) + '"')
    if draw(st.booleans()):
        kwargs.append(f"tp_size={draw(st.sampled_from([1, 8]))}")
    kwargs = draw(st.permutations(kwargs))
    sep = draw(st.sampled_from([", ", ",\n    "]))
    return f"import sglang as sgl\n\nengine = sgl.Engine({sep.join(kwargs)})\n"


@st.composite
def dockerfile_text(draw) -> str:  # noqa: ANN001
    argv = draw(launch_argv())
    head = "FROM lmsysorg/sglang:v0.5.22-cu129\n"
    if draw(st.booleans()):
        sep = draw(st.sampled_from([", ", ", \\\n     "]))
        return head + "CMD [" + sep.join(f'"{w}"' for w in argv) + "]\n"
    sep = draw(st.sampled_from([" ", " \\\n    "]))
    return head + "CMD " + sep.join(argv) + "\n"


@st.composite
def markdown_text(draw) -> str:  # noqa: ANN001
    return "# Serving\n\nRun:\n\n```bash\n" + draw(shell_text(markdown=True)).rstrip("\n") + "\n```\n\nDone.\n"


@st.composite
def files(draw) -> tuple[str, str]:  # noqa: ANN001
    kind = draw(st.sampled_from(["shell", "yaml", "python", "dockerfile", "markdown"]))
    text = draw({"shell": shell_text(), "yaml": yaml_text(), "python": python_text(),
                 "dockerfile": dockerfile_text(), "markdown": markdown_text()}[kind])
    newlines = draw(st.sampled_from(["lf", "lf", "lf", "crlf", "mixed"]))
    if newlines == "crlf":
        text = text.replace("\n", "\r\n")
    elif newlines == "mixed":  # the first line LF (the file's newline for autofix), the rest CRLF
        first, _, rest = text.partition("\n")
        text = first + "\n" + rest.replace("\n", "\r\n")
    return kind, text


def _count(name: str) -> None:
    adv.STATS["examples"] += 1
    adv.STATS.setdefault(f"examples of {name}", 0)
    adv.STATS[f"examples of {name}"] += 1


def _property(name: str) -> None:
    adv.STATS["properties"] += 1


@given(files())
def test_fix_changes_only_the_reported_spans(case: tuple[str, str]) -> None:
    kind, text = case
    _count("spans")
    source, spec = Source(text), FORMATS[kind]
    checked = fix_text(source, spec, Settings(SEED))
    fixed = fix_text(source, spec, Settings(SEED), fix=True)
    assert fixed.error is None
    edits = [e for f in choose([r.fix for r in checked.findings if r.fix is not None]) for e in f.edits]
    # The seed fixer's fixes settle in one pass, so what --fix writes is exactly the reported edits applied.
    assert fixed.text == splice(text, edits)
    assert fixed.changed == bool(edits)
    # Newlines as the file writes them: none added in another style, no CR parted from its LF.
    after = fixed.text
    if "\r" not in text:
        assert "\r" not in after
    if text.count("\n") == text.count("\r\n"):
        assert after.count("\n") == after.count("\r\n")
    assert after.count("\r") - after.count("\r\n") == text.count("\r") - text.count("\r\n")


@given(files())
def test_fix_keeps_the_file_parsable_and_settles(case: tuple[str, str]) -> None:
    kind, text = case
    _count("parse+idempotent")
    source, spec = Source(text), FORMATS[kind]
    try:
        fixed = fix_text(source, spec, ALL, fix=True)
    except SyntaxError:
        return
    assert fixed.error is None
    module = load(spec)
    assert module.syntax_errors(fixed.text) <= module.syntax_errors(text)
    again = fix_text(source.with_text(fixed.text), spec, ALL, fix=True)
    assert again.text == fixed.text, "a second --fix changed the file again"


@given(files())
def test_the_seed_mistake_is_fixed(case: tuple[str, str]) -> None:
    kind, text = case
    _count("seed mistake fixed")
    fixed = fix_text(Source(text), FORMATS[kind], Settings(SEED), fix=True)
    assert not [r for r in fixed.remaining if r.fix is not None and r.fix.applies(False)]


def test_zz_count_properties() -> None:
    """Counts the properties above for the session summary."""
    adv.STATS["properties"] += 3
