"""Open launches: what holds for the flags as written when a pass-through may add others.

A launch is open when something in a flag's place may stand for any flags:
`"$@"`, `$EXTRA_ARGS`, `"${ARGS[@]}"`, `*args`, `other_args + extra`. Its
caller's flags are not known, so a check that needs to know every flag stays
quiet on the launch as read. The launch is then checked again as if the
pass-throughs added nothing: a finding that holds for the flags as written is
reported, naming the pass-through, since most callers pass nothing that
changes it: a finding on a flag written here, that is, never one about the
launch as a whole (no `--model-path`), which pass-throughs exist to supply.
Splats for what the file itself may change (a list extended in a branch) are
not pass-throughs: such a launch stays unknown. Its fix is unsafe (a caller's flags may already say the same) and
kept only when every edit lands before the first pass-through, so that flags
the caller passes still come after it and win. Keywords of a Python call are
another matter: Python refuses one passed twice, so a keyword added beside
`**overrides` would break a caller that passes it; there the finding has no fix.
"""

from __future__ import annotations

from dataclasses import replace

from autofix.edits import Fix
from autofix.fixer import Finding
from autofix.model import Launch

__all__ = ["closed", "conditional", "on_written_flag"]


def closed(launch: Launch) -> Launch | None:
    """The launch without its pass-throughs; None when it has none, or when an unread
    `--config` file stands for flags (that file is not a caller's, and may set anything)."""
    opaque = set(launch._opaque)
    if not opaque or any(launch.args[i].local for i in opaque):
        return None
    if launch.config and 0 in opaque:  # with_config's stand-in for a file autofix could not read
        return None
    kept = [arg for i, arg in enumerate(launch.args) if i not in opaque]
    shut = launch.reread(kept)
    shut.config = launch.config
    return shut


def on_written_flag(finding: Finding, launch: Launch) -> bool:
    return any(flag.span.start <= finding.at.start and finding.at.end <= flag.span.end for flag in launch.flags)


def conditional(finding: Finding, launch: Launch, text: str) -> Finding:
    """A finding of the closed launch, as reported on the open one (text: the checked file's)."""
    first = min(arg.span.start for arg in launch.passthroughs)
    spans = [arg.span for arg in launch.passthroughs]
    named = next((text[s.start : s.end] for s in spans if s.end <= len(text)), "a pass-through")
    message = f"{finding.message} (for the flags written here: `{named}` may add others)"
    fix = finding.fix
    if fix is not None and launch.form == "engine":
        fix = None
    if fix is not None:
        before = fix.edits and all(edit.span.end <= first for edit in fix.edits)
        fix = Fix.unsafe(fix.title, fix.edits) if before else None
    return replace(finding, message=message, fix=fix)
