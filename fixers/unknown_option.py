"""An option SGLang's server parser does not have.

## What it does
Finds flags that are not options of SGLang's server, nor a unique prefix of
one (`--kv-cache-type`, `--tp_size`, `--enable-metric`), in launches SGLang's
argument parser reads (`python -m sglang.launch_server`, `sglang serve` with a
known language model, a `--config` file). It names the option meant when one
is close. A launch pinned to a release is read with that release's options
(a flag added later is reported, with the release that added it, and so is
`--torchao-config` after 0.5.17); when the
release is not known, a flag is reported only if no release autofix knows
(0.5.17 to 0.5.23) has it and it is a near miss of an option that one does
(older and newer releases, and forks, have options of their own). Flags
removed from 0.5.20 on are `removed-option`'s, and underscore keys of a
`--config` file belong to the config-file fixers. A YAML file checked on its
own (not through a launch's `--config`) may be another tool's settings:
there, only keys close to an SGLang option are reported.

A near miss is the option's own words with one slip: underscores or
another case (`--tp_size`), words joined or split (`--kvcache-dtype`), the
words in another order (`--static-mem-fraction`), or one word misspelt by a
letter where both spellings have four letters or more (`--kv-cache-type`,
`--context-lenght`) or cut short (`--mem-frac-static`). A word added or
missing, two words changed, or a short word changed is another option's
name, not a typo: that is how forks name theirs (`--enable-hip-attention`
is not `--enable-dp-attention`, `--attn-tp-size` is not `--attn-dp-size`).
Measured on 107 fork options found in public code and the corpus's unknown
options (13 reported before as typos, 8 with a rename; none now), 95 options
of older SGLang releases (34 before; now the 4 SGLang renamed by such a slip,
`--max-torch-compile-bs`), every unknown `--option` of the corpus's files (27
of 208 before, none now) and 38 typos of those kinds (26 renamed right
before, all 38 now): tests/data/near_misses.txt. A pinned release reports
every unknown flag, naming the option meant only for a near miss.

## Why is this bad?
SGLang refuses to start. `parser.parse_args` in `prepare_server_args` (the
parser `ServerArgs.add_cli_args` builds) exits with
`error: unrecognized arguments: --kv-cache-type fp8_e4m3`.

## Example
```sh
python -m sglang.launch_server --model-path Qwen/Qwen3-8B --kv-cache-type fp8_e4m3
```

## Use instead
```sh
python -m sglang.launch_server --model-path Qwen/Qwen3-8B --kv-cache-dtype fp8_e4m3
```

## Fix safety
Unsafe: a misspelt flag may stand for more than one intent, so the rename to
the one close option that takes what was written after it
(`--kv-cache-type fp8_e4m3` becomes `--kv-cache-dtype fp8_e4m3`) needs
`--unsafe-fixes`. With several close options, or none that takes the value,
the finding names them and nothing is changed.
"""

from __future__ import annotations

from collections.abc import Iterator

from autofix.edits import Fix
from autofix.fixer import Finding, fixer
from autofix.fixers import removed_option
from autofix.fixers._argparse import (
    accepts, exact, in_config_file, listing, near_misses, older_tables, parsed_by_sglang, release_name,
    router_option, value_count, value_texts,
)
from autofix.knowledge.options import all_tables
from autofix.knowledge.releases import parse_release
from autofix.model import Flag, Launch


def candidates(launch: Launch, flag: Flag) -> list[str]:
    """The options meant: the same with dashes for underscores (in full), else the near misses."""
    spelling = flag.spelling
    dashed = launch.table.lookup("--" + spelling.lstrip("-").replace("_", "-").lower())
    if isinstance(dashed, tuple):
        return [dashed[1]]  # the option string in full, also for a prefix (`--mem_fraction`)
    return near_misses(spelling, (f for o in launch.table.options for f in o.flags if f.startswith("--")))


@fixer(
    code="SGL101",
    name="unknown-option",
    record="4125795fe08ecfc7",
    errors=("193df441b30b",),
)
def check(launch: Launch) -> Iterator[Finding]:
    if not parsed_by_sglang(launch):
        return
    for flag in launch.flags:
        if flag.problem != "unknown" or not flag.spelling.startswith("--"):
            continue
        if router_option(launch, flag):
            continue
        if in_config_file(flag) and "_" in flag.spelling:
            continue  # an underscore key: the config-file fixers say why
        if launch.release is None and any(t.lookup(flag.spelling) is not None for t in all_tables()):
            continue
        message = f"`{flag.spelling}` is not an option of {release_name(launch)}"
        last = next((t.release for t in older_tables(launch) if exact(t, flag.spelling) is not None), None)
        if last is not None:
            if parse_release(launch.release) >= parse_release(removed_option.FIRST):  # type: ignore[arg-type, operator]
                continue  # removed-option's
            yield Finding(at=flag.span, message=f"{message} (SGLang {last} was the last to have it)")
            continue
        newer = [t.release for t in all_tables() if launch.release is not None
                 and parse_release(t.release) > parse_release(launch.release)  # type: ignore[operator]
                 and exact(t, flag.spelling) is not None]
        if newer:
            yield Finding(at=flag.span, message=f"{message} (SGLang {newer[0]} added it)")
            continue
        near = candidates(launch, flag)
        if not near and (launch.form == "config" or launch.release is None):
            # A YAML file read alone may belong to another tool, and a launch of
            # unknown release may run an SGLang older or newer than autofix's
            # tables, or a fork: only near misses of a known option are typos.
            continue
        values, count = value_texts(flag), value_count(flag)
        fitting = [c for c in near if accepts(exact(launch.table, c), values, count)]  # type: ignore[arg-type]
        if len(near) == 1 and fitting:
            yield Finding(
                at=flag.span,
                message=f"{message}; did you mean `{near[0]}`?",
                fix=Fix.unsafe(f"Rename `{flag.spelling}` to `{near[0]}`", launch.rename(flag, near[0])),
            )
        elif near:
            yield Finding(at=flag.span, message=f"{message}; did you mean {listing(near)}?")
        else:
            yield Finding(at=flag.span, message=message)
