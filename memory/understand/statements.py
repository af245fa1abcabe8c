"""A rule-based reader of chat statements: what the user says about themselves, as operations.

`understand(message, today)` splits a message into clauses and reads each one: a fact to write
("Lives in Edinburgh"), a change of a stored value (with the words that name the old one), a
denial (the old value was never true), a forget request, or a question. It writes nothing; the
offline agent turns statements into tool calls. Pure functions, deterministic.

Values are canonical third-person texts without the subject ("Lives in Bath", "Owns a Pixel 9",
"Main editor is Helix"); relative time words never stay in a value: they become valid_from
(invariant 74). Hypothetical actions ("thinking about getting a dog") are not statements.
"""

from __future__ import annotations

import re
from datetime import date
from typing import Literal

from pydantic import BaseModel, Field

from . import lexicon as lx
from .dates import Dates, find_dates

FactTypeName = Literal["identity", "preference", "constraint", "world"]
I = re.IGNORECASE


class Statement(BaseModel):
    act: Literal["assert", "change", "deny", "forget"]
    text: str | None = Field(None, description="canonical value to write")
    fact_type: FactTypeName = "world"
    previous: str | None = Field(None, description="words naming the value this replaces")
    slot: str | None = Field(None, description="the single-valued attribute it fills")
    target: str | None = Field(None, description="deny/forget: words naming the memory")
    harsh: bool = Field(False, description="the replaced value was never true")
    valid_from: date | None = None
    valid_to: date | None = None
    confidence: float = 0.85
    clause: str = ""
    rule: str = ""


class Understanding(BaseModel):
    statements: list[Statement] = Field(default_factory=list)
    questions: list[str] = Field(default_factory=list)
    other_user: str | None = Field(None, description="words asking about another user's memory")
    ignored: list[str] = Field(default_factory=list, description="clauses with nothing to keep")

    @property
    def understood(self) -> bool:
        return bool(self.statements or self.questions or self.other_user)


# --- small helpers ------------------------------------------------------------------------------
_TRAIL = re.compile(r"(?:[\s,]+(?:now|too|as well|also|again|any ?more|these days|nowadays|"
                    r"instead|from now on|for now|already|please|though|lol|haha|for good|"
                    r"full stop|really|honestly|mate|thanks|at the moment|currently|anyway))+$", I)
_LEAD_ART = re.compile(r"^(?:a|an|the|my|our|some|one)\s+", I)
_STOP_AT = re.compile(
    r"\s+(?:(?:that|which|who)\s+(?:i|we)\b|i\s+(?:never|haven'?t|have\s+not|still|just)\b|"
    r"for\s+(?:the|my|our|personal|work|a|an|her|his|their)\b|from\s+(?:the|my|our|ikea|amazon|"
    r"[A-Z])|in\s+(?:the|my|our)\b|at\s+home\b|on\s+(?:the|my|our)\s+(?!\w+\s+(?:seat|shell))|"
    r"because\b|since\b|but\b|so\b|and\s+(?:i|we|it|they|he|she)\b|when\b|while\b|as\s+a\s+"
    r"(?:present|gift)|for\s+(?:christmas|my\s+birthday|our\s+anniversary))", I)


def tidy(value: str) -> str:
    """A captured phrase without trailing filler and punctuation."""
    v = " ".join(value.split()).strip(" ,.;:!?\"'’")
    prev = None
    while prev != v:
        prev = v
        v = _TRAIL.sub("", v).strip(" ,.;:!?\"'’")
    return v


def obj_phrase(value: str, *, keep_article: bool = False) -> str:
    """A thing someone has: cut at a relative clause or place ("... for the lounge")."""
    v = tidy(value)
    m = _STOP_AT.search(" " + v)
    if m:
        v = (" " + v)[:m.start()].strip()
    v = re.split(r"\s*[,;(]\s*", v)[0]
    if not keep_article:
        while _LEAD_ART.match(v):
            v = _LEAD_ART.sub("", v, count=1)
    return tidy(v)


def article(noun: str) -> str:
    first = noun.split()[0] if noun.split() else noun
    if re.match(r"^(?:two|three|four|five|six|\d+|some|several|many|a few)\b", noun, I):
        return ""
    if re.match(r"^(?:uni|use|eu|one|euro)", first, I):
        return "a "
    return "an " if first[:1].lower() in "aeiou" else "a "


def cap(text: str) -> str:
    return text[:1].upper() + text[1:]


def third_person(text: str) -> str:
    """First-person words inside a value, as the canonical third person."""
    t = re.sub(r"\bmy\b", "their", text, flags=I)
    t = re.sub(r"\bmine\b", "theirs", t, flags=I)
    t = re.sub(r"\b(?:me|myself)\b", "them", t, flags=I)
    t = re.sub(r"\bI\b", "they", t)
    return re.sub(r"\bour\b", "their", t, flags=I)


def place(value: str) -> str | None:
    """A place name: the capitalised run; title-cased when typed in lower case."""
    parts = tidy(value).split()
    if not parts:
        return None
    if parts[0].lower() in {"a", "an", "the", "my", "our", "here", "there", "town", "home",
                            "bed", "work", "together", "with", "it", "them", "london's",
                            "new", "another", "this", "that", "his", "her", "their"}:
        return None
    out = []
    for p in parts[:4]:
        if out and not p[:1].isupper() and p.lower() not in {"de", "do", "da", "del", "la",
                                                             "le", "am", "upon", "on"}:
            break
        out.append(p if p[:1].isupper() else p.capitalize())
    while out and out[-1].lower() in {"de", "do", "da", "del", "la", "le", "am", "upon", "on"}:
        out.pop()
    return " ".join(out).rstrip(".,") or None


def third_singular(verb: str) -> str:
    v = verb.lower()
    irregular = {"have": "has", "do": "does", "go": "goes", "be": "is"}
    if v in irregular:
        return irregular[v]
    if re.search(r"(?:s|sh|ch|x|z|o)$", v):
        return v + "es"
    if re.search(r"[^aeiou]y$", v):
        return v[:-1] + "ies"
    return v + "s"


def is_role(phrase: str) -> bool:
    words = [w for w in re.findall(r"[\w-]+", phrase.lower())]
    return bool(words) and (words[-1] in lx.ROLE_WORDS or words[-1].rstrip("s") in lx.ROLE_WORDS)


_HEDGE = re.compile(lx.HEDGES, I)
_HYPO = re.compile(lx.HYPOTHETICAL, I)
_HARSH = re.compile(lx.HARSH_CUES, I)
_CHANGE = re.compile(lx.CHANGE_CUES, I)
_REL = "|".join(sorted(lx.RELATIONS | lx.NAMED_ONLY_RELATIONS | {"friend"}, key=len, reverse=True))
_NAME = r"(?P<name>[A-Z\u00C0-\u00DE][\w'’-]+(?:\s+[A-Z\u00C0-\u00DE][\w'’-]+)?)"
_PLACE = r"(?P<p>[^\W\d_][\w'’.-]*(?:\s+(?:de|do|da|del|la|le|am|upon|on\s+)?[^\W\d_][\w'’.-]*){0,3})"
_CAP_PLACE = r"(?P<p>(?-i:[A-Z\u00C0-\u00DE][\w'’.-]*(?:\s+[A-Z\u00C0-\u00DE][\w'’.-]*){0,3}))"
_SUBJ_I = r"(?:i|we)"
_IM = r"(?:i'?m|i\s+am|we'?re|we\s+are|i'?ve\s+been|i\s+have\s+been|we'?ve\s+been)"


# --- splitting and classifying clauses ------------------------------------------------------------
_PREFIX = re.compile(
    r"^(?:(?:please|pls|just|also|oh|and|so|ok|okay|well|hey|hi|hello|btw|by the way|fyi|"
    r"just so you know|for the record|for your records|actually|note that|remember that|"
    r"remember|please note|quick update|update|news|good news|guess what|so yeah|yeah|yes|no|"
    r"right|anyway|ah|um|uh|hmm|heads up|nope|sorry|actually no|no wait|wait|"
    r"(?:that'?s|that\s+is|this\s+is)\s+(?:wrong|not\s+right|not\s+true|incorrect|a\s+mistake))"
    r"\b[,:!.]?\s*)+", I)
_QUESTION = re.compile(
    r"^(?:what|where|which|who|whom|whose|when|why|how|tell me|remind me|show me|list|"
    r"give me|any idea|do you|did you|can you|could you|would you|will you|have you|"
    r"(?:is|are|am|do|does|did|have|has|can|could|should|would|will|was|were)\s+"
    r"(?:i|you|we|my|it|there|the|this|that|they|he|she|our|a|an|any)\b)", I)
_OTHER_USER = re.compile(
    r"\b(?:as|for|of|about|to|into|from|in)\s+(?:the\s+)?user\s+[\w.@-]+|\buser\s+[\w.@-]+'?s\b|"
    r"\b(?:another|other|different|every|all)\s+users?\b|\b(?:log(?:ged)?\s+in|act|acting|"
    r"pretend(?:ing)?(?:\s+to\s+be)?|speak(?:ing)?|switch(?:ing)?)\s+as\s+(?!a\b|an\b)\w+|"
    r"\bon\s+behalf\s+of\b|\b[\w.-]+'s\s+(?:memor(?:y|ies)|facts|profile|account|records?|data|"
    r"history|store|index)\b|\b(?:user[_ ]?id|index|scope|tenant)\s*[=:]", I)


