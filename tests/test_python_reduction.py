"""What libcst is given: a Python file with the top-level definitions no launch
can depend on blanked (autofix.formats.python.parse._reduced).

First what the reduction keeps and blanks, on small inputs; then a
differential check: on every Python input at hand, launches, findings and
fixes are the same with the reduction as without it.
"""

from __future__ import annotations

import ast
import re
import textwrap
from dataclasses import dataclass
from pathlib import Path

import pytest

from autofix.fixer import select
from autofix.formats import PYTHON
from autofix.formats.python import doc as pydoc
from autofix.formats.python import PythonSyntaxError, find_launches
from autofix.formats.python.parse import _reduced
from autofix.knowledge.options import table
from autofix.pipeline import Settings, fix_text
from autofix.source import Source
from test_fixtures import settings as fixture_settings

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "fixtures"
# Real-world files, read in place beside the checkout (as CI lays it out), never copied here.
CORPUS = ROOT.parent / "shared" / "corpus" / "python"


def dedent(text: str) -> str:
    return textwrap.dedent(text).lstrip("\n")


def blanked(text: str) -> list[int]:
    """The 1-based lines _reduced blanks, after checking it kept every offset.

    Same length, newlines where they were, and each line either untouched or
    all spaces.
    """
    reduced = _reduced(text)
    assert len(reduced) == len(text)
    assert [m.start() for m in re.finditer(r"[\r\n]", reduced)] == [m.start() for m in re.finditer(r"[\r\n]", text)]
    lines = []
    for number, (was, now) in enumerate(zip(text.splitlines(), reduced.splitlines()), start=1):
        if now != was:
            assert now == " " * len(was), f"line {number} partly blanked: {now!r}"
            lines.append(number)
    return lines


# -- what the reduction keeps ----------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        pytest.param("def broken(:\n    pass\n\ndef helper():\n    return 1\n", id="ast-cannot-parse-nothing-dropped"),
        pytest.param("import sglang\nCMD = ['python', '-m', 'sglang.launch_server']\n", id="no-definitions"),
        pytest.param("def start():\n    return sglang_cmd()\n", id="def-naming-sglang"),
        pytest.param("def start(cmd):\n    return go.run(cmd)\n", id="def-naming-a-launch-call"),
        pytest.param("def start(cmd):\n    return check_output(cmd)\n", id="def-naming-check-output"),
        pytest.param("def setup():\n    global CMD\n    CMD = []\n", id="def-declaring-a-global"),
        pytest.param(
            "def outer():\n    x = 1\n    def inner():\n        nonlocal x\n        x = 2\n",
            id="def-declaring-a-nonlocal",
        ),
        pytest.param("CMD = ['a']\n\ndef tweak():\n    CMD.append('--x')\n", id="def-changing-a-module-list"),
        pytest.param("OPTS = {}\n\ndef tweak():\n    OPTS['port'] = 1\n", id="def-changing-a-module-dict"),
        pytest.param("for ARG in []:\n    pass\n\ndef show():\n    print(ARG)\n", id="def-reading-a-for-target"),
        pytest.param("with x() as OUT:\n    pass\n\ndef show():\n    print(OUT)\n", id="def-reading-a-with-target"),
        pytest.param("N: int = 1\n\ndef show():\n    print(N)\n", id="def-reading-an-annotated-name"),
        pytest.param("N = 1\nN += 1\n\ndef show():\n    print(N)\n", id="def-reading-an-augmented-name"),
        pytest.param("CMD = ['a']\n\n@register(CMD)\ndef hook():\n    pass\n", id="decorator-reading-a-module-list"),
        pytest.param("CMD = ['a']\n\ndef hook(args=CMD):\n    pass\n", id="default-reading-a-module-list"),
        pytest.param("CMD = ['a']\n\nclass Hook:\n    CMD.append('--x')\n", id="class-body-changing-a-module-list"),
        pytest.param("def helper():\n    return 1\n\nhelper()\n", id="def-called-by-module-code"),
        pytest.param(
            "import subprocess\n\ndef subprocess():\n    pass\n\nsubprocess.x()\n", id="def-shadowing-a-used-import"
        ),
        pytest.param(
            "from sglang import Engine as E\n\ndef make():\n    return E(model_path='m')\n",
            id="def-calling-a-launch-alias",
        ),
        pytest.param(
            "try:\n    CMD = ['a']\nexcept ImportError as ERR:\n    pass\n\ndef show():\n    print(ERR)\n",
            id="def-reading-an-except-name",
        ),
        pytest.param(
            "def setup():\n    global ARGS\n    ARGS = ['a']\n\ndef tweak():\n    ARGS.append('--x')\n",
            id="def-changing-a-global-a-kept-def-binds",
        ),
        pytest.param(
            "def low():\n    return 1\n\ndef high():\n    return low()\n\nif __name__ == '__main__':\n    high()\n",
            id="defs-reached-from-main-through-a-chain",
        ),
        pytest.param(
            "def high():\n    return low()\n\ndef low():\n    return 1\n\nhigh()\n", id="defs-reached-in-either-order"
        ),
    ],
)
def test_nothing_is_blanked(text: str) -> None:
    assert blanked(text) == []
    assert _reduced(text) is text


