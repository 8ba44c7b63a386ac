"""Hard input strings for BERT WordPiece tokenizer parity tests.

This module is pure test data. It is used to compare our tokenizer against
``tensorflow_text.BertTokenizer`` and the Hugging Face ``tokenizers``
implementation of ``bert-base-uncased`` (lower casing, accent stripping,
Chinese-character splitting, punctuation splitting, control-character
removal, WordPiece with ``max_input_chars_per_word=100``).

* ``HARD_STRINGS`` -- a list of distinct ``str`` values that are all valid
  Unicode scalar sequences (no surrogates), so each one can be encoded as
  UTF-8. They are grouped by the normalization / splitting rule they stress.
* ``INVALID_UTF8`` -- a list of ``bytes`` values that are NOT valid UTF-8
  and must be handled (rejected or replaced) consistently.

The source is kept ASCII-only: every non-ASCII character is written with a
``\\x``, ``\\u`` or ``\\U`` escape, with a comment naming the non-obvious ones.
No third-party imports are needed.
"""


def _dedupe(items: list[str]) -> list[str]:
    """Return ``items`` without duplicates, keeping first-seen order."""
    seen: set[str] = set()
    out: list[str] = []
    for item in items:
        if item not in seen:
            seen.add(item)
            out.append(item)
    return out


_S: list[str] = []

# ---------------------------------------------------------------------------
# Trivial / degenerate inputs
# ---------------------------------------------------------------------------
_S += [
    "",
    " ",
    "  ",
    "     ",
    "\t",
    "\n",
    "\r\n",
    " \t \n \r ",
    "a",
    "A",
    ".",
    "...",
    "!?!?",
    "?!.,;:",
    "()[]{}<>",
    "\"'`",
    "-",
    "--",
    "_",
    "___",
    "@#$%^&*",
    "hello",
    "Hello, World!",
    "  leading spaces",
    "trailing spaces   ",
    "  both sides  ",
    "\tleading tab",
    "trailing newline\n",
    "\n\nleading newlines",
    "trailing crlf\r\n",
    "\u00a0leading nbsp",  # NBSP
    "trailing nbsp\u00a0",
    "\u3000leading ideographic space",
    "trailing ideographic space\u3000",
    "0",
    "00000",
    "1234567890",
]

# ---------------------------------------------------------------------------
# ASCII control characters (C0: \x00-\x1f, and DEL \x7f)
# Tab/LF/CR are white space for BERT; the rest are removed as controls.
# ---------------------------------------------------------------------------
for _cp in list(range(0x00, 0x20)) + [0x7F]:
    _c = chr(_cp)
    _S.append("a" + _c + "b")  # inside a word
    _S.append("hello" + " " + _c + " " + "world")  # between words
_S += [
    "\x00",
    "\x00\x00\x00",
    "\x00hello",
    "hello\x00",
    "\x01\x02\x03abc\x04\x05",
    "\x7f",
    "\x7fdel\x7f",
    "\x1b[31mred\x1b[0m",  # ANSI colour escape
    "bell\x07bell",
    "back\x08space",
    "vertical\x0btab",  # VT
    "form\x0cfeed",  # FF
    "a\x0b\x0cb",
    "unit\x1fseparator\x1erecord",
    "\x1c\x1d\x1e\x1f",
    "tab\tseparated\tvalues",
    "line1\nline2\rline3\r\nline4",
    "\x00 \x00 \x00",
    "[MASK]\x00[SEP]",
]

# ---------------------------------------------------------------------------
# C1 controls (\x80-\x9f). \x85 is NEL (next line), which Python treats as
# white space but Unicode gives category Cc.
# ---------------------------------------------------------------------------
for _cp in range(0x80, 0xA0):
    _S.append("a" + chr(_cp) + "b")
_S += [
    "\x85",
    "line\x85next",
    "hello \x85 world",
    "\x85leading NEL",
    "trailing NEL\x85",
    "\x80\x81\x82",
    "caf\x82e",
    "\x9b31mcsi\x9b0m",  # CSI (C1 escape)
    "\x9f\x9e\x9d",
]

# ---------------------------------------------------------------------------
# Unusual white space (Zs, Zl, Zp and friends)
# ---------------------------------------------------------------------------
_WHITESPACE = [
    "\u00a0",  # NO-BREAK SPACE
    "\u1680",  # OGHAM SPACE MARK
    "\u2000",  # EN QUAD
    "\u2001",  # EM QUAD
    "\u2002",  # EN SPACE
    "\u2003",  # EM SPACE
    "\u2004",  # THREE-PER-EM SPACE
    "\u2005",  # FOUR-PER-EM SPACE
    "\u2006",  # SIX-PER-EM SPACE
    "\u2007",  # FIGURE SPACE
    "\u2008",  # PUNCTUATION SPACE
    "\u2009",  # THIN SPACE
    "\u200a",  # HAIR SPACE
    "\u2028",  # LINE SEPARATOR (Zl)
    "\u2029",  # PARAGRAPH SEPARATOR (Zp)
    "\u202f",  # NARROW NO-BREAK SPACE
    "\u205f",  # MEDIUM MATHEMATICAL SPACE
    "\u3000",  # IDEOGRAPHIC SPACE
    "\u180e",  # MONGOLIAN VOWEL SEPARATOR (Cf since Unicode 6.3)
]
for _ws in _WHITESPACE:
    _S.append("hello" + _ws + "world")
    _S.append(_ws)
_S += [
    "a\tb\nc\rd\x0be\x0cf",
    "a \t\n\r\x0b\x0c b",
    " \u00a0\u2003\u3000\t\u2009 ",
    "word\u00a0\u00a0\u00a0word",
    "x\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200ay",
    "\u3000\u3000\u3000",
    "\u2028\u2029",
    "multiple     spaces     between",
    "tabs\t\t\tand\t\tspaces",
    "\r\r\r",
    "\n \n \n",
    "price:\u202f42\u202f\u20ac",  # narrow NBSP before euro sign
    "10\u2009000\u2009000",  # thin space as thousands separator
    "\u1680\u1680ogham",
]

# ---------------------------------------------------------------------------
# Zero-width characters and bidi / format controls (category Cf)
# ---------------------------------------------------------------------------
_FORMAT = [
    "\u200b",  # ZERO WIDTH SPACE
    "\u200c",  # ZERO WIDTH NON-JOINER
    "\u200d",  # ZERO WIDTH JOINER
    "\ufeff",  # BYTE ORDER MARK / ZWNBSP
    "\u00ad",  # SOFT HYPHEN
    "\u2060",  # WORD JOINER
    "\u200e",  # LEFT-TO-RIGHT MARK
    "\u200f",  # RIGHT-TO-LEFT MARK
    "\u202a",  # LEFT-TO-RIGHT EMBEDDING
    "\u202b",  # RIGHT-TO-LEFT EMBEDDING
    "\u202c",  # POP DIRECTIONAL FORMATTING
    "\u202d",  # LEFT-TO-RIGHT OVERRIDE
    "\u202e",  # RIGHT-TO-LEFT OVERRIDE
    "\u2066",  # LEFT-TO-RIGHT ISOLATE
    "\u2067",  # RIGHT-TO-LEFT ISOLATE
    "\u2068",  # FIRST STRONG ISOLATE
    "\u2069",  # POP DIRECTIONAL ISOLATE
    "\u2061",  # FUNCTION APPLICATION
    "\u2062",  # INVISIBLE TIMES
    "\u2063",  # INVISIBLE SEPARATOR
    "\u2064",  # INVISIBLE PLUS
    "\u206a",  # INHIBIT SYMMETRIC SWAPPING (deprecated)
    "\u034f",  # COMBINING GRAPHEME JOINER (Mn, default-ignorable)
    "\U000e0001",  # LANGUAGE TAG
    "\U000e0041",  # TAG LATIN CAPITAL LETTER A
]
for _f in _FORMAT:
    _S.append("hel" + _f + "lo")
    _S.append("hello" + _f + " world")
    _S.append(_f)
