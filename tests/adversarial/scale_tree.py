"""A tree of many files for scale and interruption tests: launch files in every format (a share of them
with the seed mistake, whose fixed bytes are known) among plain files; used by tests/adversarial and
scripts/scale.py."""

from __future__ import annotations

import json
from pathlib import Path

import adversarial_tree as adv

_PY = "import subprocess\n\nsubprocess.run({argv!r}, check=True)\n"
_YAML = ("apiVersion: v1\nkind: Pod\nspec:\n  containers:\n    - name: sglang\n      image: lmsysorg/sglang:latest\n"
         "      command: [{items}]\n")
_DOCKER = "FROM lmsysorg/sglang:latest\nCMD [{items}]\n"
_MD = "# Serve {n}\n\n```bash\n{launch}\n```\n"


def _variants(n: int) -> tuple[str, str, str]:
    """(name, text before, text after --fix) for file number n."""
    bad = adv.BAD.replace("30000", str(30000 + n % 1000))
    good = bad.replace("tokenspeed_mla", "tokenspeed_mla --kv-cache-dtype fp8_e4m3")
    kind = n % 5
    if kind == 0:
        return f"serve-{n}.sh", f"#!/bin/bash\n# server {n}\n{bad}\n", f"#!/bin/bash\n# server {n}\n{good}\n"
    if kind == 1:
        return f"launch_{n}.py", _PY.format(argv=bad.split()), _PY.format(argv=good.split())
    if kind == 2:
        before, after = (", ".join(json.dumps(w) for w in t.split()) for t in (bad, good))
        return f"pod-{n}.yaml", _YAML.format(items=before), _YAML.format(items=after)
    if kind == 3:
        before, after = (", ".join(json.dumps(w) for w in t.split()) for t in (bad, good))
        return f"img-{n}.Dockerfile", _DOCKER.format(items=before), _DOCKER.format(items=after)
    return f"readme-{n}.md", _MD.format(n=n, launch=bad), _MD.format(n=n, launch=good)


def build(root: Path, files: int, launch_share: float = 0.25, per_folder: int = 100) -> dict[Path, tuple[bytes, bytes]]:
    """files files under root, in folders of per_folder; returns {path: (before, expected after --fix)}."""
    expected: dict[Path, tuple[bytes, bytes]] = {}
    every = max(1, round(1 / launch_share)) if launch_share else 0
    for n in range(files):
        folder = root / f"d{n // per_folder:04d}"
        if n % per_folder == 0:
            folder.mkdir(parents=True, exist_ok=True)
        if every and n % every == 0:
            name, before, after = _variants(n // every)
        else:
            name = f"notes-{n}.txt" if n % 3 else f"util_{n}.py"
            before = after = f"# file {n}: nothing to launch here\nX = {n}\n"
        path = folder / name
        path.write_bytes(before.encode())
        expected[path] = (before.encode(), after.encode())
    return expected
