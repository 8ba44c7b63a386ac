"""The learner's parameters (tensorflow_text's, with its defaults) and the command-line options that set them.

No TensorFlow here: `tf-wordpiece learn --help` shows these without importing it.
"""

from __future__ import annotations

import argparse
import re
from typing import Mapping, NamedTuple

from tf_wordpiece.messages import counted
from tf_wordpiece.unicode.normalization import NORMALIZATION_FORMS


class LearnParams(NamedTuple):
    """tensorflow_text's learner parameters, with its defaults."""

    upper_thresh: int | None = 10_000_000
    lower_thresh: int | None = 10
    num_iterations: int = 4
    max_input_tokens: int | None = 5_000_000
    max_token_length: int = 50
    max_unique_chars: int = 1000
    slack_ratio: float = 0.05
    include_joiner_token: bool = True
    joiner: str = "##"


BERT_TOKENIZER_PARAMS = ("lower_case", "keep_whitespace", "normalization_form", "preserve_unused_token")


def checked_param_names(bert_tokenizer_params: Mapping | None, learn_params: Mapping | None) -> tuple[dict, dict]:
    """Copies of `bert_vocab_from_dataset`'s two option dicts (None: empty); a TypeError names unknown keys.

    >>> checked_param_names({"lowercase": True}, None)
    Traceback (most recent call last):
    TypeError: bert_tokenizer_params: unknown ['lowercase']; expected lower_case, keep_whitespace, ...
    """
    tokenizer_params = dict(bert_tokenizer_params or {})
    unknown = sorted(set(tokenizer_params) - set(BERT_TOKENIZER_PARAMS))
    if unknown:
        raise TypeError(f"bert_tokenizer_params: unknown {unknown}; expected {', '.join(BERT_TOKENIZER_PARAMS)}")
    learning = dict(learn_params or {})
    unknown = sorted(set(learning) - set(LearnParams._fields))
    if unknown:
        raise TypeError(f"learn_params: unknown {unknown}; expected some of {list(LearnParams._fields)}")
    return tokenizer_params, learning


def add_learn_options(parser: argparse.ArgumentParser) -> None:
    """The options `tf-wordpiece learn` and `python -m tf_wordpiece.learning.beam` share.

    Output, splitting and learning.

    Every option has help, so a parser with ArgumentDefaultsHelpFormatter shows every default.
    """
    defaults = LearnParams()
    parser.add_argument("--out", default="vocab.txt", help="vocab.txt to write (line n is id n)")
    parser.add_argument(
        "--overwrite",
        action="store_true",
        help="replace --out if it is a vocabulary tf-wordpiece learned (never another file, nor a folder)",
    )
    parser.add_argument("--vocab-size", type=int_at_least(1), default=8000, help="target (maximum) vocabulary size")
    parser.add_argument(
        "--reserved",
        nargs="*",
        default=["[PAD]", "[UNK]", "[START]", "[END]"],
        metavar="TOKEN",
        help="tokens placed first, in this order",
    )
    words = parser.add_argument_group("word splitting (use the same options for the BertTokenizer of this vocabulary)")
    words.add_argument("--lower-case", action="store_true", help="lowercase and strip accents before counting")
    words.add_argument("--keep-whitespace", action="store_true", help="keep white space as tokens")
    words.add_argument(
        "--normalization-form",
        choices=[form for form in NORMALIZATION_FORMS if form],
        help="Unicode normalization, as tensorflow_text's BasicTokenizer (without --lower-case; with it, only NFD)",
    )
    words.add_argument(
        "--preserve-unused-token", action="store_true", help="keep [unused*] tokens written in text whole"
    )
    learning = parser.add_argument_group("learning (tensorflow_text's learn_params, with its defaults)")
    learning.add_argument(
        "--upper-thresh",
        type=int_at_least(1),
        default=defaults.upper_thresh,
        help="highest count threshold the search tries",
    )
    learning.add_argument(
        "--lower-thresh",
        type=int_at_least(1),
        default=defaults.lower_thresh,
        help="lowest count threshold the search tries (a token must occur this often)",
    )
    learning.add_argument(
        "--num-iterations",
        type=int_at_least(0),
        default=defaults.num_iterations,
        help="rounds of splitting and counting per threshold",
    )
    learning.add_argument(
        "--max-input-tokens",
        type=int_at_least(-1),
        default=defaults.max_input_tokens,
        help="learn from this many most frequent words (-1: all)",
    )
    learning.add_argument(
        "--max-token-length",
        type=int_at_least(1),
        default=defaults.max_token_length,
        help="longer words (in characters) are not learned from",
    )
    learning.add_argument(
        "--max-unique-chars",
        type=int_at_least(1),
        default=defaults.max_unique_chars,
        help="the alphabet is this many most frequent characters",
    )
    learning.add_argument(
        "--slack-ratio",
        type=float,
        default=defaults.slack_ratio,
        help="sizes from --vocab-size * (1 - ratio) up are accepted",
    )
    learning.add_argument("--joiner", default=defaults.joiner, help="suffix indicator of non-initial tokens")
    learning.add_argument("--no-joiner-token", action="store_true", help="learn non-initial tokens without the joiner")


def bert_tokenizer_params(args) -> dict:
    """The parsed word-splitting options as `bert_vocab_from_dataset`'s `bert_tokenizer_params`."""
    return dict(
        lower_case=args.lower_case,
        keep_whitespace=args.keep_whitespace,
        normalization_form=args.normalization_form,
        preserve_unused_token=args.preserve_unused_token,
    )


def learn_params(args) -> dict:
    """The parsed learning options as `learn`'s keyword arguments."""
    params = {name: getattr(args, name) for name in LearnParams._fields if hasattr(args, name)}
    return params | {"include_joiner_token": not args.no_joiner_token}


