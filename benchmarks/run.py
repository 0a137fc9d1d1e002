#!/usr/bin/env python3
"""Benchmark autofix on generated trees, beside Semgrep and ast-grep, and print how it meets its targets.

    python benchmarks/run.py                  # trees of 1,000 and 20,000 files
    python benchmarks/run.py --quick          # 1,000 files only
    python benchmarks/run.py --install-tools  # first install the pinned Semgrep and ast-grep
    python benchmarks/run.py --files 5000 --repeat 3 --keep --json

Generates trees in a temporary folder (fixed seed, see trees.py), times check,
--diff, --fix and single-file runs (median of the repetitions), each in a fresh
process that reports its peak RSS, runs Semgrep and ast-grep on the same trees,
and checks that findings and fixes land only on the planted bad launches.
Exits 1 only if autofix crashes (exit code 2, a signal, or a traceback); never on timing.
Stdlib only.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import rivals
import verify
from rivals import run_text
from trees import SEED, Planted, describe_tree, first_of, generate_tree

DEFAULT_SIZES = (1000, 20000)
LARGE_SIZE = 20000  # trees this big or bigger are timed --large-repeat times

# Runs a command and prints its wall time, peak RSS and output: one fresh process per
# measurement, so RUSAGE_CHILDREN holds that command (and its children) alone.
PROBE = r"""
import json, resource, subprocess, sys, time
t = time.perf_counter()
p = subprocess.run(sys.argv[1:], stdout=subprocess.PIPE, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL)
wall = time.perf_counter() - t
rss = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
print(json.dumps({"wall": wall, "maxrss": rss, "rc": p.returncode,
                  "stdout": p.stdout.decode("utf-8", "replace"), "stderr": p.stderr.decode("utf-8", "replace")}))
