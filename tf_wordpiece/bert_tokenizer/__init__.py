"""`BertTokenizer`, assembled: a recipe's parts and an engine.

`bert/` holds the stages in string ops and each compat mode's recipe;
`numeric/` the same pipeline in integer ops. This package, above both, puts
them together: `engines` (which core runs `tokenize_with_offsets`, and which
options the numeric core takes), `tokenizer` (`BertTokenizer`) and
`hugging_face` (Hugging Face's side of it: `encode`, `decode`, `save`,
`from_tokenizer_json`).
"""