def int_at_least(lowest: int):
    """An argparse `type`: an int >= `lowest`, else argparse's error naming the option."""

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            value = None
        if value is None or value < lowest:
            raise argparse.ArgumentTypeError(f"expected an integer >= {lowest}, got {text!r}")
        return value

    parse.__name__ = f"int >= {lowest}"
    return parse


def threshold_summary(stats: dict, args) -> str:
    """The summary's words on the count threshold the search ended at, beside the options that bound it.

    `stats` is `learn`'s (`threshold`, and if known `search_range` and
    `search_steps`); `args` has `lower_thresh` and `upper_thresh`. The search
    (tensorflow_text's binary search) can end below the range it searched: one
    below it when the vocabulary is still short of the target at its lowest
    threshold, or halfway between its bounds when they cross (the most frequent
    word occurs fewer than --lower-thresh times).

    >>> from types import SimpleNamespace
    >>> args = SimpleNamespace(lower_thresh=10, upper_thresh=10_000_000)
    >>> print(threshold_summary({"threshold": 5, "search_range": (10, 1), "search_steps": 1}, args))
    count threshold 5 (halfway between the highest word count 1 and --lower-thresh 10: the search range is empty, \
so tensorflow_text's search takes the middle) after 1 search step
    """
    threshold = stats["threshold"]
    if threshold is None:
        return "no count threshold (no word to learn from)"
    steps = f" after {counted(stats['search_steps'], 'search step')}" if "search_steps" in stats else ""
    lowest, highest = stats.get("search_range") or (args.lower_thresh, args.upper_thresh)
    low = f"--lower-thresh {lowest}" if lowest == args.lower_thresh else f"the lowest word count {lowest}"
    high = f"--upper-thresh {highest}" if highest == args.upper_thresh else f"the highest word count {highest}"
    if highest < lowest:
        where = (
            f"halfway between {high} and {low}: the search range is empty, so tensorflow_text's search takes the middle"
        )
    elif threshold < lowest:
        where = (
            f"one below {low}, the lowest threshold searched: the vocabulary was still short of the target there, "
            "and tensorflow_text's search ends one step past its bound"
        )
    else:
        bounds = f"--lower-thresh {args.lower_thresh} .. --upper-thresh {args.upper_thresh}"
        where = f"searched within {bounds} and the word counts"
    return f"count threshold {threshold} ({where}){steps}"


def size_notes(size: int, target: int, stats: dict, *, slack_ratio: float, lower_thresh: int) -> list[str]:
    """Why a learned vocabulary is not the target size, in the options' names (empty when it is).

    `stats` is `learn`'s: `threshold`, `words` and, if known, `search_range`
    (the thresholds searched, clipped to the word counts).
    """
    threshold = stats["threshold"]
    if size > target:
        return [
            f"more tokens than the target: the threshold search ended at count {threshold} "
            "(tensorflow_text gives the same); widen --lower-thresh..--upper-thresh or raise --slack-ratio"
        ]
    if size >= target * (1 - slack_ratio):
        return []
    if threshold is None:
        return [
            "fewer tokens than the target: no word was left to learn from (all are reserved tokens, longer "
            "than --max-token-length or use characters beyond --max-unique-chars)"
        ]
    lowest, highest = stats.get("search_range") or (lower_thresh, None)
    if highest is not None and highest < lower_thresh:
        why = (
            f"the most frequent word occurs {counted(highest, 'time')}, fewer than --lower-thresh {lower_thresh}; "
            "give more text or lower --lower-thresh"
        )
    elif lowest > lower_thresh:
        why = (
            f"every word occurs at least {counted(lowest, 'time')}, more than --lower-thresh {lower_thresh}, so "
            "a lower --lower-thresh changes nothing; give more text"
        )
    elif threshold <= lower_thresh:
        why = f"the search goes no lower than --lower-thresh {lower_thresh}; give more text or lower --lower-thresh"
    else:
        why = "a lower threshold gives more tokens than the target: raise --slack-ratio or give more text"
    return [
        f"fewer tokens than the target: only {counted(size, 'token')} (reserved, the alphabet and substrings) "
        f"{'occurs' if size == 1 else 'occur'} at least {counted(threshold, 'time')} (the count threshold) in the "
        f"{counted(stats['words'], 'word')} learned from; {why}"
    ]


_TFDS_SPEC = re.compile(
    r"(?P<name>[^:\[\]]+?(?::\d+\.\d+\.\d+)?)"  # a name, with its version (name:1.0.0) if any
    r"(?::(?P<split>[^:\[\]]+(?:\[[^\]]*\])?))?"  # a split, sliced (train[:10%]) or not
    r"(?::(?P<feature>[^:\[\]]+))?"
)


def tfds_spec(spec: str) -> tuple[str, str, str | None]:
    """(name, split, feature) of `NAME[:SPLIT[:FEATURE]]`, the form `--tfds` takes in `learn` and `export`.

    SPLIT defaults to "train" and FEATURE to None (the caller's default).

    >>> tfds_spec("ted_hrlr_translate/pt_to_en")
    ('ted_hrlr_translate/pt_to_en', 'train', None)
    >>> tfds_spec("ted_hrlr_translate/pt_to_en:1.0.0:train[:10%]:en")
    ('ted_hrlr_translate/pt_to_en:1.0.0', 'train[:10%]', 'en')
    """
    match = _TFDS_SPEC.fullmatch(spec)
    if not match:
        raise ValueError(
            f"tfds: expected NAME[:SPLIT[:FEATURE]] such as ted_hrlr_translate/pt_to_en:train:en, got {spec!r}"
        )
    return match["name"], match["split"] or "train", match["feature"]