_S += [
    "\ufeffBOM at start",
    "BOM at end\ufeff",
    "\ufeff\ufeff\ufeff",
    "zero\u200bwidth\u200bspace\u200bseparated",
    "\u200b\u200b\u200b",
    "\u200b \u200b",
    "co\u00adop\u00adera\u00adtion",  # soft hyphens inside a word
    "\u202eevil.exe\u202c",
    "\u2067\u05e9\u05dc\u05d5\u05dd\u2069 world",  # isolated Hebrew 'shalom'
    "\u200e(\u200fabc\u200e)\u200f",
    "[\u200bMASK]",
    "[MASK\u200b]",
    "\u200b[MASK]\u200b",
    "un\u2060breakable",
]

# ---------------------------------------------------------------------------
# Arabic and other prepended / format characters
# ---------------------------------------------------------------------------
_S += [
    "\u0600\u0661\u0662",  # ARABIC NUMBER SIGN + Arabic-Indic digits
    "\u0601\u0663",  # ARABIC SIGN SANAH
    "\u0602\u0664",  # ARABIC FOOTNOTE MARKER
    "\u0603\u0665",  # ARABIC SIGN SAFHA
    "\u0604\u0666",  # ARABIC SIGN SAMVAT
    "\u0605\u0667",  # ARABIC NUMBER MARK ABOVE
    "\u06dd\u0661\u0662\u0663",  # ARABIC END OF AYAH
    "\u070f\u0710",  # SYRIAC ABBREVIATION MARK + alaph
    "\u08e2",  # ARABIC DISPUTED END OF AYAH
    "\u0890\u0891",  # ARABIC POUND/PIASTRE MARK ABOVE (Cf)
    "\U000110bd\U00011083",  # KAITHI NUMBER SIGN + letter
    "a\ufff9b\ufffac\ufffbd",  # INTERLINEAR ANNOTATION anchor/separator/terminator
    "\ufff9\u6f22\ufffa\u304b\u3093\ufffb",  # annotated kanji (ruby)
    "\U0001bca0\U0001bca3",  # SHORTHAND FORMAT controls
    "\U0001d173music\U0001d17a",  # MUSICAL SYMBOL BEGIN/END formatting
]

# ---------------------------------------------------------------------------
# Combining marks (Mn, Mc, Me)
# ---------------------------------------------------------------------------
_S += [
    "e\u0301",  # e + COMBINING ACUTE
    "cafe\u0301",  # decomposed cafe
    "CAFE\u0301",
    "re\u0301sume\u0301",
    "n\u0303",  # n + COMBINING TILDE
    "a\u0300\u0301\u0302\u0303\u0304",  # stacked marks on one base
    "Z\u0351\u036b\u0343\u036a\u0302\u036b\u033d\u034f\u0334\u0319\u0324\u031e\u0349\u035a\u032f\u031e\u0320\u034dA\u036b\u0357\u0334\u0362\u0335\u031c\u0330\u0354L\u0368\u0367\u0369\u0358\u0320G\u0311\u0357\u034e\u0345\u031bO",  # "zalgo" text
    "\u0301",  # lone combining mark
    "\u0301abc",  # mark at string start
    " \u0301abc",  # mark after a space
    "abc \u0301",  # mark at end after space
    "\u0301\u0302\u0303",  # only marks
    ".\u0301",  # mark on punctuation
    "!\u0301?",
    "1\u0301",  # mark on a digit
    "\u4e2d\u0301",  # mark on a CJK ideograph
    "o\u0308",  # o + COMBINING DIAERESIS
    "u\u031b\u0323",  # u + HORN + DOT BELOW (Vietnamese)
    "\u0915\u0903",  # Devanagari KA + VISARGA (Mc)
    "\u0915\u093e",  # KA + AA sign (Mc)
    "\u0915\u094d\u0937",  # KA + VIRAMA + SSA (conjunct ksha)
    "a\u20dd",  # COMBINING ENCLOSING CIRCLE (Me)
    "1\u20de",  # COMBINING ENCLOSING SQUARE (Me)
    "\u20dd",  # lone enclosing mark
    "x\u20e3",  # COMBINING ENCLOSING KEYCAP (Me)
    "\u0488\u0430",  # COMBINING CYRILLIC HUNDRED THOUSANDS SIGN (Me)
    "\u0e01\u0e34\u0e48",  # Thai KO KAI + SARA I + MAI EK
    "\u0ba4\u0bae\u0bbf\u0bb4\u0bcd",  # Tamil 'tamil'
    "\u0b95\u0bca",  # Tamil KA + vowel sign O (two-part, Mc)
    "\u0dc1\u0dca\u200d\u0dbb\u0dd3",  # Sinhala with ZWJ (Sri)
    "\u1000\u103c\u102c",  # Myanmar with medial and vowel sign
    "\u05e9\u05c1\u05b8",  # Hebrew SHIN + SHIN DOT + QAMATS
    "\u0628\u0650\u0633\u0652\u0645\u0650",  # Arabic 'bism' with harakat
    "a\u0345",  # COMBINING GREEK YPOGEGRAMMENI
    "\u03b1\u0313\u0342\u0345",  # alpha + psili + perispomeni + ypogegrammeni
    "e\u0301\u0301\u0301\u0301\u0301\u0301\u0301\u0301\u0301\u0301",
    "\U0001d165\U0001d16d",  # MUSICAL SYMBOL COMBINING STEM + AUGMENTATION DOT (Mc)
    "\u1ab0\u1dc0abc",  # combining diacritical marks extended/supplement
    "\ufe20\ufe21",  # combining half marks
]

# ---------------------------------------------------------------------------
# Precomposed accents in many languages
# ---------------------------------------------------------------------------
_S += [
    # French
    "caf\u00e9",
    "CAF\u00c9",
    "\u00c0 la fa\u00e7on fran\u00e7aise, o\u00f9 est l'h\u00f4tel?",
    "\u00e9l\u00e8ve na\u00efve No\u00ebl c\u0153ur \u0152uvre",
    "\u00c9COLE \u00c9T\u00c9 \u00c2ME \u00ceLE \u00d4TER \u00dbR \u0178",
    # German
    "Stra\u00dfe",  # sharp s
    "STRASSE",
    "\u1e9e",  # LATIN CAPITAL LETTER SHARP S
    "GRO\u1e9eE",
    "gro\u00dfe",
    "\u00e4\u00f6\u00fc\u00c4\u00d6\u00dc\u00df",
    "M\u00fcller-L\u00fcdenscheidt \u00fcber \u00c4rger",
    # Spanish / Portuguese
    "\u00bfD\u00f3nde est\u00e1 el ni\u00f1o?",
    "\u00a1Ma\u00f1ana!",
    "S\u00e3o Paulo, cora\u00e7\u00e3o, a\u00e7\u00facar",
    # Vietnamese with stacked diacritics
    "Ti\u1ebfng Vi\u1ec7t",
    "\u0111\u01b0\u1eddng ph\u1ed1 H\u00e0 N\u1ed9i",
    "\u1ef0\u1eea\u1eec\u1eee\u1eec",
    "Nguy\u1ec5n \u0110\u1ee9c Th\u1eafng",
    "ng\u01b0\u01a1\u0300i",  # partly decomposed: o-horn + combining grave
    # Polish
    "Za\u017c\u00f3\u0142\u0107 g\u0119\u015bl\u0105 ja\u017a\u0144",
    "\u0141\u00f3d\u017a \u015aWI\u0118TOKRZYSKIE",
    # Czech / Slovak
    "P\u0159\u00edli\u0161 \u017elu\u0165ou\u010dk\u00fd k\u016f\u0148 \u00fap\u011bl \u010f\u00e1belsk\u00e9 \u00f3dy",
    "\u0158E\u0160\u011a\u017d\u010c",
    # Turkish dotted / dotless i
    "\u0130stanbul",  # LATIN CAPITAL LETTER I WITH DOT ABOVE
    "\u0131s\u0131k",  # dotless i
    "I\u0131\u0130i",
    "D\u0130YARBAKIR",
    "\u0130",
    "\u0131",
    "\u011f\u015f\u00e7\u00f6\u00fc\u0131 \u011e\u015e\u00c7\u00d6\u00dc\u0130",
    # Nordic / other Latin
    "\u00c5ngstr\u00f6m \u00c6r\u00f8sk\u00f8bing \u00de\u00f3r \u00f0",
    "\u00d8resund \u00e6 \u00f8 \u00e5",
    "Rom\u00e2n\u0103: \u0219i \u021b\u0103ri",  # Romanian comma-below
    "Rom\u00e2n\u0103: \u015fi \u0163\u0103ri",  # Romanian cedilla variants
    "Hrvatski: \u0107\u010d\u0111\u0161\u017e",
    "Magyar: \u0151\u0171\u0150\u0170",
    "Latvie\u0161u: \u0101\u0113\u012b\u016b\u0137\u013c\u0146",
    "\u01c4\u01c5\u01c6 \u01c7\u01c8\u01c9",  # DZ/Dz/dz with caron, LJ digraphs
    "\u0149",  # LATIN SMALL LETTER N PRECEDED BY APOSTROPHE
]

