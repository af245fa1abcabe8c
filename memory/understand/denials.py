"""Forget requests and denials ("I never lived in Bristol", "the Tesla was my sister's")."""

from __future__ import annotations

import re

from . import lexicon as lx
from .model import Statement
from .phrases import (
    CAP_PLACE,
    HARSH_RE,
    NAME,
    REL,
    SUBJ_I,
    UPPER,
    I,
    cap,
    tidy,
)
from .truths import someone_elses


def forget_request(c: str) -> list[Statement] | None:
    m = re.match(r"^(?:(?:can|could|would|will)\s+you\s+(?:please\s+)?)?(?:please\s+)?"
                 r"(?:forget|delete|erase|remove|wipe|scrub|purge|unlearn|drop|get\s+rid\s+of|"
                 r"stop\s+remembering|don'?t\s+(?:remember|keep|store))\s+(?P<rest>.+)$", c, I)
    if not m or re.match(r"(?:if|whether)\b", m.group("rest"), I):
        return None  # "Don't remember if I said, but ...": not a request to forget
    rest = re.sub(r"^(?:about|all\s+about|everything\s+(?:about|on)|anything\s+about|what\s+you\s+"
                  r"(?:know|have)\s+(?:about|on)|the\s+(?:note|notes|info|information|memory|bit|"
                  r"part|fact|details?)\s+(?:about|on|that)|the\s+fact\s+that|that)\s+", "",
                  tidy(m.group("rest").rstrip("?")), flags=I)
    # "Forget my commute details, I don't want that stored": the reason is no part of the target
    rest = re.sub(r"(?:,?\s+(?:because|cos|since)\b|,\s*(?:i|i'm|i'd|we|it's|that's|it|that|this)\s+)[^,]*$",
                  "", rest, flags=I) or rest
    rest = re.sub(r"\s+(?:please|for me|from (?:your|the) (?:memory|records))$", "", rest, flags=I)
    if not rest or rest.lower() in {"it", "that", "this", "everything", "me"}:
        return None
    return [Statement(act="forget", target=rest, clause=c, rule="forget")]


# "…, that was my neighbour's", "it belongs to my sister", "not mine": someone else's, so never
# the user's (invariant 230)
_THEIRS = re.compile(r"\b(?:was|is|were|are)\s+(?:actually\s+|really\s+)?(?:my|our)\s+\w+['’]s?(?=\W*$|\W+"
                     r"(?:not|and|but)\b)|\bbelong(?:s|ed)?\s+to\s+(?:(?:my|our)\s+\w+|(?-i:[A-Z])\w+)|"
                     r"\bnot\s+(?:mine|ours)\b|"
                     # "that was Tom going on about it", "the book is a present for Emre" (inv. 249)
                     r"\bthat\s+was\s+(?-i:[A-Z])\w+\b(?!['’])|\b(?:is|was)\s+a\s+(?:present|gift)\s+for\b",
                     re.IGNORECASE)


