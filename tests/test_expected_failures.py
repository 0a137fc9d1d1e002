"""Launches a test expects to fail (`pytest.raises`, `assertRaises`) get no finding.

SGLang's own tests start servers with bad flags on purpose, inside
`with pytest.raises(...)` or `self.assertRaises(...)`: reporting them would be
a false alarm. The same launch outside such a block is still reported.
"""

from __future__ import annotations

import pytest

from autofix.fixer import select
from autofix.formats import FORMATS
from autofix.pipeline import Settings, fix_text
from autofix.source import Source

HEAD = """import subprocess
import unittest

import pytest
from sglang.srt.server_args import ServerArgs
from sglang.test.test_utils import popen_launch_server

"""
ARGV = 'subprocess.run(["python", "-m", "sglang.launch_server", "--model-path", "Qwen/Qwen3-8B", "--kv-cache-type", "fp8_e4m3"])'
POPEN = 'popen_launch_server("Qwen/Qwen3-8B", "http://127.0.0.1:2000", other_args=["--kv-cache-type", "fp8_e4m3"])'
ENGINE = 'ServerArgs(model_path="Qwen/Qwen3-8B", attention_backend="tokenspeed_mla")'


def findings(body: str) -> list[tuple[str, int]]:
    result = fix_text(Source(HEAD + body), FORMATS["python"], Settings(select(["ALL"])))
    return [(r.fixer.code, r.line - HEAD.count("\n")) for r in result.findings]


@pytest.mark.parametrize("body", [
    f"def test_refused():\n    with pytest.raises(SystemExit):\n        {ARGV}\n",
    f"def test_refused():\n    with pytest.raises(SystemExit, match='unrecognized') as info:\n        {POPEN}\n",
    f"class T(unittest.TestCase):\n    def test_refused(self):\n        with self.assertRaises(ValueError):\n"
    f"            {ENGINE}\n",
    f"class T(unittest.TestCase):\n    def test_refused(self):\n        with self.assertRaisesRegex(Exception, 'fail'):\n"
    f"            x = 1\n            {POPEN}\n",
    f"class T(unittest.TestCase):\n    def test_refused(self):\n"
    f"        self.assertRaises(SystemExit, lambda: {ARGV})\n",
    f"def test_refused():\n    pytest.raises(SystemExit, lambda: {POPEN})\n",
], ids=["with-pytest-raises", "with-pytest-raises-as", "with-assertRaises", "with-assertRaisesRegex",
        "assertRaises-callable", "pytest-raises-callable"])
def test_a_launch_expected_to_fail_gets_no_finding(body: str) -> None:
    assert findings(body) == []


@pytest.mark.parametrize(("body", "expected"), [
    (f"def test_refused():\n    with pytest.raises(SystemExit):\n        pass\n    {ARGV}\n", [("SGL101", 4)]),
    (f"def test_starts():\n    with open('log') as log:\n        {POPEN}\n", [("SGL101", 3)]),
    (f"class T(unittest.TestCase):\n    def test_starts(self):\n        self.assertTrue({ENGINE})\n",
     [("SGL002", 3)]),
], ids=["after-the-block", "another-with", "assertTrue"])
def test_the_same_launch_elsewhere_is_reported(body: str, expected: list[tuple[str, int]]) -> None:
    assert findings(body) == expected
