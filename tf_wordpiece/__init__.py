"""tf_wordpiece: WordPiece tokenization for TensorFlow in core ops only.

The public API is listed once, in `__init__.pyi` (what type checkers read).
Its names are imported on first use (`lazy.py`, which `tf_wordpiece.subword`
uses too), so that `import tf_wordpiece` (and the command line's `--help`)
does not load TensorFlow until a tokenizer or learner is asked for.
"""

from __future__ import annotations

from tf_wordpiece.lazy import attach_stub

__version__ = "0.1.0"

__getattr__, __dir__, _PUBLIC = attach_stub(__name__, __file__)
__all__ = [*_PUBLIC, "__version__"]
