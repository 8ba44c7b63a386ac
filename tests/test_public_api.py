"""The public API: every name listed in the facades' __init__.pyi imports, and every name the README and docs use
is public (the facades: `tf_wordpiece` and `tf_wordpiece.subword`, both lazy through tf_wordpiece/lazy.py)."""

from __future__ import annotations

import importlib
import json
import pathlib
import re
import subprocess
import sys

import pytest

import tf_wordpiece as twp
import tf_wordpiece.subword as subword

ROOT = pathlib.Path(__file__).resolve().parents[1]
DOCUMENTS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
FACADES = [twp, subword]


@pytest.mark.parametrize("package, name", [(facade.__name__, name) for facade in FACADES for name in facade.__all__])
def test_every_public_name_imports(package, name):
    value = getattr(importlib.import_module(package), name)
    assert value is not None
    if callable(value):
        assert value.__name__ == name  # re-exported under its own name, not an alias


def test_names_the_documents_use_are_public():
    used = {name for doc in DOCUMENTS for name in re.findall(r"\btwp\.([A-Za-z_]\w*)", doc.read_text(encoding="utf-8"))}
    assert used, "the README no longer shows twp.<name>: update this test's pattern"
    assert used <= set(twp.__all__), f"not public: {sorted(used - set(twp.__all__))}"


@pytest.mark.parametrize("facade", FACADES, ids=lambda facade: facade.__name__)
def test_unknown_name_is_an_attribute_error(facade):
    with pytest.raises(AttributeError, match=f"module '{facade.__name__}' has no attribute 'Nope'"):
        facade.Nope  # noqa: B018
    assert "Nope" not in dir(facade)


def test_tokenizers_implement_the_base_classes():
    assert issubclass(twp.BertTokenizer, twp.TokenizerWithOffsets) and issubclass(twp.BertTokenizer, twp.Detokenizer)
    assert issubclass(twp.WordpieceTokenizer, twp.TokenizerWithOffsets)
    assert issubclass(twp.BasicTokenizer, twp.TokenizerWithOffsets)
    assert issubclass(twp.SubwordTextEncoder, twp.Tokenizer) and issubclass(twp.SubwordTextEncoder, twp.Detokenizer)
    assert issubclass(twp.TutorialTokenizer, twp.Tokenizer) and issubclass(twp.TutorialTokenizer, twp.Detokenizer)
    with pytest.raises(TypeError, match="abstract"):
        twp.Tokenizer()


@pytest.mark.portable
@pytest.mark.parametrize("package", [facade.__name__ for facade in FACADES])
def test_import_reads_the_stub_beside_it_and_loads_no_tensorflow(package, tmp_path):
    """In a fresh process, outside the source tree: the facade's names come from the `__init__.pyi` beside its
    `__init__.py`, and importing it loads no TensorFlow. .ci/run's job 2 runs this on the installed (non-editable)
    copy, so a stub missing from pyproject.toml's package-data fails here."""
    code = (
        "import importlib, json, pathlib, sys\n"
        f"package = importlib.import_module({package!r})\n"
        "stub = pathlib.Path(package.__file__).with_suffix('.pyi')\n"
        "print(json.dumps([stub.is_file(), 'tensorflow' in sys.modules, package.__all__]))"
    )
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=tmp_path)
    assert run.returncode == 0, run.stderr[-2000:]
    stub_found, tensorflow_loaded, names = json.loads(run.stdout)
    assert stub_found and not tensorflow_loaded
    assert names == importlib.import_module(package).__all__ and len(names) > 20