def denial(c: str, message: str, history: list[str]) -> list[Statement] | None:
    # "Not a Tesla, a BYD Seal", "I'm not a nurse, a midwife": the value denied first and the
    # one true all along after it; the agent swaps it into the fact on record (invariant 263)
    m = re.match(r"^(?:(?:it'?s|it\s+is|that'?s|i'?m|i\s+am)\s+)?not\s+(?:a|an|the|my)\s+(?P<old>[^,;]+?),\s*"
                 r"(?:(?:it'?s|it\s+is|i'?m|i\s+am|but)\s+)?(?:a|an|the)\s+(?P<new>[^,.;!?]+?)\s*[.!]*$", c, I)
    if m:
        return [Statement(act="deny", target=tidy(m.group("old")), text=tidy(m.group("new")),
                          harsh=True, clause=c, rule="deny:not-x-y")]
    # "The Peloton left with my ex, it was hers all along": the thing the sentence opened with
    # was someone else's, so never the user's (invariants 230, 263)
    m = re.search(r"^(?:the|my|our)\s+(?P<subj>[\w'’-]+(?:\s+(?-i:[A-Z0-9])[\w'’-]*)*)\b[^,]*,\s*"
                  r"(?:it|that|they)\s+(?:was|is|were|are)\s+(?:always\s+|actually\s+|really\s+)?"
                  r"(?:hers|his|theirs|(?:my|our)\s+\w+['’]s)(?:\s+all\s+along)?\W*$", c, I)
    if m and m.group("subj").lower() not in lx.RELATIONS | lx.NAMED_ONLY_RELATIONS | {"friend", "ex"}:
        return [Statement(act="deny", target=tidy(m.group("subj")), harsh=True, clause=c,
                          slot="verb:have", rule="deny:theirs-all-along")]
    # "I never lived in Bristol", "we never had a cat"
    # invariant 303: "Never supported Arsenal in my life" (the subject left out), "I was never
    # born in Leeds" (canonical for "I wasn't born in Leeds")
    m = re.search(r"(?:\b" + SUBJ_I + r"\s+(?:have\s+|'ve\s+|was\s+|were\s+)?|^)never\s+(?:actually\s+|ever\s+)?(?P<verb>"
                  r"lived|been|owned|had|worked|liked|said|eaten|used|bought|driven|studied|"
                  r"played|gone|visited|dated|married|run|done|taken|drank|drunk|ate|drove|smoked|"
                  r"kept|rode|wanted|needed|asked\s+for|planned|ran|learned|learnt|studied|supported|"
                  r"followed|born|rented|banked|attended|belonged\s+to)\b\s*(?P<rest>[^,.;!?]*?)"
                  r"(?:\s+in\s+my\s+(?:life|whole\s+life|entire\s+life))?(?=\s*(?:[,.;!?]|$))",
                  c, I)
    if m and re.match(r"^there\b", m.group("rest").strip(), I):
        # "Leeds? Never lived there": there is the place the message named
        named = re.findall(r"\b((?-i:[A-Z])[\w'’-]+)\b", message[:message.find(c)] if c in message
                           else message)
        named = [n for n in named if n.lower() not in {"i", "never", "no", "nope", "what", "where"}]
        if named:
            c = c[:m.start("rest")] + "in " + named[-1] + c[m.start("rest") + len("there"):]
            m = re.search(r"\b" + SUBJ_I + r"\s+(?:have\s+|'ve\s+)?never\s+(?:actually\s+)?(?P<verb>lived|"
                          r"been|worked)\b\s*(?P<rest>[^,.;!?]*)", c, I)
    if m and m.group("rest").strip():
        verb = m.group("verb").lower()
        slot = {"lived": "home", "worked": "employer"}.get(verb)
        st = Statement(act="deny", target=f"{verb} {tidy(m.group('rest'))}", slot=slot,
                       harsh=True, clause=c, rule="deny:never")
        # "..., it was Ōsaka": the value that was true all along (invariant 140).
        # "..., that was a typo, it's Mondo": a remark may stand between (invariant 230)
        rest = c[m.end():] + (message[message.find(c) + len(c):] if c in message else "")
        new = re.search(r"^\s*,?\s*(?:(?:that|this)\s+(?:was|is)\s+(?:a\s+|an\s+|my\s+)?[\w -]{1,25}?,\s*)?"
                        r"(?:it\s+was|it'?s|it\s+is)\s+(?:actually\s+|always\s+)?"
                        r"(?:in\s+|at\s+|for\s+)?(?P<v>" + UPPER + r"[\w'’.-]*(?:\s+" + UPPER +
                        r"[\w'’.-]*){0,2})\s*(?:[.!?]|[^\w]*$)", rest)
        if new and slot:
            st.text = (f"Lives in {new.group('v')}" if slot == "home"
                       else f"Works at {new.group('v')}")
            st.fact_type = "identity"
        return [st]
    # "Sofia was never my manager, it's Marta"; "The Eufy camera was never ours"
    m = re.search(r"^(?P<subj>[\w'’ -]{1,50}?)\s+(?:was|were|is|are)\s+never\s+"
                  r"(?P<what>mine|ours|(?:my|our)\s+[\w ]+?|[A-Z][\w'’-]+)"
                  r"(?=\s*(?:[,.;!?]|$|\s+i\b|\s+we\b))(?P<tail>.*)$", c)
    if m:
        subj, what = tidy(m.group("subj")), tidy(m.group("what"))
        target = subj if what.lower() in {"mine", "ours"} else f"{subj} {what}"
        st = Statement(act="deny", target=re.sub(r"^(?:the|my|our)\s+", "", target, flags=I),
                       harsh=True, clause=c, rule="deny:was-never")
        if what.lower() in {"mine", "ours"}:
            # "The Roborock was never ours": the fact of having it, not a rule about it
            st.slot = "verb:have"
        new = re.search(r"\b(?:it'?s|it\s+is|it\s+was)\s+(?:actually\s+)?" + NAME, m.group("tail"))
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
                  r"only\s+)?(?:my|our)\s+(?P<who>\w+)['’]s?(?:\s+(?P<noun>(?!not\b)[a-z][\w-]*))?"
                  r"(?=\s*(?:[,.;!?]|$)|\s+not\s+(?:mine|ours)\b)", c, I)
    if m and (re.search(r"\bnot\s+(?:mine|ours)\b|\bnever\b", message, I)
              or m.group("who").lower() in lx.RELATIONS | lx.NAMED_ONLY_RELATIONS | {"friend"}):
        subj = tidy(m.group("subj"))
        if subj.lower() in {"that", "it", "this", "those", "they"}:
            prior = next((h for h in reversed(history) if h.strip()), "")
            subj = " ".join(filter(None, [topic_words(prior), m.group("noun") or ""]))
        elif m.group("noun"):
            subj = f"{subj} {m.group('noun')}"
        subj = re.sub(r"^(?:the|my|our)\s+", "", subj, flags=I)
        if subj:
            return [Statement(act="deny", target=subj, harsh=True, clause=c, rule="deny:theirs")]
    # "The Ring doorbell isn't mine, it's my landlord's"; "the bike doesn't belong to us"
    # (invariant 236): the fact of having it, never true. "... isn't mine any more" is a change.
    m = re.search(r"^(?P<subj>[\w'’ -]{1,50}?)\s+(?:isn'?t|is\s+not|wasn'?t|was\s+not|aren'?t|"
                  r"are\s+not|weren'?t|were\s+not|(?:does|did)(?:n'?t|\s+not)\s+belong\s+to)\s+"
                  r"(?:actually\s+|even\s+|really\s+)?(?:mine|ours|me|us)\b(?!\s+to\b)", c, I)
    if m and not re.search(r"\bany\s*more\b|\bno\s+longer\b|\banymore\b", c, I):
        subj = re.sub(r"^(?:actually|no|oh|sorry|wait|oops|btw)\W+", "", tidy(m.group("subj")), flags=I)
        subj = re.sub(r"^(?:the|that|this|those|these)\s+", "", subj, flags=I)
        if subj and subj.lower() not in {"it", "that", "this", "they", "those", "these", "which",
                                         "what", "he", "she", "one"}:
            return [Statement(act="deny", target=subj, harsh=True, clause=c, slot="verb:have",
                              rule="deny:not-mine")]
    # "Sofía isn't at Hillside, that's her friend Lucía": the record mixed the user's person up
    # with someone else (invariant 263)
    m = re.search(r"^(?P<subj>" + UPPER + r"[\w'’-]+)\s+(?:isn'?t|is\s+not|wasn'?t|was\s+not|never\s+was)\s+"
                  r"(?:at|in|with|on)\s+(?P<x>[^,.;!?]+?)\s*,\s*(?:that'?s|that\s+(?:is|was)|it'?s|it\s+(?:is|was))\s+"
                  r"(?:her|his|their|my|our)\s+(?:best\s+|old\s+)?(?P<who>\w+)", c)
    if m and m.group("subj").lower() not in {"it", "that", "this", "he", "she", "they", "i"} and \
            m.group("who").lower() in lx.RELATIONS | lx.NAMED_ONLY_RELATIONS | {"friend", "classmate", "mate"}:
        return [Statement(act="deny", target=f"{m.group('subj')} {tidy(m.group('x'))}", harsh=True, clause=c,
                          rule="deny:mixed-up")]
    # "Luna isn't my cat, she's my neighbour's"
    m = re.search(r"^(?P<subj>[\w'’ -]{1,40}?)\s+(?:isn'?t|is\s+not|wasn'?t|was\s+not|aren'?t|are\s+not|"
                  r"weren'?t)\s+(?:my|our)\s+(?P<noun>[\w -]+?)(?=\s*(?:[,.;!?]|$))", c, I)
    if m and not re.search(r"\bany\s*more\b|\bno\s+longer\b", c, I) and (
            HARSH_RE.search(message) or re.search(r"\b(?:my|our|his|her|their)\s+\w+['’]s\b|"
                                                r"\b[A-Z]\w+['’]s\b", message)
            or re.search(r",\s*(?:it'?s|it\s+is|(?:she|he)'?s|(?:she|he)\s+is)\s+(?:actually\s+)?"
                         + UPPER, message)):
        subj = re.sub(r"^(?:actually|no|oh|sorry|wait|oops)\W+", "", tidy(m.group("subj")), flags=I)
        subj = re.sub(r"^(?:the|my|our)\s+", "", subj, flags=I)
        st = Statement(act="deny", target=f"{subj} {m.group('noun')}", harsh=True, clause=c,
                       rule="deny:isnt-mine")
        # "Priya isn't my manager, it's Preeti": the value that was true all along (invariant 230)
        after = c[m.end():] + " " + (message[message.find(c) + len(c):] if c in message else "")
        new = re.search(r"\b(?:it'?s|it\s+is|it\s+was|(?:she|he)'?s|(?:she|he)\s+is)\s+(?:actually\s+)?"
                        + NAME + r"\s*(?:[.!?]|$)", after)
        if new and lx.KINDS.get(m.group("noun").split()[-1].lower()) is None:
            st.text = f"{cap(m.group('noun'))} is {new.group('name')}"
            st.fact_type = "identity"
            st.slot = "noun:" + m.group("noun").split()[-1].lower()
        return [st]
    # "I don't have a daughter, you've confused me with someone": a denial when the user says
    # the record is wrong
    m = (re.search(r"\b" + SUBJ_I + r"\s+(?:don'?t|do\s+not|never)\s+(?:have|had|own|owned)\s+(?:a|an|any|the|that)\s+"
                   r"(?P<n>[\w -]+?)(?=\s*(?:[,.;!?]|$))", c, I)
         # "I have no kids. zero. where did three come from??" (invariant 263)
         or re.search(r"\b" + SUBJ_I + r"\s+(?:have|'ve\s+got|have\s+got|own)\s+no\s+"
                      r"(?P<n>[\w -]+?)(?=\s*(?:[,.;!?]|$))", c, I))
    if not m:
        # "I don't run a Pi-hole", "we don't use Tailscale" said as a correction: a thing kept
        # or used that never was (invariant 249); the cue below keeps "I don't use X any more" out
        m = re.search(r"\b" + SUBJ_I + r"\s+(?:don'?t|do\s+not)\s+(?:run|use|keep|drive|ride)\s+(?:a|an|any|"
                      r"the|that)?\s*(?P<n>[\w -]+?)(?=\s*(?:[,.;!?]|$))", c, I)
        if m and re.search(r"\b(?:any\s*more|no\s+longer)\b", c, I):
            m = None
    if m and (HARSH_RE.search(message) or _THEIRS.search(message) or someone_elses(message)):
        # the fact of having it, not a rule about it (invariant 230); "..., that's my mum"
        # (invariant 355)
        had = bool(re.search(r"\b(?:have|had|own|owned)\s", m.group(0), I))
        return [Statement(act="deny", target=tidy(m.group("n")), harsh=True, clause=c,
                          slot="verb:have" if had else None, rule="deny:dont-have")]
    # "my brother isn't in Leeds, he's in York, always has been": where someone close lives,
    # never true (invariant 256); "isn't in Leeds any more" is a move, read elsewhere
    m = re.search(r"^(?:my|our)\s+(?P<rel>" + REL + r")(?:\s+(?-i:[A-Z])[\w'’-]+)?\s+(?:isn'?t|is\s+not|wasn'?t|"
                  r"was\s+not|never\s+lived|has\s+never\s+been|was\s+never)\s+(?:in|at)\s+" + CAP_PLACE, c, I)
    if m and HARSH_RE.search(message) and not re.search(r"\b(?:any\s*more|no\s+longer)\b", c, I):
        rel = m.group("rel").lower()
        st = Statement(act="deny", target=f"{rel} {m.group('p')}", harsh=True, clause=c,
                       rule="deny:not-there")
        after = c[m.end():] + " " + (message[message.find(c) + len(c):] if c in message else "")
        new = re.search(r"\b(?:she|he|they)(?:'s|\s+is|'re|\s+are|\s+was)\s+(?:actually\s+|really\s+)?in\s+"
                        + CAP_PLACE.replace("?P<p>", "?P<q>"), after, I)
        if new:
            st.text, st.fact_type = f"{cap(rel)} lives in {new.group('q')}", "identity"
        return [st]
    # "I'm not learning Go, never said that": something the user is doing that never was
    # (invariant 249), only with a never-true cue ("I'm not learning Go any more" is a change)
    m = re.search(r"\b(?:i'?m|i\s+am|we'?re|we\s+are)\s+not\s+(?:actually\s+|really\s+)?(?P<what>(?:learning|"
                  r"studying|training|doing|taking|building|writing|running|planning|teaching|playing|"
                  r"practising|practicing)\s+[^,.;!?]+)", c, I)
    if m and not re.search(r"\b(?:any\s*more|no\s+longer|yet|today|tonight|this\s+\w+)\b", c, I) and \
            (HARSH_RE.search(message) or _THEIRS.search(message)):
        return [Statement(act="deny", target=tidy(m.group("what")), harsh=True, clause=c,
                          rule="deny:not-doing")]
    # "My peanut allergy was a misdiagnosis", "the Tesla thing was a mix-up"
    m = re.search(r"^(?:my|our|the)\s+(?P<subj>[\w'’ -]{1,40}?)\s+(?:thing\s+)?(?:was|is|turned\s+out\s+to\s+be|"
                  r"proved\s+to\s+be|was\s+just|was\s+only)\s+(?:all\s+)?(?:a\s+|an\s+)?"
                  r"(?:misdiagnosis|mistake|error|typo|false\s+positive|false\s+alarm|mix-?up|misunderstanding|"
                  r"wrong|never\s+real)\b", c, I)
    if m:
        return [Statement(act="deny", target=tidy(m.group("subj")), harsh=True, clause=c,
                          rule="deny:was-a-mistake")]
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
                  r"really\s+)?(?P<what>allergic\s+to\s+[^,.;:!?—–]+|afraid\s+of\s+[^,.;:!?—–]+|"
                  r"scared\s+of\s+[^,.;:!?—–]+|intolerant\s+to\s+[^,.;:!?—–]+|vegan|vegetarian|"
                  r"pescatarian|married|diabetic|lactose\s+intolerant|coeliac|celiac)", c, I)
    if m and (m.group("neg").lower() != "no longer" or HARSH_RE.search(message)):
        if m.group("neg").lower() == "not" and not HARSH_RE.search(message) and \
                re.search(r"\bany\s*more\b", c, I):
            return None  # "not ... any more" is a change, read below
        return [Statement(act="deny", target=tidy(m.group("what")), harsh=True, clause=c,
                          rule="deny:not")]
    return None


def topic_words(text: str) -> str:
    words = [w for w in re.findall(r"[\w'’-]+", text) if w[:1].isupper() and w.lower() not in
             {"i", "do", "does", "did", "can", "could", "you", "what", "where", "is", "my"}]
    return " ".join(words) or tidy(text)
