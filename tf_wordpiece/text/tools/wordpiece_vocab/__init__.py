"""The WordPiece vocabulary learner at tensorflow_text's module path (`tensorflow_text.tools.wordpiece_vocab`).

`wordpiece_tokenizer_learner_lib` (`count_words`, `learn`) and
`bert_vocab_from_dataset`, composed of `tf_wordpiece.learning`.
"""
