"""Regenerates `tf_wordpiece/data/unicode_tables.json.gz` from the peers themselves.

Core TensorFlow has no NFD, no case folding and no Unicode categories, so the
tokenizer carries per-code-point tables. They are read off the installed peers,
one code point at a time, because each peer pins its own Unicode version:

* tensorflow_text folds case with ICU (NFKC_Casefold) and classifies with RE2;
* Hugging Face `tokenizers` classifies with the `unicode_categories` crate
  (Unicode 8.0) and lowercases with Rust's `char::to_lowercase`.

Python's `unicodedata` (Unicode 14 on Python 3.11) agrees with neither on the
characters added since, so the tables are taken from the peers, not from it.

Run (needs the `test` extra: tensorflow-text and tokenizers):

    python tools/gen_unicode_tables.py

`tests/unicode/test_tables.py` regenerates the tables in memory and checks
that the shipped file is up to date.
"""

from __future__ import annotations

import gzip
import json
import pathlib
import sys

from tqdm import tqdm

OUT = pathlib.Path(__file__).resolve().parents[1] / "tf_wordpiece" / "data" / "unicode_tables.json.gz"
MAX_CODE_POINT = 0x10FFFF
SURROGATES = range(0xD800, 0xE000)
CHUNK = 65536

# tensorflow_text's BasicTokenizer patterns (python/ops/bert_tokenizer.py).
TF_TEXT_PUNCTUATION = r"[!-/]|[:-@]|[\[-`]|[{-~]|[\p{P}]"
TF_TEXT_CJK = (
    r"[\x{4E00}-\x{9FFF}]|[\x{3400}-\x{4DBF}]|[\x{20000}-\x{2A6DF}]|"
    r"[\x{2A700}-\x{2B73F}]|[\x{2B740}-\x{2B81F}]|[\x{2B820}-\x{2CEAF}]|"
    r"[\x{F900}-\x{FAFF}]|[\x{2F800}-\x{2FA1F}]"
)


def code_points() -> list[int]:
    return [c for c in range(MAX_CODE_POINT + 1) if c not in SURROGATES]


def to_ranges(members: list[int]) -> list[list[int]]:
    """Sorted code points -> [[first, last], ...] inclusive runs."""
    ranges: list[list[int]] = []
    for c in members:
        if ranges and ranges[-1][1] == c - 1:
            ranges[-1][1] = c
        else:
            ranges.append([c, c])
    return ranges


def changed(mapping: dict[int, str]) -> dict[str, list[int]]:
    """Keeps only the code points that do not map to themselves (JSON keys are str)."""
    return {str(c): [ord(ch) for ch in out] for c, out in mapping.items() if out != chr(c)}


def tf_text_tables(cps: list[int]) -> dict:
    import tensorflow as tf
    import tensorflow_text as text

    def per_code_point(fn, desc):
        out = {}
        for i in tqdm(range(0, len(cps), CHUNK), desc=desc, leave=False):
            chunk = cps[i : i + CHUNK]
            strings = tf.constant([chr(c).encode("utf-8") for c in chunk])
            for c, s in zip(chunk, fn(strings).numpy()):
                out[c] = s
        return out

    def fold(s):  # BasicTokenizer.lower_case
        s = text.case_fold_utf8(s)
        s = text.normalize_utf8(s, "NFD")
        return tf.strings.regex_replace(s, r"\p{Mn}", "")

    def decode(table):
        return {c: s.decode("utf-8") for c, s in table.items()}

    def members(pattern, desc):
        hits = per_code_point(lambda s: tf.strings.regex_full_match(s, pattern), desc)
        return to_ranges([c for c in cps if hits[c]])

    tables = {"lower": changed(decode(per_code_point(fold, "tf_text fold")))}
    # keras-hub folds each word after splitting: NFKC_Casefold decomposed (NFD), its marks kept, so that
    # canonical ordering and composition across code points can follow (tf_wordpiece.bert.keras_hub).
    casefold = lambda s: text.normalize_utf8(text.case_fold_utf8(s), "NFD")  # noqa: E731
    tables["casefold"] = changed(decode(per_code_point(casefold, "tf_text casefold")))
    for form in ("NFD", "NFKD", "NFC", "NFKC"):
        table = per_code_point(lambda s: text.normalize_utf8(s, form), f"tf_text {form}")
        tables[form.lower()] = changed(decode(table))
    tables["ccc"] = combining_classes(cps, tables["nfd"])
    tables["control"] = members(r"\p{Cc}|\p{Cf}", "tf_text control")
    tables["mn"] = members(r"\p{Mn}", "tf_text mn")  # keras-hub's strip_accents drops them after NFD
    tables["whitespace"] = members(r"\s", "tf_text whitespace")
    tables["punctuation"] = members(TF_TEXT_PUNCTUATION, "tf_text punctuation")
    tables["cjk"] = members(TF_TEXT_CJK, "tf_text cjk")
    return tables