def split_clauses(message: str) -> list[str]:
    out = []
    for part in re.split(r"(?<=[.!?;])\s+|\n+", message.strip()):
        part = part.strip()
        if part:
            out.append(part)
    return out


def is_question(clause: str) -> bool:
    c = clause.strip()
    if re.match(r"^(?:do|does)\s*(?:n'?t|\s+not)\b", c, I):
        return False
    return c.endswith("?") or bool(_QUESTION.match(c))


# --- handlers: each reads one clause and returns statements, or None when it does not apply ------
def _forget(c: str) -> list[Statement] | None:
    m = re.match(r"^(?:(?:can|could|would|will)\s+you\s+(?:please\s+)?)?(?:please\s+)?"
                 r"(?:forget|delete|erase|remove|wipe|scrub|purge|unlearn|drop|get\s+rid\s+of|"
                 r"stop\s+remembering|don'?t\s+(?:remember|keep|store))\s+(?P<rest>.+)$", c, I)
    if not m:
        return None
    rest = re.sub(r"^(?:about|all\s+about|everything\s+(?:about|on)|anything\s+about|what\s+you\s+"
                  r"(?:know|have)\s+(?:about|on)|the\s+(?:note|notes|info|information|memory|bit|"
                  r"part|fact|details?)\s+(?:about|on|that)|the\s+fact\s+that|that)\s+", "",
                  tidy(m.group("rest").rstrip("?")), flags=I)
    rest = re.sub(r"\s+(?:please|for me|from (?:your|the) (?:memory|records))$", "", rest, flags=I)
    if not rest or rest.lower() in {"it", "that", "this", "everything", "me"}:
        return None
    return [Statement(act="forget", target=rest, clause=c, rule="forget")]


def _denial(c: str, message: str, history: list[str]) -> list[Statement] | None:
    # "I never lived in Bristol", "we never had a cat"
    m = re.search(r"\b" + _SUBJ_I + r"\s+(?:have\s+|'ve\s+)?never\s+(?:actually\s+)?(?P<verb>"
                  r"lived|been|owned|had|worked|liked|said|eaten|used|bought|driven|studied|"
                  r"played|gone|visited|dated|married|run|done|taken)\b\s*(?P<rest>[^,.;!?]*)",
                  c, I)
    if m and m.group("rest").strip():
        verb = m.group("verb").lower()
        slot = {"lived": "home", "worked": "employer"}.get(verb)
        return [Statement(act="deny", target=f"{verb} {tidy(m.group('rest'))}", slot=slot,
                          harsh=True, clause=c, rule="deny:never")]
    # "Sofia was never my manager, it's Marta"; "The Eufy camera was never ours"
    m = re.search(r"^(?P<subj>[\w'’ -]{1,50}?)\s+(?:was|were|is|are)\s+never\s+"
                  r"(?P<what>mine|ours|(?:my|our)\s+[\w ]+?|[A-Z][\w'’-]+)"
                  r"(?=\s*(?:[,.;!?]|$|\s+i\b|\s+we\b))(?P<tail>.*)$", c)
    if m:
        subj, what = tidy(m.group("subj")), tidy(m.group("what"))
        target = subj if what.lower() in {"mine", "ours"} else f"{subj} {what}"
        st = Statement(act="deny", target=re.sub(r"^(?:the|my|our)\s+", "", target, flags=I),
                       harsh=True, clause=c, rule="deny:was-never")
        new = re.search(r"\b(?:it'?s|it\s+is|it\s+was)\s+(?:actually\s+)?" + _NAME, m.group("tail"))
        role = re.match(r"^(?:my|our)\s+(?P<role>[\w ]+)$", what, I)
        if new and role:
            st.text = f"{cap(role.group('role'))} is {new.group('name')}"
            st.fact_type = "identity"
            st.slot = "noun:" + role.group("role").split()[-1].lower()
        elif new and re.match(r"^(?:my|our)\s+", subj, I):
            noun = re.sub(r"^(?:my|our)\s+", "", subj, flags=I)
            st.text = f"{cap(noun)} is {new.group('name')}"
            st.slot = "noun:" + noun.split()[-1].lower()
        return [st]
    # "The Tesla was my sister's, not mine"; "That was my sister's car"; "Max was my neighbour's dog"
    m = re.search(r"^(?P<subj>[\w'’ -]{1,50}?)\s+(?:was|were|is|are)\s+(?:actually\s+|really\s+|"
                  r"only\s+)?(?:my|our)\s+(?P<who>\w+)['’]s?(?:\s+(?P<noun>[a-z][\w-]*))?"
                  r"(?=\s*(?:[,.;!?]|$))", c, I)
    if m and (re.search(r"\bnot\s+(?:mine|ours)\b|\bnever\b", message, I)
              or m.group("who").lower() in lx.RELATIONS | lx.NAMED_ONLY_RELATIONS | {"friend"}):
        subj = tidy(m.group("subj"))
        if subj.lower() in {"that", "it", "this", "those", "they"}:
            prior = next((h for h in reversed(history) if h.strip()), "")
            subj = " ".join(filter(None, [_topic_words(prior), m.group("noun") or ""]))
        elif m.group("noun"):
            subj = f"{subj} {m.group('noun')}"
        subj = re.sub(r"^(?:the|my|our)\s+", "", subj, flags=I)
        if subj:
            return [Statement(act="deny", target=subj, harsh=True, clause=c, rule="deny:theirs")]
    # "Luna isn't my cat, she's my neighbour's"
    m = re.search(r"^(?P<subj>[\w'’ -]{1,40}?)\s+(?:isn'?t|is\s+not|wasn'?t|was\s+not|aren'?t|are\s+not|"
                  r"weren'?t)\s+(?:my|our)\s+(?P<noun>[\w -]+?)(?=\s*(?:[,.;!?]|$))", c, I)
    if m and not re.search(r"\bany\s*more\b|\bno\s+longer\b", c, I) and (
            _HARSH.search(message) or re.search(r"\b(?:my|our|his|her|their)\s+\w+['’]s\b|"
                                                r"\b[A-Z]\w+['’]s\b", message)):
        subj = re.sub(r"^(?:the|my|our)\s+", "", tidy(m.group("subj")), flags=I)
        return [Statement(act="deny", target=f"{subj} {m.group('noun')}", harsh=True, clause=c,
                          rule="deny:isnt-mine")]
    # "Mochi has never had a pet passport"
    m = re.search(r"^(?P<subj>[\w'’ -]{1,40}?)\s+(?:has|have)\s+never\s+(?:had|been|owned|used|"
                  r"had\s+an?)\s+(?P<rest>[^,.;!?]+)", c, I)
    if m and not re.match(r"^(?:i|we)$", m.group("subj"), I):
        return [Statement(act="deny", target=f"{tidy(m.group('subj'))} {tidy(m.group('rest'))}",
                          harsh=True, clause=c, rule="deny:has-never")]
    # "I'm not allergic to shellfish, the test was a false positive"; "I'm no longer allergic to
    # peanuts, that was a misdiagnosis" (no longer + a never-true cue is a denial, not a change)
    m = re.search(r"\b(?:i'?m|i\s+am|we'?re|we\s+are|i\s+was|we\s+were)\s+(?P<neg>not|no\s+longer|never|"
                  r"not\s+ever)\s+(?:actually\s+|"
                  r"really\s+)?(?P<what>allergic\s+to\s+[^,.;!?]+|afraid\s+of\s+[^,.;!?]+|"
                  r"scared\s+of\s+[^,.;!?]+|intolerant\s+to\s+[^,.;!?]+|vegan|vegetarian|"
                  r"pescatarian|married|diabetic|lactose\s+intolerant|coeliac|celiac)", c, I)
    if m and (m.group("neg").lower() != "no longer" or _HARSH.search(message)):
        if m.group("neg").lower() == "not" and not _HARSH.search(message) and \
                re.search(r"\bany\s*more\b", c, I):
            return None  # "not ... any more" is a change, read below
        return [Statement(act="deny", target=tidy(m.group("what")), harsh=True, clause=c,
                          rule="deny:not")]
    return None


def _topic_words(text: str) -> str:
    words = [w for w in re.findall(r"[\w'’-]+", text) if w[:1].isupper() and w.lower() not in
             {"i", "do", "does", "did", "can", "could", "you", "what", "where", "is", "my"}]
    return " ".join(words) or tidy(text)


_NOT_Z = re.compile(r"^(?P<value>.+?),?\s+(?:and\s+)?not\s+(?:with\s+|by\s+|on\s+|a\s+|an\s+|"
                    r"the\s+|my\s+|in\s+)?(?P<old>[\w'’ .-]+?)(?=\s*(?:[,;!?]|$|\.\s|\.$))"
                    r"(?P<tail>.*)$", I)


