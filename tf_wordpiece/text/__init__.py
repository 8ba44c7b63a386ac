"""tensorflow_text's names in core TensorFlow ops (the facade lives here; see the submodules)."""
