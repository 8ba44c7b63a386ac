"""tf_wordpiece: WordPiece tokenization for TensorFlow in core ops only.

This is the public API.
"""

from tf_wordpiece.basic_tokenizer import BasicTokenizer as BasicTokenizer
from tf_wordpiece.bert_tokenizer import BertTokenizer as BertTokenizer
from tf_wordpiece.learner import bert_vocab_from_dataset as bert_vocab_from_dataset
from tf_wordpiece.learner import learn as learn
from tf_wordpiece.module import CustomTokenizer as CustomTokenizer
from tf_wordpiece.subword_text_encoder import SubwordTextEncoder as SubwordTextEncoder
from tf_wordpiece.vocab import Vocab as Vocab
from tf_wordpiece.wordpiece import WordpieceTokenizer as WordpieceTokenizer

__version__ = "0.1.0"

__all__ = [
    "BasicTokenizer",
    "BertTokenizer",
    "CustomTokenizer",
    "SubwordTextEncoder",
    "Vocab",
    "WordpieceTokenizer",
    "bert_vocab_from_dataset",
    "learn",
    "__version__",
]