"""


# -- measuring ---------------------------------------------------------------------


@dataclass
class Case:
    name: str
    files: int
    walls: list[float] = field(default_factory=list)
    rss_mib: float = 0.0
    exit_codes: set[int] = field(default_factory=set)
    crash: str | None = None
    output: str = ""  # the last run's stdout, read by the correctness checks

    @property
    def median(self) -> float:
        return statistics.median(self.walls)


def measure(cmd: list[str], cwd: Path, env: dict[str, str] | None) -> dict:
    """Wall time, peak RSS (MiB), exit code and output of one run of cmd, in a fresh probe process."""
    out = subprocess.run([sys.executable, "-c", PROBE, *cmd], cwd=cwd, capture_output=True, text=True, check=True,
                         env={**os.environ, **env} if env else None)
    result = json.loads(out.stdout)
    result["rss_mib"] = result.pop("maxrss") / (1024 * 1024 if sys.platform == "darwin" else 1024)
    return result


def time_case(name: str, files: int, cmd: list[str], cwd: Path, repeat: int, prepare=None, is_autofix=True,
              env: dict[str, str] | None = None) -> Case:
    case = Case(name, files)
    for _ in range(repeat):
        if prepare is not None:
            prepare()
        result = measure(cmd, cwd, env)
        case.walls.append(result["wall"])
        case.rss_mib = max(case.rss_mib, result["rss_mib"])
        case.exit_codes.add(result["rc"])
        case.output = result["stdout"]
        if is_autofix and case.crash is None:
            case.crash = verify.crash_reason(result["rc"], result["stderr"])
    return case


def autofix_executable(given: str | None) -> str:
    beside = Path(sys.executable).with_name("autofix")
    found = given or (str(beside) if beside.exists() else shutil.which("autofix"))
    if found is None:
        sys.exit("run.py: no `autofix` executable beside the interpreter or on PATH (pip install -e .)")
    return found


def compile_autofix(autofix: str) -> str:
    """Compile autofix's modules to bytecode, as installing a wheel does, and say where.

    An editable install is compiled on first import, unless PYTHONDONTWRITEBYTECODE is set
    (as on some CI machines): then every run would compile autofix from source again and
    the start-up measured would be the compiler's.
    """
    python = Path(autofix).with_name("python")
    interpreter = str(python) if python.exists() else sys.executable
    where = run_text([interpreter, "-c", "import autofix, autofix.fixers, os; "
                      "print(os.path.dirname(autofix.__file__)); print(os.path.dirname(autofix.fixers.__file__))"])
    folders = [line for line in where.splitlines() if os.path.isdir(line)]
    if folders:
        subprocess.run([interpreter, "-m", "compileall", "-q", *folders], capture_output=True, check=False)
    return ", ".join(folders) or "not found"


# -- the benchmark -------------------------------------------------------------------


def drop_results(cache: Path) -> Callable[[], None]:
    """Empty a cache folder of its files' results, keeping the rule index's facts (autofix/cache.py's
    layout: <cache>/<build>/results/): a file checked as after an edit, by an autofix that has run before."""
    def drop() -> None:
        for results in cache.glob("*/results"):
            shutil.rmtree(results, ignore_errors=True)
    return drop


def bench_single(autofix: str, work: Path, tree: str, planted: list[Planted], repeat: int,
                 caches: bool) -> list[Case]:
    """One file of each kind. With a cache (autofix --help offers --no-cache): the file is checked afresh
    with the rule index's facts kept from an earlier run, as pre-commit checks a file just edited;
    for the shell file also with no cache at all, and with its result kept."""
    cases = [
        time_case("python -c pass", 1, [sys.executable, "-c", "pass"], work, repeat, is_autofix=False),
        time_case("python -c 'import click'", 1, [sys.executable, "-c", "import click"], work, repeat,
                  is_autofix=False),
    ]
    cache = work / "cache-single"
    for label, kinds in (("shell", ("sh", "shebang")), ("yaml", ("yaml",)), ("python", ("py",))):
        p = first_of(planted, kinds)
        if p is None:
            continue
        path = f"{tree}/{p.path}"
        name = f"single {label} file ({p.category})"
        if not caches:
            cases.append(time_case(name, 1, [autofix, path], work, repeat))
            continue
        command = [autofix, "--cache-dir", str(cache), path]
        subprocess.run(command, cwd=work, capture_output=True, check=False)  # the facts, kept
        cases.append(time_case(name, 1, command, work, repeat, prepare=drop_results(cache)))
        if label == "shell":
            cases.append(time_case(f"{name}, no cache", 1, [autofix, "--no-cache", path], work, repeat))
            cases.append(time_case(f"{name}, result cached", 1, command, work, repeat))
    return cases


def bench_tree(autofix: str, work: Path, size: int, planted: list[Planted], repeat: int,
               one_process: bool, caches: bool) -> tuple[list[Case], dict]:
    """check, --diff and --fix of the tree (and check with --jobs 1 when asked), then what they found and fixed.

    With a cache (autofix --help offers --no-cache) these run with --no-cache, each file parsed as on a
    first run; `check, cached` is the run after one over the unchanged tree."""
    tree, copy = f"tree-{size}", work / f"fix-{size}"
    off = ["--no-cache"] if caches else []

    def fresh_copy() -> None:
        shutil.rmtree(copy, ignore_errors=True)
        shutil.copytree(work / tree, copy, symlinks=True)

    check = time_case("check", size, [autofix, *off, tree], work, repeat)
    cases = [check]
    if caches:
        cached = [autofix, "--cache-dir", str(work / f"cache-{size}"), tree]
        subprocess.run(cached, cwd=work, capture_output=True, check=False)  # the run that fills it
        cases.append(time_case("check, cached", size, cached, work, repeat))
    if one_process:
        cases.append(time_case("check, 1 process", size, [autofix, *off, "--jobs", "1", tree], work, repeat))
    diff = time_case("--diff", size, [autofix, *off, "--diff", tree], work, repeat)
    fix = time_case("--fix (fresh copy)", size, [autofix, *off, "--fix", copy.name], work, repeat,
                    prepare=fresh_copy)
    cases += [diff, fix]

    notes: dict = {"planted": describe_tree(work / tree, planted), "check_exit": sorted(check.exit_codes),
                   "fix_exit": sorted(fix.exit_codes)}
    notes["per_kind"], notes["wrong"] = verify.score(verify.autofix_findings(check.output, tree), planted)
    fixed, changed = verify.fix_results(work / tree, copy, planted, diff.output, tree)
    notes.update(fixed)
    # Only a changed file can hold a finding the fix left or made.
    notes.update(recheck_exit=None, recheck_findings=[], crash=None)
    if changed:
        recheck = subprocess.run([autofix, *(f"{copy.name}/{path}" for path in changed)], cwd=work, check=False,
                                 capture_output=True, text=True)
        notes["recheck_exit"] = recheck.returncode
        notes["recheck_findings"] = [line for line in recheck.stdout.splitlines() if ": SGL" in line][:10]
        notes["crash"] = verify.crash_reason(recheck.returncode, recheck.stderr)
    shutil.rmtree(copy, ignore_errors=True)
    return cases, notes


def bench_rivals(work: Path, size: int, planted: list[Planted], repeat: int, tools: dict) -> tuple[list[Case], dict]:
    """Semgrep's three rules and ast-grep's one on the same tree, timed like autofix; and what they flagged."""
    tree, cases, found = f"tree-{size}", [], {}
    if tools["semgrep"]:
        case = time_case("semgrep (3 regex rules)", size, rivals.semgrep_cmd(tools["semgrep"], tree), work, repeat,
                         is_autofix=False, env=rivals.SEMGREP_ENV)
        cases.append(case)
        found["semgrep"] = verify.rival_score(rivals.semgrep_findings(case.output, tree), planted, by_code=True)
    if tools["ast-grep"]:
        case = time_case("ast-grep (1 bash rule)", size, rivals.ast_grep_cmd(tools["ast-grep"], tree), work, repeat,
                         is_autofix=False)
        cases.append(case)
        found["ast-grep"] = verify.rival_score(rivals.ast_grep_findings(case.output, tree), planted, by_code=False)
    return cases, found


# -- targets --------------------------------------------------------------------------


def find(cases: list[Case], name: str, files: int | None = None) -> Case | None:
    """The case called name, or name followed by a parenthesis ("--fix (fresh copy)"), on a tree of files."""
    return next((c for c in cases if (c.name == name or c.name.startswith(f"{name} ("))
                 and (files is None or c.files == files)), None)


def target(label: str, numerator: Case | None, denominator: Case | None, goal: str, missing: str,
           memory: bool = False) -> dict:
    """One target: the ratio numerator / denominator (medians, or peak RSS), and whether it meets goal."""
    if numerator is None or denominator is None:
        return {"target": label, "goal": goal, "ratio": None, "met": None, "note": missing}
    value = numerator.rss_mib / denominator.rss_mib if memory else numerator.median / denominator.median
    bound = float(goal.split()[-1])
    return {"target": label, "goal": goal, "ratio": round(value, 2),
            "met": value >= bound if goal.startswith(">=") else value <= bound}


def targets(cases: list[Case], sizes: list[int], tools: dict) -> list[dict]:
    """The issue's four targets, each a ratio measured in this run."""
    small, large = min(sizes), max(sizes)
    check = find(cases, "check", small)
    found = [
        target(f"semgrep / autofix, check of {small:,} files", find(cases, "semgrep", small), check, ">= 20",
               "semgrep not installed" if not tools["semgrep"] else "not measured"),
        target(f"autofix / ast-grep, check of {small:,} files", check, find(cases, "ast-grep", small), "<= 5",
               "ast-grep not installed" if not tools["ast-grep"] else "not measured"),
        target(f"semgrep / autofix, cached check of {small:,} files", find(cases, "semgrep", small),
               find(cases, "check, cached", small), ">= 50",
               "semgrep not installed" if not tools["semgrep"] else "autofix has no cache"),
        target("single shell file / python -c 'import click'", find(cases, "single shell file"),
               find(cases, "python -c 'import click'"), "<= 3", "no shell file in the tree"),
    ]
    for name in ("check", "--diff", "--fix"):
        grown = find(cases, name, large) if large > small else None
        label = f"{large:,} / {small:,} files" if large > small else "larger / smaller tree"
        found.append(target(f"peak RSS of {name}, {label}", grown, find(cases, name, small),
                            "<= 1.5", "needs two tree sizes", memory=True))
    return found


