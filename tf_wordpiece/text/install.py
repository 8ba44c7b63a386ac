"""`install_as_tensorflow_text()`: `import tensorflow_text` gives `tf_wordpiece.text` (PyMySQL's `install_as_MySQLdb`).

What it does, by case (the return value names the module that
`import tensorflow_text` gives afterwards):

1. `tensorflow_text` is not importable (no wheel for this platform or
   TensorFlow): `sys.modules["tensorflow_text"]` becomes `tf_wordpiece.text`,
   and a finder on `sys.meta_path` maps each `tensorflow_text.X` submodule to
   `tf_wordpiece.text.X` (so `from tensorflow_text.tools.wordpiece_vocab
   import wordpiece_tokenizer_learner_lib`, as keras-hub writes it, works).
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

PEER = "tensorflow_text"
OURS = "tf_wordpiece.text"


class _SubmoduleAlias(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Finds `tensorflow_text.X` as the module `tf_wordpiece.text.X` (the same module object)."""

    def find_spec(self, fullname, path=None, target=None):
        if fullname.startswith(PEER + ".") and sys.modules.get(PEER) is sys.modules.get(OURS):
            ours = OURS + fullname[len(PEER) :]
            if importlib.util.find_spec(ours) is None:
                return None
            return importlib.util.spec_from_loader(fullname, self)
        return None

    def create_module(self, spec):
        return importlib.import_module(OURS + spec.name[len(PEER) :])

    def exec_module(self, module):
        """Nothing: `create_module` returned the imported module."""


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
