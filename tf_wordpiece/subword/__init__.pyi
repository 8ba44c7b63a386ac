# The public names of tf_wordpiece.subword (the plain-Python layer under SubwordTextEncoder), in one place:
# type checkers read this stub, and subword/__init__.py reads it too (tf_wordpiece/lazy.py), to import each
# name on first use.
from tf_wordpiece.subword.formats import TFDS_HEADER as TFDS_HEADER
from tf_wordpiece.subword.formats import TFDS_METADATA as TFDS_METADATA
from tf_wordpiece.subword.formats import format_tfds_vocab as format_tfds_vocab
from tf_wordpiece.subword.formats import format_vocab as format_vocab
from tf_wordpiece.subword.formats import is_tfds_vocab as is_tfds_vocab
from tf_wordpiece.subword.formats import parse_tfds_vocab as parse_tfds_vocab
from tf_wordpiece.subword.formats import parse_vocab as parse_vocab
from tf_wordpiece.subword.formats import read_vocab_file as read_vocab_file
from tf_wordpiece.subword.formats import write_vocab_file as write_vocab_file
from tf_wordpiece.subword.learner import TFDS_MIN_TARGET_SIZE as TFDS_MIN_TARGET_SIZE
from tf_wordpiece.subword.learner import build_from_token_counts as build_from_token_counts
from tf_wordpiece.subword.learner import build_to_target_size as build_to_target_size
from tf_wordpiece.subword.learner import corpus_token_counts as corpus_token_counts
from tf_wordpiece.subword.learner import prefix_counts as prefix_counts
from tf_wordpiece.subword.text import COMPATS as COMPATS
from tf_wordpiece.subword.text import EOS as EOS
from tf_wordpiece.subword.text import ESCAPE_CHARS as ESCAPE_CHARS
from tf_wordpiece.subword.text import NUM_BYTES as NUM_BYTES
from tf_wordpiece.subword.text import PAD as PAD
from tf_wordpiece.subword.text import RESERVED_TOKENS as RESERVED_TOKENS
from tf_wordpiece.subword.text import TFDS_UNDERSCORE as TFDS_UNDERSCORE
from tf_wordpiece.subword.text import UNDEFINED_CHARACTER as UNDEFINED_CHARACTER
from tf_wordpiece.subword.text import alnum_table as alnum_table
from tf_wordpiece.subword.text import alphabet_of as alphabet_of
from tf_wordpiece.subword.text import check_compat as check_compat
from tf_wordpiece.subword.text import escape_token as escape_token
from tf_wordpiece.subword.text import is_mixed_alphanum as is_mixed_alphanum
from tf_wordpiece.subword.text import join_tokens as join_tokens
from tf_wordpiece.subword.text import split_text as split_text
from tf_wordpiece.subword.text import subtoken_ids as subtoken_ids
from tf_wordpiece.subword.text import tfds_tokens as tfds_tokens
from tf_wordpiece.subword.text import unescape_token as unescape_token
