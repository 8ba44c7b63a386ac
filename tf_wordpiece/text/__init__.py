"""tensorflow_text's API in core TensorFlow ops: code written for `import tensorflow_text` runs on tf_wordpiece.

The names are listed once, in `__init__.pyi`, and imported on first use
(`tf_wordpiece.lazy`). The submodule `tools.wordpiece_vocab` is the
vocabulary learner at tensorflow_text's module path. A tensorflow_text name
that is not here is an AttributeError that names it and says where it is:
tensorflow_text itself (`pip install tensorflow-text`).
`tf_wordpiece.install_as_tensorflow_text()` makes `import tensorflow_text`
give this package.

>>> import tf_wordpiece.text as tf_text
>>> tf_text.regex_split(["a b"], " ").to_list()
[[b'a', b'b']]
"""

from __future__ import annotations

import importlib

from tf_wordpiece.lazy import attach_stub

_getattr, __dir__, __all__ = attach_stub(__name__, __file__)


def __getattr__(name: str):
    if name in __all__:
        return _getattr(name)
    if name == "tools":  # a subpackage, as in tensorflow_text (`tensorflow_text.tools.wordpiece_vocab`)
        return importlib.import_module(f"{__name__}.tools")
    if name.startswith("__"):
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    raise AttributeError(
        f"module {__name__!r} has no attribute {name!r}: tf_wordpiece does not provide tensorflow_text's "
        f"{name} (tf_wordpiece.text has {len(__all__)} of its names, see dir()); for {name}, install "
        "tensorflow_text itself (pip install tensorflow-text)"
    )