# ---------------------------------------------------------------------------
# Greek (final sigma, tonos, polytonic)
# ---------------------------------------------------------------------------
_S += [
    "\u039f\u0394\u039f\u03a3",  # ODOS upper case
    "\u03bf\u03b4\u03bf\u03c2",  # odos with final sigma
    "\u03a3\u03af\u03c3\u03c5\u03c6\u03bf\u03c2",  # Sisyphos
    "\u039f\u0394\u039f\u03a3.",  # final capital sigma before period
    "\u039f\u0394\u039f\u03a3, \u039a\u0391\u0399",
    "\u039f\u0394\u039f\u03a3!",
    "\u03a3",
    "\u03a3\u03a3",
    "\u03a3.",
    "(\u039b\u039f\u0393\u039f\u03a3)",
    "\u0391\u0398\u0397\u039d\u0391 \u03a3\u03a0\u0391\u03a1\u03a4\u0397",
    "\u0395\u03bb\u03bb\u03b7\u03bd\u03b9\u03ba\u03ac: \u03ba\u03b1\u03bb\u03b7\u03bc\u03ad\u03c1\u03b1 \u03ba\u03cc\u03c3\u03bc\u03b5;",  # ends in Greek question mark
    "\u1f08\u03b8\u1fc6\u03bd\u03b1\u03b9",  # polytonic Athenai
    "\u1f00\u03c1\u03c7\u1f74 \u1f21\u03bc\u03b9\u03c3\u03c5 \u03c0\u03b1\u03bd\u03c4\u03cc\u03c2",
    "\u0390\u03b0",  # iota/upsilon with dialytika and tonos
    "\u03d0\u03d1\u03d5\u03d6\u03f0\u03f1\u03f5",  # Greek symbol variants
    "\u037e",  # GREEK QUESTION MARK (canonically ';')
    "\u0387",  # GREEK ANO TELEIA
]

# ---------------------------------------------------------------------------
# Ligatures and compatibility letters
# ---------------------------------------------------------------------------
_S += [
    "\ufb01",  # fi ligature
    "\ufb02",  # fl ligature
    "\ufb00",  # ff ligature
    "\ufb03",  # ffi ligature
    "\ufb04",  # ffl ligature
    "\ufb05\ufb06",  # long st, st ligatures
    "\ufb01nance \ufb02ow o\ufb03ce stu\ufb00 \ufb06op",
    "\u0132sselmeer \u0133s",  # IJ / ij digraphs
    "\u0149 \u0149ot",  # n preceded by apostrophe
    "\u017f",  # LATIN SMALL LETTER LONG S
    "\u01f0",  # j with caron (no precomposed capital)
    "\u1e96\u1e97\u1e98\u1e99",  # letters with no precomposed upper case
    "\u00df\ufb00",
]

# ---------------------------------------------------------------------------
# Fullwidth / halfwidth forms
# ---------------------------------------------------------------------------
_S += [
    "\uff21\uff22\uff23",  # FULLWIDTH A B C
    "\uff48\uff45\uff4c\uff4c\uff4f",  # fullwidth 'hello'
    "\uff21\uff01",  # fullwidth A + fullwidth !
    "\uff11\uff12\uff13",  # fullwidth digits
    "\uff08\uff09\uff3b\uff3d\uff5b\uff5d",  # fullwidth brackets
    "\uff1f\uff01\uff0c\uff0e\uff1a\uff1b",  # fullwidth ? ! , . : ;
    "\uff3bMASK\uff3d",  # fullwidth brackets around MASK
    "\uff36\uff29\uff30",
    "\uff04\uff05\uff06\uff20",  # fullwidth $ % & @
    "\uff76",  # HALFWIDTH KATAKANA KA
    "\uff76\uff9e",  # halfwidth KA + voiced sound mark
    "\uff8a\uff9f",  # halfwidth HA + semi-voiced mark
    "\uff83\uff9e\uff70\uff80\uff8d\uff9e\uff70\uff7d",  # halfwidth 'deetabeesu'
    "\uff7a\uff9d\uff8b\uff9f\uff6d\uff70\uff80",  # halfwidth 'konpyuuta'
    "\uff61\uff62\uff63\uff64\uff65",  # halfwidth CJK punctuation
    "\uffe0\uffe1\uffe5\uffe6",  # fullwidth cent, pound, yen, won
    "\uffe8\uffed\uffee",  # halfwidth forms light vertical, square, circle
]

# ---------------------------------------------------------------------------
# Superscripts, subscripts, fractions, letterlike symbols, math alphanumerics
# ---------------------------------------------------------------------------
_S += [
    "x\u00b2 + y\u00b2 = z\u00b2",  # superscript two
    "10\u207b\u00b3",  # superscript minus three
    "H\u2082O",  # subscript two
    "C\u2086H\u2081\u2082O\u2086",
    "\u00bd \u00bc \u00be",  # vulgar fractions
    "\u2153\u2154\u215b\u2189",  # one third, two thirds, one eighth, zero thirds
    "1\u20442",  # FRACTION SLASH
    "\u2070\u00b9\u00b2\u00b3\u2074\u2075\u2076\u2077\u2078\u2079",
    "\u2080\u2081\u2082\u2083\u2084\u2085\u2086\u2087\u2088\u2089",
    "\u1d43\u1d47\u1d9c\u207f\u2071",  # modifier small letters
    "\u2122",  # TRADE MARK SIGN
    "Google\u2122 and Apple\u00ae \u00a9 2024",
    "\u2113",  # SCRIPT SMALL L
    "\u2116 5",  # NUMERO SIGN
    "\u211d\u2115\u2124\u211a\u2102",  # double-struck R N Z Q C
    "\u212a",  # KELVIN SIGN
    "\u212b",  # ANGSTROM SIGN
    "\u2126",  # OHM SIGN
    "273\u212a and 5\u212b and 10\u2126",
    "\u2103 \u2109",  # degree Celsius / Fahrenheit
    "\u2160\u2161\u2162\u2163 \u2170\u2171\u2172",  # Roman numerals
    "\u2460\u2461\u2462 \u24b6\u24d0",  # circled digits and letters
    "\u3371\u3392\u33a1",  # CJK squared units
    "\U0001d400\U0001d401\U0001d402",  # MATHEMATICAL BOLD A B C
    "\U0001d538\U0001d539",  # MATHEMATICAL DOUBLE-STRUCK A B
    "\U0001d504\U0001d51e",  # MATHEMATICAL FRAKTUR A, a
    "\U0001d7ce\U0001d7cf\U0001d7d0",  # MATHEMATICAL BOLD DIGITS 0 1 2
    "\U0001d5db\U0001d5f2\U0001d5f9\U0001d5f9\U0001d5fc",  # sans-serif bold 'Hello'
    "\U0001d6a8\U0001d6c2",  # MATHEMATICAL BOLD ALPHA (capital/small)
    "\U0001f130\U0001f131",  # SQUARED LATIN CAPITAL LETTER A, B
]