def combining_classes(cps: list[int], nfd: dict[str, list[int]]) -> dict[str, int]:
    """{code point: canonical combining class} of every code point whose class is above 0: for those NFD
    keeps, ICU's (in tensorflow_text), read off its canonical ordering (a mark of class k moves before a
    mark of a lower non-zero class written after it); for those NFD replaces, Python's.

    The marks are found by two orderings, against U+0301 (230) and U+0316 (220). Python's `unicodedata`
    (Unicode 14 on Python 3.11; a class never changes once assigned) names one reference mark per class;
    which side of each reference a mark sorts to gives its class.
    """
    import unicodedata

    import tensorflow_text as text

    def nfd_of(strings: list[str]) -> list[str]:
        encoded = [s.encode("utf-8") for s in strings]
        return [s.decode("utf-8") for s in text.normalize_utf8(encoded, "NFD").numpy()]

    def moves(strings: list[str]) -> list[bool]:  # whether canonical ordering changes each string
        return [out != s for out, s in zip(nfd_of(strings), strings)]

    kept = [chr(c) for c in cps if str(c) not in nfd]
    references = {}
    for ch in kept:
        if unicodedata.combining(ch):
            references.setdefault(unicodedata.combining(ch), ch)
    low = moves([f"a\u0301{ch}" for ch in kept])  # 0 < class < 230
    high = moves([f"a{ch}\u0316" for ch in kept])  # class > 220
    probes = sorted(references.items())
    classes = {}
    for ch in tqdm([ch for ch, lo, hi in zip(kept, low, high) if lo or hi], desc="tf_text classes", leave=False):
        above = moves([f"a{ch}{ref}" for _, ref in probes])  # ch's class > ref's
        below = moves([f"a{ref}{ch}" for _, ref in probes])  # ch's class < ref's
        equal = [k for (k, _), a, b in zip(probes, above, below) if not a and not b]
        consistent = len(equal) == 1 and all(
            (k < equal[0]) == a and (k > equal[0]) == b for (k, _), a, b in zip(probes, above, below)
        )
        if not consistent:
            raise SystemExit(f"U+{ord(ch):04X}: tensorflow_text orders it against no single known class")
        classes[str(ord(ch))] = equal[0]
    for c in nfd:  # NFD replaces these before any ordering: their own class (never a new one) is Python's
        if unicodedata.combining(chr(int(c))):
            classes[c] = unicodedata.combining(chr(int(c)))
    return dict(sorted(classes.items(), key=lambda item: int(item[0])))


def hf_tables(cps: list[int]) -> dict:
    from tokenizers import normalizers, pre_tokenizers

    def normalizer(**flags):
        base = dict(clean_text=False, handle_chinese_chars=False, strip_accents=False, lowercase=False)
        base.update(flags)
        return normalizers.BertNormalizer(**base)

    def per_code_point(norm, desc):
        return {c: norm.normalize_str(chr(c)) for c in tqdm(cps, desc=desc, leave=False)}

    cleaned = per_code_point(normalizer(clean_text=True), "hf clean_text")
    chinese = per_code_point(normalizer(handle_chinese_chars=True), "hf chinese")
    pre = pre_tokenizers.BertPreTokenizer()
    split = {c: len(pre.pre_tokenize_str("a" + chr(c) + "b")) for c in tqdm(cps, desc="hf pre-tokenizer", leave=False)}
    return {
        "deleted": to_ranges([c for c in cps if cleaned[c] == ""]),
        "to_space": to_ranges([c for c in cps if cleaned[c] == " " and c != 0x20]),
        "chinese": to_ranges([c for c in cps if chinese[c] != chr(c)]),
        "strip_accents": changed(per_code_point(normalizer(strip_accents=True), "hf strip_accents")),
        "lower": changed(per_code_point(normalizer(lowercase=True), "hf lowercase")),
        # "a" + c + "b" splits into 2 words around white space, 3 around punctuation.
        "whitespace": to_ranges([c for c in cps if split[c] == 2]),
        "punctuation": to_ranges([c for c in cps if split[c] == 3]),
    }


def build() -> dict:
    import tensorflow_text
    import tokenizers

    cps = code_points()
    return {
        "provenance": {
            "tensorflow_text": tensorflow_text.__version__,
            "tokenizers": tokenizers.__version__,
            "generator": "tools/gen_unicode_tables.py",
        },
        "tf_text": tf_text_tables(cps),
        "hf": hf_tables(cps),
    }


def main() -> int:
    tables = build()
    tmp = OUT.with_suffix(".tmp")
    with gzip.open(tmp, "wt", encoding="utf-8") as f:
        json.dump(tables, f, sort_keys=True, separators=(",", ":"))
    tmp.replace(OUT)
    print(f"wrote {OUT} ({OUT.stat().st_size:,} bytes)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