def _correction(c: str, message: str, today: date, history: list[str]) -> list[Statement] | None:
    """"X is Y, not Z": Y replaces Z; never true unless the user says it changed."""
    m = _NOT_Z.match(c)
    if not m or re.match(r"^(?:i'?m|i\s+am|it'?s|that'?s)\s+not\b", c, I):
        return None
    value_clause, old = m.group("value"), tidy(m.group("old"))
    if not old or old.lower() in {"sure", "really", "yet", "much", "me", "now", "anymore"}:
        return None
    inner = read_clause(value_clause, message, today, history, allow_correction=False)
    if not inner and re.match(r"^the\s+", value_clause, I):
        inner = _my_noun(value_clause, find_dates(re.sub(r"^the\s+", "my ", value_clause,
                                                          flags=I), today))
    if not inner and re.match(r"^(?:the\s+)?[\w'’ -]+?\s+(?:is|are|takes?|runs?|uses?|has|have)\s+",
                              value_clause, I):
        # A plain statement corrected in place ("The sensors take CR2032 batteries, not CR1632").
        text = cap(third_person(re.sub(r"^the\s+", "", tidy(value_clause), flags=I)))
        inner = [Statement(act="assert", text=text, fact_type="world", clause=c, rule="statement")]
    if not inner or inner[0].act not in ("assert", "change"):
        return None
    st = inner[0]
    changed = bool(re.search(r"\b(?:now|these\s+days|nowadays|any\s*more|instead|from\s+now\s+on)"
                             r"\b", c, I))
    subject = re.match(r"^(?:the|my|our)\s+(?P<n>[\w -]+?)\s+(?:is|are|take|takes|runs?|uses?|"
                       r"has|have|was|were)\b", value_clause, I)
    words = old if not subject else f"{subject.group('n')} {old}"
    if changed and not _HARSH.search(message):
        st.act, st.previous = "change", " ".join(filter(None, [st.previous, old]))
        st.rule += "+not-z:natural"
    else:
        st.act, st.harsh, st.target = "change", True, words
        st.previous = st.previous or words
        st.rule += "+not-z:harsh"
    return [st]


def _relation(c: str) -> list[Statement] | None:
    m = re.match(r"^(?i:my|our)\s+(?P<rel>(?i:" + _REL + r"))(?P<poss>['’]s)?(?:,?\s+" + _NAME +
                 r"(?=[\s,]))?\s*,?\s*(?P<rest>.+)$", c)
    if not m:
        return None
    rel, name = m.group("rel").lower(), m.group("name")
    if name and name.split()[0].lower() in {"is", "was", "lives", "moved", "works", "has",
                                            "just", "got", "and", "who"}:
        rest = f"{name} {m.group('rest')}"
        name = None
    else:
        rest = m.group("rest")
    rest = tidy(rest)
    plural = rel in {"parents", "kids", "children", "in-laws"}
    lives = "live" if plural else "lives"
    if rel in lx.NAMED_ONLY_RELATIONS | {"friend"} and not name:
        return []  # "my friend lives in Bristol": no one to remember it about
    who = f"{cap(rel)} {name}" if name else cap(rel)
    slot = f"rel:{(name or rel).lower()}"
    if m.group("poss"):  # "my mum's birthday is 3 May"
        mm = re.match(r"^(?P<n>[\w ]+?)\s+(?:is|are)\s+(?P<v>.+)$", rest, I)
        if not mm:
            return None
        return [Statement(act="assert", text=f"{cap(rel)}'s {mm.group('n')} is {tidy(mm.group('v'))}",
                          fact_type="identity", slot=f"rel:{rel}:{mm.group('n').lower()}",
                          clause=c, rule="relation:poss")]
    mm = re.match(r"^(?:has\s+)?(?:just\s+)?(?:moved|relocated)\s+(?:from\s+(?P<from>" +
                  _PLACE.replace("?P<p>", "?P<f>") + r")\s+)?(?:back\s+)?to\s+" + _PLACE, rest, I)
    if mm and place(mm.group("p")):
        prev = " ".join(filter(None, [name or rel, place(mm.group("f")) if mm.group("f") else None]))
        return [Statement(act="change", text=f"{who} {lives} in {place(mm.group('p'))}",
                          fact_type="identity", slot=slot, previous=prev, clause=c,
                          rule="relation:moved")]
    mm = re.match(r"^(?:now\s+|still\s+)?(?:lives?|is\s+living|is\s+based)\s+in\s+" + _PLACE, rest, I)
    if mm and place(mm.group("p")):
        return [Statement(act="assert", text=f"{who} {lives} in {place(mm.group('p'))}",
                          fact_type="identity", slot=slot, clause=c, rule="relation:lives")]
    mm = re.match(r"^(?:is\s+)?(?:now\s+)?(?:called|named)\s+" + _NAME.replace("?P<name>", "?P<n>"),
                  rest, I)
    if mm:
        return [Statement(act="assert", text=f"{cap(rel)} is called {mm.group('n')}",
                          fact_type="identity", slot=f"noun:{rel}", clause=c, rule="relation:name")]
    mm = re.match(r"^(?:is|'s)\s+(?P<now>now\s+)?" + _NAME.replace("?P<name>", "?P<n>") +
                  r"\s*(?:,|$)", rest)
    if mm and rel in lx.SLOT_NOUNS | {"manager", "lead", "boss"}:
        prev = re.search(r",\s*" + _NAME.replace("?P<name>", "?P<o>") + r"\s+(?:left|quit|moved)",
                         c)
        return [Statement(act="change" if (mm.group("now") or prev) else "assert",
                          text=f"{cap(rel)} is {mm.group('n')}", fact_type="identity",
                          slot=f"noun:{rel}", previous=prev.group("o") if prev else None,
                          clause=c, rule="relation:is-name")]
    mm = re.match(r"^(?:is|was)\s+(?:(?:severely|very|also)\s+)?allergic\s+to\s+(?P<v>.+)$", rest, I)
    if mm:
        return [Statement(act="assert", text=f"{who} is allergic to {obj_phrase(mm.group('v'))}",
                          fact_type="world", clause=c, rule="relation:allergy")]
    if re.match(r"^(?:is|was|has|had|'s)\s+(?:been\s+)?(?:away|busy|ill|sick|tired|here|there|"
                r"out|off|home|late|back|on\s+holiday|coming|visiting|staying)\b", rest, I):
        return []  # passing news about someone, nothing durable
    mm = re.match(r"^(?P<verb>[a-z]+s|is|has)\s+(?P<v>.+)$", rest)
    if mm and name:
        return [Statement(act="assert", text=f"{who} {mm.group('verb')} {third_person(tidy(mm.group('v')))}",
                          fact_type="identity", slot=slot, clause=c, rule="relation:verb")]
    return []


def _location(c: str, today: date, dates: Dates) -> list[Statement] | None:
    t = dates.text
    left = None
    m = re.search(r"\b" + _SUBJ_I + r"\s+(?:have\s+|'ve\s+|just\s+|finally\s+)*(?:left|moved\s+"
                  r"(?:away\s+)?from|moved\s+out\s+of)\s+" + _PLACE, t, I)
    if m:
        left = place(m.group("p"))
    m_from = re.search(r"\bmoved\s+from\s+" + _PLACE.replace("?P<p>", "?P<f>") + r"\s+to\b", t, I)
    if m_from:
        left = place(m_from.group("f"))
    patterns = [
        r"(?:^|\b" + _SUBJ_I + r"\s+(?:have\s+|'ve\s+|just\s+|finally\s+|recently\s+|all\s+)*)"
        r"(?:moved|relocated|moving|relocating)\s+(?:from\s+\S+(?:\s+\S+)?\s+)?(?:back\s+)?"
        r"(?:over\s+)?(?:to|into)\s+" + _PLACE,
        r"\b" + _SUBJ_I + r"\s+(?:now\s+|currently\s+|still\s+|actually\s+)?(?:live|reside)\s+in\s+"
        + _PLACE,
        r"\b" + _IM + r"\s+(?:now\s+|currently\s+|still\s+)?(?:living|based|settled|residing)\s+"
        r"(?:in|out\s+of)\s+" + _PLACE,
        r"\bhome\s+is\s+(?:now\s+)?" + _PLACE,
        (r"(?:^|,\s*)(?:(?:i'?m|we'?re|i\s+am|we\s+are)\s+)?(?:now\s+)?in\s+(?P<p>[A-Z\u00C0-\u00DE]"
        r"[\w'’.-]*(?:\s+[A-Z\u00C0-\u00DE][\w'’.-]*){0,2})\s+now\b"),
    ]
    if re.search(r"\b(?:for\s+(?:work|a|the|business|two|three|\d+)|on\s+holiday|visiting|"
                 r"trip|conference|this\s+week|for\s+the\s+weekend|until|till)\b", t, I):
        patterns = patterns[:1] if left else []  # a visit, not a home ("I'm in Paris for work")
    for p in patterns:
        m = re.search(p, t, 0 if "[A-Z" in p[-80:] else I)
        if not m:
            continue
        where = place(m.group("p"))
        if not where or where.lower() == (left or "").lower():
            continue
        future = bool(re.search(r"\b(?:moving|relocating|will|going\s+to|next)\b", t, I)) or (
            dates.valid_from is not None and dates.valid_from > today)
        if future:
            return [Statement(act="assert", text=f"Moving to {where}", fact_type="world",
                              valid_from=dates.valid_from, clause=c, rule="location:plan")]
        moved = left is not None or bool(re.search(r"\b(?:moved|relocated|now|left)\b", t, I))
        return [Statement(act="change" if moved else "assert", text=f"Lives in {where}",
                          fact_type="identity", slot="home", previous=left,
                          valid_from=dates.valid_from, clause=c, rule="location")]
    m = re.search(r"\b(?:i'?m|i\s+am|i\s+come)\s+(?:originally\s+)?from\s+" + _PLACE + r"|\bi\s+grew\s+up\s+"
                  r"in\s+" + _PLACE.replace("?P<p>", "?P<g>"), t, I)
    if m and not left:
        where = place(m.group("p") or m.group("g"))
        if where:
            return [Statement(act="assert", text=f"Is originally from {where}", fact_type="identity",
                              slot="origin", clause=c, rule="location:origin")]
    if left:
        return [Statement(act="change", text=f"Moved away from {left}", fact_type="identity",
                          slot="home", previous=left, valid_from=dates.valid_from, clause=c,
                          rule="location:left")]
    return None


