"""The layer under both cores: per-code-point tables and UTF-8 helpers.

`bert/` (the string-op stages) and `numeric/` (the integer-op core) both build
on these and import nothing of each other:

- `tables`: the peers' Unicode data (`data/unicode_tables.json.gz`), dense
  per-code-point arrays and their paged graph lookup, UTF-8 lengths;
- `normalization`: each peer's normalization as a table (code point -> its
  replacement code points);
- `classes`: each peer's pre-tokenizer classes (word, white space, isolated);
- `utf8`: UTF-8 decoding in elementwise integer ops, `ahead` / `behind`.
"""