def test_unrelated_definitions_are_blanked_with_their_decorators_and_comments() -> None:
    text = dedent('''
        """Module docs."""
        import subprocess

        CMD = ["python3", "-m", "sglang.launch_server"]


        @functools.lru_cache(
            maxsize=None,
        )
        def load(path):  # a trailing comment goes with it
            return open(path).read()

        # a comment between statements stays


        class Report:
            """Rows."""

            def add(self, row):
                self.rows.append(row)

        subprocess.Popen(CMD)
    ''')
    assert blanked(text) == [7, 8, 9, 10, 11, 16, 17, 19, 20]  # 18 is empty: nothing to blank


def test_definitions_reached_only_from_blanked_code_are_blanked() -> None:
    text = "import sglang\n\ndef a():\n    return b()\n\ndef b():\n    return 1\n\nsglang.x()\n"
    assert blanked(text) == [3, 4, 6, 7]


def test_one_line_definitions_with_semicolons() -> None:
    text = dedent("""
        CMD = ["a"]; N = 2
        def drop(): a = 1; return a
        def keep(): CMD.append("--x"); return 0
        x = 1; y = 2
    """)
    assert blanked(text) == [2]


def test_crlf_and_lone_cr_newlines_stay() -> None:
    text = "import sglang\r\n\r\ndef f():\r\n    return 1\r\n\r\nx = 1\r\n"
    assert _reduced(text) == "import sglang\r\n\r\n        \r\n            \r\n\r\nx = 1\r\n"
    text = "import sglang\rdef f():\r    return 1\rx = 1\r"
    assert _reduced(text) == "import sglang\r        \r            \rx = 1\r"


def test_non_ascii_is_blanked_character_for_character() -> None:
    text = "import sglang\n\ndef f():\n    return '启动 — démarrage'\n\nx = 1\n"
    reduced = _reduced(text)
    assert blanked(text) == [3, 4]
    assert len(reduced.encode("utf-8")) < len(text.encode("utf-8"))  # libcst counts the reduced text's bytes


def test_a_definition_at_the_end_without_a_final_newline() -> None:
    text = "import sglang\nsglang.x()\n\ndef f():\n    return 1"
    assert blanked(text) == [4, 5]
    assert _reduced(text).endswith("\n\n        \n            ")


# -- the differential check: the reduction changes no result ----------------------------

# A file's worth of code no launch depends on, to put in front of real launches.
HELPERS = dedent('''
    def load_rows(path, retries=2):
        """Read the rows at path: démarrage, 启动."""
        for attempt in range(retries):
            try:
                with open(path, encoding='utf-8') as handle:
                    return json.load(handle)
            except OSError:
                time.sleep(2 ** attempt)
        return {}


    @functools.lru_cache(maxsize=None)
    def summarize(rows):
        total = sum(row.get('size', 0) for row in rows)
        return f'{len(rows)} rows, {total} bytes'


    class RowReport:
        def __init__(self, name):
            self.name = name
            self.items = []

        def add(self, item):
            self.items.append(item)
            return len(self.items)


''')

LAUNCH_ARGV = (
    '["python3", "-m", "sglang.launch_server", "--model-path", "deepseek-ai/DeepSeek-V3",'
    ' "--attention-backend", "tokenspeed_mla"]'
)