def _work(c: str, dates: Dates) -> list[Statement] | None:
    t = dates.text
    org = r"(?P<org>[A-Z][\w&.'’-]*(?:\s+(?:[A-Z][\w&.'’-]*|&|of|and))*)"
    m = (re.search(r"\b" + org + r"\s+(?:has\s+)?(?:just\s+|finally\s+)?promoted\s+me\s+to\s+"
                   r"(?:a\s+|an\s+)?(?P<role>[\w -]+?)(?=\s*(?:[,.;!?]|$|\s+at\b|\s+in\b|\s+on\b))", t)
         or re.search(r"\b(?:i|i'?ve|i\s+have|i\s+was|i\s+got|got|just\s+got)\s+(?:just\s+)?"
                      r"(?:been\s+)?promoted\s+to\s+(?:a\s+|an\s+)?(?P<role>[\w -]+?)"
                      r"(?=\s*(?:[,.;!?]|$|\s+at\b|\s+in\b))", t, I))
    if m:
        role = tidy(m.group("role"))
        at = m.groupdict().get("org")
        text = f"Works as {article(role)}{role}" + (f" at {at}" if at else "")
        return [Statement(act="change", text=text, fact_type="identity", slot="job",
                          previous=None, valid_from=dates.valid_from, clause=c, rule="work:promoted")]
    m = (re.search(r"\bi\s+(?:now\s+|currently\s+)?work\s+as\s+(?:a|an)\s+(?P<role>[\w -]+?)"
                   r"(?:\s+(?:at|for|in)\s+(?P<at>[^,.;!?]+))?(?=\s*(?:[,.;!?]|$))", t, I)
         or re.search(r"\b(?:i'?m|i\s+am|i'?ve\s+become|i\s+became|i\s+have\s+become|i'?m\s+now|"
                      r"became)\s+(?:now\s+)?(?:(?P<art>a|an|the)\s+)?(?P<role>[\w -]+?)"
                      r"(?:\s+(?:at|for|in)\s+(?P<at>[^,.;!?]+?))?(?=\s*(?:[,.;!?]|$|\s+now\b))",
                      t, I)
         or re.search(r"\bmy\s+(?:new\s+)?(?:job|role|title|position|job\s+title)\s+is\s+(?:now\s+)?"
                      r"(?:a\s+|an\s+)?(?P<role>[\w -]+?)(?:\s+(?:at|for)\s+(?P<at>[^,.;!?]+))?"
                      r"(?=\s*(?:[,.;!?]|$))", t, I))
    if m and is_role(m.group("role")) and not re.match(r"^(?:bit|little|big|huge|fan)\b",
                                                       m.group("role"), I):
        role = tidy(re.sub(r"^(?:now|also)\s+", "", m.group("role"), flags=I))
        at = m.groupdict().get("at")
        at = tidy(re.sub(r"^(?:the\s+)", "the ", at)) if at else None
        text = f"Works as {article(role)}{role}" + (f" at {at}" if at else "")
        changed = bool(re.search(r"\b(?:now|became|become|promoted|new|started|from)\b", c, I))
        return [Statement(act="change" if changed else "assert", text=text, fact_type="identity",
                          slot="job", valid_from=dates.valid_from, clause=c, rule="work:role")]
    m = re.search(r"\b(?:i|i\s+have|i'?ve|i\s+just|i'?m\s+now|i\s+am\s+now)\s+(?:just\s+|finally\s+)?"
                  r"(?:retired|am\s+retired|'m\s+retired)\b", t, I) or re.search(
        r"\b(?:i'?m|i\s+am)\s+(?:now\s+)?retired\b", t, I)
    if m:
        return [Statement(act="change", text="Is retired", fact_type="identity", slot="job",
                          valid_from=dates.valid_from, clause=c, rule="work:retired")]
    left = re.search(r"\b(?i:i\s+(?:have\s+|'ve\s+|just\s+)*(?:left|quit))\s+" + org.replace(
        "?P<org>", "?P<left>"), t)
    m = (re.search(r"\b(?i:i\s+(?:now\s+|currently\s+)?work\s+(?:at|for|with))\s+" + org, t)
         or re.search(r"(?i:\b(?:i\s+(?:have\s+|'ve\s+|just\s+)*|and\s+|^)(?:joined|started\s+(?:a\s+"
                      r"new\s+job\s+)?at|started\s+working\s+(?:at|for)|got\s+a\s+job\s+(?:at|with)"
                      r"|went\s+to\s+work\s+(?:at|for)))\s+" + org, t))
    if m and m.group("org").lower() not in {"i", "the", "a"}:
        employer = tidy(m.group("org"))
        changed = bool(left) or bool(re.search(r"\b(?:now|joined|started|new|moved)\b", c, I))
        return [Statement(act="change" if changed else "assert", text=f"Works at {employer}",
                          fact_type="identity", slot="employer",
                          previous=tidy(left.group("left")) if left else None,
                          valid_from=dates.valid_from, clause=c, rule="work:employer")]
    return None


_DIET = "|".join(re.escape(d) for d in lx.DIETS)
_COND = "|".join(re.escape(d) for d in sorted(lx.CONDITIONS, key=len, reverse=True))


def _health(c: str, dates: Dates) -> list[Statement] | None:
    t = dates.text
    m = (re.search(r"\b(?:i'?m|i\s+am|i'?ve\s+become|i\s+became|i'?ve\s+been|i\s+have\s+been|"
                   r"i\s+(?:might|may|could)\s+be|i\s+think\s+i'?m)\s+(?:maybe\s+|probably\s+|"
                   r"possibly\s+|also\s+|now\s+)?(?:severely\s+|very\s+|badly\s+|slightly\s+|"
                   r"mildly\s+|really\s+)?allergic\s+to\s+(?P<v>[^,.;!?]+)", t, I)
         or re.search(r"\bi\s+have\s+(?:a|an)\s+(?:severe\s+|mild\s+)?(?P<v>[\w -]+?)\s+allergy\b", t, I))
    if m:
        allergen = obj_phrase(m.group("v"))
        if allergen.lower() in {"it", "that", "this", "anything", "nothing"}:
            return None
        return [Statement(act="assert", text=f"Allergic to {allergen.lower()}", fact_type="constraint",
                          slot=f"allergy:{allergen.lower()}", confidence=0.95, clause=c,
                          rule="health:allergy")]
    m = re.search(r"\b(?:i'?m|i\s+am)\s+no\s+longer\s+allergic\s+to\s+(?P<v>[^,.;!?]+)", t, I)
    if m:
        allergen = obj_phrase(m.group("v")).lower()
        return [Statement(act="change", text=f"No longer allergic to {allergen}",
                          fact_type="constraint", previous=f"allergic {allergen}",
                          valid_from=dates.valid_from, clause=c, rule="health:allergy-gone")]
    m = re.search(r"\b(?:i'?m|i\s+am|we'?re|we\s+are|i'?ve\s+been|i\s+have\s+been|i'?ve\s+become|"
                  r"i\s+became|i\s+went|i\s+think\s+i'?m|i'?ve\s+gone)\s+(?P<no>no\s+longer\s+|"
                  r"not\s+)?(?:now\s+|fully\s+|also\s+)?(?:a\s+)?(?P<d>" + _DIET + r")\b", t, I)
    if m and not (m.group("no") or "").lower().startswith("not"):
        diet = " ".join(m.group("d").lower().replace("-", " ").split())
        diet = {"gluten free": "gluten-free", "dairy free": "dairy-free",
                "lactose intolerant": "lactose intolerant", "celiac": "coeliac"}.get(diet, diet)
        if m.group("no"):
            return [Statement(act="change", text=f"Is no longer {diet}", fact_type="constraint",
                              slot="diet", previous=diet, valid_from=dates.valid_from, clause=c,
                              rule="health:diet-gone")]
        changed = bool(re.search(r"\b(?:now|again|since|became|become|went|gone|these\s+days)\b",
                                 c, I)) or dates.valid_from is not None
        return [Statement(act="change" if changed else "assert", text=f"Is {diet}",
                          fact_type="constraint", slot="diet", valid_from=dates.valid_from,
                          confidence=0.9, clause=c, rule="health:diet")]
    m = re.search(r"\bi\s+(?:can'?t|cannot|don'?t|do\s+not|never|no\s+longer)\s+eat\s+(?P<v>[^,.;!?]+)", t, I)
    if m:
        food = obj_phrase(m.group("v")).lower()
        return [Statement(act="assert", text=f"Does not eat {food}", fact_type="constraint",
                          slot=f"food:{food}", confidence=0.9, clause=c, rule="health:no-eat")]
    m = (re.search(r"\bi\s+(?:have\s+|'ve\s+)?(?:started|began|begun)\s+eating\s+(?P<v>[^,.;!?]+)", t, I)
         or re.search(r"\bi\s+(?:do\s+)?eat\s+(?P<v>meat|fish|seafood|dairy|eggs|chicken|pork|beef)"
                      r"\b(?P<rest>[^,.;!?]*)", t, I))
    if m:
        food = obj_phrase(m.group("v")).lower()
        changed = bool(re.search(r"\b(?:now|again|started|began|begun|these\s+days)\b", c, I))
        diet = food in {"meat", "fish", "seafood", "dairy", "eggs", "chicken", "pork", "beef"}
        return [Statement(act="change" if changed else "assert", text=f"Eats {food}",
                          fact_type="constraint", slot="diet" if diet else None,
                          valid_from=dates.valid_from, clause=c, rule="health:eats")]
    m = re.search(r"\bi\s+(?:have|'ve\s+got|have\s+got|live\s+with|was\s+diagnosed\s+with|"
                  r"got\s+diagnosed\s+with)\s+(?P<v>" + _COND + r")\b", t, I)
    if m:
        return [Statement(act="assert", text=f"Has {m.group('v').lower()}", fact_type="constraint",
                          confidence=0.9, clause=c, rule="health:condition")]
    return None


