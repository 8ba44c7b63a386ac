"""The learner's identity cases: corpus, vocabulary size and parameters.

tools/gen_learner_references.py caches the peer's answers.
"""

from __future__ import annotations

from helpers.data import multilingual_lines

RESERVED = ["[PAD]", "[UNK]", "[START]", "[END]"]


def corpus(name: str) -> list[str]:
    """ "pt" / "en": a side of the embedded pt/en sample; "multilingual": tests/data/multilingual_dev.txt."""
    if name == "multilingual":
        return multilingual_lines()
    from tf_wordpiece.export.converter import embedded_pairs

    side = {"pt": 0, "en": 1}[name]
    return [pair[side] for pair in embedded_pairs()]


def _case(name, corpus_name, vocab_size, bert_tokenizer_params=None, learn_params=None, reserved=RESERVED):
    return dict(
        name=name,
        corpus=corpus_name,
        vocab_size=vocab_size,
        reserved_tokens=reserved,
        bert_tokenizer_params=bert_tokenizer_params or {},
        learn_params=learn_params or {},
    )


CASES = [
    # The subword tutorial's settings on each corpus.
    _case("pt_tutorial", "pt", 8000, {"lower_case": True}),
    _case("en_tutorial", "en", 8000, {"lower_case": True}),
    _case("multilingual_tutorial", "multilingual", 8000, {"lower_case": True}),
    # tensorflow_text's defaults: no lower casing, no reserved tokens.
    _case("multilingual_defaults", "multilingual", 8000, reserved=[]),
    _case("en_1000_cased", "en", 1000),
    _case("pt_short_tokens", "pt", 2000, {"lower_case": True}, {"max_token_length": 6}),
    _case("multilingual_no_joiner", "multilingual", 4000, {"lower_case": True}, {"include_joiner_token": False}),
    _case("multilingual_small_alphabet", "multilingual", 3000, {}, {"max_unique_chars": 100, "max_input_tokens": 5000}),
    _case(
        "en_other_options",
        "en",
        3000,
        {"normalization_form": "NFKD", "preserve_unused_token": True},
        {"joiner": "@@", "num_iterations": 2, "slack_ratio": 0.2, "lower_thresh": 2},
    ),
]
