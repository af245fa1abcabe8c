"""The one text module: validation of user-supplied text and scope (invariants 1 and 11), and
the one tokenizer/normaliser every matcher uses (issue 10 item 5, invariant 60).

Tokens agree with SQLite FTS5's `porter unicode61` tokenizer (the embedded store's index):
a token is a maximal run of letters, digits and combining marks of ANY script, so "don't" is
"don" + "t" and "東京" is one token, exactly as FTS5 splits them. Stems are PyStemmer's
"porter" (the original Porter algorithm FTS5 implements); like FTS5, words shorter than three
characters are not stemmed. Measured on the 4,667 distinct words of the persona data and the
code: 4,664 agree with FTS5 (the 3 others: "eed", "plausibly", "possibly"); Snowball's
"english" agrees on 95.9% only (`python -m memory.text --agreement`).

Matching (tombstones, dedup, grounding, persona checks) goes one step further than FTS5 and
folds: NFKC, case folding, accents stripped ("Bristól" is "bristol"), look-alike Cyrillic and
Greek letters inside Latin words read as Latin ("Bristоl" with a Cyrillic о), Cyrillic, Greek
and Arabic words stemmed by their Snowball stemmer, and Chinese/Japanese runs cut into
character bigrams. Non-Latin text never normalises to the empty string.
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

import Stemmer

from . import inputs, textsafety
from .errors import ValidationError

# --- the one set of stop words ----------------------------------------------------------------
# English function words and chat filler: dropped from BM25 queries and from every content-word
# comparison. The fragments FTS5 leaves of contractions ("don't" -> "don" + "t") are here too.
# Modules that need more (the value matcher's "user", "confirmed"; the overlap metric's question
# words) extend this set by name; none keeps a list of its own.
STOP_WORDS = frozenset(["a", "about", "above", "after", "again", "against", "all", "also", "am", "an", "and", "any", "are", "as", "at", "be", "because", "been", "before", "being", "below", "between", "both", "but", "by", "can", "could", "did", "do", "does", "doing", "down", "during", "each", "ever", "few", "for", "from", "further", "had", "has", "have", "having", "he", "her", "here", "hers", "herself", "him", "himself", "his", "how", "i", "if", "in", "into", "is", "it", "its", "itself", "just", "know", "me", "more", "most", "my", "myself", "no", "nor", "not", "now", "of", "off", "ok", "okay", "on", "once", "only", "or", "other", "our", "ours", "ourselves", "out", "over", "own", "please", "really", "same", "she", "should", "so", "some", "still", "such", "tell", "than", "thank", "thanks", "that", "the", "their", "theirs", "them", "themselves", "then", "there", "these", "they", "this", "those", "through", "to", "too", "under", "until", "up", "very", "was", "we", "were", "what", "when", "where", "which", "while", "who", "whom", "why", "will", "with", "would", "yes", "you", "your", "yours", "yourself", "yourselves", "s", "t", "d", "m", "ll", "ve", "re", "don", "doesn", "didn", "isn", "wasn", "aren", "weren", "hasn", "haven", "hadn", "won", "wouldn", "couldn", "shouldn"])
STOPWORDS = STOP_WORDS  # the old name, kept for callers outside this package

MAX_TEXT_BYTES = 32 * 1024
MAX_USER_ID_CHARS = 128
# Control characters other than tab and newline are refused rather than silently stripped:
# they usually mean a binary paste or an encoding error the operator should see.
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")

# Letters and digits of any script ([^\W_]), plus the combining marks that live inside words
# (accents, Indic vowel signs, Arabic and Hebrew points, kana voicing marks).
_MARKS = ("\u0300-\u036f\u0483-\u0489\u0591-\u05c7\u0610-\u061a\u064b-\u065f\u0670"
          "\u06d6-\u06ed\u0900-\u0dff\u0e31-\u0e3a\u0e47-\u0e4e\u0eb1-\u0ebc\u0ec8-\u0ecd"
          "\u0f18-\u0fbc\u102b-\u103e\u17b4-\u17d3\u1ab0-\u1aff\u1dc0-\u1dff\u20d0-\u20ff"
          "\u3099\u309a\ufe20-\ufe2f")
_TOKEN = re.compile(rf"(?:[^\W_]|[{_MARKS}])+")
TOKEN_RE = _TOKEN  # a word as FTS5 splits it, for callers that need its position
_CJK = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\U00020000-\U0002fa1f]+")
_LATIN = re.compile(r"[a-z]")
# Marks folded away for matching: Latin/Greek/Cyrillic accents, Arabic harakat, Hebrew points.
# Indic vowel signs and viramas are letters of their words and stay.
_FOLDED_MARK = re.compile(r"[\u0300-\u036f\u0591-\u05c7\u064b-\u065f\u0670\u1ab0-\u1aff\u1dc0-\u1dff]")
_CYRILLIC = re.compile(r"[\u0400-\u04ff]")
_GREEK = re.compile(r"[\u0370-\u03ff]")
_ARABIC = re.compile(r"[\u0600-\u06ff]")

# Cyrillic and Greek letters (after case folding) that a reader takes for Latin ones.
_CONFUSABLE = str.maketrans({
    "а": "a", "в": "b", "е": "e", "ё": "e", "к": "k", "м": "m", "н": "h", "о": "o", "р": "p",
    "с": "c", "т": "t", "у": "y", "х": "x", "і": "i", "ї": "i", "ј": "j", "ѕ": "s", "ԁ": "d",
    "ԛ": "q", "ԝ": "w", "ү": "y", "һ": "h", "ɡ": "g",
    "α": "a", "β": "b", "ε": "e", "ι": "i", "κ": "k", "ν": "v", "ο": "o", "ρ": "p", "τ": "t",
    "υ": "u", "χ": "x", "ϲ": "c",
})
_CONFUSABLE_CHARS = frozenset(chr(c) for c in _CONFUSABLE)
# Letters with no decomposition that still read as a plain Latin letter (or two).
_SPECIAL = str.maketrans({"ø": "o", "đ": "d", "ð": "d", "ł": "l", "ı": "i", "ħ": "h",
                          "æ": "ae", "œ": "oe", "þ": "th", "ŀ": "l"})


def require_user(user_id: str | None) -> str:
    """Every read and mutation names a user; a missing or empty one is an error (invariant 1)."""
    return inputs.require_user(user_id)  # issue 11: NFC, invisible characters, `catalog` (inv. 68)


def clean_text(text: str | None, *, field: str = "text") -> str:
    """Strip, refuse empty, oversized (> 32 KB) and control-character text (invariant 11)."""
    if text is None:
        raise ValidationError(f"{field} is required")
    # Invariant 11: text is a str of valid Unicode (no bytes, numbers, lone surrogates).
    value = unicodedata.normalize("NFC", inputs.as_text(text, field))
    # Invariant 11: invisible format characters (bidi controls, zero-width) are removed, so
    # the value reads as it is stored and matched ("Bos\u200bton" is "Boston").
    value = textsafety.clean(value).strip()
    if not value:
        raise ValidationError(f"{field} is empty")
    size = len(value.encode("utf-8"))
    if size > MAX_TEXT_BYTES:
        raise ValidationError(f"{field} is {size} bytes; the limit is {MAX_TEXT_BYTES} (32 KB)")
    bad = _CONTROL.search(value)
    if bad:
        raise ValidationError(
            f"{field} contains a control character (U+{ord(bad.group()):04X}); remove it and retry"
        )
    return value


# --- tokens -----------------------------------------------------------------------------------
def words(text: str) -> list[str]:
    """FTS5-compatible tokens, NFKC and case-folded but not accent-folded: what `unicode61`
    splits ("don't" -> don, t; "東京に住む" -> one token). Any script's letters count."""
    return _TOKEN.findall(unicodedata.normalize("NFKC", text).casefold())


