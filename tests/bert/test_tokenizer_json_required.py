"""tokenizer.json fields tokenizers requires.

A file without them is refused, naming the file and the field (issue 18, fault 7).
"""

from __future__ import annotations

import json

import pytest

import tf_wordpiece as twp
from helpers.data import TOKENIZER_JSON

tokenizers = pytest.importorskip("tokenizers")


@pytest.mark.parametrize("how", ["missing", "null"])
@pytest.mark.parametrize("field", ["unk_token", "continuing_subword_prefix", "max_input_chars_per_word"])
def test_wordpiece_model_field_is_required(field, how, tmp_path):
    spec = json.loads(TOKENIZER_JSON.read_text(encoding="utf-8"))
    if how == "missing":
        del spec["model"][field]
    else:
        spec["model"][field] = None
    path = tmp_path / "tokenizer.json"
    path.write_text(json.dumps(spec), encoding="utf-8")
    with pytest.raises(Exception):  # the oracle refuses it too
        tokenizers.Tokenizer.from_file(str(path))
    with pytest.raises(ValueError, match=rf"tokenizer\.json'.*model\.{field} is missing") as info:
        twp.BertTokenizer.from_tokenizer_json(path)
    assert str(path) in str(info.value) and "add it" in str(info.value)
