# tf_wordpiece.text: tensorflow_text's names, in core TensorFlow ops. tf_wordpiece/text/__init__.py reads this
# stub to import each name on first use (tf_wordpiece/lazy.py); `install_as_tensorflow_text()` puts the package
# in sys.modules as `tensorflow_text`.
from tf_wordpiece.text.base import Detokenizer as Detokenizer
from tf_wordpiece.text.base import Splitter as Splitter
from tf_wordpiece.text.base import SplitterWithOffsets as SplitterWithOffsets
from tf_wordpiece.text.base import Tokenizer as Tokenizer
from tf_wordpiece.text.base import TokenizerWithOffsets as TokenizerWithOffsets
from tf_wordpiece.text.bert import BasicTokenizer as BasicTokenizer
from tf_wordpiece.text.bert import BertTokenizer as BertTokenizer
from tf_wordpiece.text.bert import FastBertNormalizer as FastBertNormalizer
from tf_wordpiece.text.bert import FastBertTokenizer as FastBertTokenizer
from tf_wordpiece.text.masking import FirstNItemSelector as FirstNItemSelector
from tf_wordpiece.text.masking import ItemSelector as ItemSelector
from tf_wordpiece.text.masking import LastNItemSelector as LastNItemSelector
from tf_wordpiece.text.masking import MaskValuesChooser as MaskValuesChooser
from tf_wordpiece.text.masking import NothingSelector as NothingSelector
from tf_wordpiece.text.masking import RandomItemSelector as RandomItemSelector
from tf_wordpiece.text.masking import mask_language_model as mask_language_model
from tf_wordpiece.text.normalizers import case_fold_utf8 as case_fold_utf8
from tf_wordpiece.text.normalizers import coerce_to_structurally_valid_utf8 as coerce_to_structurally_valid_utf8
from tf_wordpiece.text.normalizers import find_source_offsets as find_source_offsets
from tf_wordpiece.text.normalizers import normalize_utf8 as normalize_utf8
from tf_wordpiece.text.normalizers import normalize_utf8_with_offsets_map as normalize_utf8_with_offsets_map
from tf_wordpiece.text.regex_split_ops import RegexSplitter as RegexSplitter
from tf_wordpiece.text.regex_split_ops import regex_split as regex_split
from tf_wordpiece.text.regex_split_ops import regex_split_with_offsets as regex_split_with_offsets
from tf_wordpiece.text.segments import combine_segments as combine_segments
from tf_wordpiece.text.segments import concatenate_segments as concatenate_segments
from tf_wordpiece.text.segments import pad_model_inputs as pad_model_inputs
from tf_wordpiece.text.trimmers import RoundRobinTrimmer as RoundRobinTrimmer
from tf_wordpiece.text.trimmers import ShrinkLongestTrimmer as ShrinkLongestTrimmer
from tf_wordpiece.text.trimmers import Trimmer as Trimmer
from tf_wordpiece.text.trimmers import WaterfallTrimmer as WaterfallTrimmer
from tf_wordpiece.text.whitespace import WhitespaceTokenizer as WhitespaceTokenizer
from tf_wordpiece.text.wordpiece import FastWordpieceTokenizer as FastWordpieceTokenizer
from tf_wordpiece.text.wordpiece import WordpieceTokenizer as WordpieceTokenizer
