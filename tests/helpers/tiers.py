"""A pytest plugin: the `quick` tier, `python -m pytest -m quick`, the inner loop's one command.

Why here and not on each test: the quick set is one decision (cheap tests that together touch every part), kept in
one list that is easy to read and to re-balance when a test grows, without touching the test files. An entry is
a node-id prefix: a whole file, a test function (every parametrization) or one parametrization.
"""

from __future__ import annotations

import pytest

QUICK = (
    # normalize -> pre-tokenize -> WordPiece -> templates -> decode, and the basic tokenizer that composes them
    "tests/bert/test_normalizers.py",
    "tests/bert/test_pre_tokenizers.py",
    "tests/bert/test_basic_tokenizer.py",
    "tests/bert/test_wordpiece.py",
    "tests/bert/test_packing.py",
    "tests/bert/test_decoders.py",
    # the composing BertTokenizer and its engines; the contract (eager, tf.function, tf.data, SavedModel)
    "tests/bert_tokenizer/test_engines.py",
    "tests/bert_tokenizer/test_tokenizer.py::test_contract",
    "tests/bert_tokenizer/test_tokenizer.py::test_pieces",
    "tests/bert_tokenizer/test_tokenizer.py::test_offsets_point_into_the_original_string",
    # Hugging Face's encode / decode side
    "tests/bert_tokenizer/test_hugging_face.py::test_pretokenized_inputs_of_every_kind",
    "tests/bert_tokenizer/test_hugging_face.py::test_truncation_and_padding_match_hf[only_first-16]",
    "tests/bert_tokenizer/test_hugging_face.py::test_mask_in_text_is_one_id_and_tf_text_mode_splits_it",
    # subwords, the learner, tensorflow_text's names
    "tests/subword/test_subword_small_targets.py::test_t2t_small_targets_build_the_alphabet",
    "tests/learning/test_learner.py::test_identical_to_tf_text_on_the_samples",
    "tests/learning/test_learner.py::test_dict_and_pairs_give_the_same_vocabulary",
    "tests/text/test_segments.py",
    "tests/text/test_trimmers.py::test_small_table",
    # an export reloaded in a fresh interpreter without the package or tensorflow_text
    "tests/export/test_portable.py::test_saved_model_round_trip_in_a_fresh_process[tf_text]",
    # the command line, the public API, the README's blocks found
    "tests/test_command_line.py::test_learn_refuses_before_counting",
    "tests/test_command_line.py::test_export_conversions_are_checked_before_any_work",
    "tests/test_public_api.py",
    "tests/test_readme.py::test_blocks_are_found_and_every_tag_is_known",
)


def pytest_configure(config):
    config.addinivalue_line("markers", "quick: the inner loop's set (tests/helpers/tiers.py lists it): -m quick")


@pytest.hookimpl(tryfirst=True)  # before -m deselects by marker
def pytest_collection_modifyitems(session, config, items):
    for item in items:
        if item.nodeid.startswith(QUICK):
            item.add_marker(pytest.mark.quick)
