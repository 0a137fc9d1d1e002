"""An option an older SGLang release had and the pinned release no longer has.

## What it does
Finds, in a launch pinned to a release (`sglang==0.5.23`, an
`lmsysorg/sglang:v0.5.23` image, `--sglang-version`), flags that an older
release had and that release removed: most of SGLang's deprecated spellings
went in 0.5.20 (`--cuda-graph-max-bs`, `--nsa-decode-backend`,
`--stream-output`, ...), 0.5.21 and 0.5.22 removed three more, and 0.5.23
`--speculative-skip-dp-mlp-sync`.
A launch whose release is not known is left alone: the flag may be right for
the release it runs on.

## Why is this bad?
SGLang refuses to start. `parser.parse_args` in `prepare_server_args` (the
parser `ServerArgs.add_cli_args` builds) exits with
`error: unrecognized arguments: --stream-output`, or, where the old name is
now a prefix of newer options, with
`error: ambiguous option: --cuda-graph-max-bs could match --cuda-graph-max-bs-decode, --cuda-graph-max-bs-prefill`.

## Example
```sh
# sglang==0.5.23
python -m sglang.launch_server --model-path Qwen/Qwen3-8B --cuda-graph-max-bs 160
```

## Use instead
```sh
# sglang==0.5.23
python -m sglang.launch_server --model-path Qwen/Qwen3-8B --cuda-graph-max-bs-decode 160
```

## Fix safety
Safe where SGLang's own code names the replacement: the last release that
accepted the old flag stored its value in the option the fix writes (its
deprecated-alias action shares that option's destination), so the launch
means what it meant there. Flags with no such replacement
(`--enable-dsa-prefill-context-parallel`, `--speculative-skip-dp-mlp-sync`)
are reported with the release that last had them, and nothing is changed.
"""

from __future__ import annotations

from collections.abc import Iterator

from autofix.edits import Fix
from autofix.fixer import Finding, fixer
from autofix.fixers._argparse import (
    accepts, exact, in_config_file, older_tables, parsed_by_sglang, value_count, value_texts,
)
from autofix.knowledge.options import Option, OptionTable
from autofix.model import Flag, Launch

FIRST = "0.5.20"  # the release that removed SGLang's deprecated spellings

# Actions that store the value (or True) in their destination, as the new option does.
STORES_VALUE = ("store", "deprecatedaliasstoreaction")
STORES_TRUE = ("store_true", "deprecatedstoretrueaction")


def replacement(old: Option, table: OptionTable, flag: Flag) -> Option | None:
    """The option of table that stores what old stored, where the flag's values fit it."""
    new = table.by_dest(old.dest)
    if new is None or new.action.startswith("deprecated"):
        return None
    if old.action in STORES_TRUE and new.action == "store_true":
        return new if value_count(flag) == 0 else None
    if old.action in STORES_VALUE and new.action == "store" and new.nargs == old.nargs and new.type == old.type:
        return new if accepts(new, value_texts(flag), value_count(flag)) else None
    return None


@fixer(
    code="SGL103",
    name="removed-option",
    record="d1cf99ee3db93c89",
    errors=("193df441b30b", "3ba756a8c88a"),
    # 0.5.17 -> 0.5.19 removed only --torchao-config, which unknown-option reports there.
    releases=(FIRST, "0.5.23"),
)
def check(launch: Launch) -> Iterator[Finding]:
    if launch.release is None or not parsed_by_sglang(launch):
        return
    for flag in launch.flags:
        if flag.problem is None:
            continue
        last = next((t for t in older_tables(launch) if exact(t, flag.spelling) is not None), None)
        if last is None:
            continue
        old = exact(last, flag.spelling)
        message = f"SGLang {launch.release} has no `{flag.spelling}`: SGLang {last.release} was the last to have it"
        new = replacement(old, launch.table, flag)  # type: ignore[arg-type]
        if new is not None and in_config_file(flag) and new.dest in launch.table.config_unsupported:
            new = None  # the config merger would refuse the new key
        if new is None:
            yield Finding(at=flag.span, message=message)
            continue
        yield Finding(
            at=flag.span,
            message=f"{message}, as `{new.primary}`",
            fix=Fix.safe(f"Rename `{flag.spelling}` to `{new.primary}`", launch.rename(flag, new.primary)),
        )
