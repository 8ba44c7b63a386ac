"""tensor2tensor's invertible SubwordTextEncoder: the learner, the graph encoder, tfds's variant."""
