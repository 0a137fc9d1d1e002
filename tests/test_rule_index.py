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


# -- what the pipeline asks, and the facts the index is built from -----------------------------------------


def _counting(fixers, called: list[str]):  # noqa: ANN001, ANN202
    """The fixers, each noting its code in called when the pipeline asks it."""
    from dataclasses import replace

    def wrap(fx):  # noqa: ANN001, ANN202
        def check(launch):  # noqa: ANN001, ANN202
            called.append(fx.code)
            return fx.check(launch)

        return replace(fx, check=check)

    return [wrap(fx) for fx in fixers]


def test_the_pipeline_leaves_unrelated_rules_uncalled() -> None:
    called: list[str] = []
    args = "--model-path Qwen/Qwen3-8B --enable-lmcache"
    fix_text(Source(f"python -m sglang.launch_server {args}\n"), SHELL, Settings(_counting(FIXERS, called), release="0.5.23"))
    asked = RuleIndex(FIXERS).for_launch(launch(args))
    assert sorted(called) == sorted(fx.code for fx in asked if fx.holds_in("0.5.23") and not fx.gpu)
    uncalled = [fx for fx in RULES if fx.code not in called]
    assert len(uncalled) > len(RULES) // 3
    assert not any({"model_path", "enable_lmcache"} & fx.rule.reads for fx in uncalled
                   if fx.holds_in("0.5.23") and not fx.gpu)


def test_hundreds_more_unrelated_rules_ask_nothing_more() -> None:
    """Rules added by the hundred that read flags a launch does not write cost it nothing: the same checks
    are called with 400 copies of a rule that reads `--enable-hierarchical-cache` as without them."""
    from dataclasses import replace

    from autofix.fixer import Fixer

    [model] = [fx for fx in RULES if fx.rule.reads == {"enable_lmcache", "enable_hierarchical_cache"}][:1] or [None]
    assert model is not None
    copies = []
    for i in range(400):
        rule = replace(model.rule, code=f"SGL9{i:03}", name=f"copy-{i}")
        copies.append(Fixer(rule.code, rule.name, model.record, model.pattern, model.releases, rule.check,
                            errors=model.errors, rule=rule))
    text = "python -m sglang.launch_server --model-path Qwen/Qwen3-8B --tp 2\n"
    without: list[str] = []
    fix_text(Source(text), SHELL, Settings(_counting(FIXERS, without), release="0.5.23"))
    more: list[str] = []
    fix_text(Source(text), SHELL, Settings(_counting([*FIXERS, *copies], more), release="0.5.23"))
    assert more == without


def test_the_cached_facts_are_the_facts_found_afresh(tmp_path, monkeypatch) -> None:  # noqa: ANN001
    import autofix.rules as rules
    from autofix import rule_index
    from autofix.cache import Store
    from autofix.knowledge.releases import RELEASES

    fresh = rule_index.build_facts([fx.rule for fx in RULES], RELEASES)
    store = Store(tmp_path / "cache")
    try:
        rule_index.use_cache(store)
        built = rule_index.facts()  # none kept yet: found now, and written
        assert built == fresh and (store.folder / rule_index.FACTS_FILE).is_file()
        rule_index.use_cache(None)
        rule_index.use_cache(store)

        def unread(*args):  # noqa: ANN002, ANN202
            raise AssertionError("a condition was read: the facts were not loaded")

        monkeypatch.setattr(rules, "reads_of", unread)
        monkeypatch.setattr(rules, "_defaults_fire", unread)
        loaded = rule_index.facts()
        assert loaded == fresh
        # The index built on the loaded facts asks a launch what the one built afresh asks it.
        index = RuleIndex(FIXERS)
        for args in ("--model-path Qwen/Qwen3-8B --enable-lmcache", "--host 0.0.0.0", "--tp 8 --dp 2"):
            for release in ("0.5.17", "0.5.23"):
                assert [fx.code for fx in index.for_launch(launch(args, release))] == [
                    fx.code for fx in FIXERS if fx.rule is None
                    or fresh.reads[fx.code] & set(launch(args, release).written_dests())
                    or release in fresh.trips[fx.code]
                ]
    finally:
        rule_index.use_cache(None)