# -- report ---------------------------------------------------------------------------


def print_report(env: dict, cases: list[Case], goals: list[dict], checks: dict, missing: list[str],
                 kept: Path | None) -> None:
    for key, value in env.items():
        print(f"{key:<16} {value}")
    print()
    rows = [("case", "files", "wall median s", "files/s", "peak RSS MiB", "runs", "exit")]
    for c in cases:
        rate = f"{c.files / c.median:,.0f}" if c.files > 1 else "-"
        rows.append((c.name, f"{c.files:,}", f"{c.median:.3f}", rate, f"{c.rss_mib:.1f}", str(len(c.walls)),
                     ",".join(map(str, sorted(c.exit_codes)))))
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    for r in rows:
        print("  ".join(cell.ljust(w) if i == 0 else cell.rjust(w) for i, (cell, w) in enumerate(zip(r, widths))))
    for line in missing:
        print(line)
    print("\ntargets (ratios from this run; printed, never asserted)")
    width = max(len(g["target"]) for g in goals)
    for g in goals:
        if g["ratio"] is None:
            print(f"  {g['target']:<{width}}  {'-':>8}  target {g['goal']:<6}  not measured: {g['note']}")
        else:
            verdict = "met" if g["met"] else "missed"
            print(f"  {g['target']:<{width}}  {g['ratio']:>7.2f}x  target {g['goal']:<6}  {verdict}")
    for size, notes in checks.items():
        print_tree_notes(size, notes)
    if kept:
        print(f"\ngenerated trees kept in {kept}")


