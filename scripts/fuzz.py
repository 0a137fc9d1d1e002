#!/usr/bin/env python3
"""Mutation-fuzz autofix with the fixtures: seeded byte flips, deletions, duplications, truncations and
punctuation insertions; every mutant checked and fixed as `autofix --fix` does.

    .venv/bin/python scripts/fuzz.py --iterations 200 --seed 1 --save /tmp/fuzz-crashes

Prints the number of inputs, crashes (an exception other than "cannot parse", an internal error, a hang)
and bad writes (a fix leaving more syntax errors than the input had); exit 1 when any. The CI version is
tests/adversarial/test_fuzz_fixtures.py.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "adversarial"))

import mutation_fuzz  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--iterations", type=int, default=50, help="mutants per fixture (default 50)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--seconds", type=float, default=None, help="stop after this long")
    parser.add_argument("--save", type=Path, default=None, help="write the failing mutants here")
    parser.add_argument("--only", default=None, help="fixtures whose path contains this text")
    args = parser.parse_args()
    paths = [p for p in mutation_fuzz.fixtures() if args.only is None or args.only in str(p)]
    report = mutation_fuzz.fuzz(args.iterations, args.seed, paths, args.seconds, args.save)
    for name, seed, what in report.crashes + report.bad_writes:
        print(f"{name} (seed {seed:#x}): {what.strip()}")
    print(f"inputs: {report.inputs}, crashes: {len(report.crashes)}, bad writes: {len(report.bad_writes)}, "
          f"{report.seconds:.0f} s")
    return 1 if report.crashes or report.bad_writes else 0


if __name__ == "__main__":
    sys.exit(main())
