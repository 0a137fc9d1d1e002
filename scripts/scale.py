#!/usr/bin/env python3
"""Build a tree of many files (launches in every format, a share with the seed mistake, among plain files),
run `autofix --fix` over it in a child process and report time, peak RSS of the child and wrong files;
optionally two `autofix --fix` processes at once on the same tree.

    .venv/bin/python scripts/scale.py --files 20000
    .venv/bin/python scripts/scale.py --files 20000 --concurrent

Exit 1 when a file is not exactly its expected fixed bytes, or autofix failed.
"""

from __future__ import annotations

import argparse
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "adversarial"))

import adversarial_tree  # noqa: E402
import scale_tree  # noqa: E402


def run(files: int, concurrent: bool, share: float, keep: Path | None) -> dict[str, object]:
    with tempfile.TemporaryDirectory(prefix="autofix-scale-") as scratch:
        base = keep or Path(scratch)
        start = time.monotonic()
        expected = scale_tree.build(base / "tree", files, launch_share=share)
        built = time.monotonic() - start
        command = adversarial_tree.command("--fix", "tree")
        start = time.monotonic()
        procs = [subprocess.Popen(command, cwd=base, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
                 for _ in range(2 if concurrent else 1)]
        outputs = [p.communicate() for p in procs]
        seconds = time.monotonic() - start
        # ru_maxrss of the children waited for: the largest, in KiB on Linux (bytes on macOS).
        rss = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
        rss_mib = rss / (1 << 20) if sys.platform == "darwin" else rss / 1024
        wrong = [str(p) for p, (_, after) in expected.items() if p.read_bytes() != after]
        crashed = [err.decode(errors="replace")[-2000:] for _, err in outputs if b"Traceback" in err]
        return {
            "files": files, "launch files": sum(b != a for b, a in expected.values()), "processes": len(procs),
            "build s": round(built, 1), "fix s": round(seconds, 1), "peak RSS MiB": round(rss_mib, 1),
            "exit codes": [p.returncode for p in procs], "wrong files": len(wrong), "first wrong": wrong[:3],
            "crashes": crashed,
        }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--files", type=int, default=20_000)
    parser.add_argument("--share", type=float, default=0.25, help="share of launch files (default 0.25)")
    parser.add_argument("--concurrent", action="store_true", help="two autofix --fix processes at once")
    parser.add_argument("--keep", type=Path, default=None, help="build the tree here and leave it")
    args = parser.parse_args()
    report = run(args.files, args.concurrent, args.share, args.keep)
    for key, value in report.items():
        print(f"{key}: {value}")
    ok = not report["wrong files"] and not report["crashes"] and all(c == 0 for c in report["exit codes"])
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
