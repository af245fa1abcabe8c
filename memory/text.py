"""Validation and normalisation of user-supplied text and scope (invariants 1 and 11)."""

from __future__ import annotations

import re
import unicodedata

from . import inputs
from .errors import ValidationError

# English function words: dropped from BM25 queries and from value comparisons.
STOPWORDS = frozenset(["a", "about", "above", "after", "again", "against", "all", "am", "an", "and", "any", "are", "as", "at", "be", "because", "been", "before", "being", "below", "between", "both", "but", "by", "can", "could", "did", "do", "does", "doing", "down", "during", "each", "few", "for", "from", "further", "had", "has", "have", "having", "he", "her", "here", "hers", "herself", "him", "himself", "his", "how", "i", "if", "in", "into", "is", "it", "its", "itself", "just", "me", "more", "most", "my", "myself", "no", "nor", "not", "now", "of", "off", "on", "once", "only", "or", "other", "our", "ours", "ourselves", "out", "over", "own", "same", "she", "should", "so", "some", "such", "than", "that", "the", "their", "theirs", "them", "themselves", "then", "there", "these", "they", "this", "those", "through", "to", "too", "under", "until", "up", "very", "was", "we", "were", "what", "when", "where", "which", "while", "who", "whom", "why", "will", "with", "would", "you", "your", "yours", "yourself", "yourselves", "ever", "tell", "know"])

MAX_TEXT_BYTES = 32 * 1024
MAX_USER_ID_CHARS = 128
# Control characters other than tab and newline are refused rather than silently stripped:
# they usually mean a binary paste or an encoding error the operator should see.
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")
_WORD = re.compile(r"[a-z0-9]+(?:['’.][a-z0-9]+)*")


def require_user(user_id: str | None) -> str:
    """Every read and mutation names a user; a missing or empty one is an error (invariant 1)."""
    return inputs.require_user(user_id)  # issue 11: NFC, invisible characters, `catalog` (inv. 68)


def clean_text(text: str | None, *, field: str = "text") -> str:
    """Strip, refuse empty, oversized (> 32 KB) and control-character text (invariant 11)."""
    if text is None:
        raise ValidationError(f"{field} is required")
    value = unicodedata.normalize("NFC", str(text)).strip()
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


def normalise(text: str) -> str:
    """Value-level key used by tombstones: case, punctuation and spacing do not matter."""
    folded = unicodedata.normalize("NFKC", text).casefold().replace("’", "'")
    return " ".join(_WORD.findall(folded))


def words(text: str) -> list[str]:
    return _WORD.findall(unicodedata.normalize("NFKC", text).casefold())
