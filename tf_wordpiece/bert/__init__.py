"""The BERT WordPiece tokenizer, one stage a module.

added tokens -> normalizers -> pre-tokenizers -> basic tokenizer -> wordpiece (matching words with maxmatch or
linmaxmatch) -> post-processors (and packing) -> decoders; `recipes` say which parts each compat mode uses and
`tokenizer` assembles them.
"""
