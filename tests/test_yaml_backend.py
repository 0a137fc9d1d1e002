"""libyaml and the pure composer give autofix the same YAML: a differential test.

autofix composes YAML with libyaml (ruamel.yaml.clib) where libyaml reads a
text as ruamel's pure-Python composer does, several times faster, and with the
pure composer everywhere else (`autofix.formats.yaml.document.compose`); the module's
`LIBYAML` is the switch, False: the pure composer alone. Every YAML input the
tests know is composed both ways: the fixtures, the texts of the YAML format's
and the adversarial tests and the adversarial tree's YAML files, the shared
corpus read where it lies, the corner cases below, and seeded mutations of the
fixtures. The nodes autofix reads, and what find_launches, config_args and
fix_text make of the text, must be the same.

Tags are not compared: autofix reads no tag from a node (a `!!str` is read
from the text), and libyaml resolves the non-specific tag `!` on an empty
scalar as a string where the pure composer says null.
"""

from __future__ import annotations

import ast
import importlib.util
import random
import subprocess
import sys
from pathlib import Path
from textwrap import dedent

import pytest
from ruamel.yaml import YAML

from autofix.fixer import select
from autofix.formats import FORMATS
from autofix.formats import yaml as yaml_format
from autofix.formats.yaml import document as yaml_document
from autofix.formats.yaml.text import mask_templates
from autofix.knowledge.options import table
from autofix.pipeline import Settings, fix_text
from autofix.source import DecodeError, Source

pytestmark = pytest.mark.skipif(not yaml_document.LIBYAML, reason="ruamel.yaml.clib (libyaml) is not installed")

TESTS = Path(__file__).resolve().parent
FIXTURES = TESTS.parent / "fixtures"
CORPUS = TESTS.parents[1] / "shared" / "corpus" / "yaml"  # beside the checkout, as CI lays it out
LAUNCH = "python3 -m sglang.launch_server --model-path deepseek-ai/DeepSeek-V3 --attention-backend tokenspeed_mla"
BOMB = "\n".join(
    ['a: &a ["lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol"]']
    + [f"{c}: &{c} [" + ", ".join([f"*{p}"] * 9) + "]" for p, c in zip("abcdefgh", "bcdefghi")]
    + ["command: [python3, -m, sglang.launch_server, --model-path, *i]", ""]
)