_CHANNEL = r"(?P<ch>email|e-mail|phone\s+calls?|phone|calls?|texts?|sms|whatsapp|signal|telegram|post|letters?)"


def _preferences(c: str, dates: Dates) -> list[Statement] | None:
    t = dates.text
    m = (re.search(r"\b(?:contact|reach|call|text|message|email|ring)\s+me\s+(?:by|via|on|over|"
                   r"through|using)\s+" + _CHANNEL, t, I)
         or re.search(r"\bi(?:'d|\s+would)?\s+(?:now\s+|really\s+)?(?:prefer|rather)\s+(?:to\s+be\s+"
                      r"contacted\s+(?:by|via|on)\s+|be\s+contacted\s+(?:by|via|on)\s+)?"
                      + _CHANNEL + r"\b", t, I))
    if m:
        ch = m.group("ch").lower().replace("e-mail", "email")
        ch = {"calls": "phone calls", "call": "phone calls", "text": "texts", "letter": "post",
              "letters": "post"}.get(ch, ch)
        if ch == "whatsapp":
            ch = "WhatsApp"
        changed = bool(re.search(r"\b(?:now|instead|rather\s+than|any\s*more|no\s+longer|"
                                 r"from\s+now\s+on|not\s+by)\b", c, I))
        return [Statement(act="change" if changed else "assert", text=f"Prefers {ch}",
                          fact_type="preference", slot="contact", clause=c, rule="pref:contact")]
    m = re.search(r"\b(?:please\s+)?(?:never|don'?t|do\s+not)\s+(?P<verb>call|phone|ring|contact|"
                  r"text|email|message|disturb)\s+me\s+(?P<when>(?:before|after|on|at|during|in\s+"
                  r"the)\s+[^,.;!?]+)", t, I)
    if m:
        return [Statement(act="assert", text=f"Do not {m.group('verb').lower()} {tidy(m.group('when'))}",
                          fact_type="constraint", confidence=0.9, clause=c, rule="pref:no-contact")]
    m = re.search(r"\bi\s+(?:don'?t|do\s+not)\s+want\s+(?:any\s+)?(?P<what>calls|phone\s+calls|"
                  r"texts|emails|messages|meetings|visits)\s+(?P<when>(?:before|after|on|at|"
                  r"during)\s+[^,.;!?]+)", t, I)
    if m:
        return [Statement(act="assert", text=f"No {m.group('what').lower()} {tidy(m.group('when'))}",
                          fact_type="constraint", confidence=0.9, clause=c, rule="pref:no-thing")]
    m = (re.search(r"\bi\s+(?:really\s+)?(?:don'?t|do\s+not)\s+(?:like|enjoy|want|drink)\s+"
                   r"(?P<v>[^,.;!?]+?)\s+any\s*more\b", t, I)
         or re.search(r"\bi\s+no\s+longer\s+(?:like|enjoy|want|drink)\s+(?P<v>[^,.;!?]+)", t, I)
         or re.search(r"\bi(?:\s+have|'ve)?\s+(?:went|gone)\s+off\s+(?P<v>[^,.;!?]+)", t, I)
         or re.search(r"\b(?:i'?m|i\s+am)\s+(?:not|no\s+longer)\s+(?:into|a\s+fan\s+of|keen\s+on)\s+"
                      r"(?P<v>[^,.;!?]+?)(?:\s+any\s*more)?(?=\s*(?:[,.;!?]|$))", t, I))
    if m:
        thing = obj_phrase(m.group("v"), keep_article=True)
        return [Statement(act="change", text=f"No longer likes {thing}", fact_type="preference",
                          previous=thing, clause=c, rule="pref:no-longer")]
    m = re.search(r"\bi(?:'d|\s+would)?\s+(?:really\s+|now\s+|much\s+|actually\s+|definitely\s+)?"
                  r"(?:prefer|rather\s+have)\s+(?P<v>[^,.;!?]+)", t, I)
    if m:
        v = m.group("v")
        prev = re.search(r"\s+(?:over|instead\s+of|rather\s+than|to)\s+(?P<p>[^,.;!?]+)$", v, I)
        if prev:
            v = v[:prev.start()]
        thing = obj_phrase(v, keep_article=True)
        if not thing or re.match(r"^(?:to|not|it|that|this)\b", thing, I):
            return None
        full = tidy(m.group("v"))
        changed = bool(re.search(r"\b(?:now|these\s+days|instead|any\s*more)\b", c, I))
        text = f"Prefers {full if prev and not changed else thing}"
        return [Statement(act="change" if changed else "assert", text=third_person(text),
                          fact_type="preference",
                          previous=obj_phrase(prev.group("p")) if (prev and changed) else None,
                          slot=None, clause=c, rule="pref:prefer")]
    m = re.search(r"\bi\s+(?:really\s+|absolutely\s+|truly\s+)?(?:(?:don'?t|do\s+not)\s+(?:like|enjoy)|"
                  r"hate|dislike|can'?t\s+stand|detest|loathe)\s+(?P<v>[^,.;!?]+)", t, I)
    if m:
        thing = obj_phrase(m.group("v"), keep_article=True)
        if thing and not re.match(r"^(?:it|that|this|when|how|to|being|having)\b", thing, I):
            return [Statement(act="assert", text=f"Dislikes {third_person(thing)}",
                              fact_type="preference", clause=c, rule="pref:dislike")]
        return None
    m = re.search(r"\bi\s+(?:really\s+|now\s+|also\s+|absolutely\s+|do\s+)?(?P<verb>like|love|"
                  r"enjoy|adore)\s+(?P<v>[^,.;!?]+)", t, I)
    if m:
        thing = obj_phrase(m.group("v"), keep_article=True)
        if thing and not re.match(r"^(?:it|that|this|you|your|to|the\s+idea|how|when|what)\b",
                                  thing, I):
            return [Statement(act="assert", text=f"Likes {third_person(thing)}",
                              fact_type="preference", clause=c, rule="pref:like")]
    return None


_THING = r"(?P<v>[^,.;!?]+)"