def print_tree_notes(size: int, notes: dict) -> None:
    t = notes["planted"]
    print(f"\ntree of {size:,} files ({t['mib']} MiB, {t['lines']:,} lines): {t['bad']} bad, {t['clean']} clean,"
          f" {t['plain']} without launch; by kind {t['by_kind']}")
    for kind, row in notes["per_kind"].items():
        print(f"  {kind:<10} bad {row['bad']:>4}  found {row['found']:>4}  right code {row['right_code']:>4}"
              f"  false positives {row['false_positive']:>3}")
    for line in notes["wrong"][:10]:
        print(f"  wrong: {line}")
    print(f"  check exit {notes['check_exit']}; --fix exit {notes['fix_exit']}")
    print(f"  --fix changed {notes['fix_changed']} file(s); unexpected changes: {len(notes['fix_unexpected'])};"
          f" suspicious edits: {len(notes['fix_suspicious'])};"
          f" --diff files == --fix files: {notes['diff_matches_fix']}")
    for line in (notes["fix_unexpected"] + notes["fix_suspicious"])[:10]:
        print(f"    {line}")
    print(f"  re-check of the fixed files: exit {notes['recheck_exit']}")
    for line in notes["recheck_findings"]:
        print(f"    {line}")
    for tool, s in notes["rivals"].items():
        codes = f", right code {s['right_code']}" if "right_code" in s else ""
        print(f"  {tool}: flagged {s['flagged']} file(s): {s['found']} of {s['bad']} bad{codes},"
              f" false positives {s['false_positive']}")


# -- main ---------------------------------------------------------------------------


def parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--files", type=int, nargs="+", help="tree size(s) (default: 1,000 and 20,000)")
    parser.add_argument("--quick", action="store_true", help="a tree of 1,000 files only")
    parser.add_argument("--repeat", type=int, default=3, help="repetitions per case (median reported)")
    parser.add_argument("--large-repeat", type=int, default=1,
                        help=f"repetitions per case on trees of {LARGE_SIZE:,} files or more")
    parser.add_argument("--install-tools", action="store_true",
                        help=f"first install {' and '.join(rivals.PINNED)} into {rivals.TOOLS}")
    parser.add_argument("--autofix", help="the autofix executable to time (default: beside the interpreter, else PATH)")
    parser.add_argument("--keep", action="store_true", help="keep the generated trees and print their path")
    parser.add_argument("--json", action="store_true", help="print machine-readable results")
    return parser.parse_args()