# name -> (text, whether libyaml composes it: False where autofix leaves it to the pure composer)
CORNER = {
    # block scalars
    "literal-launch": (f"run: |\n  {LAUNCH} \\\n    --port 1\n  echo done\nnext: 1\n", True),
    "folded-strip-keep-indent": ("a: >-\n  x\n  y\n\nb: |+\n  z\n\n\nc: |2\n    indented\n  less\n", True),
    "literal-at-end-without-newline": ("a: |\n  x\n  y", True),
    "block-scalars-left-empty": ("a: |\nb: >\nc: 1\n", True),
    # flow collections
    "flow-argv": ("command: [python3, -m, sglang.launch_server]\nargs: {a: 1, b: [x, {c: d}]}\n", True),
    "flow-on-several-lines": ("args: [\n  --port,\n  '1', # one\n  \"2\",\n]\n", True),
    "flow-mapping-empty-value": ("a: {b: , c: 1}\n", False),  # libyaml places `b`'s value at the comma
    "flow-single-pair": ("a: [b: c]\n", False),
    "flow-quoted-key-and-colon": ('["a":b]\n', False),  # YAML 1.2 refuses it, libyaml reads a pair
    "flow-plain-holding-colon": ("a: [http://x:80]\n", False),  # libyaml refuses it, YAML 1.2 reads a scalar
    # line breaks, byte order marks, tabs, characters beyond the BMP
    "crlf": ("a: 1\r\nb: |\r\n  x\r\n  y\r\nc: [1,\r\n 2]\r\nd:\r\ne: 2\r\n", True),
    "cr-alone": ("a: 1\rb:\rc: 2\r", True),
    "bom": ("\ufeffa: 1\nb: [x]\n", False),
    "bom-inside": ("a: 1\n\ufeffb: 2\n", False),
    "next-line-character": ("a: x\x85b: 2\n", False),
    "line-separator": ("a: x\u2028y\nb: 2\n", False),
    "tab-after-colon": ("a:\t1\n", False),
    "tab-in-block-scalar": ("run: |\n  make\n  \techo\n", False),
    "non-bmp": ('a: \U0001F600 x\nb: "\U0001F600\\U0001F600"\nc: [\U0001F600]\nd:\ne: 1\n', True),
    "lone-surrogate": ("a: \ud800\n", False),
    # documents
    "documents": ("---\na: 1\n---\nb: [2]\n", True),
    "empty-documents": ("---\n---\n", True),
    "document-end-markers": ("a: 1\n...\n---\nb: 2\n...\n...\n", False),
    "directive": ("%YAML 1.1\n---\na: yes\n", False),
    # anchors and aliases
    "anchors-and-aliases": ("a: &x [1, 2]\nb: *x\nc: &y v\nd: *y\ne: &z\nf: *z\n", True),
    "anchor-name-then-colon": ("&a: 1\n", False),  # YAML 1.2: a scalar anchored `a:`; libyaml: a mapping
    "reused-anchor": ("a: &x 1\nb: &x 2\nc: *x\n", False),  # libyaml refuses it
    "alias-bomb": (BOMB, True),
    "merge-key": ("base: &b {port: 1}\nserver:\n  <<: *b\n", True),
    # comments, keys, values
    "comments": ("# head\na: 1 # tail\n# between\nb: # on the key\n  - x # item\n", True),
    "explicit-keys": ("? a\n: b\n? [c]\n: d\n? e\n", True),
    "explicit-key-after-empty-value": ("a:\n? b\n: c\n", False),
    "empty-values": ("a:\nb: \nc: # note\n\n# more\nd: ~\ne:\n  f:\n  g:\nh:", True),
    "empty-value-before-a-dedent": ("a:\n  b:\nc: 1\n", True),
    "empty-value-before-a-document": ("a:\n---\nb:\n", True),
    "empty-items": ("a:\n- \n-\n- x\n", True),
    "tags": ("a: !!str 1\nb: !!int '2'\nc: !\nd: ! x\n", True),
    "yaml-1.1-words": ("a: yes\nb: 010\nc: 1_000\n", True),
    "plain-on-several-lines": ("a: one\n  two\n\n  three\nb: 1\n", True),
    "quoted-on-several-lines": ("a: 'it''s\n\n  here'\nb: \"x\\\n  y\"\n", True),
    # what neither reads
    "mapping-in-a-value": ("a: b: c\n", False),
    "unclosed-flow": ("a: [\n", False),
    # templates: Helm, Jinja, GitHub Actions expressions (masked before composing)
    "helm": ("{{- if .Values.on }}\ncommand: [\"python3\", \"-m\", \"sglang.launch_server\"]\nargs:\n"
             "  - --model-path\n  - {{ .Values.model }}\n  {{- toYaml .Values.extra | nindent 2 }}\n{{- end }}\n", True),
    "jinja": ("{% for m in models %}\n- run: python3 -m sglang.launch_server --model-path {{ m }}\n{% endfor %}\n", True),
    "actions-expression": ('run: python3 -m sglang.launch_server --model-path "${{ matrix.model }}"\n', True),
    # nesting: libyaml recurses in C, the pure composer in Python
    "nested-within-reach": ("a: " + "[" * 50 + "x" + "]" * 50 + "\n", True),
    "nested-past-pure-depth": ("a: " + "[" * 150 + "x" + "]" * 150 + "\n", False),
    "long-line": ("a: " + "x" * 600 + "\n", False),
    # launches whose spans run up to empty values
    "config-with-empty-values": ("model-path: deepseek-ai/DeepSeek-V3\nattention-backend: tokenspeed_mla\n"
                                 "enable-metrics:\n# trailing\nkv-cache-dtype:\n", True),
    "container-with-empty-values": (dedent("""\
        apiVersion: v1
        kind: Pod
        spec:
          containers:
            - name: s
              command: [python3, -m, sglang.launch_server]
              args:
                - --model-path
                - deepseek-ai/DeepSeek-V3
                - --attention-backend
                - tokenspeed_mla
              env:
              resources:
                limits:
        """), True),
}


