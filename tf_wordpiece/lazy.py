"""A package's public names read from its stub and imported on first use: the one mechanism behind the facades.

A facade package (`tf_wordpiece`, `tf_wordpiece.subword`) lists its public names
once, in the `__init__.pyi` beside its `__init__.py`, as `from module import
name as name` lines (what type checkers read). `attach_stub(__name__,
__file__)` parses that small file and returns the package's `__getattr__`,
`__dir__` and `__all__`, so each name's module is imported when the name is
first used and importing the package imports nothing else: no TensorFlow until
a tokenizer is asked for (the lazy-loading pattern of Scientific Python's SPEC 1).
This module imports nothing of the package.

>>> import tf_wordpiece.subword as package
>>> stub = pathlib.Path(package.__file__).with_suffix(".pyi")
>>> stub_names(stub)["PAD"]
'tf_wordpiece.subword.text'
>>> __getattr__, __dir__, __all__ = attach_stub(package.__name__, package.__file__)
>>> __getattr__("PAD"), "PAD" in __dir__()
('<pad>', True)
"""

from __future__ import annotations

import ast
import importlib
import pathlib
import sys
from typing import Any, Callable


def stub_names(stub: pathlib.Path) -> dict[str, str]:
    """name -> module, from the stub's `from module import name as name` lines (absolute module names)."""
    tree = ast.parse(stub.read_text(encoding="utf-8"), filename=str(stub))
    names = {}
    for node in tree.body:
        if not isinstance(node, ast.ImportFrom):
            continue
        if node.level:
            raise ValueError(f"{stub}: line {node.lineno} is a relative import; write the module's full name")
        for alias in node.names:
            names[alias.asname or alias.name] = node.module
    return names


def attach_stub(package: str, init_file: str) -> tuple[Callable[[str], Any], Callable[[], list[str]], list[str]]:
    """(`__getattr__`, `__dir__`, `__all__`) for `package`, whose `__init__.py` is `init_file`.

    A name is imported from its module on first use, then stored in the
    package's namespace, so later lookups skip `__getattr__`; an unknown name
    is an AttributeError, as for any module.
    """
    names = stub_names(pathlib.Path(init_file).with_suffix(".pyi"))

    def __getattr__(name: str) -> Any:
        if name not in names:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(names[name]), name)
        setattr(sys.modules[package], name, value)
        return value

    def __dir__() -> list[str]:
        return sorted(set(vars(sys.modules[package])) | set(names))

    return __getattr__, __dir__, list(names)