# ---------------------------------------------------------------------------
# Case-pairs in less common scripts
# ---------------------------------------------------------------------------
_S += [
    "\u13a0\u13a1\u13a2",  # Cherokee upper case
    "\uab70\uab71\uab72",  # Cherokee small letters
    "\u13f8\u13f9\u13fa",  # Cherokee small ye/yi/yo
    "\u13a3\u13b3\u13a9 \uab73\uab83\uab79",
    "\u10e5\u10d0\u10e0\u10d7\u10e3\u10da\u10d8",  # Georgian Mkhedruli 'kartuli'
    "\u1c95\u1c90\u1ca0\u1c97\u1ca3\u1c9a\u1c98",  # Georgian Mtavruli 'KARTULI'
    "\u10a0\u10a1\u2d00\u2d01",  # Georgian Asomtavruli / Nuskhuri
    "\u0531\u0562\u0578\u057e\u0575\u0561\u0576",  # Armenian 'Abovyan'
    "\u0587",  # ARMENIAN SMALL LIGATURE ECH YIWN
    "\U00010400\U00010428",  # Deseret capital / small
    "\u2c00\u2c30",  # Glagolitic capital / small
    "\U0001e900\U0001e922",  # Adlam capital / small
    "\u0130\u0307",  # I with dot above + extra combining dot
]

# ---------------------------------------------------------------------------
# Hangul: syllables, conjoining jamo and fillers
# ---------------------------------------------------------------------------
_S += [
    "\ud55c\uad6d\uc5b4",  # 'hangugeo' (Korean language)
    "\uc548\ub155\ud558\uc138\uc694",  # 'annyeonghaseyo'
    "\uc548\ub155\ud558\uc138\uc694 \uc138\uacc4!",
    "\u1112\u1161\u11ab\u1100\u1173\u11af",  # conjoining jamo for 'hangeul'
    "\u3131\u3134\u3137\u314f\u3153",  # compatibility jamo
    "\u115f",  # HANGUL CHOSEONG FILLER
    "\u1160",  # HANGUL JUNGSEONG FILLER
    "\u3164",  # HANGUL FILLER
    "\uffa0",  # HALFWIDTH HANGUL FILLER
    "a\u115fb\u1160c\u3164d\uffa0e",
    "\u115f\u1161",  # filler + vowel
    "\uffa1\uffa4\uffc2",  # halfwidth jamo
    "\uac00\ud7a3",  # first and last precomposed syllables
    "\u3200\u3260\u327e",  # parenthesized / circled Hangul
]

# ---------------------------------------------------------------------------
# CJK: unified ideographs, extensions, compatibility, radicals
# ---------------------------------------------------------------------------
_S += [
    "\u4e2d\u6587",  # Chinese 'zhongwen'
    "\u6211\u7231\u5317\u4eac\u5929\u5b89\u95e8",
    "\u4eca\u5929\u5929\u6c14\u5f88\u597d\u3002",
    "abc\u4e2d\u6587def",
    "\u4e00",  # first URO ideograph
    "\u9fff",  # last URO code point
    "\u4e00\u4e00\u4e00",
    "\u3400",  # CJK Ext A first
    "\u4dbf",  # CJK Ext A last
    "\U00020000",  # CJK Ext B first
    "\U0002a6df",  # CJK Ext B last
    "\U0002a700",  # CJK Ext C first
    "\U0002b740",  # CJK Ext D first
    "\U0002b820",  # CJK Ext E first
    "\U0002b920",  # CJK Ext E
    "\U0002ceb0",  # CJK Ext F first
    "\U00030000",  # CJK Ext G first
    "\U00031350",  # CJK Ext H first
    "\U0002ebf0",  # CJK Ext I first
    "x\u3400y\U00020000z\U0002a700w",
    "\U00020000\U0002a700\U0002b740\U0002b820\U0002ceb0\U00030000\U00031350\U0002ebf0",
    "\uf900",  # CJK COMPATIBILITY IDEOGRAPH-F900
    "\ufa0e",  # compatibility ideograph that is unified
    "\U0002f800",  # CJK COMPATIBILITY IDEOGRAPH SUPPLEMENT first
    "\u2f00\u2f01\u2fd5",  # Kangxi radicals
    "\u2e80\u2e81",  # CJK radicals supplement
    "\u2ff0\u2ff1",  # ideographic description characters
    "\u3005\u3006\u3007",  # ideographic iteration mark, closing mark, zero
    "\u31c0\u31c1",  # CJK strokes
    "\u3021\u3022",  # Hangzhou numerals
    "\u3038\u3039",  # Hangzhou numerals ten/twenty
]

# ---------------------------------------------------------------------------
# Japanese: kana mixed with Latin and kanji
# ---------------------------------------------------------------------------
_S += [
    "\u3053\u3093\u306b\u3061\u306f",  # hiragana 'konnichiwa'
    "\u30ab\u30bf\u30ab\u30ca",  # katakana 'katakana'
    "\u65e5\u672c\u8a9e\u3067\u8aac\u660e\u3057\u307e\u3059\u3002",
    "\u79c1\u306fAI\u30a8\u30f3\u30b8\u30cb\u30a2\u3067\u3059",
    "iPhone\u3092\u8cb7\u3063\u305f",
    "\u30b3\u30fc\u30d2\u30fc",  # 'koohii' with long vowel mark
    "\u30f4\u30a1\u30a4\u30aa\u30ea\u30f3",  # 'vaiorin'
    "\u304b\u3099",  # KA + COMBINING VOICED SOUND MARK
    "\u30cf\u309a",  # HA + COMBINING SEMI-VOICED SOUND MARK
    "\u309b\u309c",  # spacing voiced / semi-voiced marks
    "\u3063\u30c3\u3083\u30e3",  # small tsu and ya
    "\u309f\u30ff",  # hiragana/katakana digraphs yori, koto
    "\u3231\u32a4\u3300",  # parenthesized ideograph, circled ideograph, square apaato
    "\U0001b001\U0001b11f",  # hentaigana
]

# ---------------------------------------------------------------------------
# South-east Asian scripts without spaces, Indic scripts
# ---------------------------------------------------------------------------
_S += [
    "\u0e20\u0e32\u0e29\u0e32\u0e44\u0e17\u0e22\u0e07\u0e48\u0e32\u0e22\u0e21\u0e32\u0e01",  # Thai
    "\u0e2a\u0e27\u0e31\u0e2a\u0e14\u0e35\u0e04\u0e23\u0e31\u0e1a",
    "\u0e9e\u0eb2\u0eaa\u0eb2\u0ea5\u0eb2\u0ea7",  # Lao
    "\u1797\u17b6\u179f\u17b6\u1781\u17d2\u1798\u17c2\u179a",  # Khmer with coeng
    "\u1019\u103c\u1014\u103a\u1019\u102c\u1005\u102c",  # Myanmar
    "\u0f56\u0f7c\u0f51\u0f0b\u0f66\u0f90\u0f51\u0f0d",  # Tibetan with tsheg and shad
    "\u0928\u092e\u0938\u094d\u0924\u0947",  # Devanagari 'namaste'
    "\u0939\u093f\u0928\u094d\u0926\u0940 \u092d\u093e\u0937\u093e\u0964",  # Hindi + danda
    "\u0915\u094d\u0937\u0924\u094d\u0930\u093f\u092f",
    "\u0905\u0901\u0917\u094d\u0930\u0947\u091c\u093c\u0940",  # with candrabindu and nukta
    "\u0915\u093c",  # KA + NUKTA (decomposed qa)
    "\u0958",  # DEVANAGARI LETTER QA (composition-excluded)
    "\u09ac\u09be\u0982\u09b2\u09be",  # Bengali 'bangla'
    "\u0a2a\u0a70\u0a1c\u0a3e\u0a2c\u0a40",  # Gurmukhi 'panjabi'
    "\u0c24\u0c46\u0c32\u0c41\u0c17\u0c41",  # Telugu
    "\u0d2e\u0d32\u0d2f\u0d3e\u0d33\u0d02",  # Malayalam
    "\u0a97\u0ac1\u0a9c\u0ab0\u0abe\u0aa4\u0ac0",  # Gujarati
    "\u0c95\u0ca8\u0ccd\u0ca8\u0ca1",  # Kannada
    "\u0dc3\u0dd2\u0d82\u0dc4\u0dbd",  # Sinhala
    "\u1200\u121b\u122d\u129b",  # Ethiopic
    "\u1361\u1362\u1363",  # Ethiopic punctuation
    "\u1820\u182e\u1823\u1828\u182d\u1824\u182f",  # Mongolian
    "\u13b1\u13c5\u13a9",  # Cherokee
]

