"""What each `BertTokenizer` core can do: one table that every layer asks instead of testing core names.

Nothing here imports TensorFlow, so the command line checks `--core` before
TensorFlow loads. The engines (`bert_tokenizer.engines`) carry their core's
`Capabilities` as `engine.capabilities`.
"""

from __future__ import annotations

import dataclasses

from tf_wordpiece.messages import check_choice


@dataclasses.dataclass(frozen=True)
class Capabilities:
    """What one core does.

    name: the core, as `BertTokenizer(core=...)` takes it.
    takes_bytes: `tokenize_bytes` works (UTF-8 bytes in, ids out: integer ops only).
    runs_without_string_ops: its bytes path runs where there are neither string
      ops nor XLA: TFLite's builtin ops, TF.js (a TFLite file, a TF.js model).
    compiles: XLA compiles it, once per bucket of batch sizes (`warm_up`, TF
      Serving's warm-up requests).
    """

    name: str
    takes_bytes: bool
    runs_without_string_ops: bool
    compiles: bool


CAPABILITIES = {
    "string": Capabilities("string", takes_bytes=False, runs_without_string_ops=False, compiles=False),
    "numeric": Capabilities("numeric", takes_bytes=True, runs_without_string_ops=True, compiles=False),
    "xla": Capabilities("xla", takes_bytes=True, runs_without_string_ops=False, compiles=True),
}
CORES = tuple(CAPABILITIES)


def capabilities(core: str, *, what: str = "core") -> Capabilities:
    """The capabilities of `core`; a ValueError naming `what` for an unknown one.

    >>> capabilities("numeric").runs_without_string_ops, capabilities("xla").compiles
    (True, True)
    """
    check_choice(what, core, CORES)
    return CAPABILITIES[core]


def cores_that(*, runs_without_string_ops: bool | None = None, compiles: bool | None = None) -> list[str]:
    """The cores with these capabilities (None: either), in `CORES` order.

    >>> cores_that(runs_without_string_ops=True), cores_that(compiles=False)
    (['numeric'], ['string', 'numeric'])
    """
    wanted = {"runs_without_string_ops": runs_without_string_ops, "compiles": compiles}
    return [
        name
        for name, found in CAPABILITIES.items()
        if all(value is None or getattr(found, key) == value for key, value in wanted.items())
    ]
