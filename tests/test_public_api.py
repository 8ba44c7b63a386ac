"""The public API: every name listed in __init__.pyi imports, and every name the README and docs use is public."""

from __future__ import annotations

import pathlib
import re
import subprocess
import sys

import pytest

import tf_wordpiece as twp

ROOT = pathlib.Path(__file__).resolve().parents[1]
DOCUMENTS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]


@pytest.mark.parametrize("name", twp.__all__)
def test_every_public_name_imports(name):
    value = getattr(twp, name)
    assert value is not None
    if name != "__version__":
        assert value.__name__ == name  # re-exported under its own name, not an alias


def test_names_the_documents_use_are_public():
    used = {name for doc in DOCUMENTS for name in re.findall(r"\btwp\.([A-Za-z_]\w*)", doc.read_text(encoding="utf-8"))}
    assert used, "the README no longer shows twp.<name>: update this test's pattern"
    assert used <= set(twp.__all__), f"not public: {sorted(used - set(twp.__all__))}"


def test_unknown_name_is_an_attribute_error():
    with pytest.raises(AttributeError, match="no attribute 'Nope'"):
        twp.Nope  # noqa: B018


def test_tokenizers_implement_the_base_classes():
    assert issubclass(twp.BertTokenizer, twp.TokenizerWithOffsets) and issubclass(twp.BertTokenizer, twp.Detokenizer)
    assert issubclass(twp.WordpieceTokenizer, twp.TokenizerWithOffsets)
    assert issubclass(twp.BasicTokenizer, twp.TokenizerWithOffsets)
    assert issubclass(twp.SubwordTextEncoder, twp.Tokenizer) and issubclass(twp.SubwordTextEncoder, twp.Detokenizer)
    assert issubclass(twp.TutorialTokenizer, twp.Tokenizer) and issubclass(twp.TutorialTokenizer, twp.Detokenizer)
    with pytest.raises(TypeError, match="abstract"):
        twp.Tokenizer()


def test_import_loads_no_tensorflow():
    code = "import sys, tf_wordpiece; print('tensorflow' in sys.modules, len(tf_wordpiece.__all__))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT).stdout
    assert out.split() == ["False", str(len(twp.__all__))]
