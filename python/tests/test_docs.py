"""The docstrings: every public object has one in full, its examples run as doctests, and the
type stubs carry the same text as the native module."""

import ast
import doctest
import inspect
from pathlib import Path

import numpy as np
import pytest

import geomattn
import geomattn.ensemble

ROOT = Path(__file__).resolve().parents[2]
STUBS = ROOT / "python" / "geomattn" / "_geomattn.pyi"


def public_objects():
    """(name, object) of the package, its modules, and every public member of its classes."""
    yield "geomattn", geomattn
    yield "geomattn.ensemble", geomattn.ensemble
    for module in (geomattn, geomattn.ensemble):
        for name in sorted(getattr(module, "__all__", None) or dir(module)):
            value = getattr(module, name)
            if name.startswith("_") or not callable(value) or inspect.ismodule(value):
                continue
            if module is geomattn.ensemble and getattr(value, "__module__", "") != module.__name__:
                continue
            yield f"{module.__name__}.{name}", value
            if inspect.isclass(value):
                for member, attribute in sorted(vars(value).items()):
                    # (A slot such as `__call__` shows Python's docstring: the class's says it.)
                    if not member.startswith("_"):
                        yield f"{module.__name__}.{name}.{member}", attribute


OBJECTS = dict(public_objects())


@pytest.mark.parametrize("name", sorted(OBJECTS))
def test_examples_run(name, monkeypatch):
    # The examples name the fixtures by their path in the repository.
    monkeypatch.chdir(ROOT)
    docstring = inspect.getdoc(OBJECTS[name]) or ""
    test = doctest.DocTestParser().get_doctest(docstring, {"np": np, "geomattn": geomattn}, name, None, 0)
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    report = []
    runner.run(test, out=report.append)
    assert runner.failures == 0, "".join(report)
    geomattn.set_num_threads(None)


def is_routine(value):
    return inspect.isroutine(value) or inspect.isclass(value)


@pytest.mark.parametrize("name", sorted(n for n, v in OBJECTS.items() if is_routine(v)))
def test_every_routine_is_documented_in_full(name):
    value = OBJECTS[name]
    docstring = inspect.getdoc(value) or ""
    examples = docstring.partition("\nExamples\n--------\n")[2]
    assert ">>> " in examples, f"{name} has no example"
    try:
        parameters = [p for p in inspect.signature(value).parameters if p not in ("self", "cls")]
    except ValueError:  # no signature: a method without arguments
        parameters = []
    if parameters:
        for parameter in parameters:
            assert f"\n{parameter} : " in docstring, f"{name} does not describe {parameter}"


def stub_docstrings():
    """The docstrings of the stubs, by the name of what they document."""
    tree = ast.parse(STUBS.read_text(encoding="utf-8"))
    found = {}

    def visit(body, prefix):
        for node, following in zip(body, body[1:] + [None]):
            if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
                docstring = ast.get_docstring(node)
                if docstring is not None:
                    found[prefix + node.name] = docstring
                if isinstance(node, ast.ClassDef):
                    visit(node.body, f"{prefix}{node.name}.")
            elif isinstance(node, ast.AnnAssign) and isinstance(following, ast.Expr):
                found[prefix + node.target.id] = inspect.cleandoc(following.value.value)

    visit(tree.body, "")
    return found


def native_docstrings():
    """The docstrings of the native module's classes, their members, and its functions."""
    native = geomattn._geomattn
    for name in native.__all__ if hasattr(native, "__all__") else geomattn.__all__:
        value = getattr(native, name)
        if inspect.isclass(value):
            yield name, inspect.getdoc(value)
            for member, attribute in vars(value).items():
                if not member.startswith("_") and attribute.__doc__:
                    yield f"{name}.{member}", inspect.cleandoc(attribute.__doc__)
        elif callable(value):
            yield name, inspect.getdoc(value)


def test_stubs_carry_the_native_docstrings():
    stubs = stub_docstrings()
    native = dict(native_docstrings())
    assert native, "no docstrings found"
    for name, docstring in native.items():
        assert stubs.get(name) == docstring, f"the stub's docstring of {name} differs"