def _possessions(c: str, dates: Dates) -> list[Statement] | None:
    t = dates.text
    # "we replaced the Hue bridge with a Zigbee2MQTT stick"; "traded in the Golf for a Tesla"
    m = (re.search(r"\b" + _SUBJ_I + r"\s+(?:have\s+|'ve\s+|just\s+|finally\s+)*replaced\s+(?:the|my|our|"
                   r"a|an)\s+(?P<p>[\w'’ .+-]+?)\s+with\s+(?:(?:a|an|the|two|some)\s+)?" + _THING, t, I)
         or re.search(r"\b" + _SUBJ_I + r"\s+(?:have\s+|'ve\s+|just\s+)*traded\s+(?:in\s+)?(?:the|my|our)\s+"
                      r"(?P<p>[\w'’ .+-]+?)\s+(?:in\s+)?for\s+(?:(?:a|an|the)\s+)?" + _THING, t, I)
         or re.search(r"\b" + _SUBJ_I + r"\s+(?:have\s+|'ve\s+|just\s+)*sold\s+(?:the|my|our)\s+"
                      r"(?P<p>[\w'’ .+-]+?)\s+and\s+(?:\w+\s+){0,3}?(?:on|use|got|bought|have|own|"
                      r"drive|ride)\s+(?:a|an|the)\s+" + _THING, t, I)
         or re.search(r"\b(?:my|our|the)\s+(?P<p>[\w'’ .+-]+?)\s+(?:broke|died|stopped\s+working|"
                      r"was\s+stolen|got\s+stolen|packed\s+in|gave\s+up)\s*,?\s*(?:so\s+)?(?:i|we)\s+"
                      r"(?:have\s+|'ve\s+)?(?:switched|moved|upgraded|changed|went)\s+to\s+(?:a|an|"
                      r"the)?\s*" + _THING, t, I))
    if m:
        thing = obj_phrase(m.group("v"))
        if thing:
            return [Statement(act="change", text=f"Owns {article(thing)}{thing}", fact_type="world",
                              previous=obj_phrase(m.group("p")), valid_from=dates.valid_from,
                              clause=c, rule="own:replaced")]
    # "I switched from Zed to Helix as my main editor"; "switched my terminal from X to Y";
    # "I switched banks from N26 to Revolut"; "I moved my current account from A to B"
    m = re.search(r"(?:^|\b(?:i|we)\s+)(?:have\s+|'ve\s+|just\s+|also\s+)*(?P<verb>switched|changed|moved|"
                  r"upgraded|swapped|migrated|went)\s+(?:(?:my|our)\s+(?P<noun>[\w ]+?)\s+|"
                  r"(?P<noun2>banks|jobs|editors|browsers|phones|providers|energy\s+suppliers?|"
                  r"suppliers|shells|terminals)\s+)?(?:from\s+(?:(?:a|an|the|my)\s+)?(?P<p>[\w'’ .+-]+?)"
                  r"\s+)?(?:to|over\s+to|for)\s+(?:(?:a|an|the)\s+)?(?P<v>[\w'’ .+/-]+?)"
                  r"(?:\s+as\s+(?:my|our)\s+(?P<role>[\w ]+?))?(?=\s*(?:[,.;!?]|$))", t, I)
    if m and (m.group("p") or m.group("verb").lower() in {"switched", "upgraded", "swapped",
                                                          "migrated"}):
        thing = obj_phrase(m.group("v"), keep_article=False)
        if thing and (m.group("noun") or m.group("noun2") or m.group("verb").lower() != "moved"):
            role = m.group("role") or m.group("noun") or m.group("noun2")
            if role:
                role = tidy(role)
                role = re.sub(r"s$", "", role) if m.group("noun2") else role
                text = f"{cap(role)} is {thing}"
                slot = "noun:" + role.split()[-1].lower()
            elif m.group("verb").lower() == "upgraded":
                text, slot = f"Owns {article(thing)}{thing}", None
            else:
                text, slot = f"Uses {thing}", None
            previous = obj_phrase(m.group("p")) if m.group("p") else None
            if previous is None and m.group("verb").lower() == "upgraded":
                previous = _base(thing)
            return [Statement(act="change", text=text, fact_type="preference" if text.startswith(
                ("Uses", "Main")) else "world", previous=previous, slot=slot,
                valid_from=dates.valid_from, clause=c, rule="own:switched")]
    # "we don't have the Roborock any more"; "someone stole my Brompton"; "I got rid of the UPS"
    m = (re.search(r"\b" + _SUBJ_I + r"\s+(?:don'?t|do\s+not)\s+(?:have|own)\s+(?:(?:the|a|an|my|our)\s+)?"
                   r"(?P<v>[\w'’ .+-]+?)\s+any\s*more\b", t, I)
         or re.search(r"\b" + _SUBJ_I + r"\s+no\s+longer\s+(?:have|own)\s+(?:(?:the|a|an|my|our)\s+)?"
                      + _THING, t, I)
         or re.search(r"\b" + _SUBJ_I + r"\s+(?:have\s+|'ve\s+|just\s+)*(?:sold|gave\s+away|got\s+rid\s+of|"
                      r"returned|donated|traded\s+in)\s+(?:the|my|our)\s+" + _THING, t, I)
         or re.search(r"\b(?:someone|somebody|they|thieves)\s+stole\s+(?:the|my|our)\s+" + _THING, t, I)
         or re.search(r"\b(?:my|our)\s+(?P<v>[\w'’ .+-]+?)\s+(?:was|got)\s+stolen\b", t, I))
    if m:
        thing = obj_phrase(m.group("v"))
        if thing and thing.lower() not in lx.NOT_THINGS:
            return [Statement(act="change", text=f"No longer owns {article(thing)}{thing}",
                              fact_type="world", previous=thing, valid_from=dates.valid_from,
                              clause=c, rule="own:gone")]
    # "I got HON Circle status"
    m = re.search(r"\b(?:i|we)\s+(?:have\s+|just\s+|finally\s+)*(?P<verb>got|reached|earned|made|"
                  r"hit|have|achieved|kept|lost)\s+(?P<v>(?-i:[A-Z][\w&'’+-]*(?:\s+[A-Z][\w&'’+-]*)*))"
                  r"\s+status\b", t, I)
    if m:
        return [Statement(act="assert" if m.group("verb").lower() == "have" else "change",
                          text=f"Has {m.group('v')} status", fact_type="world", slot="noun:status",
                          valid_from=dates.valid_from, clause=c, rule="own:status")]
    # "X got me an Apple Watch"
    m = re.search(r"\b(?:[A-Z][\w'’-]+|my\s+\w+)\s+(?:got|bought|gave)\s+me\s+(?:a|an|the)\s+" + _THING, t)
    if m:
        thing = obj_phrase(m.group("v"))
        if thing and thing.lower() not in lx.NOT_THINGS:
            return [Statement(act="assert", text=f"Owns {article(thing)}{thing}", fact_type="world",
                              valid_from=dates.valid_from, clause=c, rule="own:gift")]
    m = re.search(r"\b" + _SUBJ_I + r"\s+(?:now\s+|also\s+|finally\s+|just\s+|recently\s+)*"
                  r"(?P<verb>have|own|bought|got|'ve\s+got|have\s+got|'ve\s+just\s+got|"
                  r"picked\s+up|ordered|adopted|rescued|'ve\s+bought)\s+(?:me\s+|myself\s+|"
                  r"ourselves\s+)?(?P<det>a|an|the|two|three|four|five|\d+|another|one|a\s+new|"
                  r"a\s+second|some)\s+(?P<v>[^.;!?]+)", t, I)
    if m:
        raw = m.group("v")
        det = m.group("det").lower()
        head = re.split(r"\s*,\s*", raw)[0]
        appos = re.match(r"^[^,]+,\s*(?:a|an|the)\s+(?P<x>[^,]+)", raw, I)
        category = obj_phrase(head).lower()
        if appos and (category.split()[-1:] and category.split()[-1] in
                      {"phone", "laptop", "car", "bike", "watch", "tablet", "dog", "cat", "puppy",
                       "kitten", "pet", "camera", "tv", "console", "hub", "router"}):
            thing = obj_phrase(appos.group("x"))
        elif det[:1].isdigit() or det in {"two", "three", "four", "five"}:
            cut = _STOP_AT.search(" " + tidy(raw))  # "two cats, Miso and Tofu" keeps its names
            thing = f"{det} " + ((" " + tidy(raw))[:cut.start()].strip() if cut else tidy(raw))
        else:
            thing = obj_phrase(head)
        words = set(re.findall(r"[a-z]+", thing.lower()))
        if not thing or words & lx.NOT_THINGS or re.match(r"^(?:to|been|feeling|go)\b", thing, I):
            return None
        if not looks_like_a_thing(thing):
            return None  # "a parking ticket", "a bad back", "a promotion": not possessions
        people = lx.RELATIONS | lx.NAMED_ONLY_RELATIONS | {"friend", "kids", "children"}
        if words & people:
            return [Statement(act="assert", text=f"Has {article(thing)}{thing}", fact_type="identity",
                              clause=c, rule="own:relation")]
        pet = bool(words & lx.PETS)
        verb = "Has" if pet else "Owns"
        return [Statement(act="assert", text=f"{verb} {article(thing)}{thing}".replace("  ", " "),
                          fact_type="world", valid_from=dates.valid_from if dates.found else None,
                          clause=c, rule="own:has")]
    return None


def looks_like_a_thing(phrase: str) -> bool:
    """Something a person owns: a named model ("Range Extender", "Pixel 9"), a pet, a person,
    or a known kind of thing (devices, vehicles, furniture, instruments, homes)."""
    words = re.findall(r"[\w'’-]+", phrase)
    if not words:
        return False
    if any(w[:1].isupper() or any(ch.isdigit() for ch in w) for w in words):
        return True
    head = words[-1].lower()  # "a flat tyre" is a tyre, not a flat
    return bool({head, head.rstrip("s")} & (lx.THINGS | lx.PETS | lx.RELATIONS))