def _masked(text: str) -> str:
    return mask_templates(text).text


def _pure(text: str) -> list | str:
    """The pure composer's documents, or the name of its error."""
    try:
        return list(YAML(typ="safe", pure=True).compose_all(text))
    except Exception as exc:  # noqa: BLE001 - any refusal is an outcome to compare
        return type(exc).__name__


def _nodes(roots: list, text: str) -> list[tuple]:
    """What autofix reads of each node, in document order; an alias as the number of its node.

    A mark at the end of a text without a final line break keeps only its
    index: libyaml counts one more line there, and autofix reads the line and
    column of no such mark.
    """
    numbers: dict[int, int] = {}
    out: list[tuple] = []

    def mark(m) -> tuple:  # noqa: ANN001
        if m.index == len(text) and not text.endswith(("\n", "\r")):
            return (m.index,)
        return (m.index, m.line, m.column)

    def walk(node) -> None:  # noqa: ANN001
        if node is None:
            out.append(("empty document",))
            return
        if id(node) in numbers:
            out.append(("alias", numbers[id(node)]))
            return
        numbers[id(node)] = len(numbers)
        shape = type(node).__name__
        if shape == "ScalarNode":
            out.append((shape, node.value, node.style, mark(node.start_mark), mark(node.end_mark)))
            return
        out.append((shape, node.flow_style, mark(node.start_mark), mark(node.end_mark)))
        for item in node.value:
            for child in item if isinstance(item, tuple) else (item,):
                walk(child)

    for root in roots:
        walk(root)
    return out


def _assert_same_nodes(text: str) -> bool:
    """libyaml's nodes are the pure composer's; whether libyaml composed the text."""
    fast = yaml_document.libyaml_roots(text)
    if fast is None:
        return False
    pure = _pure(text)
    assert not isinstance(pure, str), f"libyaml reads what the pure composer refuses ({pure})"
    # Compared as tuples: the repr of a node is its whole subtree, aliases expanded (an alias bomb's).
    fast_nodes, pure_nodes = _nodes(fast, text), _nodes(pure, text)
    assert fast_nodes == pure_nodes
    return True


def _outcome(text: str) -> tuple:
    """What autofix makes of a YAML text: launches, --config tokens, and the text fixed."""
    source = Source(text)
    options = table()
    try:
        launches: object = [
            (launch.form, launch.span, [(a.text, a.span, a.splat, a.editable, a.chars, a.container is None)
                                        for a in launch.args])
            for launch in yaml_format.find_launches(source, options)
        ]
    except SyntaxError as exc:
        launches = f"SyntaxError: {exc}"
    args = yaml_format.config_args(source, options)
    tokens = None if args is None else [(a.text, a.span, a.splat, a.editable, a.chars) for a in args]
    try:
        result = fix_text(source, FORMATS["yaml"], Settings(select(["ALL"])), fix=True)  # type: ignore[arg-type]
    except SyntaxError as exc:
        fixed: object = f"SyntaxError: {exc}"
    else:
        fixed = (result.text, result.error,
                 [(r.fixer.code, r.line, r.column, r.end_line, r.end_column, r.fixed) for r in result.findings])
    return launches, tokens, fixed, yaml_format.syntax_errors(text)