# ---------------------------------------------------------------------------
# Right-to-left scripts with vowel marks
# ---------------------------------------------------------------------------
_S += [
    "\u0627\u0644\u0639\u0631\u0628\u064a\u0629",  # Arabic 'al-arabiyya'
    "\u0645\u064e\u0631\u0652\u062d\u064e\u0628\u064b\u0627",  # 'marhaban' with harakat
    "\u0628\u0650\u0633\u0652\u0645\u0650 \u0671\u0644\u0644\u0651\u064e\u0647\u0650",
    "\u0643\u064a\u0641 \u062d\u0627\u0644\u0643\u061f",  # ends in ARABIC QUESTION MARK
    "\u0646\u0639\u0645\u060c \u0634\u0643\u0631\u0627",  # ARABIC COMMA
    "\u0644\u0627 \ufefb \ufef5",  # lam-alef and its presentation forms
    "\ufdfa \ufdfd",  # Arabic ligature presentation forms
    "\u0640\u0640\u0640",  # ARABIC TATWEEL
    "\u05e2\u05d1\u05e8\u05d9\u05ea",  # Hebrew 'ivrit'
    "\u05e9\u05b8\u05c1\u05dc\u05d5\u05b9\u05dd",  # 'shalom' with niqqud
    "\u05d1\u05bc\u05b0\u05e8\u05b5\u05d0\u05e9\u05c1\u05b4\u05d9\u05ea",  # 'bereshit'
    "\u05be\u05c0\u05c3\u05f3\u05f4",  # Hebrew punctuation maqaf, paseq, sof pasuq, geresh, gershayim
    "\ufb1d\ufb2a\ufb4f",  # Hebrew presentation forms
    "\u0710\u0723\u0718\u072a\u071d\u0710",  # Syriac
    "\u0780\u07a8\u0788\u07ac\u0780\u07a8",  # Thaana
    "\u07ca\u07d3\u07e1",  # NKo
    "Hello \u05e9\u05dc\u05d5\u05dd world \u0645\u0631\u062d\u0628\u0627",
]

# ---------------------------------------------------------------------------
# Digits of other scripts
# ---------------------------------------------------------------------------
_S += [
    "\u0660\u0661\u0662\u0663",  # Arabic-Indic digits
    "\u0663",  # ARABIC-INDIC DIGIT THREE
    "\u06f0\u06f1\u06f2",  # Extended Arabic-Indic (Persian) digits
    "\u0969",  # DEVANAGARI DIGIT THREE
    "\u0966\u0967\u0968\u0969",
    "\u0e53",  # THAI DIGIT THREE
    "\u0e51\u0e52\u0e53\u0e54",
    "\u09e7\u09e8\u09e9",  # Bengali digits
    "\u0f20\u0f21\u0f22",  # Tibetan digits
    "\u1040\u1041\u1042",  # Myanmar digits
    "\u17e0\u17e1\u17e2",  # Khmer digits
    "\u1369\u136a\u136b",  # Ethiopic digits (No, not Nd)
    "\u3007\u4e00\u4e8c\u4e09",  # CJK numerals
    "\u0661\u0662\u0663abc\u0969",
]

# ---------------------------------------------------------------------------
# Emoji
# ---------------------------------------------------------------------------
_S += [
    "\U0001f600",  # grinning face
    "\U0001f602\U0001f602\U0001f602",
    "I love you \u2764\ufe0f",  # heart + VS16
    "\u2764",  # heart without variation selector
    "\u2764\ufe0e",  # heart + VS15 (text presentation)
    "\u263a\ufe0f \u263a\ufe0e",
    "\U0001f44d",  # thumbs up
    "\U0001f44d\U0001f3fb",  # + skin tone light
    "\U0001f44d\U0001f3ff",  # + skin tone dark
    "\U0001f3fd",  # lone skin tone modifier
    "\U0001f468\u200d\U0001f469\u200d\U0001f467\u200d\U0001f466",  # family ZWJ sequence
    "\U0001f469\U0001f3fd\u200d\U0001f4bb",  # woman technologist, medium skin
    "\U0001f3f3\ufe0f\u200d\U0001f308",  # rainbow flag
    "\U0001f3f4\u200d\u2620\ufe0f",  # pirate flag
    "\U0001f1fa\U0001f1f8",  # flag US (regional indicators)
    "\U0001f1ef\U0001f1f5\U0001f1e9\U0001f1ea",  # JP DE flags back to back
    "\U0001f1e6",  # lone regional indicator
    "\U0001f3f4\U000e0067\U000e0062\U000e0073\U000e0063\U000e0074\U000e007f",  # Scotland tag sequence
    "1\ufe0f\u20e3",  # keycap 1
    "#\ufe0f\u20e3 *\ufe0f\u20e3",  # keycap # and *
    "\U0001f51f",  # keycap ten
    "\U0001f971",  # yawning face (Unicode 12)
    "\U0001f90f",  # pinching hand (12)
    "\U0001f9be",  # mechanical arm (12)
    "\U0001fae0",  # melting face (14)
    "\U0001fabf",  # goose (15)
    "\U0001fae8",  # shaking face (15)
    "\U0001fae9",  # face with bags under eyes (16)
    "\U0001f642\u200d\u2194\ufe0f",  # head shaking horizontally (15.1)
    "hello\U0001f600world",
    "\U0001f600hello",
    "lol\U0001f602\U0001f602 ok\U0001f44c",
    "\U0001f0cf\U0001f004",  # playing card joker, mahjong tile
    "\u2600\u2601\u2602",  # misc symbols
    "\u00a9\ufe0f \u00ae\ufe0f",
    "\ufe0f",  # lone VS16
    "a\ufe00b\U000e0100c",  # VS1 and VS17 (ideographic variation)
    "\u845b\U000e0100",  # ideographic variation sequence
]

# ---------------------------------------------------------------------------
# Private use, unassigned, noncharacters, replacement character
# (unassigned code points chosen to stay unassigned through Unicode 16)
# ---------------------------------------------------------------------------
_S += [
    "\ue000",  # private use area first
    "\uf8ff",  # private use (Apple logo on macOS)
    "\U000f0000",  # supplementary private use area-A
    "\U0010fffd",  # supplementary private use area-B last
    "a\ue000b",
    "hello \uf8ff world",
    "\u0378",  # unassigned (Greek block hole)
    "\u0379",  # unassigned
    "\u0530",  # unassigned (Armenian block hole)
    "\u0378abc\u0379",
    "\U00040000",  # unassigned plane 4
    "\U000e0080",  # unassigned in Tags block area
    "\u2fe0",  # unassigned (between Kangxi and IDC)
    "\U0002fffd",  # unassigned (end of plane 2)
    "\ufffe",  # noncharacter
    "\uffff",  # noncharacter
    "\ufdd0",  # noncharacter
    "\ufdef",  # noncharacter
    "\U0001fffe\U0001ffff",  # plane-1 noncharacters
    "\U0002ffff",  # plane-2 noncharacter
    "\U0010ffff",  # last code point (noncharacter)
    "a\ufffeb\uffffc",
    "\ufffd",  # REPLACEMENT CHARACTER
    "caf\ufffd au lait",
    "\ufffd\ufffd\ufffd",
    "\ufffc",  # OBJECT REPLACEMENT CHARACTER
]

