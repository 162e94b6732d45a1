"""The Python examples of the README and of the guide (docs/src/python.md), run as written from
the clone's root, each block on its own."""

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DOCUMENTS = ["README.md", "docs/src/python.md"]


def python_blocks(markdown: str) -> list:
    """The bodies of the ```python blocks of `markdown`."""
    return re.findall(r"^```python\n(.*?)^```$", markdown, flags=re.MULTILINE | re.DOTALL)


def examples():
    for document in DOCUMENTS:
        for number, code in enumerate(python_blocks((ROOT / document).read_text()), 1):
            yield pytest.param(code, id=f"{document}#{number}")


def test_blocks_are_found_and_each_document_has_one():
    assert python_blocks("a\n```python\nx = 1\n```\n```sh\nls\n```\n") == ["x = 1\n"]
    for document in DOCUMENTS:
        assert python_blocks((ROOT / document).read_text()), document


@pytest.mark.parametrize("code", list(examples()))
def test_example_runs(code, monkeypatch):
    monkeypatch.chdir(ROOT)
    exec(compile(code, "<example>", "exec"), {"__name__": "__example__"})
