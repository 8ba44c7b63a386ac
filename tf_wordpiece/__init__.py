"""tf_wordpiece: WordPiece tokenization for TensorFlow in core ops only.

The public API is listed once, in `__init__.pyi` (what type checkers read).
Its names are imported on first use, so that `import tf_wordpiece` (and the
command line's `--help`) does not load TensorFlow until a tokenizer or
learner is asked for (the lazy-loading pattern of Scientific Python's SPEC 1).
"""

from __future__ import annotations

import ast
import importlib
import pathlib

__version__ = "0.1.0"


def _public_names() -> dict[str, str]:
    """name -> module, from the stub's `from module import name as name` lines (a small file, parsed once)."""
    stub = ast.parse((pathlib.Path(__file__).parent / "__init__.pyi").read_text(encoding="utf-8"))
    return {
        alias.asname or alias.name: node.module
        for node in stub.body
        if isinstance(node, ast.ImportFrom)
        for alias in node.names
    }


_PUBLIC = _public_names()
__all__ = [*_PUBLIC, "__version__"]


def __getattr__(name: str):
    if name not in _PUBLIC:
        raise AttributeError(f"module 'tf_wordpiece' has no attribute {name!r}")
    value = getattr(importlib.import_module(_PUBLIC[name]), name)
    globals()[name] = value  # later lookups skip this function
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
