# The public API of tf_wordpiece, in one place: type checkers read this stub, and
# tf_wordpiece/__init__.py reads it too, to import each name on first use.
from tf_wordpiece.base import Detokenizer as Detokenizer
from tf_wordpiece.base import Tokenizer as Tokenizer
from tf_wordpiece.base import TokenizerWithOffsets as TokenizerWithOffsets
from tf_wordpiece.bert.added_tokens import AddedToken as AddedToken
from tf_wordpiece.bert.basic_tokenizer import BasicTokenizer as BasicTokenizer
from tf_wordpiece.bert.decoders import WordPieceDecoder as WordPieceDecoder
from tf_wordpiece.bert.packing import FixedLengthTemplate as FixedLengthTemplate
from tf_wordpiece.bert.post_processors import Encoding as Encoding
from tf_wordpiece.bert.post_processors import Segment as Segment
from tf_wordpiece.bert.post_processors import TemplateProcessing as TemplateProcessing
from tf_wordpiece.bert.recipes import HfRecipe as HfRecipe
from tf_wordpiece.bert.recipes import TfTextRecipe as TfTextRecipe
from tf_wordpiece.bert.wordpiece import WordpieceTokenizer as WordpieceTokenizer
from tf_wordpiece.bert_tokenizer.tokenizer import BertTokenizer as BertTokenizer
from tf_wordpiece.export.module import CustomTokenizer as CustomTokenizer
from tf_wordpiece.export.module import TutorialTokenizer as TutorialTokenizer
from tf_wordpiece.learning.from_text import bert_vocab_from_dataset as bert_vocab_from_dataset
from tf_wordpiece.learning.learner import learn as learn
from tf_wordpiece.subword.encoder import SubwordTextEncoder as SubwordTextEncoder
from tf_wordpiece.text.install import install_as_tensorflow_text as install_as_tensorflow_text
from tf_wordpiece.vocab import Vocab as Vocab

__version__: str
