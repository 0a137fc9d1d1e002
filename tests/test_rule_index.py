"""The rule index asks a launch only the rules that read a flag it writes (or that SGLang's
defaults trip), and finds what asking every fixer finds."""

from __future__ import annotations

from autofix.fixer import all_fixers
from autofix.formats import SHELL, load
from autofix.knowledge.options import table
from autofix.model import Launch
from autofix.pipeline import Settings, fix_text
from autofix.rule_index import RuleIndex
from autofix.source import Source

FIXERS = all_fixers()
RULES = [fx for fx in FIXERS if fx.rule is not None]


def launch(args: str, release: str = "0.5.23") -> Launch:
    [found] = load(SHELL).find_launches(Source(f"python -m sglang.launch_server {args}\n"), table(release),
                                        release=release)
    return found


def test_a_launch_is_asked_only_the_rules_that_read_what_it_writes() -> None:
    index = RuleIndex(FIXERS)
    asked = index.for_launch(launch("--model-path Qwen/Qwen3-8B --enable-lmcache"))
    rules = [fx for fx in asked if fx.rule is not None]
    # Every rule that reads the model path is asked (it may hold on the model alone); the rest
    # only when they read --enable-lmcache or SGLang's defaults trip them.
    assert rules and len(rules) < len(RULES)
    bare = set(index.for_launch(launch("--host 0.0.0.0")))
    assert all({"enable_lmcache", "model_path"} & fx.rule.reads or fx in bare for fx in rules)
    assert any("enable_lmcache" in fx.rule.reads for fx in rules)
    skipped = [fx for fx in RULES if fx not in set(rules)]
    assert skipped and not any({"enable_lmcache", "model_path"} & fx.rule.reads for fx in skipped)
    assert [fx for fx in asked if fx.rule is None] == [fx for fx in FIXERS if fx.rule is None]


def test_the_index_finds_what_asking_every_fixer_finds(monkeypatch) -> None:  # noqa: ANN001
    import autofix.pipeline as pipeline

    def findings(args: str, release: str) -> list[tuple[str, int, int, str]]:
        result = fix_text(Source(f"python -m sglang.launch_server {args}\n"), SHELL,
                          Settings(FIXERS, unsafe=True, release=release), fix=True)
        return [(r.fixer.code, r.line, r.column, r.finding.message) for r in result.findings] + [("text", 0, 0, result.text)]

    cases = [(args, fx.releases[1]) for fx in RULES[::3] if not fx.gpu for args in (fx.rule.example, fx.rule.near_miss)]
    indexed = [findings(*case) for case in cases]
    monkeypatch.setattr(pipeline, "index_of", lambda fixers: type("All", (), {"for_launch": lambda self, l: fixers})())
    assert indexed == [findings(*case) for case in cases]
    assert any(len(f) > 1 for f in indexed)