def raw_words(text: str) -> list[str]:
    """The same split on the text as written (no folding): FTS5 folds a quoted query term
    exactly as it folded the document, so query terms are passed to it unfolded."""
    return _TOKEN.findall(unicodedata.normalize("NFC", text))


def _strip_accents(token: str) -> str:
    decomposed = unicodedata.normalize("NFD", token)
    kept = "".join(c for c in decomposed if not _FOLDED_MARK.match(c))
    return unicodedata.normalize("NFC", kept).translate(_SPECIAL)


def _confusables(token: str, latin_text: bool) -> str:
    """Read look-alike Cyrillic/Greek letters as Latin inside a Latin word ("bristоl"), or in a
    word made only of look-alikes in mostly Latin text ("АСМЕ" in "Works at АСМЕ")."""
    letters = [c for c in token if c.isalpha()]
    if not letters or not any(c in _CONFUSABLE_CHARS for c in letters):
        return token
    has_latin = any("a" <= c <= "z" for c in letters)
    only_lookalikes = all(c in _CONFUSABLE_CHARS or "a" <= c <= "z" for c in letters)
    if only_lookalikes and (has_latin or latin_text):
        return token.translate(_CONFUSABLE)
    return token


@lru_cache(maxsize=8192)
def fold(text: str) -> tuple[str, ...]:
    """Matching tokens: NFKC, case-folded, accents stripped, look-alike letters read as Latin."""
    toks = words(text.replace("’", "'"))
    if not toks:
        return ()
    latin = sum(len(_LATIN.findall(t)) for t in toks)
    foreign = sum(len(_CYRILLIC.findall(t)) + len(_GREEK.findall(t)) for t in toks)
    latin_text = latin > foreign
    return tuple(_strip_accents(_confusables(t, latin_text)) for t in toks)


