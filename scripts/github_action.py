"""The step of the GitHub Action (action.yml at the repository root): run autofix as the workflow asks.

Inputs come as environment variables, as action.yml passes them:
INPUT_ARGS (autofix's arguments, as shell words; default "."), INPUT_FORMAT
(the format of the run's report, default `github`: annotations on the pull
request; ignored when the arguments name a --format), INPUT_SARIF_FILE (when
set, first a check over the same paths writes a SARIF log there for
github/codeql-action/upload-sarif: the arguments without --fix, --diff,
--format or --output-file, and with --exit-zero). The step exits with the
main run's exit code (2 when the SARIF run could not check a file), and
writes it to $GITHUB_OUTPUT as `exit-code`.
"""

from __future__ import annotations

import os
import shlex
import subprocess
import sys
from collections.abc import Mapping, Sequence

# Options that change what the run writes or where its report goes: not passed to the SARIF check.
_MODES = {"--fix", "--diff", "--unsafe-fixes", "--show-fixes", "--add-ignore", "--statistics", "-q", "--quiet",
          "-e", "--exit-zero", "--exit-non-zero-on-fix"}
_WITH_VALUE = {"--format", "--output-file", "-o"}


def commands(env: Mapping[str, str], python: str = sys.executable) -> list[list[str]]:
    """The autofix runs the inputs ask for, in order: the SARIF check (when asked for), then the main run."""
    words = shlex.split(env.get("INPUT_ARGS") or ".")
    autofix = [python, "-m", "autofix"]
    runs = []
    sarif = env.get("INPUT_SARIF_FILE", "").strip()
    if sarif:
        runs.append([*autofix, "--format", "sarif", "--output-file", sarif, "--exit-zero", *_check_words(words)])
    fmt = env.get("INPUT_FORMAT", "").strip() or "github"
    named = any(w == "--format" or w.startswith("--format=") for w in words)
    runs.append([*autofix, *([] if named else ["--format", fmt]), *words])
    return runs


def _check_words(words: Sequence[str]) -> list[str]:
    kept: list[str] = []
    skip = False
    for word in words:
        if skip:
            skip = False
        elif word in _MODES or word.split("=", 1)[0] in _WITH_VALUE and "=" in word:
            continue
        elif word in _WITH_VALUE:
            skip = True
        else:
            kept.append(word)
    return kept


def main(env: Mapping[str, str] = os.environ) -> int:
    *first, last = commands(env)
    failed = False
    for argv in first:
        print(f"+ {shlex.join(argv[1:])}", flush=True)
        failed |= subprocess.run(argv).returncode == 2
    print(f"+ {shlex.join(last[1:])}", flush=True)
    code = subprocess.run(last).returncode
    if failed and code in (0, 1):
        code = 2
    output = env.get("GITHUB_OUTPUT")
    if output:
        with open(output, "a", encoding="utf-8") as out:
            out.write(f"exit-code={code}\n")
    return code


if __name__ == "__main__":
    sys.exit(main())