def _base(thing: str) -> str | None:
    """The model family of a thing, without its version: "iPhone 15" -> "iPhone"."""
    words = [w for w in thing.split() if not re.match(r"^(?:v?\d+\w*|pro|max|mini|plus|ultra|"
                                                      r"lite|se|gen\s*\d*)$", w, I)]
    return " ".join(words[:2]) or None


def _identity(c: str, dates: Dates) -> list[Statement] | None:
    t = dates.text
    m = re.search(r"\b(?i:my\s+name\s+is|call\s+me|i\s+go\s+by|i'?m\s+called)\s+" + _NAME, t)
    if m:
        return [Statement(act="assert", text=f"Name is {m.group('name')}", fact_type="identity",
                          slot="noun:name", confidence=0.9, clause=c, rule="id:name")]
    m = (re.search(r"\b(?:i'?m|i\s+am)\s+(?P<n>\d{1,3})(?:\s+years?\s+old)?\s*(?:[,.;!?]|$|now\b)", t, I)
         or re.search(r"\bi\s+(?:just\s+)?turned\s+(?P<n>\d{1,3})\b", t, I))
    if m:
        changed = bool(re.search(r"\bturned\b|\bnow\b", t, I))
        return [Statement(act="change" if changed else "assert",
                          text=f"Is {m.group('n')} years old", fact_type="identity", slot="age",
                          valid_from=dates.valid_from, clause=c, rule="id:age")]
    m = (re.search(r"\b(?:i'?m|i\s+am|we'?re|we\s+are)\s+(?:now\s+|happily\s+|newly\s+)?"
                   r"(?P<s>married|divorced|single|widowed|engaged|separated)\b", t, I)
         or re.search(r"\b(?:we|i)\s+(?:just\s+|finally\s+)?(?:got|are\s+getting)\s+(?P<s>married|"
                      r"divorced|engaged|separated)\b", t, I))
    if m:
        changed = bool(re.search(r"\bgot\b|\bnow\b", t, I))
        return [Statement(act="change" if changed else "assert", text=f"Is {m.group('s').lower()}",
                          fact_type="identity", slot="marital", valid_from=dates.valid_from,
                          clause=c, rule="id:marital")]
    m = re.search(r"\b(?:i'?m|i\s+am)\s+(?:really\s+|very\s+|terribly\s+|still\s+)?(?P<a>afraid|"
                  r"scared|terrified|frightened)\s+of\s+(?P<v>[^,.;!?]+)", t, I)
    if m:
        return [Statement(act="assert", text=f"Is {m.group('a').lower()} of {tidy(m.group('v'))}",
                          fact_type="identity", clause=c, rule="id:afraid")]
    m = re.search(r"\bmy\s+pronouns\s+are\s+(?P<v>\w+/\w+(?:/\w+)?)", t, I)
    if m:
        return [Statement(act="assert", text=f"Pronouns are {m.group('v').lower()}",
                          fact_type="identity", slot="noun:pronouns", confidence=0.9, clause=c,
                          rule="id:pronouns")]
    m = re.search(r"\bi\s+(?:also\s+|now\s+)?speak\s+(?P<v>[A-Z][^,.;!?]+)", t)
    if m:
        return [Statement(act="assert", text=f"Speaks {tidy(m.group('v'))}", fact_type="identity",
                          clause=c, rule="id:speaks")]
    return None


def _plans(c: str, today: date, dates: Dates) -> list[Statement] | None:
    t = dates.text
    m = re.search(r"^(?:(?:i'?m|i\s+am|we'?re|we\s+are|i'?ll\s+be|we'?ll\s+be|i\s+will\s+be|"
                  r"we\s+will\s+be)\s+)?(?P<how>flying|going|travell?ing|heading|off|driving|"
                  r"taking\s+the\s+train|off\s+on\s+holiday)\s+(?:back\s+|home\s+)?to\s+"
                  + _CAP_PLACE + r"(?P<rest>.*)$", t, I)
    if m and dates.valid_from and dates.valid_from >= today:
        where = place(m.group("p"))
        if where:
            rest = tidy(m.group("rest"))
            return [Statement(act="assert", text=f"Trip to {where}" + (f" {rest}" if rest else ""),
                              fact_type="world", valid_from=dates.valid_from,
                              valid_to=dates.valid_to, clause=c, rule="plan:trip")]
    # "The CKA exam moved to 20 January"
    m = re.search(r"^(?:the|my|our)\s+(?P<n>[\w' -]+?)\s+(?:has\s+|have\s+)?(?:been\s+|was\s+|got\s+|"
                  r"is\s+)?(?:moved|rescheduled|postponed|pushed|brought\s+forward|changed)\s+"
                  r"(?:back\s+)?(?:to|until|till)\s+(?P<when>.+)$", t, I)
    if m and dates.found and dates.valid_from:
        noun = tidy(m.group("n"))
        return [Statement(act="change", text=f"{cap(noun)} on {tidy(m.group('when'))}",
                          fact_type="world", previous=noun, valid_from=dates.valid_from,
                          clause=c, rule="plan:moved")]
    return None


_VERBS = ("drink|run|take|play|speak|grow|cycle|swim|walk|practise|practice|study|train|read|"
          "watch|listen|attend|volunteer|teach|type|ride|drive|commute|wear|meditate|bake|cook|"
          "knit|paint|sing|climb|boulder|surf|ski|hike|garden|use|carry|visit|coach|"
          "collect|write|brew|fly|support|follow|own|manage|lead|mentor|sleep")


def _activities(c: str, dates: Dates) -> list[Statement] | None:
    t = dates.text
    m = re.search(r"\bi\s+(?:have\s+|'ve\s+|just\s+)*(?:quit|stopped|gave\s+up|give\s+up|no\s+longer\s+"
                  r"do)\s+(?P<v>[^,.;!?]+)", t, I)
    if m:
        thing = obj_phrase(m.group("v"), keep_article=True)
        if thing and thing.lower() not in {"it", "that", "this", "my job", "work"}:
            return [Statement(act="change", text=f"Has given up {third_person(thing)}",
                              fact_type="preference", previous=thing,
                              valid_from=dates.valid_from, clause=c, rule="act:quit")]
    m = re.search(r"\b(?:i'?m|i\s+am)\s+(?:now\s+|currently\s+|back\s+to\s+)?using\s+(?P<v>[^,.;!?]+?)"
                  r"(?:\s+instead\s+of\s+(?P<p>[^,.;!?]+))?(?=\s*(?:[,.;!?]|$))", t, I)
    if m:
        thing = tidy(m.group("v"))
        changed = bool(m.group("p") or re.search(r"\b(?:now|again|these\s+days|instead)\b", c, I))
        if thing and not re.match(r"^(?:it|that|this|the\s+app|my\s+phone)\b", thing, I):
            return [Statement(act="change" if changed else "assert", text=f"Uses {thing}",
                              fact_type="preference", previous=tidy(m.group("p")) if m.group("p") else None,
                              slot="verb:use" if changed else None, clause=c, rule="act:using")]
    m = re.search(r"\b(?:i'?m|i\s+am)\s+(?:now\s+|currently\s+|also\s+)?(?P<verb>learning|training|"
                  r"studying|taking|doing|playing|volunteering|working\s+on|practising|practicing|"
                  r"writing|building|reading|running|coaching|mentoring)\s+(?P<v>[^,.;!?]+)", t, I)
    if m:
        thing = tidy(m.group("v"))
        if thing and not re.match(r"^(?:to|a\s+break|it|that|this|about)\b", thing, I):
            return [Statement(act="assert", text=f"Is {m.group('verb').lower()} {third_person(thing)}",
                              fact_type="world", clause=c, rule="act:ing")]
    m = re.search(r"\bi\s+(?P<adv>now\s+|usually\s+|always\s+|also\s+|still\s+|do\s+|mostly\s+|"
                  r"normally\s+)?(?P<verb>" + _VERBS + r")\s+(?P<v>[^,;!?]+?)(?P<now>\s+now)?"
                  r"(?:\s+instead\s+of\s+(?P<p>[^,.;!?]+))?\s*(?=[,.;!?]|$)", t, I)
    if m:
        verb = m.group("verb").lower()
        thing = tidy(m.group("v"))
        if not thing or re.match(r"^(?:to|it|that|this|you|there|home|out|back|a\s+bit)\b", thing, I):
            return None
        if verb == "use":
            text = f"Uses {thing}"
        else:
            text = f"{cap(third_singular(verb))} {third_person(thing)}"
        changed = bool(m.group("now") or m.group("p") or re.search(
            r"\b(?:now|these\s+days|nowadays|instead|any\s*more)\b", c, I))
        return [Statement(act="change" if changed else "assert", text=text,
                          fact_type="preference",
                          previous=obj_phrase(m.group("p"), keep_article=True) if m.group("p") else None,
                          slot=f"verb:{verb}" if changed else None, valid_from=dates.valid_from,
                          clause=c, rule="act:verb")]
    return None


