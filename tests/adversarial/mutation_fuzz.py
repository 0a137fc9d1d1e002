"""Mutation fuzzing of the fixtures: seeded byte flips, deletions, duplications, truncations and
insertions of shell/YAML/Python/JSON punctuation, each mutant checked and fixed as `autofix --fix` does.

A crash is any exception but the SyntaxError autofix reports as "cannot parse", an internal error
(Result.error), or a mutant taking longer than the per-input limit. A bad write is a fix whose text has
more syntax errors (the format module's syntax_errors) than the mutant it was made from.

Used by tests/adversarial/test_fuzz_fixtures.py (bounded) and scripts/fuzz.py (as long as you like).
"""

from __future__ import annotations

import random
import signal
import time
import traceback
import zlib
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from autofix.fixer import all_fixers
from autofix.formats import detect, load
from autofix.pipeline import Settings, fix_text
from autofix.source import DecodeError, Source

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "fixtures"
INSERTS = [b'"', b"'", b"\\", b"\\\n", b"\n", b"\r\n", b"\r", b"$(", b"`", b"{", b"}", b"[", b"]", b"#", b":",
           b" - ", b"&a ", b"*a", b"!!python/object:os.system ", b"<<EOF\n", b"\t", b"--", b"=", b"\xc3", b"\xff",
           b"\x00", b"\xef\xbb\xbf", b"```", b"%s", b"{}", b"\\u0000"]


def fixtures() -> list[Path]:
    return sorted(p for p in FIXTURES.rglob("*") if p.is_file() and ".fixed" not in p.suffixes)


def mutate(data: bytes, rng: random.Random) -> bytes:
    """One to three random mutations of data."""
    out = bytearray(data)
    for _ in range(rng.randint(1, 3)):
        kind = rng.randrange(6)
        at = rng.randrange(len(out) + 1)
        if kind == 0 and out:  # flip bits of a byte
            at = min(at, len(out) - 1)
            out[at] ^= 1 << rng.randrange(8)
        elif kind == 1 and out:  # delete a run
            del out[at : at + rng.randint(1, 40)]
        elif kind == 2 and out:  # duplicate a run
            start = rng.randrange(len(out))
            out[at:at] = out[start : start + rng.randint(1, 80)]
        elif kind == 3:  # truncate
            del out[at:]
        else:  # insert a token with meaning in some format
            out[at:at] = rng.choice(INSERTS)
    return bytes(out)


class Hang(Exception):
    pass


@contextmanager
def time_limit(seconds: float) -> Iterator[None]:
    def alarm(signum, frame):  # noqa: ANN001, ANN202, ARG001
        raise Hang(f"no answer in {seconds} s")

    old = signal.signal(signal.SIGALRM, alarm)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)


SETTINGS = Settings(all_fixers(), unsafe=True, gpu="h100")


def check(name: str, data: bytes, limit: float = 20.0) -> str | None:
    """What went wrong checking and fixing data as file `name`: None, or 'crash: ...' / 'bad write: ...'."""
    spec = detect(name, data[:128])
    if spec is None or not spec.worth_parsing(data):
        return None
    try:
        source = Source.decode(data)
    except DecodeError:
        return None  # "cannot decode" (a message, no crash)
    try:
        with time_limit(limit):
            result = fix_text(source, spec, SETTINGS, fix=True)
            if result.error is not None:
                return f"crash: internal error: {result.error}"
            if result.changed:
                module = load(spec)
                before, after = module.syntax_errors(source.text), module.syntax_errors(result.text)
                if after > before:
                    return f"bad write: syntax errors {before} -> {after}"
    except SyntaxError:
        return None  # "cannot parse"
    except Hang as exc:
        return f"crash: {exc}"
    except Exception:  # noqa: BLE001 - what the fuzzer looks for
        return "crash: " + traceback.format_exc(limit=-4)
    return None


@dataclass
class Report:
    inputs: int = 0
    crashes: list[tuple[str, int, str]] = field(default_factory=list)  # (fixture, seed, what)
    bad_writes: list[tuple[str, int, str]] = field(default_factory=list)
    seconds: float = 0.0


def fuzz(iterations: int, seed: int = 0, paths: list[Path] | None = None, budget: float | None = None,
         save: Path | None = None) -> Report:
    """iterations mutants of every fixture (seeded by its name and seed); stop early after budget seconds."""
    report = Report()
    start = time.monotonic()
    cases = paths or fixtures()
    for round_ in range(iterations):
        for path in cases:
            if budget is not None and time.monotonic() - start > budget:
                report.seconds = time.monotonic() - start
                return report
            case_seed = zlib.crc32(f"{path.relative_to(ROOT)}:{seed}:{round_}".encode())
            mutant = mutate(path.read_bytes(), random.Random(case_seed))
            report.inputs += 1
            found = check(path.name, mutant)
            if found is None:
                continue
            entry = (str(path.relative_to(ROOT)), case_seed, found)
            (report.crashes if found.startswith("crash") else report.bad_writes).append(entry)
            if save is not None:
                save.mkdir(parents=True, exist_ok=True)
                (save / f"{case_seed:08x}-{path.name}").write_bytes(mutant)
    report.seconds = time.monotonic() - start
    return report
