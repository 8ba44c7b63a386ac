"""tf_wordpiece: WordPiece tokenization for TensorFlow in core ops only.

This is the public API. Names are imported on first use, so that
`import tf_wordpiece` (and the command line's `--help`) does not load
TensorFlow until a tokenizer or learner is asked for.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # the explicit re-exports, for type checkers and readers
    from tf_wordpiece.bert.basic_tokenizer import BasicTokenizer as BasicTokenizer
    from tf_wordpiece.bert.tokenizer import BertTokenizer as BertTokenizer
    from tf_wordpiece.learning.learner import bert_vocab_from_dataset as bert_vocab_from_dataset
    from tf_wordpiece.learning.learner import learn as learn
    from tf_wordpiece.export.module import CustomTokenizer as CustomTokenizer
    from tf_wordpiece.subword.encoder import SubwordTextEncoder as SubwordTextEncoder
    from tf_wordpiece.vocab import Vocab as Vocab
    from tf_wordpiece.bert.wordpiece import WordpieceTokenizer as WordpieceTokenizer

__version__ = "0.1.0"

_PUBLIC = {
    "BasicTokenizer": "tf_wordpiece.bert.basic_tokenizer",
    "BertTokenizer": "tf_wordpiece.bert.tokenizer",
    "CustomTokenizer": "tf_wordpiece.export.module",
    "SubwordTextEncoder": "tf_wordpiece.subword.encoder",
    "Vocab": "tf_wordpiece.vocab",
    "WordpieceTokenizer": "tf_wordpiece.bert.wordpiece",
    "bert_vocab_from_dataset": "tf_wordpiece.learning.learner",
    "learn": "tf_wordpiece.learning.learner",
}

__all__ = [*_PUBLIC, "__version__"]


def __getattr__(name: str):
    if name not in _PUBLIC:
        raise AttributeError(f"module 'tf_wordpiece' has no attribute {name!r}")
    value = getattr(importlib.import_module(_PUBLIC[name]), name)
    globals()[name] = value  # later lookups skip this function
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