def normalise(text: str) -> str:
    """Value-level key used by tombstones: case, accents, punctuation and spacing do not
    matter. Text without letters or digits (emoji only) keys on its symbols, never on ""."""
    symbols = [c for c in unicodedata.normalize("NFKC", text) if unicodedata.category(c) == "So"]
    return " ".join([*fold(text), *symbols])


# --- stems ------------------------------------------------------------------------------------
_PORTER = Stemmer.Stemmer("porter")
_BY_SCRIPT = {"ru": Stemmer.Stemmer("russian"), "el": Stemmer.Stemmer("greek"),
              "ar": Stemmer.Stemmer("arabic")}


@lru_cache(maxsize=65536)
def stem(word: str) -> str:
    """Porter stem of an English word, as FTS5's porter tokenizer computes it (words under
    three characters unchanged). Cyrillic, Greek and Arabic words get their Snowball stemmer;
    other scripts are returned as they are."""
    if len(word) < 3:
        return word
    if word.isascii():
        return _PORTER.stemWord(word)
    if _CYRILLIC.search(word):
        return _BY_SCRIPT["ru"].stemWord(word)
    if _GREEK.search(word):
        return _BY_SCRIPT["el"].stemWord(word)
    if _ARABIC.search(word):
        return _BY_SCRIPT["ar"].stemWord(word)
    return word


def split_cjk(token: str) -> list[str]:
    """Chinese/Japanese runs have no spaces: character bigrams (a lone character as itself),
    the usual CJK indexing unit. Anything else passes through."""
    if not _CJK.search(token):
        return [token]
    out: list[str] = []
    for part in re.split(f"({_CJK.pattern})", token):
        if not part:
            continue
        if _CJK.fullmatch(part):
            out += [part] if len(part) == 1 else [part[i:i + 2] for i in range(len(part) - 1)]
        else:
            out.append(part)
    return out


def terms(text: str, *, stop: frozenset[str] = STOP_WORDS, min_len: int = 1) -> list[str]:
    """Content terms for matching, in order: folded tokens minus `stop`, stemmed, CJK runs as
    bigrams. Stop words are tested on the folded word before stemming."""
    out: list[str] = []
    for tok in fold(text):
        if tok in stop or len(tok) < min_len:
            continue
        for part in split_cjk(tok):
            out.append(stem(part))
    return out


def term_set(text: str, *, stop: frozenset[str] = STOP_WORDS, min_len: int = 1) -> frozenset[str]:
    return frozenset(terms(text, stop=stop, min_len=min_len))


def fts_terms(text: str, max_terms: int = 32) -> list[str]:
    """Distinct content words of a query as FTS5 would match them: unfolded tokens (FTS5 folds
    them itself), stop words (tested folded) out, first occurrence kept."""
    out: list[str] = []
    seen: set[str] = set()
    for raw in raw_words(text):
        folded = " ".join(fold(raw))
        if not folded or folded in STOP_WORDS or folded in seen:
            continue
        seen.add(folded)
        out.append(raw)
        if len(out) >= max_terms:
            break
    return out


def _agreement() -> None:  # pragma: no cover - a measurement, run by hand
    """Print how often `stem` agrees with FTS5's porter tokenizer on the project's own words."""
    import sqlite3
    from pathlib import Path

    root = Path(__file__).resolve().parent
    texts = [p.read_text(encoding="utf-8") for p in [*root.rglob("*.py"), *root.rglob("*.jsonl")]]
    vocab = sorted({w for t in texts for w in re.findall(r"[a-z]+", t.lower()) if len(w) > 1})
    db = sqlite3.connect(":memory:")
    db.execute("CREATE VIRTUAL TABLE t USING fts5(x, tokenize='porter unicode61')")
    db.executemany("INSERT INTO t(rowid, x) VALUES (?, ?)", list(enumerate(vocab, 1)))
    db.execute("CREATE VIRTUAL TABLE v USING fts5vocab(t, 'instance')")
    fts = {doc: term for term, doc, _c, _o in db.execute("SELECT term, doc, col, offset FROM v")}
    diff = [(w, fts[i], stem(w)) for i, w in enumerate(vocab, 1) if stem(w) != fts[i]]
    print(f"{len(vocab) - len(diff)}/{len(vocab)} words stem as FTS5 porter does; differ: {diff}")


if __name__ == "__main__":  # pragma: no cover
    _agreement()


def content_terms(text: str) -> frozenset[str]:
    """Stemmed content words of a fact or message: the one stop list plus "new", which fact
    texts use as a hedge ("a new car") rather than as content."""
    return term_set(text, stop=STOP_WORDS | {"new"}, min_len=2)
