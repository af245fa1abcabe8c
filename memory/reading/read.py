"""Read one clause into a `Reading`: who it is about, which slot, which value, when, how sure.

Stages, each a small pure function: `tokens` (words with their spans and stems), `subject`
(self / a relative / someone else), the clause's kind (question, forget request, hypothetical),
`match_cue` (the cue table row whose stems occur right after the subject), `value_after` (the
value span the row's shape allows), and `check_value` (a value must read as English the user
would sign; anything else is counted as garbled and never written, invariant 532).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date, datetime
from functools import lru_cache

from ..slots import SLOTS, kind_of, render
from ..when import Tense, When, dates_in, strip_dates
from .model import Reading
from .tables import Cue, cues, phrase_set, word_list, word_stem, words

_TOKEN = re.compile(r"[\w][\w'.+&/-]*[\w+]|[\w]", re.UNICODE)
_FUTURE = re.compile(r"\b(?:will|going to|gonna|planning to|plan to|booked|flying|leaving|"
                     r"next|tomorrow|coming|upcoming|in \w+ (?:days?|weeks?|months?)|"
                     r"am (?:moving|starting|flying|going|visiting|seeing|getting|off)|"
                     r"(?:am|is|are|'s|'re) \w+ing (?:to|in|on|from|at)\b|"
                     r"(?:to|for|until|till|by) (?:the )?\d{1,2}(?:st|nd|rd|th)?\b|"
                     r"(?:pushed|moved|postponed|rescheduled|delayed) (?:\w+ ){0,3}to (?:the )?"
                     r"(?:\d{1,2}|(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)\w*)|"
                     r"are (?:moving|flying|going|visiting|getting)|from (?:january|february|"
                     r"march|april|may|june|july|august|september|october|november|december))\b",
                     re.IGNORECASE)
_DETERMINERS = {"a", "an", "the", "two", "three", "four", "five", "six", "some", "another",
                "new", "second", "one", "2", "3", "4", "5", "our", "my"}
_NAME_JOIN = {"of", "upon", "de", "la", "le", "del", "da", "do", "dos", "das", "am", "an",
              "der", "den", "on", "sur", "y", "i", "&"}


@dataclass(frozen=True)
class Tok:
    word: str  # as said
    low: str
    stem: str
    start: int
    end: int


def tokens(text: str) -> list[Tok]:
    out = []
    for m in _TOKEN.finditer(text):
        w = m.group(0).rstrip(".")
        low = w.lower()
        out.append(Tok(w, low, word_stem(low), m.start(), m.start() + len(w)))
    return out


# Words that may sit inside a cue without changing it ("I'm really into", "I've also got").
_SKIP = frozenset(word_stem(w) for w in "really so very quite totally actually also just now still "
                  "currently always even been finally officially back".split())


def _find(stems: list[str], phrase: tuple[str, ...], start: int = 0) -> int:
    """Where `phrase` starts in `stems` (from `start`), allowing _SKIP words between its
    words; -1 when it is not there."""
    return _find_span(stems, phrase, start)[0]


def _find_span(stems: list[str], phrase: tuple[str, ...], start: int = 0) -> tuple[int, int]:
    """(start, end) of `phrase` in `stems`, skipped words included; (-1, -1) when absent."""
    n = len(phrase)
    for i in range(start, len(stems) - n + 1):
        if stems[i] != phrase[0]:
            continue
        j, k = i + 1, 1
        while k < n and j < len(stems):
            if stems[j] == phrase[k]:
                k += 1
            elif stems[j] not in _SKIP:
                break
            j += 1
        if k == n:
            return i, j
    return -1, -1


def has_phrase(toks: list[Tok], table: str) -> bool:
    stems = [t.stem for t in toks]
    return any(_find(stems, p) >= 0 for p in phrase_set(table))


def _lead(toks: list[Tok]) -> int:
    """How many leading tokens are discourse ("oh", "btw", "quick update")."""
    low = [t.low for t in toks]  # said words, not stems: "his" is not the greeting "hi"
    phrases = sorted({tuple(p.lower().split()) for p in
                      (*word_list("discourse"), *word_list("hedges"), "think")},
                     key=len, reverse=True)
    i, moved = 0, True
    while moved:
        moved = False
        for p in phrases:
            if tuple(low[i:i + len(p)]) == p and i + len(p) < len(low):
                i, moved = i + len(p), True
                break
    return i


def subject(toks: list[Tok], i: int) -> tuple[str, int, str | None, str]:
    """(subject, index after it, relation word, person's name) of the clause from token i."""
    low = [t.low for t in toks]
    for p in sorted(word_list("self"), key=lambda s: -len(s.split())):
        n = len(p.split())
        if low[i:i + n] == p.split():
            return "self", i + n, None, ""
    if low[i + 1:i + 3] == ["and", "i"] and toks[i].word[:1].isupper() or \
            low[i:i + 2] == ["me", "and"] and i + 2 < len(low):
        # "Callum and I broke up", "me and Tom are moving": the user is one of them (the
        # other one's name stays in what follows: it may name what ended)
        return "self", i, None, ""
    group = _relation_at(low, i)
    if group is not None:  # "Papa shifted to Goa", "amma and appa have moved"
        rel, j = group
        return "relative", j, rel, ""
    if i + 2 < len(low) and low[i] in ("the", "a", "an", "our", "my") and (
            j := next((k for k in range(i + 1, min(i + 4, len(low)))
                       if low[k].removesuffix("'s") in word_list("others")), -1)) > 0 and (
            low[j].endswith("'s") and j + 1 < len(low) and low[j + 1] not in ("is", "was")
            or low[i] in ("the", "a", "an") and any(w in word_list("person_verbs")
                                                    for w in low[j + 1:j + 4])):
        # "the guy next door got a dog", "my neighbour's kid plays the drums": someone else
        return "other", j + 1, None, ""
    if i < len(low) and low[i] in ("my", "our", "her", "his"):
        j = i + 1
        word = low[j] if j < len(low) else ""
        found = next((r for r in word_list("relations")
                      if low[j:j + len(r.split())] == r.split()), None)
        if found is not None:
            rel = found
            j += len(rel.split())
            name = ""
            if j < len(toks) and toks[j].word[:1].isupper() and toks[j].low not in ("i",):
                name, j = toks[j].word, j + 1
            if j < len(low) and low[j] in ("is", "has", "and") and low[i] == "my" and rel:
                pass
            return "relative", j, rel, name
        if word.rstrip("s") in word_list("others") or word in word_list("others"):
            nxt = low[j + 1:j + 3]
            if nxt[:1] == ["is"] or "me" in nxt:  # "my manager is Priya", "my GP put me on"
                return "self", i, None, ""
            return "other", j + 1, None, ""
        if low[i] in ("her", "his"):
            return "other", j, None, ""  # "his name is Oskar": someone else's attribute
        return "self", i, None, ""  # "my phone is ...": the user's own attribute
    if i + 2 < len(toks) and low[i + 2] == "me" and low[i + 1] in word_list("acts_on_me"):
        return "self", i, None, ""  # "doctor started me on Ozempic": the user is the one changed
    if i < len(toks):
        t = toks[i]
        if t.low in ("he", "she", "they", "someone", "somebody", "everyone", "nobody", "noone",
                     "none"):
            return "other", i + 1, None, ""
        after = toks[i + 1].low if i + 1 < len(toks) else ""
        if t.low.endswith("'s") and (after in word_list("relations") or after.rstrip("s") in
                                     word_list("others")):
            return "other", i + 2, None, ""  # "Tom's brother just bought a Tesla"
        if t.word[:1].isupper() and after == "and" and i + 3 < len(toks) and \
                toks[i + 2].word[:1].isupper() and toks[i + 3].low in word_list("person_verbs") \
                + ("are", "have"):
            return "other", i + 3, None, f"{t.word} and {toks[i + 2].word}"  # "Ammi and Abbu"
        if t.low.endswith("'s") and after.endswith(("ing", "ed")) or (
                t.low not in word_list("function_words") and t.low not in _NOT_NAMES
                and (after in word_list("person_verbs") or after in _AUX_AFTER and
                     t.word[:1].isupper()) and kind_of(t.low) is None
                and (t.word[:1].isupper() or after != "is")
                and not (after == "is" and i + 2 < len(toks)
                         and toks[i + 2].low in ("where", "my", "our", "the", "a", "an"))):
            name = t.word.removesuffix("'s")
            return "other", i + 1, None, name[:1].upper() + name[1:]
    return "self", i, None, ""  # no subject said: texting ("moved to leeds") or a canonical text


# "Tom does not work from home": a name and its auxiliary are a person saying or doing
_AUX_AFTER = frozenset({"does", "did", "doesn't", "didn't", "never", "has", "hasn't", "will",
                        "won't", "can", "can't", "was", "wasn't"})
_NOT_NAMES = frozenset({"it", "that", "this", "there", "everything", "nothing", "something",
                        "where", "when", "why", "how",
                        "what", "which", "who", "here", "today", "yesterday", "tomorrow", "got",
                        "just", "finally", "also", "new", "old", "big", "news", "update", "sold",
                        "bought", "moved", "started", "quit", "left", "switched", "changed"})


def _relation_at(low: list[str], i: int) -> tuple[str, int] | None:
    """A relation said bare at the start ("Papa", "amma and appa", "mum"), canonicalised."""
    groups = words()["relation_groups"]
    assert isinstance(groups, dict)
    names = sorted(((n, canon) for canon, ns in groups.items() for n in ns),
                   key=lambda x: -len(x[0].split()))
    for name, canon in names:
        n = len(name.split())
        if low[i:i + n] == name.split() and (i + n < len(low)) and low[i + n] in (
                word_list("person_verbs") + ("have", "are", "just", "finally")):
            return canon, i + n
    return None


@lru_cache(maxsize=1)
def _AMBIGUOUS() -> frozenset[str]:  # noqa: N802 - a constant read once from the table
    return frozenset(word_stem(w) for w in word_list("verb_or_preposition"))


def match_cues(toks: list[Tok], start: int, subj_end: int) -> list[tuple[Cue, int, int]]:
    """The cue rows whose stems occur near the clause's start, most specific first: longer
    cues before shorter, then earlier before later: (row, start, end)."""
    stems = [t.stem for t in toks]
    found = []
    for cue in cues():
        at, end = _find_span(stems, cue.stems, start)
        # "like" is also a preposition ("somewhere like Kaş"): as a verb it follows its subject
        near = subj_end + 1 if len(cue.stems) == 1 and cue.stems[0] in _AMBIGUOUS() \
            and subj_end > start else -1 if len(cue.stems) == 1 and \
            cue.stems[0] in _AMBIGUOUS() else subj_end + 6
        while 0 <= at <= near:
            found.append((cue, at, end))
            at, end = _find_span(stems, cue.stems, at + 1)
    generic = {"owns", "uses", "likes", "attribute"}
    return sorted(found, key=lambda f: (-len(f[0].stems), f[0].slot in generic, f[1]))


def _stop_at(toks: list[Tok], i: int, table: str) -> bool:
    stems = [t.stem for t in toks]
    return any(tuple(stems[i:i + len(p)]) == p for p in phrase_set(table))


def _span(toks: list[Tok], a: int, b: int, clause: str) -> str:
    return clause[toks[a].start:toks[b - 1].end] if b > a else ""


def value_after(toks: list[Tok], at: int, shape: str, clause: str) -> str:
    """The value a row's shape allows from token `at` on ("" when the words do not fit it)."""
    if at >= len(toks):
        return ""
    if shape in ("place", "org"):
        return _proper_value(toks, at, shape, clause)
    if shape in _SHORT:
        return _SHORT[shape](toks, at, clause)
    value, end = _phrase_value(toks, at, shape, clause)
    return value if value and _fits(shape, value, toks, at, end) else ""


def _proper_value(toks: list[Tok], at: int, shape: str, clause: str) -> str:
    """A place or an organisation: a proper name ("Bishopston, Bristol", "the NHS", "Stoke
    on Trent"), or a lower-case one in texting ("leeds"); never a counted noun for an org."""
    n = len(toks)
    j = at + 1 if toks[at].low == "the" and shape == "org" else at
    k = j
    while k < n and k - j < 6:
        t = toks[k]
        capital = t.word[:1].isupper() or t.word[:1].isdigit()
        if k > j and clause[toks[k - 1].end:t.start].strip() in (",", "(", ")", "-", "!", "?"):
            if not (shape == "place" and capital and k - j <= 2):
                break
        if t.low in _NAME_JOIN and k > j and k + 1 < n and toks[k + 1].word[:1].isupper():
            k += 1
            continue
        if t.low in ("in", "near", "outside") and toks[j].low in ("a", "an") and \
                k + 1 < n and toks[k + 1].word[:1].isupper():
            k += 1  # "a house in Frome"
            continue
        if k > j and t.low in word_list("place_stops") and not capital:
            break
        if k == j and t.low in word_list("place_stops") and t.low not in ("a", "an"):
            return ""
        if k == j and t.low in ("a", "an") and shape == "org":
            return ""  # "joined a choir": an organisation is named, not counted
        if not capital and k > j and toks[j].word[:1].isupper():
            break  # "Bath now" / "Leeds last month": a lower-case word ends a proper name
        k += 1
    value = _span(toks, at if shape == "org" and toks[at].low == "the" else j, k, clause)
    if value == value.lower() and clause != clause.lower() and not value[:1].isdigit():
        return ""  # "moved to day shifts": a message that capitalises names says none here
    return value


def _name(toks: list[Tok], at: int, clause: str) -> str:
    first = toks[at]
    if not first.word[:1].isupper() and (clause != clause.lower()
                                         or first.low.endswith(("ing", "ed"))):
        return ""  # "my boss is moving": a name is said as a name
    k = at
    while k < len(toks) and k - at < 3 and toks[k].low not in word_list("stop_value") and (
            toks[k].word[:1].isupper() or k == at) and toks[k].low not in word_list("pronouns"):
        k += 1
    return _span(toks, at, k, clause)


def _swap(toks: list[Tok], at: int, clause: str) -> str:
    """"from X to Y", "X with Y", "X for Y": the value is Y."""
    to = next((k for k in range(at, min(len(toks), at + 8))
               if toks[k].low in ("to", "with", "for")), None)
    return value_after(toks, to + 1, "thing", clause) if to is not None else ""


def _attribute(toks: list[Tok], at: int, clause: str) -> str:
    """"my terminal is Ghostty": "terminal is Ghostty"."""
    is_at = next((k for k in range(at, min(len(toks), at + 4)) if toks[k].low == "is"), None)
    if is_at is None or is_at == at:
        return ""
    after = value_after(toks, is_at + 1, "thing", clause)
    key = _span(toks, at, is_at, clause)
    return f"{key} is {after}" if after and _is_key(key) else ""


def _name_only(toks: list[Tok], at: int, clause: str) -> str:
    """"I'm Priyanka": one name and nothing after it but a pause."""
    t, n = toks[at], len(toks)
    if (t.word[:1].isupper() and t.low not in word_list("diets") and kind_of(t.low) is None
            and (at + 1 == n or clause[t.end:toks[at + 1].start].strip() in (",", "!", ".", "-")
                 or toks[at + 1].low in ("btw", "here", "and"))):
        return t.word
    return ""


def _years(toks: list[Tok], at: int, clause: str) -> str:
    """"34 years old", "I turned 40": a number of years, not "32 weeks along"."""
    low = toks[at].low
    after = toks[at + 1].low if at + 1 < len(toks) else ""
    if after and after not in ("years", "year", "yo", "y", "yrs", "and", "today", "now",
                               "this", "last", "yesterday", "on", "in"):
        return ""
    return low if low.isdigit() and 0 < int(low) < 120 else ""


def _diet(toks: list[Tok], at: int, clause: str) -> str:
    for d in sorted(word_list("diets"), key=len, reverse=True):
        if " ".join(t.low for t in toks[at:at + len(d.split())]) == d:
            return d
    return ""


_SHORT = {"name": _name, "swap": _swap, "attribute": _attribute, "name_only": _name_only,
          "years": _years, "diet": _diet}


def _phrase_value(toks: list[Tok], at: int, shape: str, clause: str) -> tuple[str, int]:
    """A noun phrase from `at`: up to a stop word, a pause or a new subject; "and" joins a list
    of things ("a hub and two bulbs"); a capitalised word after a comma names what was said
    ("two cats, Laddoo and Jalebi"). Returns (value, end index)."""
    n = len(toks)
    while at < n - 1 and toks[at].low in word_list("lead_adverbs"):
        at += 1
    k = at
    while k < n and k - at < 8:
        t = toks[k]
        gap = clause[toks[k - 1].end:t.start].strip() if k > at else ""
        if k > at and t.low in ("i", "we", "she", "he", "they", "you"):
            break  # a new subject starts a new clause: "a Range Extender I never set up"
        appositive = gap == "," and shape in ("thing", "possession") and (
            (t.word[:1].isupper() and t.low != "i")
            or (t.low in ("a", "an") and k + 1 < n and (toks[k + 1].word[:1].isupper()
                                                       or toks[k + 1].word[:1].isdigit())))
        if gap in (",", ";", "(", "-", "!", "?", ":") and not (gap == "," and shape == "fav") \
                and not appositive:
            break
        listed = t.low in ("and", "&") and k + 1 < n and shape in (
            "thing", "possession", "food", "med") and (
            toks[k + 1].low in _DETERMINERS or toks[k + 1].word[:1].isupper()
            or toks[k + 1].low.isdigit() or _pair_of_words(toks, at, k, clause))
        # "one week in six", "two days out of five": a ratio's second number is the value's own
        ratio = t.low in ("in", "of", "out") and k + 1 < n and (
            toks[k + 1].low.isdigit() or toks[k + 1].low in word_list("number_words")) and any(
            x.low.isdigit() or x.low in word_list("number_words") for x in toks[at:k])
        # "allergic to the adhesive in plasters": "the" asks for the words that say which
        which = t.low in ("in", "on", "from") and toks[at].low == "the" and k + 1 < n and \
            toks[k + 1].word[:1].islower() and toks[k + 1].low not in _DETERMINERS and \
            toks[k + 1].low not in word_list("pronouns") and not toks[k + 1].low.isdigit()
        if k > at and _stop_at(toks, k, "stop_value") and not (shape == "fav" and t.low == "is") \
                and not listed and not ratio and not which and not (
                    t.low == "of" and shape in ("thing", "possession", "med")):
            break
        k += 1
    return _span(toks, at, k, clause), k


def _pair_of_words(toks: list[Tok], at: int, k: int, clause: str) -> bool:
    """"allergic to cats and dogs which is tragic": one bare word, "and", one bare word, then
    the clause ends or turns; both are the value."""
    n = len(toks)
    if k != at + 1 or k + 1 >= n or not (toks[at].word.isalpha() and toks[at].word.islower()) \
            or toks[at].low in _DETERMINERS or not (toks[k + 1].word.isalpha() and
                                                   toks[k + 1].low == toks[k + 1].word.lower()):
        return False
    nxt = k + 2
    if nxt >= n:
        return True
    gap = clause[toks[k + 1].end:toks[nxt].start].strip()
    return bool(gap) or toks[nxt].low in ("which", "that", "but", "so", "too", "as", "now",
                                          "though", "because", "both")


def _real_first(toks: list[Tok], at: int) -> Tok:
    """The first word of a value past "just", "actually", "now" and the like."""
    while at < len(toks) - 1 and (toks[at].low in word_list("lead_adverbs")
                                  or toks[at].low in ("actually", "really", "finally")):
        at += 1
    return toks[at]


def _fits(shape: str, value: str, toks: list[Tok], at: int, end: int) -> bool:
    """Whether a phrase is the kind of value its row's shape names (a role ends in a role word,
    a medicine names one, a thing is not a participle ...)."""
    low = value.lower()
    first = toks[at]
    checks = {
        "role": lambda: not ({t.low for t in toks[at:end]} & set(word_list("not_roles")))
        and any(toks[end - 1].low.endswith(s) for s in word_list("role_suffixes")),
        "condition": lambda: any(low.startswith(c) for c in word_list("conditions")),
        "med": lambda: any(re.search(r"\b" + re.escape(m) + r"\b|\d\s*mg\b", low)
                           for m in word_list("medicines")),
        "sport": lambda: any(low.startswith(s) for s in word_list("sports")),
        "club": lambda: any(re.search(r"\b" + c + r"\b", low) for c in word_list("clubs")),
        # "got engaged", "have gone vegetarian", "got back": a participle is no thing one has
        "thing": lambda: not (_real_first(toks, at).low.endswith("ed")
                              or _real_first(toks, at).low in word_list("participles"))
        or _real_first(toks, at).word[:1].isupper(),
        "possession": lambda: (not (_real_first(toks, at).low.endswith("ed")
                               or _real_first(toks, at).low in word_list("participles"))
                          or _real_first(toks, at).word[:1].isupper())
        # a thing is counted or named: "a Lumio Hub", "two cats", "Global Entry"; "time",
        # "team wrong" are not things one has
        and (_real_first(toks, at).low in _DETERMINERS | {"his", "her", "their", "some", "no",
                                                           "any", "both", "several", "lots"}
             or _real_first(toks, at).word[:1].isupper() or _real_first(toks, at).low[:1]
             .isdigit() or kind_of(value) is not None),
        "ing": lambda: first.low.endswith("ing"),
        "relation": lambda: first.low in word_list("relations"),
        "service": lambda: low in word_list("services") or value[:1].isupper(),
        "software": lambda: value[:1].isupper(),
        # "joined Monzo" is an employer; "joined the netball team at work" is not
        "named_org": lambda: _real_first(toks, at).word[:1].isupper(),
    }
    check = checks.get(shape)
    return check() if check else True


def attribute_before(toks: list[Tok], at: int, end: int, clause: str) -> str:
    """"Ghostty is my terminal": "terminal is Ghostty"."""
    key = value_after(toks, end, "thing", clause)
    said = value_before(toks, at, clause)
    return f"{key} is {said}" if key and said and len(key.split()) <= 3 and _is_key(key) else ""


def _is_key(key: str) -> bool:
    """An attribute of the user's own ("terminal", "coffee order"), not a person's thing
    ("Rex is my neighbour's") nor a person ("Amara is my sister")."""
    low = key.lower()
    last = low.split()[-1] if low.split() else ""
    return bool(last) and not low.endswith("'s") and last not in word_list("relations") and \
        last.rstrip("s") not in word_list("others") and last not in word_list("others")


def value_before(toks: list[Tok], at: int, clause: str) -> str:
    """The words right before a cue that takes its value first ("a bad sesame allergy")."""
    k = at
    while k > 0 and at - k < 3 and toks[k - 1].low not in word_list("function_words") and \
            toks[k - 1].low not in ("bad", "severe", "mild", "slight", "serious", "new", "become",
                                    "became", "get", "got", "getting", "developing", "develop",
                                    "developed") and not toks[k - 1].low.endswith(("ing", "ed")):
        k -= 1
    return _span(toks, k, at, clause)


_NUMBER_WORDS = frozenset("one two three four five six seven eight nine ten a few several some "
                          "both".split())


def check_value(value: str) -> str:
    """Why a value does not read as English the user would sign, or "" (invariant 532)."""
    toks = [t.low for t in tokens(value)]
    if not toks:
        return "no value"
    if len(toks) > 10:
        return "value too long"
    if set(toks) & (set(word_list("pronouns")) | {"your", "yours"}):
        return "a pronoun in the value"
    if any(" ".join(toks).endswith(w) for w in word_list("not_things")):
        return "an event, not something the user has or is"
    if toks[0] in ("and", "or", "to", "of", "is", "are", "am", "was", "were", "be", "been", "not",
                   "no", "never", "become", "became", "being", "got", "get", "seen", "done",
                   "that", "which", "who", "because", "but", "with", "for", "at", "in", "on"):
        return "starts with a function word"
    if toks[-1] in word_list("function_words") and toks[-1] not in ("it", "us", "me", "one"):
        return "ends with a function word"
    if {"am", "are", "was", "were", "is"} & set(toks[1:]):
        return "a verb inside the value"
    if "than" in toks:
        return "a comparison, not a value"  # "my house is smarter than me"
    if all(t in _NUMBER_WORDS for t in toks) and value[:1].islower():
        return "a number with nothing it counts"  # "I've got two anyway"
    dets = [i for i, t in enumerate(toks) if t in ("a", "an", "the")]
    if any(b - a <= 2 for a, b in zip(dets, dets[1:], strict=False)):
        return "a doubled article"  # "the learning the cello"
    if all(t.rstrip("s") in _TIMES for t in toks if t not in ("a", "an", "the", "on", "every")):
        return "a time, not a value"  # "we play tuesday lunchtimes"
    return ""


_TIMES = frozenset("monday tuesday wednesday thursday friday saturday sunday weekend weekday "
                   "morning afternoon evening night lunchtime lunch today tonight tomorrow day "
                   "week month year".split())


def _clean_value(value: str) -> str:
    # ("My Chemical Romance", "Our Lady of Sorrows": a capitalised "My" before a capitalised word
    # begins a title, and stays)
    value = re.sub(r"^(?!(?-i:My|Our)\s+(?-i:[A-Z]))(?:my|our)\s+", "", value.strip(),
                   flags=re.IGNORECASE)
    # "coffee, Tom finally converted me": the value ends where another clause begins
    value = re.sub(r",\s+(?=[^,]*\b(?:me|us|i|we|he|she|they|it)\b).*$", "", value,
                   flags=re.IGNORECASE)
    value = value.strip(" ,.;:!?\"'")
    trailing = sorted(word_list("trailing"), key=len, reverse=True)
    changed = True
    while changed and value:
        changed = False
        for t in trailing:
            if value.lower().endswith(" " + t):
                value, changed = value[:-len(t) - 1].rstrip(" ,"), True
                break
        # a preposition left dangling where a date was taken out: "Seoul trip pushed to"
        m = re.search(r"\s+(?:to|on|in|at|from|for|until|till|by|since|of|as|with|about)$",
                      value, re.I)
        if m and len(value.split()) > 2:
            value, changed = value[:m.start()].rstrip(" ,"), True
    return value


_AS_MY = re.compile(r"\bas (?:my|our) (?P<k>[\w -]{2,30}?)(?=\s+(?:now|last|since|from|these)\b|"
                    r"\s*[,.;!?]|\s*$)", re.IGNORECASE)
_DISOWN = re.compile(r"\b(?:is|are|was|were)\s+(?:not|never)\s+(?:mine|ours|my\s+\w+)\b|"
                     r"\bnot\s+(?:mine|ours)\b|\bnever\s+(?:actually\s+)?happened\b|"
                     r"\bdid\s+not\s+(?:actually\s+)?happen\b", re.IGNORECASE)
_NOT_ME = re.compile(r",?\s*not (?:me|mine|us)\b", re.IGNORECASE)
_BELIEF = re.compile(r"\b(?:might|may|could)\s+(?:be|have)\b(?!\s+to\b)|\bthinks?\s+I\b",
                     re.IGNORECASE)
# "I'd never been to Spain": the contraction was "had", a past perfect that can deny
_HAD_NEVER = re.compile(r"\bwould (?:never|not) (?:ever )?(?:been|had|seen|heard|met|lived|worked|"
                        r"owned|done|gone|known|tried|used)\b", re.IGNORECASE)
_PAST = re.compile(r"\b(?:was|were|did|had|ago|last|since|yesterday|\w{3,}ed)\b", re.IGNORECASE)


def _denied(toks: list[Tok], after: int, clause: str) -> str:
    """What a denial denies: the words after its last denial word ("never had a Hue bridge,
    that was my neighbour's" -> "a Hue bridge"), else every content word after the subject."""
    stems = [t.stem for t in toks]
    ends = [at + len(p) for p in phrase_set("denials") for at in [_find(stems, p)] if at >= 0]
    start = max([after, *ends])
    while start < len(toks) and toks[start].low in ("had", "have", "has", "owned", "lived",
                                                    "worked", "been", "used", "did", "do", "in",
                                                    "at", "for", "with", "to", "on", "having",
                                                    "owning", "using", "being"):
        start += 1
    said = value_after(toks, start, "thing", clause) if start < len(toks) else ""
    if said and not check_value(said):
        return said
    # the words of the denial's own clause, up to the first pause ("..., that was my mum's")
    stop = next((i for i in range(after + 1, len(toks))
                 if clause[toks[i - 1].end:toks[i].start].strip() in (",", ";", "-")), len(toks))
    return " ".join(t.word for t in toks[after:stop] if t.low not in word_list("function_words")
                    and t.stem not in {p[0] for p in phrase_set("denials")})


def tense_of(clause: str) -> Tense:
    """The tense a date without a year is read in: a future or progressive verb, or a date that
    is a target ("for 3 January"), looks ahead; a past verb looks back; a present statement of
    something dated ("I have an appointment on 15 December") looks ahead."""
    if _FUTURE.search(clause):
        return "future"
    # "I've got a dentist appointment on 15 December": "have got" is having, not a past
    said = re.sub(r"\b(?:'ve|have|has|'s)\s+got\b", "have", clause, flags=re.IGNORECASE)
    past = _PAST.search(said) or set(re.findall(r"[a-z]+", said.lower())) & set(
        word_list("past_verbs"))
    if re.search(r"(?<!the )\bstarts?\b(?! of)", clause, re.IGNORECASE):
        # "I start at Infineon on 1 February", "she starts school in September"; beside a past
        # verb ("graduated in October, and he starts at a firm in January") either side
        return "nearest" if past else "future"
    if re.search(r"(?<!the )\bstarting\b(?! of)", clause, re.IGNORECASE):
        # "starting 4 January", "cover starting 1 November" (said on 1 December): the
        # nearest such day, either side
        return "nearest"
    return "past" if past else "future"


# "wher do i live", "hw much do i pay": a misspelt question word before an auxiliary and "I"
_AUX = frozenset({"do", "does", "did", "am", "is", "are", "was", "can", "should", "will", "have"})


def _speech_act(clause: str, all_toks: list[Tok], lead: int) -> Reading | None:
    """A question or a request to forget, read before anything else; None for a statement."""
    r = Reading(clause=clause)
    toks = all_toks[lead:]
    first = toks[0].low if toks else ""
    asks = first in ("what", "where", "when", "who", "which", "why", "how", "whats",
                     "remind") or (first in word_list("question_starts") and len(toks) > 1
                                   and toks[1].low in ("i", "you", "we", "my", "me", "there", "it")
                                   ) or (len(toks) > 2 and toks[1].low in _AUX
                                         and toks[2].low in ("i", "you", "we"))
    request = any(t.low == "remember" for t in all_toks[:lead])  # "can you remember X?"
    uptalk = clause.rstrip().endswith("?") and not asks and (
        has_phrase(all_toks, "hedges") or request)
    # "why have you got us down as having a UPS??" challenges the record: a denial, not a question
    # "we don't have a UPS??": a negative statement said indignantly is a denial, not a question
    if re.match(r"(?:i|we)\s+(?:do not|did not|am not|are not|have never|never|have not)\b",
                clause[toks[0].start:] if toks else "", re.IGNORECASE):
        return None
    # "can you delete the therapy thing?": a request, not a question
    polite = first in ("can", "could", "would", "will", "pls", "please") and has_phrase(
        toks[:5], "forget")
    if (clause.rstrip().endswith("?") or asks) and not uptalk and not polite and not has_phrase(
            all_toks, "challenges"):
        return r.model_copy(update={"kind": "question"})
    anywhere = has_phrase(toks, "forget_anywhere")
    if re.search(r"\b(?:do not|don't|dont|never|not)\s+(?:ever\s+)?forget\b", clause, re.I):
        return None  # "don't forget I have the CKA in January": remember it, not forget it
    if has_phrase(toks[:4], "forget") or (has_phrase(toks, "forget") or anywhere) and (first in (
            "please", "can", "could", "forget", "delete", "remove", "erase") or anywhere):
        if taken_back(clause):
            return r.model_copy(update={"kind": "nothing", "reason": "forget request taken back"})
        return r.model_copy(update={"kind": "forget", "target": _forget_target(clause, toks)})
    return r.model_copy(update={"hedged": uptalk}) if uptalk else None


def taken_back(clause: str) -> bool:
    """"never mind, keep it": a forget request withdrawn ("no need to keep that" is not)."""
    return has_phrase(tokens(clause), "forget_taken_back") and not re.search(
        r"\bneed\s+(?:to\s+)?keep\b", clause, re.IGNORECASE)


_FILLER = re.compile(r"\b(?:from|out of|off)\s+(?:your|what you|the)\s+(?:memory|memories|"
                     r"records?|notes?|list|file|remember|know|have)\b|\b(?:from|on)\s+file\b|"
                     r"\b(?:please|pls|it|that|this|them|those|stuff|thing|things|what you have"
                     r"(?: on (?:her|him|them))?|about (?:her|him|them)|gone|everything)\b",
                     re.IGNORECASE)


def _forget_target(clause: str, toks: list[Tok]) -> str:
    """What a forget request names: the words after its verb, up to the reason ("the
    Fontainebleau trip, no need to ..."); when those are only "it" or "from your memory", the
    words before the verb ("my street address shouldn't be stored, get rid of it")."""
    stems = [t.stem for t in toks]
    spans = [(i, i + len(p)) for p in (*phrase_set("forget"), *phrase_set("forget_anywhere"))
             if (i := _find(stems, p)) >= 0]
    covered = {i for a, b in spans for i in range(a, b)}
    first = min(a for a, _ in spans)
    runs: list[tuple[int, int]] = []  # stretches of the clause no forget phrase covers
    for i in range(len(toks)):
        if i in covered:
            continue
        if runs and runs[-1][1] == i:
            runs[-1] = (runs[-1][0], i + 1)
        else:
            runs.append((i, i + 1))
    after = [r for r in runs if r[0] > first] + [r for r in reversed(runs) if r[0] < first]
    for a, b in after:
        said = clause[toks[a].start:toks[b - 1].end]
        # what it names ends where the reason begins
        said = re.split(r"[,;?!]|\s(?:so|because|since|she|he|they)\s", said, maxsplit=1,
                        flags=re.IGNORECASE)[0] if a > first else re.split(
                            r"[,;?!]\s*", said.strip(" ,;"))[-1]
        said = re.sub(r"^\W*(?:(?:you|i|we)\s+(?:do not|would like|want)\s+(?:need\s+to\s+)?"
                      r"(?:remember\s+)?|take\s+)", "", said.strip(), flags=re.IGNORECASE)
        if _FILLER.sub("", said).strip(" .,"):
            return _FILLER.sub(" ", said).strip(" .,")
    return ""


def _dates(clause: str, now: datetime, tense: Tense) -> tuple[When | None, date | None]:
    """(the phrase that dates the value, the day it stops: "until June")."""
    dated = [w for w in dates_in(clause, now, tense) if w.kind != "rel_season"]
    # ("it came through yesterday": the day it came, not the day it stops)
    ends = [w for w in dated if re.search(r"\b(?:until|till|til|up to|(?<!came )(?<!come )"
                                          r"(?<!went )(?<!got )through)\s+(?:the\s+)?$",
                                          clause[:w.start], re.IGNORECASE)
            or re.match(r"(?:until|till|til)\b", w.phrase, re.IGNORECASE)]
    return next((w for w in dated if w not in ends), None), ends[0].day if ends else None


def _best_cue(plain: str) -> tuple[tuple[Cue, int, int] | None, str]:
    """The most specific cue row whose value reads well; else the first that read anything
    (kept as garbled: counted, never written)."""
    ptoks = tokens(plain)
    plead = _lead(ptoks)
    _, pafter, _, _ = subject(ptoks, plead)
    fallback: tuple[tuple[Cue, int, int] | None, str] = (None, "")
    for cue, at, end in match_cues(ptoks, plead, pafter):
        if cue.shape == "attribute_before":
            said = attribute_before(ptoks, at, end, plain)
        elif cue.before:
            said = value_before(ptoks, at, plain)
        else:
            said = value_after(ptoks, end, cue.shape, plain)
        said = _clean_value(said)
        checked = said.split(" is ", 1)[-1] if cue.slot == "attribute" else said
        if said and not check_value(checked):
            return _but_then(ptoks, (cue, at, end), said, plain)
        if said and fallback[0] is None:
            fallback = ((cue, at, end), said)
    return fallback


def _but_then(ptoks: list[Tok], found: tuple[Cue, int, int], said: str, plain: str
              ) -> tuple[tuple[Cue, int, int] | None, str]:
    """"My English name is Kevin but please call me Wei": a value of the same slot said after
    "but" is the one the user means."""
    but = next((i for i in range(found[2], len(ptoks)) if ptoks[i].low == "but"), -1)
    if but < 0:
        return found, said
    for cue, at, end in match_cues(ptoks, but + 1, but + 1):
        if cue.slot != found[0].slot or cue.before or cue.shape == "attribute_before":
            continue
        later = _clean_value(value_after(ptoks, end, cue.shape, plain))
        if later and not check_value(later):
            return (cue, at, end), later
    return found, said


def _owner_before(plain: str, at: int) -> bool:
    ptoks = tokens(plain)
    return at > 0 and ptoks[at - 1].low in ("her", "his", "their", "its") or (
        at < len(ptoks) and ptoks[at].low in ("her", "his", "their"))


def _negation_near(plain: str, found: tuple[Cue, int, int]) -> bool:
    ptoks = tokens(plain)
    cue, at, end = found
    near = [t.low for t in ptoks[max(0, at - 4):min(len(ptoks), end + 1)]]
    return any(w in ("not", "never", "no") for w in near) and not any(
        s.rstrip("#") in ("not", "no", "never") for s in cue.stems)


def _negated(toks: list[Tok], plain: str, found: tuple[Cue, int, int]) -> bool:
    """"I'm not allergic to cats", "I don't speak French", "I have no NIF": the cue's own
    statement said with a negation (a negative row such as "don't eat" is not one)."""
    ptoks = tokens(plain)
    cue, at, end = found
    near = [t.low for t in ptoks[max(0, at - 4):min(len(ptoks), end + 1)]]
    # "I don't have the Roborock with me today" is a passing state, not a denial; "I'm not
    # going to Lisbon after all" calls a plan off
    if _FUTURE.search(plain) or re.search(r"\bgoing\b", plain, re.I) or (
            cue.slot == "plan" and re.search(r"\bafter all\b", plain, re.I)):
        return False
    return any(w in ("not", "never", "no") for w in near) and not any(
        s.rstrip("#") in ("not", "no", "never") for s in cue.stems) and not has_phrase(
        ptoks, "passing")


_SOURCE = re.compile(r"\b(?:adopt\w*|bought|buy|got|rescued|ordered|received|picked up|collected|"
                     r"inherited|borrowed)\b", re.IGNORECASE)


def _old_value(plain: str, toks: list[Tok], value: str, ending: bool, act: str,
               cue_start: int = 0) -> str:
    """What the clause says the value replaces: "from ZHA", "instead of Drive", or what it
    says ended ("gave up guitar, switched to ukulele")."""
    m = re.search(r"\b(?:from|instead of|rather than|over|replac\w* (?:the |my |our )?)"
                  r"(?P<old>[\w .+-]{2,40}?)\s*(?:\bto\b|\bwith\b|\bfor\b|\bnow\b|[,.;!?]|$)",
                  plain, re.IGNORECASE)
    if m and not (m.group(0).lower().startswith("from") and _SOURCE.search(plain)
                  and not re.search(r"\bto\b", plain[m.start():], re.IGNORECASE)):
        # ("adopted a cat from the Tierheim": where it came from, not what it replaced)
        return m.group("old").strip()
    if ending and act == "change":  # the words said before the new value's cue
        before = tokens(plain[:cue_start]) if cue_start else toks
        return " ".join(t.word for t in before if t.low not in word_list("function_words")
                        and t.stem not in {p[0] for p in phrase_set("endings")}
                        and t.low not in value.lower().split())
    return ""


_AS_ROLE = re.compile(r"(?:\s+[a-z]+){0,2}?\s+as (?!(?:well|usual|always|before|much|long|"
                      r"far|soon|of|if|though|a result|an? aside)\b)"
                      r"(?P<r>(?:an? |the )?[\w -]{3,40}?)"
                      r"\s*(?:[,.;!(]|$)")


_AT_ORG = re.compile(r"\s+(?P<p>in|at|for|with) (?P<o>(?!I\b)[A-Z][\w&'-]*(?:\s+[A-Z][\w&'-]*){0,3})"
                     r"\s*(?:[,.;!(]|$)")


def _fact_text(cue: Cue, value: str, plain: str, subj: str, rel: str | None, name: str
               ) -> tuple[str, str]:
    """(slot, canonical text) of a value read by a cue row, for the user or the person named."""
    slot = cue.slot
    text = (cue.template or SLOTS[slot].template).format(v=value)
    text = text[:1].upper() + text[1:]
    named = _AS_MY.search(plain)
    if named and slot in ("owns", "uses") and subj == "self":
        # "I switched to Helix as my main editor": the thing is named by its role
        text = f"{named.group('k')[:1].upper()}{named.group('k')[1:]} is {value}"
    if slot in ("owns", "uses") and kind_of(value) in ("dog", "cat"):
        slot = "pet"
    role = _AS_ROLE.match(plain, plain.find(value) + len(value)) if slot == "employer" and \
        value in plain else None
    if role and not check_value(role.group("r")):
        # "I work at Heathrow airport as cleaning supervisor": the role said with the employer
        text = f"{text} as {role.group('r')}"
    org = _AT_ORG.match(plain, plain.find(value) + len(value)) if slot == "job" and \
        value in plain else None
    if org:  # "I am financial analyst in Alibaba": the employer said with the role
        text = f"{text} {org.group('p')} {org.group('o')}"
    if slot == "home" and cue.shape == "swap" and kind_of(value):
        slot = "uses"  # "moved from fish to zsh": a tool, not a town
        text = SLOTS["uses"].template.format(v=value)
    if subj in ("relative", "other") and (rel or name):
        who = f"{rel.capitalize()} {name}" if rel and name else (rel or "").capitalize() or name
        # "Biscuit is allergic to grain": a state said of them needs its verb
        verb = "" if text.split()[0].endswith("s") or " is " in text or " are " in text \
            else "is "
        text = f"{who.strip()} {verb}{text[:1].lower()}{text[1:]}"
    return slot, text


@lru_cache(maxsize=1)
def _THEIRS() -> re.Pattern[str]:  # noqa: N802 - a pattern built once from the table
    """"The Peloton was hers all along", "the shellfish allergy was my sister's": a thing said
    to be someone else's (the relation words are the table's)."""
    rel = "|".join(re.escape(w) for w in sorted(word_list("relations"), key=len, reverse=True))
    return re.compile(r"^(?:the\s+|that\s+|my\s+|our\s+)?(?P<thing>[\w'-]+(?:\s+[\w'-]+){0,3}?)"
                      r"\s+(?:is|was|were|are)\s+(?:actually\s+|always\s+)?(?:(?:my|our)\s+(?:"
                      + rel + r")'s|(?:his|hers|theirs)\s+all\s+along)\b", re.IGNORECASE)


def _disowned(r: Reading, plain: str, clause: str, value: str, slot_cue: Cue | None,
              subj: str, ending: bool) -> Reading | None:
    """A clause that says something is not the user's: a denial ("Kiwi isn't mine", "my
    birthday isn't August 19") or someone else's ("…, not me"); None otherwise."""
    disown = _DISOWN.search(plain)
    if disown and disown.start() > 0 and not ending:  # "isn't my manager any more" ended
        # "Kiwi isn't mine, he's my nan's budgie": the user disowns what the clause names
        # what is disowned is the clause's subject ("The Pixel 8 is Jan's, not mine"), or for
        # "Sofia was never my manager" the subject and the role
        said = re.split(r"\s+(?:is|are|was|were)\b", plain[:disown.start()], maxsplit=1)[0]
        owned = re.search(r"\b(?:my|our|his|her|their)\s+[\w-]+'s\s+(?P<n>[\w-]+(?:\s+[\w-]+)?)",
                          plain[:disown.start()], re.IGNORECASE)
        if said.strip().lower() in ("that", "this", "it", "those", "these", "they") and owned:
            said = owned.group("n")  # "That was my sister's car, not mine": the car is disowned
        role = re.match(r"never my (\w+)", disown.group(0).split(None, 1)[-1], re.IGNORECASE)
        return r.model_copy(update={"act": "deny", "subject": "self", "kind": "statement",
                                    "target": f"{said} {role.group(1)}" if role else said})
    said_not = re.match(r"(?P<k>.+?) is not\b", value) if slot_cue and \
        slot_cue.slot == "attribute" else None
    if said_not and subj == "self":
        # "my birthday isn't August 19": the attribute on record with that value was never true
        # (the value as said, dates and all)
        after_not = re.search(r"\bnot\s+([^,;!?]+)", clause)
        return r.model_copy(update={"act": "deny", "kind": "statement", "target": (
            f"{said_not.group('k')} {after_not.group(1) if after_not else ''}").strip()})
    theirs = _THEIRS().match(plain.strip())
    if theirs and subj == "self" and not ending:
        # "the shellfish allergy was my sister's": what the clause names is a relative's, never
        # the user's; which fact it means is for an operator to confirm (a hedged denial)
        return r.model_copy(update={"act": "deny", "kind": "statement", "hedged": True,
                                    "target": theirs.group("thing")})
    if _NOT_ME.search(plain):
        # "Tom's the one who drinks coffee, not me": about someone else, said to correct us
        return r.model_copy(update={"kind": "nothing", "reason": "about someone else"})
    return None


_EXPIRY = re.compile(r"\b(?:expires?|expiring|expiry|runs? out|run out|valid until|renewal)\b",
                     re.IGNORECASE)


def _unread_clause(r: Reading, toks: list[Tok], after: int, clause: str, plain: str,
                   ending: bool, dated: bool) -> Reading:
    """A clause no cue row reads: an ending of something named, or kept with its words in the
    third person, for resolution to offer an operator as a candidate when it names a fact on
    record or a lasting habit (invariant 534)."""
    # what ended is said before the first comma: "sold the roborock on marketplace
    # yesterday, biscuit kept attacking it"
    first = next((i for i in range(after + 1, len(toks))
                  if "," in clause[toks[i - 1].end:toks[i].start]), len(toks))
    target = " ".join(t.word for t in toks[after:first] if t.low not in word_list(
        "function_words"))
    if ending and r.subject == "self":
        return r.model_copy(update={"act": "end", "target": target,
                                    "said_as": third_person(plain)})
    # "my driving licence expires on 4 March": the date is what the fact says, not when it began
    said = clause if dated and _EXPIRY.search(clause) else plain
    return r.model_copy(update={"kind": "nothing", "reason": "no slot I can read",
                                "text": third_person(said) if r.subject == "self"
                                else news_text(said), "target": target,
                                "act": "change" if has_phrase(toks, "changes") or dated
                                else "state"})


_WAS_THERE = re.compile(r"\b(?:lived|used to (?:live|work)|grew up|was living|was working|"
                        r"worked)\b", re.IGNORECASE)
_STILL_THERE = re.compile(r"\b(?:have|has|'ve)\s+(?:\w+\s+)?(?:lived|worked)\b|\bsince\b",
                          re.IGNORECASE)
_SAID_THEN_ASKED = re.compile(r"^(?:i am|i'm|im|i have|i've|my|we are|we have|i work|i live)\b"
                              r"[^,?]{3,60},\s*(?:any|what|how|which|where|when|who|can|could|"
                              r"should|do|does|is|are|would)\b", re.IGNORECASE)
_VERDICT_ON = re.compile(r"^(?P<unsure>(?:i am |i'm )?not (?:sure|convinced) (?:that )?)?(?:the|that|this|"
                         r"my) (?P<t>[\w' -]{2,40}?) (?:thing|bit|stuff|part|business) (?:was|is) "
                         r"(?:(?:all|just|completely) )?(?P<v>wrong|not right|not true|incorrect|a "
                         r"mistake|right)\b", re.IGNORECASE)
_REMEMBER = re.compile(r"^(?:(?:please|pls|and|also|oh)\s+)*(?:do not|don't|dont|never)\s+(?:ever\s+)?"
                       r"forget\s+(?:that\s+)?", re.IGNORECASE)
_FOUND_OUT = re.compile(r"^(?:(?:so|and|just|i|i have|i just|we just|we have)\s+)*(?:found out|"
                        r"learned|learnt|discovered|it turns out|turns out)\s+(?:that\s+)?"
                        r"(?=(?:i|i am|i have|my|we|we are)\b)", re.IGNORECASE)
def _had_once(clause: str, toks: list[Tok]) -> bool:
    """"In the past I lived in Kraków": a home or job the user had is not the current one
    ("I've lived in Leeds since March" is)."""
    return bool(_WAS_THERE.search(clause)) and not has_phrase(toks, "changes") and \
        not _STILL_THERE.search(clause)


# "a skin test last week showed I'm not allergic": what a test or a document showed the user,
# first-hand evidence (no hedge, unlike someone's opinion below)
_SHOWN = re.compile(r"^(?:(?:a|an|the|my|our)\s+)?[\w'-]+(?:\s+[\w'-]+){0,4}?\s+(?:showed|shows|"
                    r"confirmed|confirms|proved|proves|came back)\s+(?:(?:yesterday|today|on \w+|"
                    r"last \w+|this \w+)\s+)?(?:that\s+)?"
                    r"(?=(?:i|i am|i have|i'm|im|my)\b|(?-i:[A-Z])\w+ (?:is|has|was)\b)",
                    re.IGNORECASE)
_REPORTED = re.compile(r"^(?:(?:my|the|our|his|her)\s+)?[\w'-]+(?:\s+[\w'-]+)?\s+(?:thinks|"
                       r"says|said|reckons|suspects|believes|told me|mentioned)\s+(?:that\s+)?"
                       r"(?=(?:i|i am|i have|my)\b|(?-i:[A-Z])\w+ (?:is|has|was)\b)", re.IGNORECASE)


_MY_X_IS_ON = re.compile(r"^(?:(?:oh|and|also|btw|fyi)[\s,]+)*(?:my|our) (?P<k>[\w-]+(?: [\w-]+)?)"
                         r"(?: is|'s| falls)(?: (?:always|actually|really|now))? (?P<d>(?:on )?[\w ,.-]{3,40})$",
                         re.IGNORECASE)
_MY_X_IS_NAMED = re.compile(r"^(?:my|our) (?P<k>[\w-]+(?: [\w-]+)?)(?:(?:'s name is| is called| is named| "
                            r"name is|'s called) (?P<n>[\w'-]+(?: (?-i:[A-Z])[\w'-]+)?)| is (?P<n2>(?:"
                            r"(?-i:Dr|Mr|Mrs|Ms|Prof)\.? )?(?-i:[A-Z])[\w'-]+(?: (?-i:[A-Z])[\w'-]+)?))"
                            r"(?=\s*(?:$|,|\band\b|\bbut\b|\bwho\b))",
                            re.IGNORECASE)


def _names_someone(key: str) -> bool:
    """The key is a person or animal the user has: a relative, a role ("doctor", "GP"), a pet."""
    last = key.lower().split()[-1]
    return last in word_list("relations") or last in word_list("others") or last in (
        "gp", "dentist", "vet", "physio", "therapist", "cat", "dog", "puppy", "kitten", "pet",
        "rabbit", "hamster", "horse", "parrot", "bird", "tortoise", "fish") and last not in (
        "you", "someone", "somebody", "everyone", "nobody", "people", "team", "company", "office")


_MY_NEW = re.compile(r"^(?P<m>my|our) new (?P<rest>[\w-]+(?: [\w-]+)? (?:is|are) (?:an? |the )?"
                     r"(?-i:[A-Z0-9])[^,.;!?]*)", re.IGNORECASE)
_AND_I = re.compile(r"^(?P<n>(?-i:[A-Z])[\w'-]+) and (?:I|me) (?P<rest>.+)$", re.IGNORECASE)
_NAME_IS_MY = re.compile(r"^(?P<n>(?-i:[A-Z])[\w'-]+(?: (?-i:[A-Z])[\w'-]+)?) (?:is|'s) (?:now )?"
                         r"(?P<m>my|our) (?P<new>new )?(?P<k>[\w-]+(?: [\w-]+)?)(?P<rest>\s*(?:now)?"
                         r"\s*(?:[,.;!]|$).*)", re.IGNORECASE)


def read_clause(clause: str, now: datetime) -> Reading:
    """One clause, read: speech act, subject, dates, the best cue row and its value. Pure.
    A clause in a frame the cue rows do not read is reframed first (who with, whose name,
    what was found out or shown, a verdict, a statement before its question)."""
    for frame in (_said_with, _said_of, _said_around):
        framed = frame(clause, now)
        if framed is not None:
            return framed
    return _read_clause(clause, now)


def _said_with(clause: str, now: datetime) -> Reading | None:
    """"Tom and I got engaged", "our new fridge is a Samsung", "Siobhán is my new manager":
    the same clause in the words a cue row reads."""
    joint = _AND_I.match(clause.strip())
    if joint and joint.group("n").lower() not in word_list("pronouns"):
        # "Tom and I got engaged on Saturday": the user's own news, said with whom
        rest = re.sub(r"^are\b", "am", re.sub(r"^were\b", "was", joint.group("rest")))
        inner = read_clause(f"I {rest}", now)
        if inner.kind == "nothing" and inner.text and inner.subject == "self":
            to = " to " if re.search(r"\b(?:engaged|married)\b", inner.text, re.I) else " with "
            return inner.model_copy(update={"clause": clause,
                                            "text": f"{inner.text}{to}{joint.group('n')}"})
        return inner.model_copy(update={"clause": clause})
    fresh = _MY_NEW.match(clause.strip())
    if fresh:
        # "our new fridge is a Samsung Family Hub": the thing's new value, said as a change
        return read_clause(f"my {fresh.group('rest')} now", now).model_copy(
            update={"clause": clause})
    named = _NAME_IS_MY.match(clause.strip())
    if named and named.group("n").lower() not in word_list("pronouns") and not _THEIRS().match(
            clause.strip()) and named.group("n").split()[0].lower() not in (
            "this", "that", "it", "there", "here", "he", "she", "they", "what", "who"):
        # "Siobhán is my new manager": the name said first is the value of "my manager"
        return read_clause(f"{named.group('m')} {named.group('k')} is {named.group('n')}"
                           f"{' now' if named.group('new') else ''}{named.group('rest')}",
                           now).model_copy(
                               update={"clause": clause})
    return None


def _said_of(clause: str, now: datetime) -> Reading | None:
    """A yearly day's date or the name of someone the user has, read whole."""
    dated = _MY_X_IS_ON.match(clause.strip(" .!?"))
    if dated and dated.group("k").strip().lower() in word_list("yearly_days") and dates_in(
            dated.group("d"), now, "future") and not strip_dates(
            dated.group("d"), now).strip(" ,.!?") and re.search(
                r"\d|jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec", dated.group("d"), re.I):
        # "my birthday is on the 3rd of May": a yearly day's date is its value, as the user
        # said it (a calendar day, never "Friday"); a dated plan reads as a plan
        k = dated.group("k").strip()
        return Reading(clause=clause, slot="attribute", key=k.lower(), value=dated.group("d"),
                       text=f"{k[:1].upper()}{k[1:]} is {dated.group('d').strip()}",
                       target=dated.group("d"), cue="date", subject="self")
    called = _MY_X_IS_NAMED.match(clause.strip(" .!?"))
    if called and _names_someone(called.group("k")):
        # "my wife is called Priya", "my cat is called miso", "my doctor is Dr Patel": who
        # they are, a lasting fact of the user's (one name per role: a later one replaces it)
        k = called.group("k").strip()
        n = called.group("n") or called.group("n2")
        own = next((slot for slot in ("partner", "manager") if k.lower().split()[-1] in
                    SLOTS[slot].query.split()), None)
        if own:  # "my wife is called Priya": the partner slot's own fact
            return Reading(clause=clause, slot=own, value=n, text=render(own, n), target=n,
                           cue="called", subject="self")
        text = f"{k[:1].upper()}{k[1:]} is {'' if called.group('n2') else 'called '}{n}"
        return Reading(clause=clause, slot="attribute", key=f"{k.lower()} name", value=n,
                       text=text, target=n, cue="called", subject="self")
    return None


def _said_around(clause: str, now: datetime) -> Reading | None:
    """A statement inside a frame: before its question, under a verdict, after "don't
    forget", "found out", what a test showed, what someone thinks."""
    if clause.rstrip().endswith("?") and "," in clause and _SAID_THEN_ASKED.match(clause.strip()):
        # "I'm a teacher btw, any tips for marking faster?": a statement, then the question
        said = read_clause(clause.split(",")[0], now)
        if said.kind == "statement" or said.kind == "nothing" and said.text:
            return said.model_copy(update={"clause": clause})
    verdict = _VERDICT_ON.match(clause.strip(" .!?"))
    if verdict:
        # "the lactose intolerance thing was wrong", "not sure the ibuprofen thing is right":
        # a verdict on something on record is a denial of it (unsure when the user says so)
        unsure = bool(verdict.group("unsure")) or verdict.group("v").lower() == "right"
        return Reading(clause=clause, act="deny", target=verdict.group("t"), hedged=unsure)
    kept = _REMEMBER.match(clause.strip())
    if kept and kept.end() < len(clause.strip()):
        # "don't forget I have the CKA in January": what to keep, said as a statement
        return read_clause(clause.strip()[kept.end():], now).model_copy(update={"clause": clause})
    found = _FOUND_OUT.match(clause.strip())
    if found and found.end() < len(clause.strip()):
        # "Just found out I'm pregnant!": what the user found out, said as a fact of theirs
        return read_clause(clause.strip()[found.end():], now).model_copy(
            update={"clause": clause})
    shown = _SHOWN.match(clause.strip())
    if shown and shown.end() < len(clause.strip()):
        return read_clause(clause.strip()[shown.end():], now).model_copy(
            update={"clause": clause})
    reported = _REPORTED.match(clause.strip())
    if reported and reported.end() < len(clause.strip()):
        # "the physio thinks I might have hypermobility": someone's opinion of the user is
        # about the user, and unsure (a candidate at most)
        inner = read_clause(clause.strip()[reported.end():], now)
        return inner.model_copy(update={"clause": clause, "hedged": True})
    return None


def _read_clause(clause: str, now: datetime) -> Reading:
    all_toks = tokens(clause)
    if not all_toks:
        return Reading(clause=clause, kind="nothing", reason="no words")
    lead = _lead(all_toks)
    act_read = _speech_act(clause, all_toks, lead)
    if act_read is not None and act_read.kind != "statement":
        return act_read
    toks = all_toks[lead:]
    subj, after, rel, name = subject(toks, 0)
    tense = tense_of(clause)
    when, until = _dates(clause, now, tense)
    plain = strip_dates(clause, now)
    found, value = _best_cue(plain)
    r = Reading(clause=clause, subject=subj, relation=rel,
                # "no idea why you think I use Postgres.app" challenges the record: no hedge
                hedged=has_phrase(all_toks, "hedges") and not has_phrase(all_toks, "challenges")
                or bool(act_read and act_read.hedged),
                when=when.day if when else None, until=until,
                future=bool(when and when.future) or tense == "future")
    pronoun = subj == "other" and not name and toks[0].low in ("she", "he", "they")
    if subj == "other" and not name and not pronoun:
        return r.model_copy(update={"kind": "nothing", "reason": "about someone else",
                                    "text": news_text(plain)})
    slot_cue = found[0] if found else None
    if found is not None and _owner_before(plain, found[1]):
        # "I've started seeing someone, her name is Amélie": her name, not the user's
        return r.model_copy(update={"kind": "nothing", "reason": "about someone else"})
    # "I might be grinding my teeth", "it could be mild asthma": a belief the user is unsure
    # of (a candidate), not a plan or a wish (nothing)
    belief = _BELIEF.search(clause) is not None and not has_phrase(toks, "challenges") and not (
        slot_cue and slot_cue.slot in ("plan", "home", "employer", "job"))
    if belief:
        r = r.model_copy(update={"hedged": True})
    if _wished(toks, clause, belief, slot_cue, r.hedged):
        return r.model_copy(update={"kind": "nothing", "reason": "hypothetical or wish"})
    ending = _ending(plain, toks, found)
    negated = found is not None and not ending and _negated(toks, plain, found)
    if found is not None and not negated and not ending and _negation_near(plain, found) and \
            not (slot_cue and slot_cue.slot in ("avoids", "dislikes")):
        # "I don't have a car", "not moving to Leeds after all": nothing to write
        return r.model_copy(update={"kind": "nothing", "reason": "said in the negative"})
    said_so = _disowned(r, plain, clause, value, slot_cue, subj, ending) or _said_not(
        r, toks, after, clause, value, slot_cue, negated)
    if said_so is not None:
        return said_so
    if slot_cue is None:
        return _unread_clause(r.model_copy(update={"person": name}), toks, after, clause,
                              plain, ending, when is not None)
    if slot_cue.slot in ("home", "employer") and _had_once(clause, toks):
        return r.model_copy(update={"kind": "nothing", "reason": "a past home or job"})
    if slot_cue.slot == "plan" and (when is None or not when.future):
        # a plan is dated and still to come; "passed the B2 exam on 14 November" is past:
        # news about something, read as a clause no row reads (only ever a candidate)
        if tense == "past" and not _FUTURE.search(clause):
            return _unread_clause(r.model_copy(update={"person": name}), toks, after, clause,
                                  plain, ending, when is not None)
        return r.model_copy(update={"kind": "nothing", "reason": "a plan with no date ahead"})
    act = slot_cue.act
    if ending and act != "change" and slot_cue.slot != "avoids":
        act = "end"
    elif act == "state" and has_phrase(toks, "changes"):
        act = "change"
    problem = _value_problem(slot_cue, value, plain)
    if problem and ending and subj == "self":
        # "Sold the Peloton, nobody was using it": the cue read the aside; what ended is
        # what the clause names (its value refused, and counted)
        return _unread_clause(r.model_copy(update={"person": name, "garbled": True}), toks,
                              after, clause, plain, ending, when is not None)
    slot, text = _fact_text(slot_cue, value, plain, subj, rel, name) if not problem \
        else (slot_cue.slot, "")
    return r.model_copy(update={
        "slot": slot, "value": value, "text": text, "act": act,
        "old_value": _old_value(plain, toks, value, ending, act,
                                tokens(plain)[found[1]].start if found else 0), "person": name,
        "key": value.split(" is ")[0].lower() if slot_cue.slot == "attribute" else "",
        "garbled": bool(problem), "target": value, "kind": "statement",
        "reason": "a pronoun subject" if pronoun and not problem else problem,
        "cue": " ".join(slot_cue.stems)})


def _wished(toks: list[Tok], clause: str, belief: bool, slot_cue: Cue | None,
            hedged: bool) -> bool:
    """A wish, a plan not made or a refusal: nothing to remember. "I'd never run Postgres in
    Docker": what the user would not do denies nothing on record."""
    if has_phrase(toks, "refusals") and not _HAD_NEVER.search(clause):
        return True
    return has_phrase(toks, "hypotheticals") and not belief and not has_phrase(
        toks, "denials") and not (slot_cue is not None and slot_cue.slot in (
            "allergy", "condition", "medication") and hedged)


def _ending(plain: str, toks: list[Tok], found: tuple[Cue, int, int] | None) -> bool:
    """The clause says something ended ("we're off to Curaçao" is going, not ending); an
    ending said in another part of the clause ends nothing the cue reads ("I can't stand
    coriander, leave it out of any recipe")."""
    ending = has_phrase(tokens(re.sub(r"\boff to\b", "to", plain, flags=re.I)), "endings") \
        if re.search(r"\boff to\b", plain, re.I) else has_phrase(toks, "endings")
    if ending and found is not None and "," in plain:
        at = tokens(plain)[found[1]].start
        part = plain[plain.rfind(",", 0, at) + 1:(plain.find(",", at) + 1 or len(plain) + 1) - 1]
        ending = has_phrase(tokens(part), "endings")
    return ending


def _value_problem(cue: Cue, value: str, plain: str) -> str:
    """Why the value a cue row read is refused, or "" (invariant 532)."""
    if cue.slot == "attribute" and re.search(r"\b(?:says|said|thinks|thought|told|reckons|"
                                             r"believes|reckoned)\b", value.split(" is ")[0]):
        return "a report, not an attribute"  # "my GP says it's IBS"
    return check_value(value.split(" is ", 1)[-1] if cue.slot == "attribute" else value) or (
        "a comparison, not a value" if value and re.search(
            r"\b" + re.escape(value.split()[-1]) + r"\s+than\b", plain, re.IGNORECASE) else "")


def _said_not(r: Reading, toks: list[Tok], after: int, clause: str, value: str,
              slot_cue: Cue | None, negated: bool) -> Reading | None:
    """A denial the user says of their own record, or a relative's fact said in the negative
    ("my son doesn't play rugby and never has": it may deny it; an operator confirms unless
    the user says it never was). None when the clause denies nothing."""
    if (has_phrase(toks, "denials") or negated) and r.subject == "self" and not (
            slot_cue and slot_cue.slot in ("avoids", "dislikes")):
        return _denial(r, toks, after, clause, value, slot_cue)
    if negated and r.subject == "relative" and r.relation and value:
        return r.model_copy(update={"act": "deny", "target": f"{r.relation} {value}",
                                    "hedged": r.hedged or not has_phrase(toks, "denials")})
    return None


def _denial(r: Reading, toks: list[Tok], after: int, clause: str, value: str,
            slot_cue: Cue | None) -> Reading:
    """What is denied: the slot value the clause says ("no longer allergic to peanuts, that was
    a misdiagnosis"; "I have no Portuguese NIF"), else the words after it."""
    said = re.sub(r"^(?:no|not|never)\s+", "", value, flags=re.IGNORECASE)
    target = said if slot_cue and said and not check_value(said) else _denied(toks, after, clause)
    return r.model_copy(update={"act": "deny", "target": target})


_LEAD_SUBJECT = re.compile(r"^(?:(?:i|we)(?: am| are| have| had| was| were| will| would)?"
                           r"(?: been| got| now| just| finally| also| still| started)*\s+)",
                           re.IGNORECASE)
_BASE_ENDS = ("s", "sh", "ch", "x", "z", "o")


def _reads_as_fact(text: str) -> str:
    """A rewritten clause only when it reads as a fact: no one addressed or left as "me", no
    dangling lead word, no cut-off abbreviation at its end."""
    toks = [t.low for t in tokens(text)]
    # ("you've been a lifesaver": a word with an apostrophe is still the pronoun it starts with)
    if not toks or re.search(r"\b(?:i|me|you|we|us|your|yours)\b", text, re.IGNORECASE):
        return ""
    if toks[0] in ("since", "some", "so", "and", "but", "because", "when", "if", "as", "for",
                   "from", "until", "after", "before", "though", "while") or check_value(
                       text.split()[-1]) == "ends with a function word":
        return ""
    last = text.split()[-1].strip(".,")
    return "" if len(last) <= 2 and last[:1].isupper() else text


_FREQUENCY = frozenset("always usually often never sometimes rarely normally generally mostly "
                       "regularly occasionally seldom".split())


def third_person(clause: str) -> str:
    """A first-person clause as a fact text: the subject dropped, the verb in the third person,
    "my" as "their" ("I'm on call one week in ten now" -> "On call one week in ten now";
    "we use Proton for mail" -> "Uses Proton for mail"). "" when it does not read as one."""
    text = " ".join(clause.strip(" .!?,;:").split())
    text = re.sub(r"^(?:" + "|".join(re.escape(d) for d in sorted(
        word_list("discourse"), key=len, reverse=True)) + r")\b[\s,:!]*", "", text, flags=re.I)
    if len(text.split()) > 14 and "," in text:
        text = text.split(",")[0]  # what the user says before the aside
    m = _LEAD_SUBJECT.match(text)
    if not m:  # "broadband's been Truespeed", "the Moonlander is gone": already third person
        first = text.split()[0].lower() if text.split() else ""
        if not first or first in ("he", "she", "they", "it", "you", "that", "this", "there",
                                  "what", "how", "who", "i", "we"):
            return ""
        out = re.sub(r"\b(?:my|our)\b", "their", text, flags=re.IGNORECASE)
        # "work gave me an M4 MacBook Pro": the user as its object
        out = re.sub(r"\b(?:me|us)\b", "them", out, flags=re.IGNORECASE)
        out = _clean_value(out[:1].upper() + out[1:]) if len(out.split()) <= 14 else ""
        return _reads_as_fact(out) if out else ""
    said = m.group(0).lower()
    rest = text[m.end():]
    words = rest.split()
    if not words:
        return ""
    adverb = ""
    if len(words) > 1 and words[0].lower() in _FREQUENCY:
        # "I always mix them up" -> "Always mixes them up": the adverb stays, the verb turns
        adverb, words = words[0][:1].upper() + words[0][1:].lower(), words[1:]
    verb = words[0].rstrip(",;:")
    plain_verb = not re.search(r"\b(?:am|are|have|had|was|were|will|would|been|got)\b", said)
    if plain_verb and verb.isalpha() and verb.islower() and not verb.endswith(("ed", "ing")) \
            and verb not in ("might", "may", "could", "should", "would", "must", "can", "will") \
            and verb not in word_list("past_verbs") and verb not in ("did", "had", "was", "were"):  # "broke", "left": past, not to conjugate
        verb = verb[:-1] + "ies" if verb.endswith("y") and verb[-2:-1] not in "aeiou" else \
            verb + ("es" if verb.endswith(_BASE_ENDS) else "s")
    if re.search(r"\bstarted\b", said) and words[0].endswith("ing"):
        verb = "Started " + verb  # "I've started putting £50 a month into an ISA"
    elif re.search(r"\bhave been\s*$", said) and not words[0].endswith("ing"):
        verb = "Has been " + verb  # "I've been a vegetarian for ten years"
    elif re.search(r"\b(?:have|had)\b", said) and not re.search(r"\bbeen\b", said) and \
            not words[0].endswith(("ed", "en", "ing")):
        verb = "Has " + verb
    elif re.search(r"\b(?:am|are|was|were)\s*$", said) and not verb.lower().endswith(
            "ing") and verb.lower() not in ("not", "no", "never", "gonna", "so", "just",
                                            "about", "off", "still", "the", "to", "like", "in",
                                            "at", "on", "out", "away", "back", "home", "here",
                                            "there", "up", "down", "over", "from"):
        # "I'm a special constable now", "im anaemic again": a state of the user, said so
        verb = ("Was " if re.search(r"\b(?:was|were)\b", said) else "Is ") + verb
    if adverb:
        verb = f"{adverb} {verb[:1].lower()}{verb[1:]}"
    out = " ".join([verb, *words[1:]])
    out = re.sub(r"\b(?:my|our)\b", "their", out, flags=re.IGNORECASE)
    out = re.sub(r"\b(?:me|us)\b", "them", out, flags=re.IGNORECASE)
    if re.search(r"\b(?:i|we|you)\b", out, re.IGNORECASE) or len(out.split()) > 16:
        return ""
    # ", first one was [on 12 November]": an aside its date was taken out of says nothing
    out = re.sub(r",[^,]*\b(?:was|were|is|are|be|been)$", "", out)
    return _reads_as_fact(_clean_value(out[:1].upper() + out[1:]))


def news_text(clause: str) -> str:
    """Someone else's news in its own words, as a fact text ("Luna died"), or "" when it does
    not read as one (it speaks of the user or to us)."""
    text = " ".join(clause.strip(" .!?,;:").split())
    if len(text.split()) > 14:
        text = text.split(",")[0]  # the news before its aside
    if not text or re.search(r"\b(?:i|we|you)\b", text, re.IGNORECASE):
        return ""
    # "my mother is coming to live with me": the user as its object, in the third person
    text = re.sub(r"\b(?:me|us)\b", "them", text, flags=re.IGNORECASE)
    text = re.sub(r"\b(?:my|our)\b", "their", text, flags=re.IGNORECASE)
    out = _clean_value(text[:1].upper() + text[1:]) if len(text.split()) <= 14 else ""
    return _reads_as_fact(out) if out else ""


def render_slot(slot: str, value: str) -> str:
    return render(slot, value)
