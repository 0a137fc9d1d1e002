"""What the GPU rules share: the backends SGLang's hardware checks read, and how to drop them.

SGLang's `_attention_backend_default` runs before these checks: when the
prefill and decode backends are both written and equal, `attention_backend`
becomes that value, whatever was written for it. A DeepSeek-V4 launch has
`attention_backend` replaced by `dsv4` by the model's own overrides, so what
is written for it never reaches the checks.
"""

from __future__ import annotations

from autofix.edits import Edit
from autofix.model import Arg, Flag, Launch

BACKENDS = ("attention_backend", "prefill_attention_backend", "decode_attention_backend")
DEEPSEEK_V4 = "DeepseekV4ForCausalLM"


def effective_backends(launch: Launch) -> dict[str, object]:
    """attention, prefill and decode backend as SGLang's hardware checks see them (None: not set)."""
    values = {dest: launch.value(dest) for dest in BACKENDS}
    prefill, decode = values["prefill_attention_backend"], values["decode_attention_backend"]
    if prefill is not None and prefill == decode:
        values["attention_backend"] = prefill
    elif launch.model.architecture == DEEPSEEK_V4:
        values["attention_backend"] = "dsv4"
    return values


def resolved(values: dict[str, object]) -> tuple[object, object]:
    """(prefill, decode) as `attention_backends_of` resolves them: each falls back to attention_backend."""
    attention = values["attention_backend"]
    return values["prefill_attention_backend"] or attention, values["decode_attention_backend"] or attention


def written(launch: Launch, dests: tuple[str, ...], names: tuple[str, ...]) -> list[Flag]:
    """The flags among dests that are written with one of names, in launch order."""
    return sorted(
        (f for dest in dests for f in launch.all(dest) if f.value in names), key=lambda f: f.span.start
    )


def remove_each(launch: Launch, flags: list[Flag]) -> tuple[Edit, ...]:
    """Remove every flag; nothing when one of them cannot be removed.

    Flags written next to each other are removed as one run: removing two
    own-line flags separately, the last one of the command among them, would
    ask for overlapping edits (each takes a line continuation with it).
    """
    runs: list[list[Arg]] = []
    for flag in sorted(flags, key=lambda f: f.span.start):
        if not flag.editable:
            return ()
        args = list(flag.args)
        if runs and runs[-1][-1].container is args[0].container and _next_to(launch, runs[-1][-1], args[0]):
            runs[-1].extend(args)
        else:
            runs.append(args)
    edits: list[Edit] = []
    for args in runs:
        removed = args[0].container.remove(args)  # type: ignore[union-attr]
        if not removed:
            return ()
        edits.extend(removed)
    return tuple(edits)


def _next_to(launch: Launch, before: Arg, after: Arg) -> bool:
    index = {id(arg): i for i, arg in enumerate(launch.args)}
    return id(before) in index and index.get(id(after)) == index[id(before)] + 1
