"""The docs of a catalogue rule, written from its fields.

The same headings as a hand-written fixer's module docs (What it does, Why is
this bad?, Example, Use instead, Fix safety), so `--explain`, `--from-log` and
the tests that let SGLang judge each Example read both alike. Use instead is
what autofix's own fix makes of the Example.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from autofix.knowledge import catalogue

if TYPE_CHECKING:
    from autofix.rules import CatalogueRule

ENTRY = "python3 -m sglang.launch_server"
_NEEDS_CONFIG = ("(Shown unfixed: autofix fixes it where it can read the model's config.json, from a local model "
                 "folder, the Hugging Face cache, or the Hub with `--fetch-model-config`.)")


def document(rule: CatalogueRule) -> str:
    from autofix.rules import when_source

    newest = _newest(rule)
    site = newest.site
    fixed = _fixed(rule)
    # A rule over the model's config.json says nothing of an Example whose config is not at hand.
    unread = [_NEEDS_CONFIG] if rule.fix and fixed == rule.example else []
    gpu = f" (on `--gpu {rule.gpu}`)" if rule.gpu else ""
    lines = [
        _summary(rule),
        "",
        "## What it does",
        f"Finds launches{gpu} where, as SGLang reads them:",
        "```python",
        when_source(rule) or "(condition not found in its module)",
        "```",
        "",
        "## Why is this bad?",
        f"SGLang refuses to start. `{site.function}` ({site.file}:{site.line} in {newest.release}) raises",
        f"`{newest.exception}: {newest.text}`",
        *([rule.note] if rule.note else []),
        "",
        "## Example",
        *_block(rule.example, rule.gpu),
        "",
        "## Use instead",
        *_block(fixed, rule.gpu),
        *unread,
        "",
        "## Near miss",
        *_block(rule.near_miss, rule.gpu),
        "",
        "## Fix safety",
        _safety(rule),
    ]
    return "\n".join(lines)


def _summary(rule: CatalogueRule) -> str:
    message = rule.message if isinstance(rule.message, str) else rule.name.replace("-", " ")
    return message.replace("{", "").replace("}", "")


def _newest(rule: CatalogueRule) -> catalogue.CatalogueError:
    for release in reversed(catalogue.RELEASES):
        for error_id in rule.errors:
            found = catalogue.errors(release).get(error_id)
            if found is not None:
                return found
    raise LookupError(f"{rule.code}: no catalogue holds {rule.errors}")


def _block(args: str, gpu: str | None) -> list[str]:
    out = ["```sh", f"{ENTRY} {args}", "```"]
    if gpu:
        out.insert(0, f"With `--gpu {gpu}`:")
    return out


def _fixed(rule: CatalogueRule) -> str:
    """The Example as `--fix --unsafe-fixes` leaves it, by this rule alone."""
    from autofix.fixer import all_fixers
    from autofix.formats import SHELL
    from autofix.knowledge.gpus import gpu_named
    from autofix.pipeline import Settings, fix_text
    from autofix.source import Source

    [fx] = [f for f in all_fixers() if f.code == rule.code]
    first, last = fx.releases
    script = f"{ENTRY} {rule.example}\n"
    settings = Settings([fx], unsafe=True, release=last, gpu=gpu_named(rule.gpu) if rule.gpu else None)
    fixed = fix_text(Source(script), SHELL, settings, fix=True).text
    return fixed[len(ENTRY) + 1 :].rstrip("\n")


def _safety(rule: CatalogueRule) -> str:
    if not rule.fix:
        return "No fix: the launch needs a choice only its author can make."
    if rule.safe:
        return "Safe: SGLang's message names this fix, and the launch cannot start as written."
    return (
        "Unsafe: the launch cannot start as written, but the fix is one of several ways out; "
        "it needs `--unsafe-fixes`."
    )
