"""`install_as_tensorflow_text()`: `import tensorflow_text` gives `tf_wordpiece.text` (PyMySQL's `install_as_MySQLdb`).

What it does, by case (the return value names the module that
`import tensorflow_text` gives afterwards):

1. `tensorflow_text` is not importable (no wheel for this platform or
   TensorFlow): `sys.modules["tensorflow_text"]` becomes `tf_wordpiece.text`,
   and a finder on `sys.meta_path` maps each `tensorflow_text.X` submodule to
   `tf_wordpiece.text.X` (so `from tensorflow_text.tools.wordpiece_vocab
   import wordpiece_tokenizer_learner_lib`, as keras-hub writes it, works),
   and tensorflow_text's own modules of the parts it covers
   (`tensorflow_text.python.ops.bert_tokenizer`, `...ops.normalize_ops`,
   ..., as its tests and some user code import them) to `tf_wordpiece.text`
   itself, which holds all their names.
   Returns `"tf_wordpiece.text"`.
2. The real tensorflow_text is importable, or already imported: nothing
   changes, and it returns `"tensorflow_text"`; the real one stays in use.
3. `force=True`: case 1 even so. Modules already imported keep the
   tensorflow_text they hold (keras-hub binds it when it is imported):
   call this before importing them. Real `tensorflow_text.*` entries in
   `sys.modules` are dropped so that later imports get ours.

Calling it again changes nothing. Nothing is imported until a name is used.

>>> import tf_wordpiece
>>> tf_wordpiece.install_as_tensorflow_text()  # here the real tensorflow_text is installed
'tensorflow_text'
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.util
import sys
import types

PEER = "tensorflow_text"
OURS = "tf_wordpiece.text"


# tensorflow_text's modules (under tensorflow_text.python.ops) whose names tf_wordpiece.text holds.
_OP_MODULES = (
    "bert_tokenizer",
    "fast_bert_normalizer",
    "fast_bert_tokenizer",
    "fast_wordpiece_tokenizer",
    "item_selector_ops",
    "masking_ops",
    "normalize_ops",
    "pad_model_inputs_ops",
    "regex_split_ops",
    "segment_combiner_ops",
    "splitter",
    "string_ops",
    "tokenization",
    "trimmer_ops",
    "whitespace_tokenizer",
    "wordpiece_tokenizer",
)
_AS_OURS = {f"python.ops.{name}" for name in _OP_MODULES}
_PACKAGES = ("python", "python.ops")  # packages of their own, which hand out tf_wordpiece.text's names


def _our_module(fullname: str) -> str | None:
    """The module of ours that `tensorflow_text.X` is: `tf_wordpiece.text` for its op modules, else
    `tf_wordpiece.text.X` where that exists; None for the rest."""
    rest = fullname[len(PEER) + 1 :]
    if rest in _AS_OURS:
        return OURS
    ours = f"{OURS}.{rest}"
    return ours if importlib.util.find_spec(ours) is not None else None


def _package(name: str) -> types.ModuleType:
    """`tensorflow_text.python` or `.python.ops`: a package whose names are tf_wordpiece.text's, and each op module
    tf_wordpiece.text itself (`from tensorflow_text.python.ops import bert_tokenizer` reads the attribute)."""
    ours = importlib.import_module(OURS)
    package = types.ModuleType(name, f"tensorflow_text's {name}: its names are {OURS}'s")
    package.__path__ = []

    def attribute(attr: str):
        return ours if attr in _OP_MODULES else getattr(ours, attr)

    package.__getattr__ = attribute
    return package


class _SubmoduleAlias(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Finds `tensorflow_text.X` as the module `_our_module` names (the same module object), or as `_package`."""

    def find_spec(self, fullname, path=None, target=None):
        if fullname.startswith(PEER + ".") and sys.modules.get(PEER) is sys.modules.get(OURS):
            package = fullname[len(PEER) + 1 :] in _PACKAGES
            if not package and _our_module(fullname) is None:
                return None
            return importlib.util.spec_from_loader(fullname, self, is_package=package)
        return None

    def create_module(self, spec):
        if spec.name[len(PEER) + 1 :] in _PACKAGES:
            return _package(spec.name)
        return importlib.import_module(_our_module(spec.name))

    def exec_module(self, module):
        """Nothing: `create_module` returned the module."""


def install_as_tensorflow_text(*, force: bool = False) -> str:
    """Makes `import tensorflow_text` give `tf_wordpiece.text` unless the real one is there (see the module doc).

    Args:
      force: install ours even when the real tensorflow_text is importable or
        imported. Defaults to False.
    Returns:
      `"tf_wordpiece.text"` or `"tensorflow_text"`: which one `import tensorflow_text` gives now.

    >>> install_as_tensorflow_text(force=False) in ("tensorflow_text", "tf_wordpiece.text")
    True
    """
    ours = importlib.import_module(OURS)
    current = sys.modules.get(PEER)
    if current is ours:
        return OURS
    if not force and (current is not None or _peer_importable()):
        return PEER
    for name in [name for name in sys.modules if name.startswith(PEER + ".")]:
        del sys.modules[name]
    sys.modules[PEER] = ours
    if not any(isinstance(finder, _SubmoduleAlias) for finder in sys.meta_path):
        sys.meta_path.insert(0, _SubmoduleAlias())
    return OURS


def _peer_importable() -> bool:
    try:
        return importlib.util.find_spec(PEER) is not None
    except (ImportError, ValueError):
        return False