# ---------------------------------------------------------------------------
# Punctuation (and symbols that look like punctuation but are not)
# ---------------------------------------------------------------------------
_S += [
    "!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~",  # all ASCII punctuation
    "a!b\"c#d$e%f&g'h(i)j*k+l,m-n.o/p:q;r<s=t>u?v@w[x\\y]z^_`{|}~",
    "hello!!!",
    "what?!",
    "...and then...",
    "\u2026",  # HORIZONTAL ELLIPSIS
    "wait\u2026 what\u2026",
    "\u2010\u2011\u2012\u2013\u2014\u2015",  # hyphen, nb hyphen, figure dash, en, em, bar
    "1990\u20132000",  # en dash range
    "yes\u2014no",  # em dash
    "\u2018single\u2019 \u201cdouble\u201d",  # curly quotes
    "\u201alow\u2018 \u201elow\u201c",  # low-9 quotes
    "\u00abguillemets\u00bb \u2039single\u203a",
    "\u300c\u65e5\u672c\u300d\u3001\u300e\u6771\u4eac\u300f\u3002",  # CJK brackets and marks
    "\u3002",  # IDEOGRAPHIC FULL STOP
    "\u3001",  # IDEOGRAPHIC COMMA
    "\u3010\u3011\u3014\u3015\u3008\u3009\u300a\u300b",
    "\u301c\u30fb\u3030",  # wave dash, katakana middle dot, wavy dash
    "\u055a\u055b\u055c\u055d\u055e\u055f",  # Armenian punctuation
    "\u0589",  # ARMENIAN FULL STOP
    "\u060c \u061b \u061f \u066a \u066b \u066c \u06d4",  # Arabic punctuation
    "\u00bf",  # INVERTED QUESTION MARK
    "\u00a1",  # INVERTED EXCLAMATION MARK
    "\u00bfqu\u00e9?\u00a1s\u00ed!",
    "\u00a7 \u00b6 \u2030 \u2031",  # section, pilcrow, per mille, per ten thousand
    "\u00a712(3)\u00b64",
    "\u2020\u2021\u2022\u2023\u2027",  # daggers, bullets, hyphenation point
    "\u203c\u2047\u2048\u2049",  # double exclamation, question marks
    "\u2032\u2033\u2034",  # primes
    "\u2e18\u2e2e\u2e3a\u2e3b",  # inverted interrobang, reversed question, two/three-em dash
    "\u00b7",  # MIDDLE DOT
    "\ufe10\ufe11\ufe12",  # vertical forms
    "\ufe50\ufe51\ufe52",  # small form variants
    "\u00b1 \u00d7 \u00f7",  # plus-minus, times, division (Sm, not P)
    "2\u00d73=6 and 6\u00f72=3 \u00b11",
    "\u2212\u2213\u221e\u2211\u222b\u221a\u2248\u2260\u2264\u2265",  # math operators
    "a\u2264b\u2260c",
    "$5 \u20ac10 \u00a520 \u00a330 \u20b940 \u20bd50 \u20a960 \u20bf0.1",  # currency
    "\u00a2\u00a4\u20a0\u20c0",  # cent, currency sign, ECU, SOM (16)
    "US$1,000.00",
    "^`~|\\",
    "\u00a6\u00a8\u00af\u00b4\u00b8",  # spacing diacritics (Sk, So)
    "\u02c6\u02dc\u02bc\u02b9",  # modifier letters circumflex, tilde, apostrophe, prime
    "\u2190\u2192\u2191\u2193\u21d2",  # arrows
    "\u2500\u2502\u250c\u2510\u2588\u2591",  # box drawing, blocks
    "\u25a0\u25cf\u2605\u2606\u2713\u2717",  # geometric shapes, stars, check marks
    "\u266a\u266b\u266f\u266d",  # music
    "\u0964\u0965",  # Devanagari danda, double danda
    "\u0e2f\u0e5a\u0e5b",  # Thai punctuation
    "\u104a\u104b",  # Myanmar punctuation
    "\u17d4\u17d5",  # Khmer punctuation
    "\u10fb",  # Georgian paragraph separator
    "\u2e41\u2e4c",
    "\U00010100\U0001039f",  # Aegean word separator, Ugaritic word divider
]

# ---------------------------------------------------------------------------
# Apostrophes and contractions
# ---------------------------------------------------------------------------
_S += [
    "don't",
    "don\u2019t",  # right single quotation mark
    "don\u02bct",  # modifier letter apostrophe (Lm)
    "don`t",
    "DON'T",
    "l'heure",
    "l'eure",
    "l\u2019\u00e9cole",
    "O'Neil",
    "O\u2019Neil",
    "rock 'n' roll",
    "'quoted'",
    "the '90s",
    "it's John's dog's bone",
    "can''t",
    "y'all'd've",
    "ha\u2018wai\u02bbi",  # okina variants
]

# ---------------------------------------------------------------------------
# URLs, e-mail, numbers, hashtags, code
# ---------------------------------------------------------------------------
_S += [
    "https://www.example.com/path?query=1&other=two#frag",
    "http://user:pass@host.example:8080/a/b/c.html",
    "www.google.com",
    "ftp://ftp.example.org/pub/file.tar.gz",
    "https://\u4f8b\u3048.jp/\u30d1\u30b9",  # internationalized URL
    "https://xn--r8jz45g.jp",
    "https://example.com/%E2%9C%93?q=%20",
    "user@example.com",
    "first.last+tag@sub.domain.co.uk",
    "mailto:someone@example.org",
    "1,000,000",
    "1.000.000,50",
    "3.14159",
    "-42",
    "+1 (555) 123-4567",
    "1e-10",
    "0x1F",
    "12:30:45",
    "2024-01-31T12:00:00Z",
    "50%",
    "#hashtag",
    "#MachineLearning #NLP #AI",
    "@username",
    "$AAPL",
    "C++",
    "C#",
    "def f(x): return x**2 + 1",
    "if (a && b || !c) { return a[i] >> 2; }",
    '<div class="x">&amp;&lt;&gt;</div>',
    "SELECT * FROM users WHERE id = 1;",
    "snake_case_identifier and camelCaseIdentifier and PascalCase",
    "foo.bar.baz()",
    "path/to/some/file.txt",
    "C:\\Windows\\System32\\drivers",
    '{"key": [1, 2.5, null, true]}',
    "a=b&c=d",
    "->",
    "=>",
    "!=",
    "::",
]

# ---------------------------------------------------------------------------
# Very long words (max_input_chars_per_word is 100) and many word pieces
# ---------------------------------------------------------------------------
_S += [
    "a" * 99,
    "a" * 100,
    "a" * 101,
    "a" * 200,
    "A" * 100,
    "A" * 101,
    "hello " + "a" * 101 + " world",
    "\u0444" * 50,  # Cyrillic ef x50
    "\u0444" * 51,
    "\u0444" * 100,
    "\u0444" * 101,
    "\u4e00" * 200,  # 200 CJK ideographs (each its own token)
    "\u6f22\u5b57" * 100,
    "supercalifragilistic" * 5,
    "supercalifragilistic" * 6,
    "supercalifragilisticexpialidocious",
    "antidisestablishmentarianism",
    "pneumonoultramicroscopicsilicovolcanoconiosis",
    "Donaudampfschifffahrtsgesellschaftskapit\u00e4n",
    "Rindfleischetikettierungs\u00fcberwachungsaufgaben\u00fcbertragungsgesetz",
    "lentokonesuihkuturbiinimoottoriapumekaanikkoaliupseerioppilas",
    "e\u0301" * 50,  # 100 chars before accent stripping
    "e\u0301" * 51,
    "\u00e9" * 101,
    "ab" * 50 + "\u0301",  # 101 chars, 100 after stripping the mark
    "a\u200b" * 60,  # 120 chars, 60 after removing ZWSP
    "x" * 100 + "." + "y" * 100,
    "\U0001f600" * 101,
    "zzzzzzzzzzqqqqqqqqqqxxxxxxxxxx",
    "qwxzjvkqwxzjvk",
    "xylophonistically",
    "unbelievabilities",
    "electroencephalographically",
    "Llanfairpwllgwyngyllgogerychwyrndrobwllllantysiliogogogoch",
    "aaaaaaaaaaaaaaaaaaaab",
    "z" * 37,
    "ab1cd2ef3gh4ij5",
]