def environment(autofix: str, tools: dict, args: argparse.Namespace) -> dict:
    affinity = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else None
    env = {
        "cores": f"{os.cpu_count()} (os.cpu_count)" + (f", {affinity} usable (sched_getaffinity)" if affinity else ""),
        "python": f"{platform.python_version()} ({sys.executable})",
        "autofix": f"{run_text([autofix, '--version'])} ({autofix})",
    }
    if tools["semgrep"]:
        env["semgrep"] = f"{run_text([tools['semgrep'], '--version'], rivals.SEMGREP_ENV)} ({tools['semgrep']})"
    if tools["ast-grep"]:
        env["ast-grep"] = f"{run_text([tools['ast-grep'], '--version'])} ({tools['ast-grep']})"
    env.update({"platform": platform.platform(), "repeat": f"{args.repeat}, {args.large_repeat} on "
                f"{LARGE_SIZE:,}+ files", "seed": SEED})
    return env


def main() -> int:
    args = parse_args()
    sizes = sorted(set(args.files or ((1000,) if args.quick else DEFAULT_SIZES)))
    if args.install_tools:
        try:
            rivals.install()
        except (OSError, subprocess.CalledProcessError) as error:
            print(f"run.py: installing {' '.join(rivals.PINNED)} failed: {error}", file=sys.stderr)
    autofix = autofix_executable(args.autofix)
    tools = {"semgrep": rivals.semgrep(), "ast-grep": rivals.ast_grep()}
    missing = [f"{name}: not installed (python benchmarks/run.py --install-tools)"
               for name, exe in tools.items() if not exe]
    usage = run_text([autofix, "--help"])
    one_process, caches = "--jobs" in usage, "--no-cache" in usage
    env = environment(autofix, tools, args)
    env["bytecode"] = f"compiled first: {compile_autofix(autofix)}"
    work = Path(tempfile.mkdtemp(prefix="autofix-bench-"))
    rivals.prepare(work)
    cases: list[Case] = []
    checks: dict = {}
    try:
        for size in sizes:
            repeat = args.large_repeat if size >= LARGE_SIZE else args.repeat
            planted = generate_tree(work / f"tree-{size}", size)
            if size == sizes[0]:
                cases += bench_single(autofix, work, f"tree-{size}", planted, args.repeat, caches)
            found, checks[size] = bench_tree(autofix, work, size, planted, repeat, one_process and size == sizes[0],
                                             caches)
            cases += found
            found, checks[size]["rivals"] = bench_rivals(work, size, planted, repeat, tools)
            cases += found
    finally:
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)
    goals = targets(cases, sizes, tools)
    crashes = [f"{c.name} ({c.files} files): {c.crash}" for c in cases if c.crash]
    crashes += [f"re-check of the fixed {size} files: {n['crash']}" for size, n in checks.items() if n["crash"]]
    if args.json:
        out = {
            "environment": env,
            "cases": [{"case": c.name, "files": c.files, "wall_median_s": c.median, "walls_s": c.walls,
                       "files_per_s": c.files / c.median, "peak_rss_mib": c.rss_mib,
                       "exit_codes": sorted(c.exit_codes), "crash": c.crash} for c in cases],
            "targets": goals,
            "checks": checks,
            "not_installed": missing,
            "kept": str(work) if args.keep else None,
        }
        print(json.dumps(out, indent=2, default=str))
    else:
        print_report(env, cases, goals, checks, missing, work if args.keep else None)
    for line in crashes:
        print(f"\nCRASH: {line}", file=sys.stderr)
    return 1 if crashes else 0


if __name__ == "__main__":
    sys.exit(main())