def _my_noun(c: str, dates: Dates) -> list[Statement] | None:
    """"My new phone is a Pixel 9", "Our broadband is now Community Fibre", "my favourite band is"."""
    t = dates.text
    m = re.match(r"^(?:my|our)\s+(?P<new>new\s+|current\s+|main\s+(?=\w+\s+(?:is|are)))?"
                 r"(?P<n>[\w'’ -]+?)\s+(?:is|are|'s)\s+(?:now\s+|actually\s+|still\s+)?"
                 r"(?P<v>[^,;!?]+?)(?P<now>\s+(?:now|these\s+days|nowadays))?\s*(?:[,.;!?].*)?$", t, I)
    if not m:
        return None
    noun, value = tidy(m.group("n")), tidy(m.group("v"))
    if not value or re.match(r"^(?:not|no|broken|jammed|down|off|on|dead|offline|slow|"
                             r"terrible|awful|great|fine|ok|okay|good|bad|weird|acting|playing|"
                             r"going|doing|being|so|very|too|really|still|a\s+mess|a\s+bit|\w+ing)\b"
                             r"(?!\s+(?:\d|the\s+\d|jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec))",
                             value, I):
        return None
    if noun.split()[0].lower() in lx.RELATIONS:
        return None
    head_noun = noun.split()[-1].lower()
    if re.fullmatch(r"[a-z]+", value) and head_noun not in lx.SLOT_NOUNS and not re.search(
            r"\bfavou?rite\b", noun, I):
        return None  # "my flight is delayed": a passing state, not an attribute
    main = (m.group("new") or "").strip().lower() == "main"
    label = ("Main " if main else "") + noun
    changed = bool(m.group("new") and m.group("new").strip().lower() == "new") or bool(
        m.group("now")) or bool(re.search(r"\b(?:is|are)\s+now\b|\bthese\s+days\b", t, I))
    head = noun.split()[-1].lower()
    ftype: FactTypeName = "world"
    if re.search(r"\bfavou?rite\b", noun, I):
        ftype = "preference"
    elif head in {"name", "pronouns", "age", "nationality", "religion", "birthday"}:
        ftype = "identity"
    text = f"{cap(label)} {'are' if head.endswith('s') and not head.endswith('ss') else 'is'} {value}"
    recurring = re.search(r"\b(?:birthday|anniversary|every|each)\b", t, I)
    slot = f"noun:{head}" if head in lx.SLOT_NOUNS or re.search(r"\bfavou?rite\b", noun, I) \
        else f"noun:{noun.lower()}"
    return [Statement(act="change" if changed else "assert", text=third_person(text),
                      fact_type=ftype, slot=slot, previous=None,
                      valid_from=None if recurring else dates.valid_from,
                      valid_to=None if recurring else dates.valid_to, clause=c, rule="my-noun")]


def _third_party(c: str, dates: Dates) -> list[Statement] | None:
    """Named things and pets that changed: "Pi-hole runs on a Pi 5 now", "Max died"."""
    t = dates.text
    subj = r"(?P<s>(?:the\s+)?[A-Z\u00C0-\u00DE][\w'’-]*(?:\s+[A-Z0-9][\w'’-]*){0,2})"
    m = re.match(subj + r"\s+(?:has\s+)?(?:died|passed\s+away|was\s+put\s+down)\b", t)
    if m:
        who = tidy(m.group("s"))
        return [Statement(act="change", text=f"{who} has died", fact_type="world", previous=who,
                          valid_from=dates.valid_from, clause=c, rule="third:died")]
    m = re.match(subj + r"\s+(?:isn'?t|is\s+not|doesn'?t|does\s+not|no\s+longer)\s+(?P<v>[^,.;!?]+?)"
                 r"\s+any\s*more\b", t)
    if m and m.group("s").lower() not in {"i", "it", "that", "this", "there"}:
        who, rest = tidy(m.group("s")), tidy(m.group("v"))
        verb = "is no longer" if re.search(r"isn'?t|is\s+not", m.group(0), I) else "no longer"
        return [Statement(act="change", text=f"{who} {verb} {third_person(rest)}", fact_type="world",
                          previous=" ".join([who, rest.split()[-1]]), clause=c,
                          rule="third:not-any-more")]
    m = re.match(subj + r"\s+(?P<verb>(?:is|are|lives|runs|stays|sleeps|uses|has|works|goes|"
                 r"belongs)\b[^,;!?]*?)\s+(?:now|these\s+days|nowadays)\b(?P<tail>.*)$", t)
    if m and m.group("s").lower() not in {"i", "it", "that", "this", "there", "the", "we"}:
        who = tidy(m.group("s"))
        dead = re.search(r"(?:the\s+)?(?P<o>[\w'’ -]+?)\s+(?:died|broke|is\s+gone|was\s+stolen)",
                         m.group("tail"), I)
        prev = who if not dead else f"{who}"
        return [Statement(act="change", text=third_person(f"{who} {tidy(m.group('verb'))}"),
                          fact_type="world", previous=prev, clause=c, rule="third:now")]
    return None


HANDLERS = ("location", "work", "health", "preferences", "identity", "plans", "possessions",
            "my_noun", "activities", "third_party")


def read_clause(c: str, message: str, today: date, history: list[str], *,
                allow_correction: bool = True) -> list[Statement] | None:
    """Statements in one clause (None: nothing understood; []: understood, nothing to keep)."""
    if allow_correction:
        found = _correction(c, message, today, history)
        if found:
            return found
    dates = find_dates(c, today)
    found = _relation(dates.text)
    if found is not None:
        for st in found:
            st.valid_from = st.valid_from or dates.valid_from
            st.clause = c
        return found
    for name in HANDLERS:
        if name == "location":
            found = _location(c, today, dates)
        elif name == "work":
            found = _work(c, dates)
        elif name == "health":
            found = _health(c, dates)
        elif name == "preferences":
            found = _preferences(c, dates)
        elif name == "identity":
            found = _identity(c, dates)
        elif name == "plans":
            found = _plans(c, today, dates)
        elif name == "possessions":
            found = _possessions(c, dates)
        elif name == "my_noun":
            found = _my_noun(c, dates)
        elif name == "activities":
            found = _activities(c, dates)
        else:
            found = _third_party(c, dates)
        if found is not None:
            return found
    return None


def understand(message: str, today: date, history: list[str] | None = None) -> Understanding:
    """Read a chat message into statements, questions and clauses with nothing to keep."""
    history = list(history or [])
    out = Understanding()
    if m := _OTHER_USER.search(message):
        out.other_user = m.group(0)
        return out
    for raw in split_clauses(message):
        c = _PREFIX.sub("", raw).strip()
        if not c:
            continue
        forget = _forget(c.rstrip("?"))
        if forget:
            out.statements += forget
            continue
        if is_question(c):
            out.questions.append(c)
            continue
        if _HYPO.search(c) and not re.search(r"\b(?:allergic|intolerant)\b", c, I):
            out.ignored.append(raw)
            continue
        hedged = bool(_HEDGE.search(c))
        # "I live in Grenoble, I never lived in Lyon": each "I ..." after a comma is a clause.
        parts = [p for p in re.split(r",\s*(?=(?:i|we)(?:\s|'))|,?\s+(?:and|but|plus|also)\s+"
                                     r"(?=(?:i|we)(?:\s|'))", c, flags=I) if p.strip()]
        kept = []
        for part in parts:
            part = re.sub(r"\b(i|we|you|they)'ve\b", r"\1 have", part.replace("’", "'"), flags=I)
            found = _denial(part, message, history) or read_clause(part, message, today, history)
            for st in found or []:
                if hedged:
                    st.confidence = min(st.confidence, 0.55)
            kept += found or []
        if not kept:
            out.ignored.append(raw)
            continue
        out.statements += kept
    out.statements = _merge(out.statements)
    return out


def _merge(statements: list[Statement]) -> list[Statement]:
    """Combine clauses of one message that make one change: a denial and its replacement ("That's
    not right, I live in Grenoble, I never lived in Lyon"), or "no longer X" and what replaced it
    ("I'm no longer vegetarian, I eat fish now")."""
    denials = [s for s in statements if s.act == "deny" and not s.text]
    values = [s for s in statements if s.act in ("assert", "change") and s.text]
    if len(denials) == 1 and len(values) == 1:
        d, v = denials[0], values[0]
        if d.slot is None or v.slot is None or d.slot == v.slot:
            d.text, d.fact_type, d.slot = v.text, v.fact_type, v.slot or d.slot
            d.valid_from, d.valid_to = v.valid_from, v.valid_to
            d.rule += "+replacement"
            return [s for s in statements if s is not v]
    gone = [s for s in values if s.text and s.text.startswith(("Is no longer", "No longer"))]
    if len(gone) == 1 and len(values) == 2:
        other = next(s for s in values if s is not gone[0])
        other.act = "change"
        other.previous = gone[0].previous
        other.slot = other.slot or gone[0].slot
        other.rule += "+replaces-no-longer"
        return [s for s in statements if s is not gone[0]]
    return statements