# ---------------------------------------------------------------------------
# Special tokens written inside text (must be treated as plain text unless the
# tokenizer is configured otherwise)
# ---------------------------------------------------------------------------
_S += [
    "[MASK]",
    "[CLS]",
    "[SEP]",
    "[UNK]",
    "[PAD]",
    "[mask]",
    "[Mask]",
    "[ MASK ]",
    "[MASK][MASK]",
    "x[MASK]y",
    "the [MASK] sat on the mat",
    "[CLS] hello [SEP] world [SEP]",
    "[CLS][SEP]",
    "[unused1]",
    "[unused99]",
    "[unused0]",
    "[unused993]",
    "[unused1000]",
    "##ing",
    "##",
    "##a",
    "#",
    "walk ##ing",
    "[",
    "]",
    "[]",
    "[[MASK]]",
    "<mask>",
    "<s></s>",
    "<|endoftext|>",
    "[MASK].",
    "MASK",
    "mask",
]

# ---------------------------------------------------------------------------
# Mixed scripts inside a single word
# ---------------------------------------------------------------------------
_S += [
    "abc\u0430\u0431\u0432",  # Latin + Cyrillic
    "\u0430\u0431\u0432abc",
    "\u65e5\u672c\u8a9eabc",  # kanji + Latin
    "abc\u65e5\u672c\u8a9e",
    "p\u0430ypal",  # Cyrillic a homoglyph
    "\u0391\u0392C",  # Greek Alpha Beta + Latin C
    "abc\u0627\u0644\u0639def",  # Latin + Arabic
    "test\u0928\u092etest",  # Latin + Devanagari
    "abc123\u0661\u0662\u0663",
    "\uac00a\u3042b\u4e00c",  # Hangul, hiragana, ideograph interleaved
    "x\u0e01y",
    "\u0439\u0451\u0419\u0401",  # Cyrillic short i, yo (decompose under NFD)
    "\u041f\u0440\u0438\u0432\u0435\u0442",  # Russian 'Privet'
    "\u0423\u043a\u0440\u0430\u0457\u043d\u0430",  # Ukrainian 'Ukraina' with yi
]

# ---------------------------------------------------------------------------
# Realistic sentences in ~30 languages
# ---------------------------------------------------------------------------
_S += [
    # English
    "The quick brown fox jumps over the lazy dog.",
    "Mr. O'Neil's e-mail (sent 3/4/2021 at 5:30pm) said: \"Don't panic!\"",
    # French
    "Le c\u0153ur a ses raisons que la raison ne conna\u00eet point.",
    # German
    "Die W\u00fcrde des Menschen ist unantastbar.",
    # Spanish
    "El ping\u00fcino Wenceslao hizo kil\u00f3metros bajo exhaustiva lluvia y fr\u00edo, a\u00f1oraba a su querido cachorro.",
    # Portuguese
    "A ra\u00e7a humana \u00e9 fascinante, n\u00e3o \u00e9?",
    # Italian
    "Perch\u00e9 non \u00e8 gi\u00e0 l\u00ec? Citt\u00e0 pi\u00f9 bella.",
    # Dutch
    "Het \u0132sselmeer is een meer in Nederland.",
    # Swedish
    "Fl\u00e4skkotlett med \u00e4ppelmos \u00e4r gott.",
    # Norwegian
    "Bl\u00e5b\u00e6rsyltet\u00f8y p\u00e5 br\u00f8d.",
    # Danish
    "\u00d8ens \u00e6bler er s\u00f8de.",
    # Finnish
    "H\u00e4\u00e4y\u00f6aieuutiset ja y\u00f6pakkaset.",
    # Icelandic
    "\u00deetta reddast, sag\u00f0i hann \u00fe\u00e1.",
    # Polish
    "Pchn\u0105\u0107 w t\u0119 \u0142\u00f3d\u017a je\u017ca lub o\u015bm skrzy\u0144 fig.",
    # Czech
    "\u017dlu\u0165ou\u010dk\u00fd k\u016f\u0148 \u00fap\u011bl \u010f\u00e1belsk\u00e9 k\u00f3dy.",
    # Hungarian
    "\u00c1rv\u00edzt\u0171r\u0151 t\u00fck\u00f6rf\u00far\u00f3g\u00e9p.",
    # Romanian
    "\u00cen\u021belepciunea vine cu v\u00e2rsta.",
    # Turkish
    "Pijamal\u0131 hasta ya\u011f\u0131z \u015fof\u00f6re \u00e7abucak g\u00fcvendi.",
    # Russian
    "\u0421\u044a\u0435\u0448\u044c \u0436\u0435 \u0435\u0449\u0451 \u044d\u0442\u0438\u0445 \u043c\u044f\u0433\u043a\u0438\u0445 \u0444\u0440\u0430\u043d\u0446\u0443\u0437\u0441\u043a\u0438\u0445 \u0431\u0443\u043b\u043e\u043a, \u0434\u0430 \u0432\u044b\u043f\u0435\u0439 \u0447\u0430\u044e.",
    # Ukrainian
    "\u0427\u0443\u0454\u0448 \u0457\u0445, \u0434\u043e\u0446\u044e, \u0433\u0430? \u041a\u0443\u043c\u0435\u0434\u043d\u0430 \u0436 \u0442\u0438, \u043f\u0440\u043e\u0449\u0430\u0439\u0441\u044f \u0431\u0435\u0437 \u2019\u0491\u043e\u043b\u044c\u0444\u0456\u0432!",
    # Bulgarian
    "\u0416\u044a\u043b\u0442\u0430\u0442\u0430 \u0434\u0438\u043d\u044f \u0441\u043f\u0430\u0441\u0438 \u043c\u0430\u043b\u043a\u0438\u044f \u0445\u044a\u0448.",
    # Serbian (Cyrillic)
    "\u0408\u0435\u0437\u0438\u043a \u0458\u0435 \u0431\u043e\u0433\u0430\u0442\u0441\u0442\u0432\u043e.",
    # Greek
    "\u039e\u03b5\u03c3\u03ba\u03b5\u03c0\u03ac\u03b6\u03c9 \u03c4\u1f74\u03bd \u03c8\u03c5\u03c7\u03bf\u03c6\u03b8\u03cc\u03c1\u03b1 \u03b2\u03b4\u03b5\u03bb\u03c5\u03b3\u03bc\u03af\u03b1.",
    # Arabic
    "\u0623\u0646\u0627 \u0623\u062d\u0628 \u062a\u0639\u0644\u0645 \u0627\u0644\u0644\u063a\u0627\u062a\u060c \u0648\u0623\u0646\u062a\u061f",
    # Hebrew
    "\u05d3\u05d2 \u05e1\u05e7\u05e8\u05df \u05e9\u05d8 \u05d1\u05d9\u05dd \u05de\u05d0\u05d5\u05db\u05d6\u05d1.",
    # Persian
    "\u0645\u0646 \u0641\u0627\u0631\u0633\u06cc \u0635\u062d\u0628\u062a \u0645\u06cc\u200c\u06a9\u0646\u0645.",  # with ZWNJ
    # Hindi
    "\u092e\u0948\u0902 \u0939\u093f\u0928\u094d\u0926\u0940 \u092c\u094b\u0932\u0924\u093e \u0939\u0942\u0901\u0964",
    # Bengali
    "\u0986\u09ae\u09bf \u09ac\u09be\u0982\u09b2\u09be\u09af\u09bc \u0997\u09be\u09a8 \u0997\u09be\u0987\u0964",
    # Tamil
    "\u0ba8\u0bbe\u0ba9\u0bcd \u0ba4\u0bae\u0bbf\u0bb4\u0bcd \u0baa\u0bc7\u0b9a\u0bc1\u0b95\u0bbf\u0bb1\u0bc7\u0ba9\u0bcd.",
    # Thai
    "\u0e09\u0e31\u0e19\u0e1e\u0e39\u0e14\u0e20\u0e32\u0e29\u0e32\u0e44\u0e17\u0e22\u0e44\u0e14\u0e49\u0e19\u0e34\u0e14\u0e2b\u0e19\u0e48\u0e2d\u0e22",
    # Vietnamese
    "T\u00f4i c\u00f3 th\u1ec3 \u0103n th\u1ee7y tinh m\u00e0 kh\u00f4ng h\u1ea1i g\u00ec.",
    # Indonesian
    "Saya bisa makan kaca dan itu tidak menyakitkan saya.",
    # Swahili
    "Ninaweza kula bilauri na sikunyui.",
    # Chinese (simplified)
    "\u6211\u80fd\u541e\u4e0b\u73bb\u7483\u800c\u4e0d\u4f24\u8eab\u4f53\u3002",
    # Chinese (traditional)
    "\u6211\u80fd\u541e\u4e0b\u73bb\u7483\u800c\u4e0d\u50b7\u8eab\u9ad4\u3002",
    # Japanese
    "\u79c1\u306f\u30ac\u30e9\u30b9\u3092\u98df\u3079\u3089\u308c\u307e\u3059\u3002\u305d\u308c\u306f\u79c1\u3092\u50b7\u3064\u3051\u307e\u305b\u3093\u3002",
    # Korean
    "\ub098\ub294 \uc720\ub9ac\ub97c \uba39\uc744 \uc218 \uc788\uc5b4\uc694. \uadf8\ub798\ub3c4 \uc544\ud504\uc9c0 \uc54a\uc544\uc694.",
    # Georgian
    "\u10db\u10d8\u10e0\u10d8\u10e1 \u10d2\u10d0\u10e1\u10d0\u10e1\u10d5\u10da\u10d4\u10da\u10d8.",
    # Armenian
    "\u053f\u0580\u0576\u0561\u0574 \u0561\u057a\u0561\u056f\u056b \u0578\u0582\u057f\u0565\u056c\u0589",
    # Amharic
    "\u1265\u120b \u12a5\u1295\u1300\u122b\u1362",
    # Welsh
    "Dw i'n gallu bwyta gwydr, 'dyw e ddim yn gwneud dolur i mi.",
    # Yoruba
    "Mo l\u00e8 je\u0300 d\u00edg\u00ed, k\u00f2 n\u00ed pa m\u00ed l\u00e1ra.",
    # Code-switched / noisy social media text
    "OMG\u2019s sooo gooood!!! \U0001f60d\U0001f60d #yum @chef https://t.co/xYz",
]