def _assert_same_outcome(text: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """The same outcome with libyaml as with the pure composer alone."""
    fast = _outcome(text)
    monkeypatch.setattr(yaml_document, "LIBYAML", False)
    assert fast == _outcome(text)


# -- the inputs ------------------------------------------------------------------------------


def _fixture_texts() -> dict[str, str]:
    paths = sorted(p for ext in ("yaml", "yml") for p in FIXTURES.rglob(f"*.{ext}"))
    return {str(p.relative_to(FIXTURES)): p.read_text(encoding="utf-8") for p in paths}


def _test_texts() -> dict[str, str]:
    """The texts written in the YAML format's and the adversarial tests (those of a line or more),
    named by where they are written, and dedented as the tests may use them."""
    found: dict[str, str] = {}
    for path in [TESTS / "test_yaml_format.py", *sorted((TESTS / "adversarial").glob("*.py"))]:
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and "\n" in node.value:
                at = f"{path.name}:{node.lineno}:{node.col_offset}"
                found[at] = node.value
                if dedent(node.value) != node.value:
                    found[f"{at}:dedented"] = dedent(node.value)
    return found


def _adversarial_texts(root: Path) -> dict[str, str]:
    """The YAML files of the adversarial tree (tests/adversarial is on sys.path only when collected)."""
    module = sys.modules.get("adversarial_tree")
    if module is None:
        spec = importlib.util.spec_from_file_location("adversarial_tree", TESTS / "adversarial" / "adversarial_tree.py")
        module = sys.modules["adversarial_tree"] = importlib.util.module_from_spec(spec)  # type: ignore[arg-type]
        spec.loader.exec_module(module)  # type: ignore[union-attr]
    module.build(root)
    texts = {}
    for path in sorted(root.rglob("*.yaml")):
        try:
            texts[path.name] = Source.decode(path.read_bytes()).text
        except DecodeError:
            continue
    return texts


def _corpus_texts() -> dict[str, str]:
    return {p.name: p.read_text(encoding="utf-8") for p in sorted(CORPUS.iterdir())} if CORPUS.is_dir() else {}


# Characters and pieces that change what YAML reads, for the mutants.
_PIECES = list(" \n:-?[]{},#&*!|>\"'%@`a\r.~0\\") + [": ", "- ", "? ", "\n  ", " #", "---\n", "...\n", "&a ", "*a", "!!str ", "\r\n"]


def _mutants(texts: list[str], count: int, seed: int = 20250101) -> list[str]:
    """Seeded mutations: pieces inserted, replaced or deleted, lines repeated and indented."""
    rng = random.Random(seed)
    out = []
    for _ in range(count):
        text = rng.choice(texts)
        for _ in range(rng.randint(1, 3)):
            k = rng.randrange(len(text) + 1)
            op = rng.random()
            if op < 0.4:
                text = text[:k] + rng.choice(_PIECES) + text[k:]
            elif op < 0.7:
                text = text[:k] + text[k + rng.randint(1, 3) :]
            elif op < 0.85:
                text = text[:k] + rng.choice(_PIECES) + text[k + 1 :]
            else:
                lines = text.splitlines(keepends=True) or [""]
                j = rng.randrange(len(lines))
                lines[j] = rng.choice([lines[rng.randrange(len(lines))] + lines[j], "  " + lines[j], lines[j].lstrip(" ")])
                text = "".join(lines)
        out.append(text)
    return out


FIXTURE_TEXTS = _fixture_texts()
TEST_TEXTS = _test_texts()


# -- corner cases --------------------------------------------------------------------------------


@pytest.mark.parametrize(("text", "libyaml"), CORNER.values(), ids=CORNER.keys())
def test_corner_case_composes_alike(text: str, libyaml: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    assert _assert_same_nodes(_masked(text)) == libyaml
    _assert_same_outcome(text, monkeypatch)  # also where libyaml declines: a fix's new text may be composed


def test_an_empty_value_is_placed_at_the_next_token_as_the_pure_composer_does() -> None:
    text = "a:\nb: # note\n\n  # more\nc: 1\n"
    [root] = yaml_document.libyaml_roots(text)
    (_, a), (_, b), _ = root.value
    assert (a.start_mark.index, a.start_mark.line, a.start_mark.column) == (3, 1, 0)
    assert (b.start_mark.index, b.start_mark.line, b.start_mark.column) == (text.index("c:"), 4, 0)
    assert a.style is b.style is None


def test_an_alias_bomb_is_composed_once_by_libyaml() -> None:
    [root] = yaml_document.libyaml_roots(BOMB)
    seen: set[int] = set()
    stack = [root]
    while stack:
        node = stack.pop()
        if id(node) not in seen:
            seen.add(id(node))
            if isinstance(node.value, list):
                stack.extend(c for item in node.value for c in (item if isinstance(item, tuple) else (item,)))
    assert len(seen) < 150  # 9 ** 9 nodes, were aliases expanded
    *_, (_, command) = root.value
    *_, model = command.value
    assert id(model) == id(root.value[-2][1])  # the alias is the node `i` names


def test_nesting_too_deep_for_the_pure_composer_is_its_error() -> None:
    nested = "".join(" " * i + f"k{i}:\n" for i in range(500)) + " " * 500 + "x: 1\n"
    assert yaml_document.libyaml_roots(nested) is None
    with pytest.raises(SyntaxError, match="nested too deeply"):
        yaml_format.find_launches(Source(nested), table())


def test_nesting_deeper_than_any_stack_is_not_given_to_libyaml() -> None:
    """libyaml's composer would overflow the C stack here and kill the process, not raise."""
    code = (
        "from autofix.formats.yaml import document as y\n"
        "text = 'a: ' + '[' * 100000 + ']' * 100000 + '\\n'\n"
        "assert y.libyaml_roots(text) is None\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr


# -- fixtures, the tests' texts, the adversarial tree, the corpus ------------------------------


@pytest.mark.parametrize("name", FIXTURE_TEXTS)
def test_fixture_composes_alike(name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    text = FIXTURE_TEXTS[name]
    # No fixture is of a kind autofix leaves to the pure composer: libyaml must be the usual path.
    assert _assert_same_nodes(_masked(text)), "libyaml did not compose the fixture"
    _assert_same_outcome(text, monkeypatch)


@pytest.mark.parametrize("name", TEST_TEXTS)
def test_text_of_the_tests_composes_alike(name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    _assert_same_nodes(_masked(TEST_TEXTS[name]))
    _assert_same_outcome(TEST_TEXTS[name], monkeypatch)


def test_adversarial_tree_composes_alike(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    texts = _adversarial_texts(tmp_path)
    assert {"bomb.yaml", "nested.yaml", "nested-flow.yaml"} <= texts.keys()
    for text in texts.values():
        if _assert_same_nodes(_masked(text)):  # the rest (nested too deeply for libyaml) is the pure composer's alone
            with monkeypatch.context() as patch:
                _assert_same_outcome(text, patch)


@pytest.mark.skipif(not CORPUS.is_dir(), reason="the shared YAML corpus is not here")
def test_corpus_composes_alike(monkeypatch: pytest.MonkeyPatch) -> None:
    texts = _corpus_texts()
    composed = [_assert_same_nodes(_masked(text)) for text in texts.values()]
    assert sum(composed) * 2 > len(texts), "libyaml composed less than half of the corpus"
    for text in texts.values():
        with monkeypatch.context() as patch:
            _assert_same_outcome(text, patch)


def test_mutants_of_the_fixtures_compose_alike() -> None:
    """Whatever libyaml composes of a mutant, the pure composer composes the same; what it refuses, it refuses too."""
    mutants = _mutants([_masked(t) for t in FIXTURE_TEXTS.values()] + [_masked(t) for t, _ in CORNER.values()], 1000)
    composed = sum(_assert_same_nodes(text) for text in mutants)
    assert composed > len(mutants) // 4  # libyaml took a share of them: the comparison ran
