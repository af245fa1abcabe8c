"""Normalise a message and split it into clauses.

Normalising removes what no reader should see (invisible format characters, bidi controls),
folds typographic quotes, and expands contractions and texting shorthand from `words.json`
(`im` -> `I am`), so the cue table reads one spelling. Splitting cuts at sentence ends and at
a conjunction that starts a new subject ("... and I am a dentist").
"""

from __future__ import annotations

import re
import unicodedata

from .tables import word_list, words

MAX_CHARS = 32_000
# an emoji ends a sentence in a text ("the HA Green died 💀 moved everything onto ...")
# ("my doctor is Dr. Patel": a title's full stop ends no sentence)
_SENTENCE = re.compile(r"(?<![\s(]Dr\.)(?<![\s(]Mr\.)(?<![\s(]Ms\.)(?<![\s(]St\.)(?<!Mrs\.)(?<!Prof\.)"
                       r"(?<=[.!?;\n\u2600-\u27bf\U0001f300-\U0001faff])\s+|\n+|(?<=[!?])(?=\S)")
_JOIN = re.compile(r"\s*(?:,\s*)?\b(?:and|but|so|also|plus|then|because|,)\s+(?=(?:i|we|my|our|"
                   r"i'm|i've|we're|we've|me and)\b)|\s*,\s*(?=(?:now\s+)?(?:i|we|my|our|she|he|they|you)\s)"
                   r"|\s*,\s*and\s+(?=\w{3,}ed\b)|\s+and\s+(?=(?:started|stopped|got|moved|switched|"
                   r"bought|sold|joined|left|became|took|adopted|quit|signed|booked|work|live|"
                   r"teach|study)\s+(?:on|at|in|as|for|to|up|a|an|the|my|our|from|into)\b)|\s*,\s*(?=\w{3,}ing\s)|\s+because\s+|\s+-\s+|\s*\u2014\s*"
                   r"|\s*,\s*(?=(?:what|where|when|who|which|why|how|can you|could you|do i|"
                   r"does|did i|it is|it's|it was)\b)",
                   re.IGNORECASE)


# "Big family news: Jan is moving", "desk upgrade: the moonlander is gone": a short header
# before a colon is its own clause
_HEADER = re.compile(r"^((?:[^\s:]+\s){0,3}[^\s:]+):\s+(?=\S)")
# "Lukas (old flatmate) is moving": the aside after a name is not the subject's verb
_ASIDE = re.compile(r"\b([A-Z][\w'-]+)\s*\([^)]{1,40}\)(?=\s+(?:is|are|has|was|got)\b)")


_PERSON_STATES = ("allergic|intolerant|pregnant|expecting|moving|getting|going|starting|leaving|"
                  "retiring|retired|married|engaged|divorced|vegan|vegetarian|ill|sick|diabetic|"
                  "coeliac|celiac|living|working|studying|staying|coming")


def normalise(text: str) -> str:
    text = unicodedata.normalize("NFKC", text)
    text = "".join(ch for ch in text if unicodedata.category(ch) != "Cf")
    text = text.replace("\u2019", "'").replace("\u2018", "'").replace("\u201c", '"').replace(
        "\u201d", '"')
    text = "".join(ch if ch in "\n\t" or unicodedata.category(ch)[0] != "C" else " " for ch in text)
    # "my son's got", "Tom's been": the 's of has, not of owning
    text = re.sub(r"\b(\w+)'s (got|been)\b", r"\1 has \2", text)
    # "my sister's allergic to cats", "Tom's moving": the 's of is before a state or a verb
    # (after a relation any such word; after a name only a person's state: "Goa's off" is
    # the trip)
    text = re.sub(r"\b(" + "|".join(map(re.escape, word_list("relations"))) + r")'s (?=(?:"
                  + _PERSON_STATES + r"|not|never|also|now|still|just|off|due)\b)", r"\1 is ",
                  text)
    text = re.sub(r"\b((?-i:[A-Z])\w+)'s (?=(?:" + _PERSON_STATES + r")\b)", r"\1 is ", text)
    # "Biscuit turns out to be allergic": the finding is the state
    text = re.sub(r"\b(turns|turned) out to be\b", lambda m: "is" if m.group(1) == "turns"
                  else "was", text, flags=re.IGNORECASE)
    expand = words()["expand"]
    assert isinstance(expand, dict)

    def fix(m: re.Match[str]) -> str:
        w = m.group(0)
        low = w.lower()
        if low in expand:
            out = str(expand[low])
            return out[:1].upper() + out[1:] if w[:1].isupper() or low.startswith("i") and \
                out.startswith("i ") else out
        return w

    # (a word joined by a hyphen is a name's part: the "U" of "U-Bahn" is no "you")
    text = re.sub(r"(?<![\w'-])[\w]+(?:'[\w]+)?(?![\w'-])|w/|b/c", fix, text)
    text = re.sub(r"\bi\b", "I", text)
    text = _ASIDE.sub(r"\1", text)
    return " ".join(text.split(" ")).strip()


def _header(sentence: str) -> list[str]:
    m = _HEADER.match(sentence.strip())
    if m is None or re.match(r"(?:my|our)\b", m.group(1), re.IGNORECASE):
        return [sentence]  # "my coffee order: flat white" is the user's attribute
    return [m.group(1), sentence.strip()[m.end():]]


def clauses(text: str) -> list[str]:
    """The clauses of a normalised message, each with its own end punctuation kept."""
    out: list[str] = []
    for sentence in (p for s in _SENTENCE.split(text) for p in _header(s)):
        s = sentence.strip()
        if not s:
            continue
        parts = [p.strip(" ,") for p in _JOIN.split(s) if p and p.strip(" ,")]
        joined: list[str] = []
        for p in parts:
            if joined and len(joined[-1].split()) == 1 and joined[-1][:1].isalpha() and \
                    re.match(r"(?:i|we|me)\b", p, re.IGNORECASE):
                joined[-1] = f"{joined[-1]} and {p}"  # "sam and I broke up": one subject
            else:
                joined.append(p)
        out += [p for p in joined if re.search(r"\w", p)]  # "!!" alone is no clause
    return out
