"""The example's BERT classifier (examples/classifier/classifier.py), built small for the tests.

keras-hub's initializers (normal, stddev 0.02) make an untrained BERT's logits nearly equal on every line
(they differ by ~1e-4), so a float tolerance could not tell two token sequences apart: `sensitive` scales the
weights up until the logits of different lines differ by whole units.
"""

from __future__ import annotations

import importlib.util
import pathlib
import sys

import numpy as np

REPO = pathlib.Path(__file__).resolve().parents[2]
EXAMPLE = REPO / "examples" / "classifier" / "classifier.py"
SEQUENCE_LENGTH = 32


def example():
    """examples/classifier/classifier.py as a module (it imports keras_hub: skip first where it is missing)."""
    name = "tf_wordpiece_classifier_example"
    if name not in sys.modules:
        spec = importlib.util.spec_from_file_location(name, EXAMPLE)
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
    return sys.modules[name]


def small_classifier(vocabulary, *, compat: str, core: str, num_classes: int = 3):
    """strings -> logits [batch, num_classes]: 2 layers, hidden 32, 2 heads, sequence length 32, sensitive."""
    model = example().build_classifier(
        vocabulary, sequence_length=SEQUENCE_LENGTH, num_classes=num_classes, compat=compat, core=core, seed=1
    )
    sensitive(model)
    return model


def sensitive(model, scale: float = 12.0) -> None:
    """Multiplies every kernel and embedding by `scale` (layer norms and biases stay)."""
    for variable in model.weights:
        if variable.path.endswith(("kernel", "embeddings")):
            variable.assign(variable * scale)


def assert_logits_close(got, want, *, atol: float = 1e-4) -> None:
    """Equal to float tolerance, on logits that vary between lines by far more than the tolerance."""
    got, want = np.asarray(got, np.float64), np.asarray(want, np.float64)
    assert got.shape == want.shape, (got.shape, want.shape)
    assert np.ptp(want, axis=0).min() > 1000 * atol, np.ptp(want, axis=0)  # the lines' logits differ
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=atol)