TRICKY = {
    "module-list-extended-by-a-def": f"""
        import subprocess
        CMD = {LAUNCH_ARGV}

        def add_port():
            CMD.extend(["--port", "30000"])

        def unrelated():
            return 1

        def main():
            subprocess.Popen(CMD)
    """,
    "module-list-read-by-two": f"""
        import subprocess
        CMD = {LAUNCH_ARGV}

        def show():
            log(CMD)

        def unrelated(x):
            return x * 2

        subprocess.run(CMD)
    """,
    "global-list-changed-by-a-def": f"""
        import subprocess

        def setup():
            global ARGS
            ARGS = {LAUNCH_ARGV}

        def tweak():
            ARGS.append("--enable-metrics")

        def unrelated():
            return {{}}

        def main():
            setup()
            subprocess.run(ARGS)
    """,
    "defs-shadowing-run-and-popen": f"""
        from subprocess import run, Popen

        def run(cmd):
            print(cmd)

        def Popen(cmd):
            return None

        def unrelated():
            return 2

        run({LAUNCH_ARGV})
        Popen({LAUNCH_ARGV})
    """,
    "def-shadowing-the-module-a-launch-uses": f"""
        import subprocess

        def helper():
            return 1

        def subprocess():
            return None

        subprocess.run({LAUNCH_ARGV})
    """,
    "def-shadowing-the-list-a-launch-reads": """
        import subprocess
        EXTRA = ["--attention-backend", "tokenspeed_mla"]

        def EXTRA():
            return []

        def unrelated():
            return 2

        subprocess.run(["python3", "-m", "sglang.launch_server", "--model-path", "deepseek-ai/DeepSeek-V3", *EXTRA])
    """,
    "launch-alias-called-in-a-def": """
        import subprocess
        from sglang import Engine as E

        def make():
            return E(model_path="deepseek-ai/DeepSeek-V3", attention_backend="tokenspeed_mla")

        def unrelated():
            return 3

        subprocess.run(["ls"])
    """,
    "decorated-definitions": """
        import sglang as sgl
        OPTIONS = {"attention_backend": "tokenspeed_mla"}

        @register(
            OPTIONS,
        )
        def hook():
            pass

        @functools.cache
        def unrelated():
            return 4

        @app.route("/")
        def start():
            return sgl.Engine(model_path="deepseek-ai/DeepSeek-V3", **OPTIONS)
    """,
    "class-holding-the-launch": """
        from sglang.test.test_utils import popen_launch_server

        class Unrelated:
            def method(self):
                return 5


        class TestServer:
            @classmethod
            def setUpClass(cls):
                cls.model = "deepseek-ai/DeepSeek-V3"
                cls.process = popen_launch_server(
                    cls.model,
                    "http://127.0.0.1:30000",
                    timeout=600,
                    other_args=[
                        "--attention-backend",
                        "tokenspeed_mla",
                    ],
                )
    """,
    "main-guard-reaching-a-helper": """
        import sglang as sgl

        def build():
            return sgl.Engine(model_path="deepseek-ai/DeepSeek-V3", attention_backend="tokenspeed_mla")

        def unrelated():
            return 6

        def main():
            engine = build()
            return engine

        if __name__ == "__main__":
            main()
    """,
    "semicolons": f"""
        import subprocess; import os
        CMD = {LAUNCH_ARGV}; N = 2
        def drop(): a = 1; return a
        def keep(): CMD.append("--enable-metrics"); return 0
        subprocess.run(CMD); os.system("true")
    """,
    "file-quote-counted-in-dropped-code": """
        import sglang as sgl
        MODEL = "deepseek-ai/DeepSeek-V3"
        BACKEND = "tokenspeed_mla"

        def labels():
            return {'a': 'b', 'c': 'd', 'e': 'f', 'g': 'h', 'i': 'j', 'k': 'l'}

        def main():
            return sgl.Engine(model_path=MODEL, attention_backend=BACKEND)
    """,
    "non-ascii-before-the-launch": """
        # 启动服务器 — démarrage
        import sglang as sgl

        def greet():
            return "héllo — 世界 — ☃"

        llm = sgl.Engine(
            model_path="deepseek-ai/DeepSeek-V3",  # modèle
            attention_backend="tokenspeed_mla",
        )
        cmd = '''python3 -m sglang.launch_server --model-path deepseek-ai/DeepSeek-V3 \\
            --attention-backend tokenspeed_mla'''

        def shout():
            return "ÉCRIT — 写"

        import os; os.system(cmd)
    """,
    "command-string-in-a-def": """
        import os

        def unrelated():
            return "单"

        def start(port):
            os.system(f"python3 -m sglang.launch_server --model-path deepseek-ai/DeepSeek-V3 --port {port} "
                      "--attention-backend tokenspeed_mla")
    """,
}


@dataclass(frozen=True)
class Case:
    name: str
    text: str
    settings: Settings


def _crlf(text: str) -> str:
    return text.replace("\r\n", "\n").replace("\n", "\r\n")


def _with_helpers(text: str) -> str:
    """text with HELPERS in front of its first statement after the imports (at its end if none)."""
    try:
        body = ast.parse(text).body
    except SyntaxError:
        return text  # nothing is dropped from it: not a case for the differential check
    nl = "\r\n" if "\r\n" in text else "\n"
    for node in body:
        docstring = isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant)
        if isinstance(node, (ast.Import, ast.ImportFrom)) or docstring and node is body[0]:
            continue
        first = min([node.lineno, *(d.lineno for d in getattr(node, "decorator_list", ()))])
        lines = text.splitlines(keepends=True)
        return "".join(lines[: first - 1]) + HELPERS.replace("\n", nl) + "".join(lines[first - 1 :])
    return text + ("" if text.endswith("\n") else nl) + nl + HELPERS.replace("\n", nl)


