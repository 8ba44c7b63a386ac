"""tensorflow_text's `tools` package path: `tools.wordpiece_vocab` is the vocabulary learner."""