# ---------------------------------------------------------------------------
# Systematic combinations: every separator class between two words, in both
# plain and accented/CJK contexts (small hand-written tables).
# ---------------------------------------------------------------------------
_SEPARATORS = {
    "space": " ",
    "nbsp": "\u00a0",
    "ideographic space": "\u3000",
    "zwsp": "\u200b",
    "soft hyphen": "\u00ad",
    "nul": "\x00",
    "nel": "\x85",
    "comma": ",",
    "ideographic full stop": "\u3002",
    "hyphen": "-",
    "en dash": "\u2013",
    "combining acute": "\u0301",
}
_WORD_PAIRS = [
    ("caf\u00e9", "NA\u00cfVE"),  # accented Latin
    ("\u4e2d", "\u6587"),  # CJK
    ("\u0394\u0399\u039a\u0397", "\u03a3"),  # Greek (final sigma context)
]
for _name, _sep in _SEPARATORS.items():
    for _left, _right in _WORD_PAIRS:
        _S.append(_left + _sep + _right)


HARD_STRINGS: list[str] = _dedupe(_S)

assert len(HARD_STRINGS) >= 350, len(HARD_STRINGS)
assert all(not (0xD800 <= ord(_ch) <= 0xDFFF) for _s in HARD_STRINGS for _ch in _s), (
    "surrogate code point in HARD_STRINGS"
)


# ---------------------------------------------------------------------------
# Byte strings that are NOT valid UTF-8
# ---------------------------------------------------------------------------
INVALID_UTF8: list[bytes] = [
    # Lone continuation bytes
    b"\x80",
    b"\xbf",
    b"abc\x80def",
    b"\x80\x80\x80",
    b"hello \xbf world",
    # Truncated multi-byte sequences at the end
    b"\xc3",  # first byte of a 2-byte sequence
    b"caf\xc3",
    b"\xe2\x82",  # 2 of 3 bytes of EURO SIGN
    b"price \xe2\x82",
    b"\xf0\x9f\x98",  # 3 of 4 bytes of an emoji
    b"smile \xf0\x9f",
    b"\xe4",
    # Truncated sequences in the middle
    b"caf\xc3 au lait",
    b"\xe2\x82 100",
    b"a\xf0\x9f\x98b",
    b"\xe4\xb8 \xe6\x96\x87",  # broken first ideograph, valid second one
    # Latin-1 text mistaken for UTF-8
    b"caf\xe9 au lait",
    b"na\xefve r\xe9sum\xe9",
    b"Stra\xdfe",
    # Overlong encodings
    b"\xc0\xaf",  # overlong '/'
    b"\xc1\xbf",
    b"\xe0\x80\xaf",  # 3-byte overlong '/'
    b"\xf0\x80\x80\xaf",  # 4-byte overlong '/'
    b"\xc0\x80",  # overlong NUL (modified UTF-8)
    b"..\xc0\xaf..\xc0\xafetc",
    # Encoded UTF-16 surrogates
    b"\xed\xa0\x80",  # U+D800
    b"\xed\xbf\xbf",  # U+DFFF
    b"\xed\xa0\xbd\xed\xb8\x80",  # CESU-8 style surrogate pair for an emoji
    b"x \xed\xb0\x80 y",
    # Bytes that never appear in UTF-8
    b"\xf5\x80\x80\x80",  # would be > U+10FFFF
    b"\xf4\x90\x80\x80",  # U+110000
    b"\xf8\x88\x80\x80\x80",  # old 5-byte form
    b"\xfc\x84\x80\x80\x80\x80",  # old 6-byte form
    b"\xfe",
    b"\xff",
    b"\xfe\xff",  # UTF-16 BE BOM
    b"\xff\xfeh\x00i\x00",  # UTF-16 LE text
    b"ok \xf5 \xf6 \xf7 \xf8 \xf9 \xfa \xfb \xfc \xfd \xfe \xff",
    # Lead byte followed by a non-continuation byte
    b"\xc3(",
    b"\xe2(\xa1",
    b"\xf0(\x8c\xbc",
    # Mixed valid and invalid text
    b"[CLS] \xff [SEP]",
    b"\xef\xbb\xbf\x80",  # valid BOM followed by a stray continuation byte
    b"\xe6\x97\xa5\xe6\x9c\xac\xe8\xaa",  # two valid ideographs, third one cut off
    b"\x00\xc0\x00",
]

assert len(INVALID_UTF8) >= 25, len(INVALID_UTF8)

# Do not leak loop helpers as module attributes.
del _S, _cp, _c, _ws, _f, _name, _sep, _left, _right