def _strings_in_python_format_tests() -> dict[str, str]:
    """The Python texts tests/test_python_format.py checks, where they are literals, by test name."""
    tree = ast.parse((ROOT / "tests" / "test_python_format.py").read_text(encoding="utf-8"))
    texts: dict[str, str] = {}
    for top in tree.body:
        found = []
        for node in ast.walk(top):
            if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "dedent":
                if node.args and isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str):
                    found.append(dedent(node.args[0].value))
            elif isinstance(node, ast.Constant) and isinstance(node.value, str) and "sglang" in node.value:
                found.append(node.value)
        name = getattr(top, "name", "module")
        texts.update({f"{name}-{i}" if i else name: text for i, text in enumerate(found)})
    return texts


def _cases() -> list[Case]:
    everything = Settings(select(["ALL"]))
    found: list[Case] = []
    for name, text in TRICKY.items():
        found += [Case(name, dedent(text), everything), Case(f"{name}-crlf", _crlf(dedent(text)), everything)]
    for path in sorted(FIXTURES.rglob("*.py")):
        text = Source.decode(path.read_bytes()).text
        rel = str(path.relative_to(FIXTURES))
        checked = fixture_settings(text)
        found += [Case(rel, text, checked), Case(f"{rel}+helpers", _with_helpers(text), checked)]
    for name, text in _strings_in_python_format_tests().items():
        found += [Case(f"test_python_format/{name}", text, everything)]
        found += [Case(f"test_python_format/{name}+helpers", _with_helpers(text), everything)]
    if CORPUS.is_dir():
        for path in sorted(CORPUS.iterdir()):
            text = Source.decode(path.read_bytes()).text
            found += [Case(f"corpus/{path.name}", text, everything)]
            found += [Case(f"corpus/{path.name}+helpers", _with_helpers(text), everything)]
    return found


CASES = _cases()
# Where nothing is dropped both runs read one text: only the others can differ.
REDUCED = [case for case in CASES if _reduced(case.text) != case.text]


def test_every_tricky_case_drops_something() -> None:
    names = {case.name for case in REDUCED}
    assert {name for name in TRICKY} <= names
    assert {f"{name}-crlf" for name in TRICKY} <= names


@pytest.mark.skipif(not CORPUS.is_dir(), reason=f"{CORPUS} is not here")
def test_corpus_files_are_checked_with_something_dropped() -> None:
    assert any(case.name.startswith("corpus/") for case in REDUCED)


def _launches(text: str) -> list[tuple] | str:
    try:
        found = find_launches(Source(text), table(None))
    except PythonSyntaxError as exc:
        return f"PythonSyntaxError: {exc}"
    return [
        (
            launch.form,
            launch.span,
            [(a.text, a.span, a.splat, a.editable, a.chars, type(a.container).__name__) for a in launch.args],
            [(f.spelling, f.dest, f.joined, f.problem, [v.text for v in f.values]) for f in launch.flags],
        )
        for launch in found
    ]


def _fixed(case: Case) -> tuple[str, list[tuple]]:
    result = fix_text(Source(case.text), PYTHON, case.settings, fix=True)
    assert result.error is None
    findings = [
        (r.fixer.code, r.line, r.column, r.end_line, r.end_column, r.finding.message, r.fixed,
         r.fix and (r.fix.title, r.fix.applicability, r.fix.edits))
        for r in result.findings
    ]
    return result.text, findings


@pytest.mark.parametrize("case", REDUCED, ids=lambda case: case.name)
def test_reduction_changes_no_launch_and_no_fix(case: Case, monkeypatch: pytest.MonkeyPatch) -> None:
    reduced = (_launches(case.text), _fixed(case))
    monkeypatch.setattr(pydoc, "_reduced", lambda text: text)
    assert _launches(case.text) == reduced[0]
    assert _fixed(case) == reduced[1]


def test_the_tricky_cases_launch() -> None:
    """The differential check compares launches, not two empty lists."""
    for name, text in TRICKY.items():
        assert _launches(dedent(text)), name


def test_suppression_comments_are_read_from_the_original_text(monkeypatch: pytest.MonkeyPatch) -> None:
    """A comment in a blanked definition is still in the file: AF100 reports it as unused."""
    text = dedent("""
        import sglang as sgl

        def unrelated():
            return 1  # autofix: ignore[SGL001]

        # autofix: ignore[tokenspeed-mla-without-fp8-kv-cache]
        llm = sgl.Engine(model_path="deepseek-ai/DeepSeek-V3", attention_backend="tokenspeed_mla")
    """)
    assert blanked(text) == [3, 4]
    case = Case("suppressions", text, Settings(select(["ALL"]), unused_suppressions=True))
    reduced = _fixed(case)
    assert [(code, line) for code, line, *_ in reduced[1]] == [("AF100", 4)]
    monkeypatch.setattr(pydoc, "_reduced", lambda text: text)
    assert _fixed(case) == reduced
