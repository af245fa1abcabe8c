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
from collections.abc import Callable
from datetime import date

from ..text import STOP_WORDS
from . import changes, events3, followups, kin_news, levels, plans3, substitution, swaps, truths
from . import lexicon as lx
from .about_me import (
    _WORK_CUE,
    health,
    identity,
    location,
    milestones,
    plans,
    preferences,
    relation,
    schedule,
    work,
)
from .belongings import belongings, dated_acquisition
from .canon import canonical, is_lowercase_message, respell, strip_symbols
from .dates import Dates, find_dates
from .denials import denial, forget_request
from .documents import cancelled, documents, moved_day, rescheduled, statuses
from .endings import ended, with_replacement
from .health3 import not_after_someone, said_in_passing, told_and_started
from .life2 import (
    ACTUALLY,
    DUE_NEXT,
    FEELING_LEAD,
    FIRST_GO,
    carried_with_allergy,
    habits_and_health,
    holiday_visit,
    pulled_out,
    taken_up_again,
)
from .model import Statement, Understanding
from .people import (
    expecting,
    forget_lead,
    forget_pronoun,
    last_status,
    manager_news,
    moved_in,
    named_after,
    named_events,
    our_baby,
    partner_diet,
    plain_do,
    promoted,
    put_down,
    role_taken_over,
    seeing_someone,
    staying,
    their_work,
    turned,
)
from .phrases import CHANGE_RE, HARSH_RE, HEDGE_RE, HYPO_RE, I, article, cap, third_person, tidy
from .switches import switches
from .things import (
    accounts,
    activities,
    injuries,
    looks_like_a_thing,
    my_noun,
    possessions,
    refine_move,
    third_party,
)

__all__ = ["Statement", "Understanding", "read_clause", "understand"]


# --- splitting and classifying clauses ------------------------------------------------------------
_PREFIX = re.compile(
    r"^(?:(?:please|pls|just|also|oh|and|so|ok|okay|well|hey|hi|hello|btw|by the way|fyi|"
    r"just so you know|for the record|for your records|actually|note that|remember that|"
    r"remember|please note|quick update|update|news|good news|big news|great news|exciting news|guess what|so yeah|yeah|yes|"
    r"no(?!\s+(?:longer|more)\b)|"
    r"right|anyway|ah|um|uh|hmm|heads up|nope|sorry|actually no|no wait|wait|"
    r"(?:that'?s|that\s+is|this\s+is)\s+(?:wrong|not\s+right|not\s+true|incorrect|a\s+mistake)|"
    r"you'?ve\s+got\s+(?:it|that)\s+wrong|you\s+got\s+(?:it|that)\s+wrong|wrong)"
    r"\b[,:!.]?\s*)+", I)
_CONDITIONAL = re.compile(
    r"\b(?:if\s+(?:i|we|you|they|he|she|it|my|our|the|that|this|there)|unless|what\s+if|suppose|"
    r"supposing|imagine|in\s+theory|hypothetically|wish|if\s+[\w'’-]+\s+ever|"  # invariant 340
    r"if\s+only|as\s+if|might|" + lx.MAY_MODAL + r"|could\s+(?:i|we)|should\s+(?:i|we)|i\s+should|"
    r"we\s+should|(?:i|we)\s+could|would|or\s+maybe)\b", re.IGNORECASE)
_THEY_THINK = re.compile(
    r"\b(?!i\b|we\b)[\w'’]+\s+(?:thinks?|believes?|assumes?|reckons?|is\s+convinced|are\s+convinced|"
    r"wants?\s+me\s+to|wish(?:es)?|hopes?|keeps?\s+saying|insists?|claims?)\s+(?:that\s+)?"
    r"(?:i|we|i'm|we're)\b", re.IGNORECASE)
_CORRECTION_LEAD = re.compile(
    r"^(?:no[,!]|nope\b|wrong\b|that'?s\s+(?:wrong|not\s+right|incorrect|not\s+true)|"
    r"you'?ve\s+got\s+(?:it|that)\s+wrong|you\s+got\s+(?:it|that)\s+wrong|incorrect\b|"
    r"not\s+true\b|correction\b)", re.IGNORECASE)
_TELL = re.compile(
    r"^(?:did\s+i\s+(?:tell|mention\s+to)\s+you|did\s+you\s+know|have\s+i\s+told\s+you|"
    r"i\s+forgot\s+to\s+"
    r"(?:tell|mention)(?:\s+you)?|(?:can|could|would|will)\s+you\s+(?:please\s+)?(?:remember|note|"
    r"keep\s+in\s+mind|make\s+a\s+note)|please\s+(?:remember|note|keep\s+in\s+mind)|"
    # "Not sure if I told you, but I'm left-handed": a lead-in, not a condition.
    r"(?:i\s+)?(?:don'?t|do\s+not|can'?t|cannot)\s+(?:know|remember|recall)\s+(?:if|whether)\s+i\s+"
    r"(?:ever\s+)?(?:told\s+you|mentioned\s+(?:it|this)|said(?:\s+(?:so|it))?)(?:\s+(?:before|already))?|"
    r"(?:i'?m\s+)?not\s+sure\s+(?:if|whether)\s+i\s+(?:ever\s+)?(?:told|mentioned)(?:\s+(?:you|it|this))?"
    r"(?:\s+(?:before|already))?|i\s+(?:don'?t|do\s+not)\s+(?:know|remember)\s+(?:if|whether)\s+i\s+"
    r"(?:ever\s+)?(?:told|mentioned)(?:\s+(?:you|it|this))?(?:\s+(?:before|already))?|"
    r"in\s+case\s+i\s+(?:didn'?t|did\s+not|never)\s+(?:tell\s+you|mention\s+it|say)|"
    r"i\s+think\s+i\s+(?:told|mentioned\s+to)\s+you|as\s+i\s+(?:said|mentioned)(?:\s+before)?)"
    r"(?:\s*,)?(?:\s+but)?(?:\s+that)?\s+(?=(?:i|we|my|our)\b)", re.IGNORECASE)
_REPORTED = re.compile(
    r"^(?:i|we)\s+(?:told|said\s+to|promised|lied\s+to)\s+(?!you\b)(?:my\s+|the\s+|our\s+)?[\w'-]+"
    r"(?:\s+(?-i:[A-Z])[\w'-]+)?\s+(?:that\s+)?(?:i|we)\b|"
    r"^not\s+that\b|\bnews\s+to\s+me\b|\b(?:look|looks|sound|sounds|seem|seems)\s+(?:like|as\s+if)\s+(?:i|i'm)\b|\bor\s+anything\s*[.!]*$|\bin\s+my\s+dreams\b|"
    r",?\s+(?:but|though)\s+(?:i'?m|i\s+am|we'?re|i'?m\s+really|i\s+(?:didn'?t|haven'?t|won'?t|don'?t))"
    r"(?:\s+not)?\s*(?:really|actually)?\s*[.!]*$|\b(?:just\s+)?(?:kidding|joking|jk)\b", I)
_QUESTION = re.compile(
    r"^(?:what|where|which|who|whom|whose|when|why|how|tell me|remind me|show me|list|"
    r"give me|any idea|do you|did you|can you|could you|would you|will you|have you|"
    r"(?:is|are|am|do|does|did|have|has|can|could|should|would|will|was|were)\s+"
    r"(?:i|you|we|my|it|there|the|this|that|they|he|she|our|a|an|any)\b)", I)
# Invariant 313: "I'm moving to Mars, that was a joke": said in jest and taken back in the same
# breath; after a negation ("I don't have a boat, that was a joke") the cue says the record was
# never true instead (lexicon.HARSH_CUES), so a clause that denies is left to the denials.
_JEST = re.compile(r"^(?!.*\b(?:not|never|no|don'?t|doesn'?t|didn'?t|isn'?t|wasn'?t|aren'?t|haven'?t|"
                   r"hasn'?t)\b)[^,]+,\s*(?:(?:that|it|this)\s+was\s+(?:(?:just|only)\s+)?(?:a\s+joke|joking|"
                   r"banter|a\s+wind-?up))\W*$", I)
_OTHER_USER = re.compile(
    r"\b(?:as|for|of|about|to|into|from|in)\s+(?:the\s+)?user\s+[\w.@-]+|\buser\s+[\w.@-]+'?s\b|"
    r"\b(?:another|other|different|every|all)\s+users?\b|\b(?:log(?:ged)?\s+in|act|acting|"
    r"pretend(?:ing)?(?:\s+to\s+be)?|speak(?:ing)?|switch(?:ing)?)\s+as\s+(?!a\b|an\b)\w+|"
    r"\bon\s+behalf\s+of\b|\b[\w.-]+'s\s+(?:memor(?:y|ies)|facts|profile|account|records?|data|"
    r"history|store|index)\b|\b(?:user[_ ]?id|index|scope|tenant)\s*[=:]", I)


_SLOT_NOUN_P = r"(?:" + "|".join(sorted((re.escape(n) for n in lx.SLOT_NOUNS), key=len, reverse=True)) + r")"
# Where one sentence holds several first-person clauses: "..., I ...", "... and I ...",
# "..., so we ...", "..., now I'm ...", "... and bought ..." (the subject carries over: the
# canonical form puts it back, invariant 138).
_CARRY = (r"(?:moved|moving|switched|left|quit|joined|started|bought|got|sold|adopted|upgraded|did|ran|"
          r"replaced|swapped|became|retired|married|divorced|separated|stopped|traded|"
          r"gave\s+up|got\s+rid\s+of|retrained|now\s+(?:live|work|use)|live|work|went\s+back|"
          r"(?:now\s+)?back\s+(?:to|on)(?=\s))\b")
_PARTS = re.compile(r",\s*(?=(?:i|we)(?:\s|'))|,?\s+(?:and|but|plus|also|so|and\s+so)\s+"
                    r"(?=(?:i|we)(?:\s|'))|,?\s+(?:and|but|so)\s+(?=now\s+(?:i|we)\b)|"
                    r",\s*(?=now\s+(?:i|we|in|at)\b)|(?<=anymore)\s+(?=[a-z])|(?<=any more)\s+(?=[a-z])|,\s*(?=(?:eating|drinking|using|"
                    r"living|working|driving|riding|playing|new\s+job|starting\s+(?:at|with))\b)|"
                    r",?\s+(?:and|then|and\s+then|but)\s+(?=" + _CARRY + r")|,\s*(?=" + _CARRY + r")|"
                    r",?\s+and\s+(?=(?:have|own)\s+(?:a|an|two|three|four|\d+|some)\b)|"
                    # "my phone is a Pixel 9 and my tablet is an iPad Air": two values (inv. 164)
                    r",?\s+and\s+(?=(?:my|our)\s+[\w-]+\s+(?:is|are)\s)|"
                    # "It's been a rough year, my dad passed away in March": a relative's clause
                    r",\s*(?=(?:my|our)\s+(?:new\s+)?(?:manager|boss|team\s+lead|landlord|sister|brother|wife|husband|partner|mum|mom|mother|dad|father|son|"
                    r"daughter|parents|grandma|grandmother|grandpa|grandfather|gran|nan|kids|children)\b)|"
                    r",\s*so\s+(?=(?:(?:i'?m|i\s+am|we'?re)\s+)?(?:now\s+)?(?:vegan|vegetarian|pescatarian)\b)|"
                    # "the building got sold, the new landlord is Grainger" (invariant 308)
                    r",\s*(?=(?:the\s+new\s+)?(?:(?!(?:his|her|their|its|the|a|an|your|my|our|this|that)\s)[\w-]+\s+)?" + _SLOT_NOUN_P + r"\s+(?:is|are)\s)|"
                    # "..., the LG went to Lukas", "..., the old one died": a thing that ended
                    # is a clause of its own (invariant 292)
                    r",\s*(?=(?:the|my|our)\s+(?:old\s+)?[\w-]+(?:\s+[\w-]+)?\s+(?:went\s+(?:back\s+)?to|"
                    r"died|broke|is\s+gone|was\s+stolen|got\s+(?:nicked|stolen))\b)|"
                    # "got a Portuguese licence and handed in my German one": a second act with
                    # the subject carried over, whatever its verb (invariant 294)
                    r",?\s+and\s+(?=(?-i:[a-z]+ed)\s+(?:in|over|back|out|off|away|on)\s+(?:my|our|the|it|them|a|an)\b)|"
                    # "Gemma got promoted so I report to Priyanka now" (invariant 261)
                    r",?\s+(?:and|but|so)\s+(?=(?:my|our)\s+(?:manager|boss|team\s+lead|line\s+manager)\s+is\s+now\b)",
                    re.IGNORECASE)


# Invariant 307: a lead-in that labels the message ("Small correction:", "Quick update on the
# car:", "Heads-up from the dentist:"): at most two words, a label word, and what it is about.
_LABELS = (r"(?:correction|update|change|fix|news|note|heads-?up|reminder|confession|fyi|psa|"
           r"announcement|clarification|amendment|tweak)")
_COLON_LEAD = re.compile(r"^(?P<h>(?:[\w'-]+\s+){0,2}" + _LABELS + r"(?:\s+(?:for|on|about|from|re|to)\s+"
                         r"[^:,.!?;\d]{1,30}?)?):\s+(?=\S)", re.IGNORECASE)


def split_clauses(message: str) -> list[str]:
    out = []
    # "I moved to Bath, can you update that?": a statement, then a request about it.
    message = re.sub(r",\s*(?=(?:can|could|would|will)\s+you\b[^,]*\?\s*$)", ". ", message.strip(),
                     flags=re.IGNORECASE)
    # "I'm a teacher btw, any tips for marking?", "moved to Leeds, any good cafés?": a statement,
    # then a question of its own; a sentence that opens as a question stays one (invariant 164)
    head = re.match(r"^(?P<h>[^,?]+),\s*(?P<q>(?:any|anyone|anybody|what|whats|what's|where|which|who|"
                    r"how|why|when|is|are|do|does|should|thoughts|ideas|recommendations|suggestions)\b"
                    r"[^,]*\?+)\s*$", message, flags=re.IGNORECASE)
    if head and not _QUESTION.match(head.group("h").strip()) and re.match(
            r"^(?:(?:oh|and|so|btw|ok|okay|yeah|well)\s+)*(?:i|i'm|im|i've|we|we're|we've|my|our|"
            r"(?:just\s+|finally\s+)?(?:moved|started|got|bought|joined|switched|left|quit))\b",
            head.group("h").strip(), flags=re.IGNORECASE):
        message = f"{head.group('h')}. {head.group('q')}"
    # "my husband's called Dan and he's a plumber": two sentences, the pronoun resolved below
    message = re.sub(r"^((?:my|our)\s+[^,.!?]+?),?\s+and\s+(?=(?:he|she)(?:'s|’s|\s+is|\s+works|"
                     r"\s+lives)\s)", r"\1. ", message, flags=re.IGNORECASE)
    # "Small correction: my birthday's ...": a label before a colon is a sentence of its own and
    # what follows is read as said; any other head ("new laptop: a ThinkPad", "promoted me:
    # regional lead", "Lyon again after all: ...") keeps its colon (invariant 307)
    lead = _COLON_LEAD.match(message.strip())
    if lead:
        message = f"{lead.group('h')}. {message.strip()[lead.end():]}"
    # "my doctor is Dr. Patel": a title's full stop ends no sentence
    for part in re.split(r"(?<!\b[DdMm]r\.)(?<!\bMrs\.)(?<!\bMs\.)(?<!\bSt\.)(?<!\bProf\.)(?<=[.!?;])\s+|"
                         r"\n+|\s+[—–]\s+|\s+-\s+(?=\w)", message.strip()):
        part = part.strip()
        if part:
            out.append(part)
    return out


# A question after a comma at the end of a clause that opens otherwise (invariant 223).
_SITUATION_Q = re.compile(r",\s*(?P<q>(?:what|what's|whats|how)\b[^,]*)$", I)
# Words a question can be made of and still say nothing about what it asks.
_BARE_Q = frozenset("""what what's whats whaat how many much do does did i i'm my me is the a
usually normally typically generally always routine fix plan again now then there should
supposed to next say steps step again here so ok okay""".split())


def bare_question(clause: str) -> bool:
    """"how many?", "what do I usually do?", "what's my routine": a question naming no subject
    of its own, which asks about what was said just before it (invariant 223). Pure."""
    words = re.findall(r"[^\W\d_][\w'’]*", clause.lower().replace("’", "'"))
    return bool(words) and words[0] in ("what", "what's", "whats", "how") and \
        all(w in _BARE_Q for w in words)


def is_question(clause: str) -> bool:
    c = clause.strip()
    if re.match(r"^(?:do|does)\s*(?:n'?t|\s+not)\b", c, I):
        return False
    if not c.endswith("?") and re.match(r"^(?:when|where|while|once|since|after|before|because|as)\s+"
                                        r"(?:i|we|my|our)\b[^,]*,\s*(?:i|we|my|our|now)\b", c, I):
        return False  # "When we moved to Glasgow, I switched jobs": a statement
    return c.endswith("?") or bool(_QUESTION.match(c))


# "…, not because I'm intolerant": a reason denied, never an old value (invariant 262)
_NOT_Z = re.compile(r"^(?P<value>.+?),?\s+(?:and\s+)?not\s+(?!because\b|cos\b|since\b|that\b)(?:with\s+|by\s+|on\s+|a\s+|an\s+|"
                    r"the\s+|my\s+|in\s+)?(?P<old>[\w'’ .-]+?)(?=\s*(?:[,;!?]|$|\.\s|\.$))"
                    r"(?P<tail>.*)$", I)


def _correction(c: str, message: str, today: date, history: list[str]) -> list[Statement] | None:
    """"X is Y, not Z": Y replaces Z; never true unless the user says it changed."""
    m = _NOT_Z.match(c)
    if not m or re.match(r"^(?:i'?m|i\s+am|it'?s|that'?s)\s+not\b", c, I):
        return None
    # "not the 19th" names the 19 on record ("Her birthday is August 19")
    value_clause, old = m.group("value"), re.sub(r"\b(\d+)(?:st|nd|rd|th)\b", r"\1", tidy(m.group("old")))
    if not old or old.lower() in {"sure", "really", "yet", "much", "me", "now", "anymore"}:
        return None
    inner = read_clause(value_clause, message, today, history, allow_correction=False)
    if not inner and re.match(r"^the\s+", value_clause, I):
        inner = my_noun(value_clause, find_dates(re.sub(r"^the\s+", "my ", value_clause,
                                                          flags=I), today))
    if not inner and re.match(r"^(?:the\s+)?[\w'’ -]+?\s+(?:is|are|takes?|runs?|uses?|has|have)\s+",
                              value_clause, I):
        # A plain statement corrected in place ("The sensors take CR2032 batteries, not CR1632").
        # "my birthday is in June" is "Birthday is in June", never "Their birthday ..." (inv. 317)
        text = cap(third_person(re.sub(r"^(?:the|my|our)\s+", "", tidy(value_clause), flags=I)))
        inner = [Statement(act="assert", text=text, fact_type="world", clause=c, rule="statement")]
    if not inner or inner[0].act not in ("assert", "change"):
        return None
    st = inner[0]
    changed = bool(re.search(r"\b(?:now|these\s+days|nowadays|any\s*more|instead|from\s+now\s+on)"
                             r"\b", c, I))
    subject = re.match(r"^(?:the|my|our)\s+(?P<n>[\w -]+?)\s+(?:is|are|take|takes|runs?|uses?|"
                       r"has|have|was|were)\b", value_clause, I)
    words = old if not subject else f"{subject.group('n')} {old}"
    # Invariant 202: a correction the user hedges ("I think it's X, not Y — not 100% sure") is
    # not a first-hand "never true": it supersedes the old value (and waits for review at its
    # low confidence), leaving no tombstone on a value that may have been right.
    hedged = bool(HEDGE_RE.search(message)) and not HARSH_RE.search(message)
    if (changed or hedged) and not HARSH_RE.search(message):
        st.act, st.previous = "change", " ".join(filter(None, [st.previous, old]))
        st.rule += "+not-z:natural"
    else:
        st.act, st.harsh, st.target = "change", True, words
        st.previous = st.previous or words
        st.rule += "+not-z:harsh"
    return [st]


# In order: the first handler that reads a clause wins. Each takes (clause, today, dates).
HANDLERS: tuple[Callable[[str, date, Dates], list[Statement] | None], ...] = (
    lambda c, today, d: ended(c, d),  # invariants 377-384: endings and resumptions
    location,
    lambda c, today, d: schedule(c, d),
    lambda c, today, d: work(c, d),
    lambda c, today, d: health(c, d),
    said_in_passing,  # invariants 411-417: health facts said in passing
    lambda c, today, d: preferences(c, d),
    lambda c, today, d: identity(c, d),
    habits_and_health,  # invariants 345-347: before milestones, which read any exam passed
    lambda c, today, d: milestones(c, d),
    plans,
    lambda c, today, d: accounts(c, d),  # invariant 304
    lambda c, today, d: injuries(c, d),
    lambda c, today, d: possessions(c, d),
    lambda c, today, d: my_noun(c, d),
    lambda c, today, d: activities(c, d),
    lambda c, today, d: third_party(c, d),
)


_ROLE_FIRST = re.compile(r"(?:^|,\s*|\band\s+)(?P<n>(?-i:[A-Z])[\w'’-]+(?:\s+(?-i:[A-Z])[\w'’-]+)?)\s+is\s+(?P<now>now\s+)?"
                         r"(?:my|our)\s+(?P<role>(?:new\s+)?(?:line\s+|team\s+)?(?:manager|boss|lead|mentor|"
                         r"supervisor|gp|doctor|dentist|landlord|landlady|therapist|tutor|coach|trainer|"
                         r"partner|wife|husband|girlfriend|boyfriend|fianc[eé]e?))"
                         r"(?P<now2>\s+now)?\W*$", I)
_USE_AS = re.compile(r"^(?:i|we)\s+(?:now\s+)?use\s+(?P<v>[\w'’ .+-]+?)\s+as\s+(?:my|our)\s+"
                     r"(?P<role>(?:main\s+|default\s+)?[a-z][\w -]*?)(?:\s+now)?\W*$", I)


def _role_first(c: str) -> str:
    """Invariant 243: "Tomás is my manager now" is "my manager is now Tomás"; "I use fish as my
    shell" is "my shell is fish": the role leads, as the rules read it."""
    m = _ROLE_FIRST.search(c.strip())
    if m:
        now = "now " if (m.group("now") or m.group("now2")) else ""
        return c.strip()[:m.start("n")] + f"my {m.group('role')} is {now}{m.group('n')}"
    m = _USE_AS.match(c.strip())
    if m and m.group("role").split()[-1].lower() not in {"way", "excuse", "reason", "backup", "job"}:
        return f"my {m.group('role')} is {m.group('v')}"
    return c


# Invariant 308: a noun the user has one of at a time, said without "my": "the new landlord is
# Grainger", "on-call is 1 week in 6 now" (a bare noun only with "now": a change of it).
_SLOT_NOUN = _SLOT_NOUN_P
_NEW_NOUN = re.compile(r"^the\s+new\s+(?P<n>(?:[\w-]+\s+)?" + _SLOT_NOUN + r")\s+(?=(?:is|are)\s)", I)
_CHANGED_TO = re.compile(r"^(?:my|our|the)\s+(?P<n>(?:[\w-]+\s+){0,2}?" + _SLOT_NOUN + r")\s+(?:has\s+|'s\s+|have\s+)?"
                         r"(?:got|been|was|were|just\s+got)\s+(?:upgraded|downgraded|changed|switched|bumped\s+up|"
                         r"moved\s+over)\s+to\s+(?=\S)", I)
_BARE_NOUN = re.compile(r"^(?P<n>(?:[\w-]+\s+)?" + _SLOT_NOUN + r")\s+(?P<v>(?:is|are)\s+(?!now\b)[^,;!?]+?)"
                        r"\s+now\b", I)


def _own_noun(c: str) -> str:
    """"the new landlord is Grainger" -> "my new landlord is Grainger"; "on-call is 1 week in 6
    now" -> "my on-call is now 1 week in 6"; "our broadband got upgraded to 1.6 Gb" -> "my
    broadband is now 1.6 Gb": the user's own noun said as it changed, read by
    `things.my_noun` (invariant 308). A name or a determiner other than "the new" is left."""
    c = c.strip()
    if m := _CHANGED_TO.match(c):
        # "our broadband got upgraded to 1.6 Gb": what it is now
        return f"my {m.group('n')} is now " + c[m.end():]
    if m := _NEW_NOUN.match(c):
        return f"my new {m.group('n')} " + c[m.end():]
    m = _BARE_NOUN.match(c)
    if m and not re.match(r"(?-i:[A-Z])\S*\s+(?-i:[A-Z])", c) and m.group("n").split()[0].lower() not in {
            "the", "a", "an", "this", "that", "his", "her", "their", "its", "your", "my", "our"}:
        verb, _, value = m.group("v").partition(" ")
        return f"my {m.group('n')} {verb} now {value}" + c[m.end():]
    return c


def read_clause(c: str, message: str, today: date, history: list[str], *,
                allow_correction: bool = True) -> list[Statement] | None:
    """Statements in one clause (None: nothing understood; []: understood, nothing to keep)."""
    if allow_correction:
        found = _correction(c, message, today, history)
        if found:
            return found
    found = documents(c, message, today)
    if found is not None:  # read before dates: the expiry date is the value (invariant 232)
        return found
    found = statuses(c)
    if found is not None:  # invariant 246
        return found
    found = moved_day(c)
    if found is not None:  # invariant 254
        return found
    if (plain := plain_do(c)) != c.strip():  # "we do have a cat now" (invariant 336)
        return read_clause(plain, message, today, history, allow_correction=allow_correction)
    found = (manager_news(c, today) or our_baby(c, today) or partner_diet(c) or put_down(c, today)
             or moved_in(c, today) or turned(c, today) or their_work(c, today) or expecting(c, today)
             or staying(c, today) or promoted(c, today))
    if found is not None:  # invariants 330, 333, 334, 335, 337, 338
        return found
    m = _ROLE_FIRST.search(c.strip())
    if m and m.start("n") > 0:
        # "Oksana left, Tomás is my manager now": two clauses, each read on its own (inv. 243)
        head, tail = c.strip()[:m.start()].strip(" ,"), c.strip()[m.start("n"):]
        found_head = read_clause(head, message, today, history) if head else None
        found_tail = read_clause(tail, message, today, history)
        if found_head is None and found_tail is None:
            return None
        return (found_head or []) + (found_tail or [])
    c = _role_first(_own_noun(c))
    dates = find_dates(c, today)
    found = holiday_visit(c, dates)  # invariant 346
    if found is not None:
        return found
    found = relation(dates.text)
    if found and dates.found and not all(f.lower().startswith("since") for f in dates.found):
        # "my partner's working from home today / tomorrow": one day of it, not what they do;
        # only a move keeps its date (invariant 165)
        found = [st for st in found if st.rule not in ("relation:progressive", "relation:age")
                 or (" is moving " in f" {st.text} " and dates.valid_from and dates.valid_from > today)]
    if found == []:  # "our twins, Ada and Obi, start nursery on 5 January": a plan (invariant 421)
        found = plans3.read(c, message, today, dates) or found
    if found is not None:
        for st in found:
            if st.rule.endswith(":pregnant") and dates.valid_from and dates.valid_from > today:
                # "is pregnant, due in March": the due date, not when it started (invariant 156)
                st.text = f"{st.text}, due in {dates.valid_from:%B %Y}"
            else:
                st.valid_from = st.valid_from or dates.valid_from
            st.clause = c
        return found
    found = changes.team_move(c, dates) or changes.retraining(c, dates)  # invariant 357
    if found is not None:
        return found
    for handler in HANDLERS:
        found = handler(c, today, dates)
        if found is not None:
            return found
    found = plans3.read(c, message, today, dates)  # invariants 419-425: plans with their dates
    if found is not None:
        return found
    # a plan moved or called off, when nothing else read it (invariants 247, 237)
    return rescheduled(c, message, today) or cancelled(c, message, today) or pulled_out(c)  # inv. 346


# --- clause-scoped hypotheticals, carried subjects, switches back, kinds (invariant 155) --------
_BOUNDARY = re.compile(r",\s*|;\s*|\s+(?:and|but|so|though|although|plus)\s+", I)
_CONDITION_TAIL = re.compile(r"^(?:(?:but\s+)?only\s+|at\s+least\s+)?(?:if|unless|provided|as\s+long\s+as|"
                             r"assuming|depending|in\s+case|once)\b", I)
_CONSEQUENT = re.compile(r"\b(?:i|we)(?:'ll|\s+will|'d|\s+would|\s+might|\s+may|\s+could)\b|,\s*\w", I)


def scope_hypothetical(c: str) -> str | None:
    """The part of a sentence said before its hypothetical clause ("I got a new job at Acme" of
    "..., might move to Leeds later"), or None when the whole sentence is hypothetical: the cue
    comes first ("If I get the job I'll move"), or a trailing condition governs what came before
    ("I'm moving to Leeds, if the job comes through"). Pure."""
    cues = [m.start() for m in (_CONDITIONAL.search(c), HYPO_RE.search(c)) if m]
    if not cues:
        return c
    start = min(cues)
    cuts = [b for b in _BOUNDARY.finditer(c) if b.end() <= start]
    if not cuts:
        return None
    head, tail = c[:cuts[-1].start()].strip(" ,;"), c[cuts[-1].end():].strip()
    if not head or _CONDITIONAL.search(head) or HYPO_RE.search(head):
        return None
    if _CONDITION_TAIL.match(tail) and not _CONSEQUENT.search(tail):
        return None
    return head


_SHE = {"sister", "wife", "mum", "mom", "mother", "daughter", "girlfriend", "fiancee", "grandma",
        "grandmother", "gran", "granny", "nan", "nana", "aunt", "auntie", "niece", "stepmother", "stepdaughter"}
_HE = {"brother", "husband", "dad", "father", "son", "boyfriend", "fiance", "grandpa",
       "grandfather", "grandad", "granddad", "uncle", "nephew", "stepfather", "stepson"}
_REL_NAMED = re.compile(r"^(?:my|our)\s+(?P<rel>" + "|".join(sorted(_SHE | _HE | {"partner", "friend"},
                                                                    key=len, reverse=True))
                        + r")\s+(?P<name>(?-i:[^\W\d_a-z])[\w'-]+)\b", I)


_REL_CALLED = re.compile(r"^(?:my|our)\s+(?P<rel>" + "|".join(sorted(_SHE | _HE | {"partner"}, key=len,
                                                                      reverse=True))
                         + r")(?:'s\s+name\s+is|\s+is\s+called|\s+is\s+named|'s\s+called)\s+"
                           r"(?P<name>(?-i:[^\W\d_a-z])[\w'-]+)\W*$", I)


_NOT_NAMES = frozenset("""the a an my our your his her their this that these those it its there here
    so and but or just finally today yesterday tomorrow now then also still only new old last next
    what when where why how who which hey hi hello ok okay yes no not never please thanks sorry
    got moved quit left sold bought started joined switched lost""".split())


def _resolve_pronoun(c: str, person: tuple[str, str] | None) -> tuple[str, tuple[str, str] | None]:
    """"My sister Amara lives in Leeds. She just got engaged": she is the sister named in the
    sentence before, when the pronoun fits the relation. Returns the clause and who it is about."""
    m = _REL_NAMED.match(c) or _REL_CALLED.match(c)
    if m:
        return c, (m.group("rel").lower(), m.group("name"))
    p = re.match(r"^(?P<pro>she|he)(?P<be>'s|\s+is)?\s+", c, I)
    if p and person and not person[0]:
        # "Mateo se mudó — he moved to Valparaíso": a name opening the sentence before, said
        # in any language, is who "he"/"she" is; news of them is kept only as the change of
        # a fact on record about them (invariants 165, 270)
        return person[1] + (" is" if p.group("be") else "") + " " + c[p.end():], person
    n = re.match(r"^(?P<name>(?-i:[^\W\d_a-z])[\w'’-]+)\s+(?-i:[^\W\d_A-Z])", c)
    if n and not p and n.group("name").lower() not in _NOT_NAMES and not re.search(
            r"(?:ed|ing|ly)$", n.group("name"), I) and not re.search(r"\b(?:i|i'm|we|my|our)\b", c, I):
        return c, ("", n.group("name"))
    if p and person:
        rel, name = person
        fits = _SHE if p.group("pro").lower() == "she" else _HE
        if rel in fits or rel in {"partner", "friend"}:
            be = " is" if p.group("be") else ""
            return " ".join(w for w in ("my", rel, name) if w) + f"{be} " + c[p.end():], person
    return c, None


_THIRD_SUBJECT = re.compile(r"^(?:(?:my|our)\s+(?:" + "|".join(sorted(lx.RELATIONS | lx.NAMED_ONLY_RELATIONS
                                                                        | {"friend"}, key=len, reverse=True))
                            + r")\b(?!\s+and\s+(?:i|me)\b)|(?:he|she|they|his|her|their)\b|"
                            # "Tom sold his car and bought a bike": a named person (invariant 162)
                            r"(?!(?:We|You|They|It|There|This|That|Then|Just|Also|Finally|Today|Yesterday)\b)"
                            r"(?-i:[A-Z][a-z]+)(?:\s+and\s+(?-i:[A-Z][a-z]+))?\s+(?:just\s+|finally\s+)?"
                            r"(?:sold|bought|got|went|left|took|moved|quit|joined|switched|swapped|"
                            r"traded|ditched|started|gave)\b)", I)
_CARRY_START = re.compile(r"^(?:then\s+|and\s+)?" + _CARRY, I)

_BACK = re.compile(r"^(?:(?:i|we)(?:\s+|(?=')))?(?:(?:am|'m|are|'re|have|has|went|gone|going|switched|changed|"
                   r"got|finally|now|just)\s+)*back\s+(?P<on>to|on|onto)\s+(?:using\s+|drinking\s+|"
                   r"being\s+(?:fully\s+|strictly\s+|completely\s+|totally\s+)?|"  # invariant 342
                   r"(?:a|an|my|the)\s+)?(?P<v>[^,;.!?]+?)(?:\s+(?:after|following)\s+(?:a|an|two|three|"
                   r"several|\d+|some)?\s*(?:\w+\s+)?(?:of|on|with)\s+(?P<old>[^,;.!?]+?))?"
                   r"(?:\s+(?:now|again|for\s+good))?\s*(?:[,;.!?].*)?$", I)
_DRINKS = frozenset("tea coffee beer wine cider decaf".split())


def switch_back(part: str, earlier: list[Statement], before: list[str] | None = None
                ) -> tuple[str, str | None]:
    """"..., back to Neovim": the user uses the value again (a change); the verb is the one of what
    stopped earlier in the sentence ("don't use Helix anymore"). Returns the clause to read and
    the old value said after it ("after a year of Tidal"; "" for none), or None when it is not a
    switch back. Only a name, a value of a known set or a diet is a value: "back to work" and "back
    to the drawing board" are not (invariant 155)."""
    m = _BACK.match(part.strip())
    if not m:
        return part, None
    value = tidy(m.group("v"))
    low = value.lower()
    words = set(re.findall(r"[\w'-]+", low))
    named = bool(re.match(r"(?-i:[^\W\d_a-z])", value)) and len(value.split()) <= 3
    contrast = any(words & g for g in lx.CONTRASTS) or low in lx.KINDS
    diet = low in lx.MEAT_DIETS
    old = tidy(m.group("old")) if m.group("old") else ""
    for said in before or []:  # "I don't use Helix anymore, back to Neovim": Helix stopped
        gone = re.search(r"\b(?:no\s+longer|stopped|quit)\s+(?:use|using|drink|drinking|eat|eating|"
                         r"play|playing)\s+(?P<o>[^,;.!?]+)", said, I)
        if gone and not old:
            old = tidy(re.sub(r"\s+any\s*more$", "", gone.group("o"), flags=I))
    stopped = any(re.match(r"^(?:has\s+given\s+up|no\s+longer)\b", st.text or "", I) for st in earlier)
    # A name alone may be a place ("went back to Leeds for the weekend"): it is a value used
    # again only beside what it replaces, or "back on" it.
    named = named and (bool(old) or stopped or m.group("on").lower() != "to")
    if not (named or contrast or diet) or low in {"work", "school", "normal", "square one"}:
        return part, None
    if low in _DRINKS or diet:
        value = low  # a plain word a lower-case message's name rule capitalised ("went back to Tea")
    if diet:
        # "gone back to being vegetarian, no fish since last month": what follows the comma
        # still dates it (invariant 342)
        tail = re.search(r"[,;][^.!?]*", part.strip()[m.end("v"):])
        return f"I'm {value} now" + (tail.group(0) if tail else ""), old
    verb = "drink" if words & _DRINKS else "use"
    for st in earlier:
        ended = re.match(r"^(?:no\s+longer|has\s+given\s+up|stopped)\s+(?P<v>\w+)", st.text or "", I)
        if ended and ended.group("v").lower() in {"drinks", "eats", "plays", "drives", "rides", "uses"}:
            verb = ended.group("v").lower()[:-1]
    return f"I now {verb} {value}", old


_KIND_PART = re.compile(r"^(?:i|we)\s+(?:have\s+)?(?:finally\s+|just\s+)*(?:changed|switched|swapped|"
                        r"replaced|upgraded|got\s+rid\s+of|sold|ditched)\s+(?:(?:my|our|the)\s+)?"
                        r"(?:old\s+)?(?P<n>[a-z-]+?)s?$", I)
_ENDED_PART = re.compile(r"^(?:my|our|the)\s+(?:old\s+)?(?P<p>[\w'’ .+-]+?)\s+(?:finally\s+|just\s+)*"
                         r"(?:died|broke(?:\s+down)?|was\s+stolen|got\s+stolen|was\s+written\s+off|is\s+gone|has\s+gone|"
                         r"got\s+written\s+off|packed\s+in|gave\s+up|stopped\s+working)$", I)
_WITH_NOW = re.compile(r"^(?:i'?m|i\s+am|we'?re|we\s+are)\s+(?:now\s+)?(?:with|on|using|at)\s+"
                       r"(?P<v>(?-i:[^\W\d_a-z])[\w'’&.+-]*(?:\s+(?-i:[^\W\d_a-z0-9])[\w'’&.+-]*){0,2})"
                       r"(?:\s+now)?\s*[.!]*$", I)


class _Hint:
    """What an earlier part of the sentence said was replaced, for the part that names the new
    one: "I changed my car, now I have a Peugeot" (a car), "Our old Volvo died so we bought a
    Kia Niro" (the Volvo), "switched banks, I'm with Starling now" (a bank). Invariant 155."""

    def __init__(self) -> None:
        self.kind: str | None = None
        self.previous: str | None = None

    def read(self, part: str) -> bool:
        """True when the part only says what was replaced (it holds no statement of its own)."""
        m = _KIND_PART.match(part.strip(" .!"))
        if m and m.group("n").lower() in lx.KIND_NAMES:
            if re.search(r"\b(?:sold|got\s+rid\s+of|ditched)\b", part, I):
                self.previous = m.group("n").lower()  # "sold my bike, got a car": the bike went
            else:
                self.kind = m.group("n").lower()  # "changed my car": a car replaces the car
            return True
        m = _ENDED_PART.match(part.strip(" .!"))
        if m and re.search(r"\bgone$", part.strip(" .!"), I) and not looks_like_a_thing(m.group("p")):
            m = None  # "my asthma has gone": a condition that ended, not a thing replaced
        if m:
            self.previous = tidy(re.sub(r"^(?:old|trusty|beloved)\s+", "", m.group("p"), flags=I))
            return True
        return False

    def held(self, part: str) -> list[Statement] | None:
        m = _WITH_NOW.match(part.strip())
        if not m or not self.kind:
            return None
        return [Statement(act="change", text=f"{cap(self.kind)} is {m.group('v')}", fact_type="world",
                          slot=f"noun:{self.kind}", clause=part, rule="kind:with")]

    def apply(self, st: Statement) -> Statement:
        if st.act not in ("assert", "change") or not re.match(
                r"^(?:owns|has|drives|rides|uses|[\w-]+\s+is)\b", st.text or "", I):
            return st
        st.act = "change"
        st.kind = st.kind or self.kind
        st.previous = st.previous or self.previous
        st.rule += "+kind"
        return st


def understand(message: str, today: date, history: list[str] | None = None) -> Understanding:
    """Read a chat message into statements, questions and clauses with nothing to keep."""
    taken_back = followups.narrowed(message, history or [])
    if taken_back:
        # "scratch that, not latex, it's just penicillin": one item taken back (invariant 306)
        return Understanding(statements=[Statement(act="deny", target=taken_back, harsh=True,
                                                   clause=message, rule="deny:followup")])
    fixed = followups.rewrite(message, history or []) or followups.rewrite_head(message, history or [])
    if fixed is not None:
        again = _corrected(message, fixed, today, history or [])
        if again is not None:
            return again
    if (read3 := events3.read(message)) is not None:
        # invariants 369-374: an event that never happened, a hedged health suspicion; the
        # other sentences of the message are read as usual
        found3, rest3, ignored3 = read3
        out = _understand(rest3, today, history) if rest3.strip() else Understanding()
        out.statements, out.ignored = found3 + out.statements, ignored3 + out.ignored
        return out
    if (kin_read := kin_news.read(message, today)) is not None:
        return Understanding(statements=kin_read)  # invariants 403-407: news of a relative on record
    out = _understand(message, today, history)
    said = switches(message)
    if said != message and not any(_names_old(st) for st in out.statements):
        # "ditched X for Y", "X died. Replaced it with Y": a switch said in another shape is
        # read as "I switched from X to Y", unless another rule already read what it replaces
        # (invariant 248)
        again = _understand(said, today, history)
        if any(_names_old(st) for st in again.statements):
            out = again
    said = belongings(message)
    if said != message and not any(_names_old(st) and st.rule != "act:quit" and not (
            st.act == "deny" and (st.text or "").startswith("No longer ")) for st in out.statements):
        # "the Dyson died, so I got a Shark instead", "my Brompton was stolen": a possession
        # ended or replaced, read as "I replaced X with Y" or "I no longer own X" when no other
        # rule read what it replaces ("dropped my Kindle" is no habit given up), and the
        # rewrite names what ended (invariants 320-321); "gave my PS5 away, I never had time
        # for it" is no denial: the remark about "it" is left out
        again = _understand(said, today, history)
        if any(st.act == "change" and (st.previous or st.kind) and st.rule.startswith("own:")
               or _names_old(st) for st in again.statements):
            out = again
    said = dated_acquisition(message)
    if said != message:
        # "got a new car ... Picked it up yesterday": the thing dated by the day it was
        # collected (invariant 322), when the reading is otherwise the same
        again = _understand(said, today, history)
        if [st.text for st in again.statements] == [st.text for st in out.statements] and any(
                st.rule.startswith("own:") and st.valid_from for st in again.statements):
            out = again
    if not (out.statements or out.questions or out.other_user) and (off := events3.called_off(message)):
        out.statements, out.ignored = off, []  # "We've had to cancel Rome": nothing else read (inv. 370)
    return out


def _corrected(message: str, fixed: tuple[str, str, bool], today: date,
               history: list[str]) -> Understanding | None:
    """Invariant 306: "sorry, I meant Bath, not Bristol" after "I just moved to Bristol" is
    read as "I just moved to Bath", replacing the value just said: a slip, never true (harsh),
    unless the new value only refines it (natural). None when that reads no statement."""
    said, old, refines = fixed
    out = _understand(said, today, history[:-1])
    keep = [st for st in out.statements if st.act in ("assert", "change") and st.text]
    if not keep:
        return None
    for st in keep:
        st.act, st.previous, st.clause = "change", old, message
        st.harsh = not refines
        st.target = None if refines else old
        st.rule += "+followup"
    return Understanding(statements=keep, questions=[], ignored=[])


def _names_old(st: Statement) -> bool:
    """A change that names the value it replaces, or a denial: what a switch would read."""
    if st.act == "deny":
        return True
    prev = (st.previous or "").lower()
    if st.act == "change" and (st.slot or "").startswith("noun:") and (st.rule in (
            "own:switched", "relation:is-name", "my-noun") or st.rule.startswith("people:manager")):
        return True  # "switched my laptop to an M4 Max", "my new manager is Kwame": the role
    if st.act == "change" and st.rule in ("plan:moved", "plan:rescheduled", "plan:moved-day"):
        return bool(prev)  # "the MOT got moved to 3 March": the plan names itself
    return st.act == "change" and bool(prev) and prev not in (st.text or "").lower()


_ENDED_THEN = re.compile(r"^(?P<end>(?:(?:i|we)\s+)?(?:(?:have|'ve)\s+)?(?:just\s+|finally\s+)*(?:quit|stopped|"
                         r"dropped|cancell?ed|gave\s+up|given\s+up)\s+(?!(?:it|that|this|them|out|off|by|in|to)\b)"
                         r"[^,;]+?),\s*(?:so\s+|and\s+)?(?P<rest>(?!(?:and|but|so|because|cos|since|as|which|though|"
                         r"after|before|for|when|while|it|it's|that|that's|this|they|they're|he|she|who|"
                         r"not|never|no|too|thanks|lol|haha|sadly|finally|ugh)\b)\w.*)$", I)


def _after_ending(part: str) -> list[str]:
    """A clause that says what ended, split from the clause after its comma (invariant 275)."""
    m = _ENDED_THEN.match(part.strip())
    if not m or len(m.group("rest").split()) < 2:
        return [part]
    rest = m.group("rest")
    if re.match(r"^(?:doing|taking|studying|learning|playing|training|practising|practicing)\s", rest, I):
        rest = "I'm " + rest  # "dropped French, doing Spanish now": the user carries over
    return [m.group("end"), rest]


_MOVED_TO = re.compile(r"\b(?:lives|moved|moving)\s+(?:in|to)\s+(?P<p>(?-i:[^\W\d_a-z])[\w'’.-]*"
                       r"(?:\s+(?-i:[^\W\d_a-z])[\w'’.-]*)*)", I)
# "they"/"them" are the user's own words in third person ("Mochi lives with them"), and
# "he/him" a pronoun said as a value: neither leans on someone unnamed
_DANGLING = re.compile(r"(?<![/\w])(?:he|she|there)\b(?!\s*/)", I)


def _standalone(statements: list[Statement]) -> list[Statement]:
    """A value is read alone later, so it must say what it is about: "there" is the place a
    statement just before it moved to ("works at a startup there" -> "... in Porto"); a value
    still leaning on "she", "he", "they" or "there" ("Cooks low-sugar when she comes") is
    not kept (invariant 277)."""
    out: list[Statement] = []
    place = None
    for st in statements:
        text = st.text or ""
        if place and st.act in ("assert", "change") and re.search(r"\s+there$", text):
            st.text = text = re.sub(r"\s+there$", f" in {place}", text)
        if st.act in ("assert", "change") and _DANGLING.search(text):
            head = re.match(r"^(?P<h>.+?),\s*(?:and\s+|so\s+)?(?:he|she)\b", text, I)
            if not head or _DANGLING.search(head.group("h")) or len(head.group("h").split()) < 2:
                continue
            # "Partner Yusuf is a pharmacist, he does nights at ...": the value ends where
            # its second clause begins
            st.text = text = head.group("h").strip()
        if m := _MOVED_TO.search(text):
            place = m.group("p")
        out.append(st)
    return out


def _understand(message: str, today: date, history: list[str] | None = None) -> Understanding:
    history = list(history or [])
    out = Understanding()
    if m := _OTHER_USER.search(message):
        out.other_user = m.group(0)
        return out
    # Invariant 162: words in quotation marks that speak in the first person are someone
    # else's ('She told me "I'm vegan now"'), never the user's statement.
    message = respell(_QUOTED.sub(" ", message))  # "swtiched" is "switched" (invariant 309)
    message = changes.start_at(changes.separating(changes.moved_up(changes.time_typos(message))))  # 357-359
    message = changes.moved_for_job(message)  # invariant 398
    # Invariant 303: "I don't drink coffee. Never have." says it was never true: the user
    # never drank it (a denial of what is on record, not a new habit)
    message = _NEVER_HAVE.sub(lambda m: f"I never {_NEVER_PAST[m.group('v').lower()]} {m.group('o')}.", message)
    lowercase = is_lowercase_message(message)
    if lowercase:
        # Invariant 399: "tomas has moved to york": in a message typed in lower case a word
        # before "has moved to" that is no pronoun, relation or common word is a name
        message = _LOWER_NAME_MOVED.sub(
            lambda m: m.group(0) if m.group("n") in _NOT_NAMES or m.group("n") in lx.RELATIONS else (
                # ("has" said as "'s": the texter's reading would split "Tomas has, moved")
                m.group("lead") + m.group("n").capitalize() + re.sub(r"^\s+has\b", "'s", m.group("mid"))
                + m.group("p").capitalize()),
            message)
    bare = _bare_place(message, lowercase)
    if bare:
        # "Leeds now", "Lisbon now 🇵🇹": a name alone, read as a home; the agent writes it only
        # as the replacement of a home on record (invariant 163).
        message = f"now in {bare}"
    person: tuple[str, str] | None = None  # the named relative the last sentence was about
    greeted = bool(re.match(r"^\W*(?:hi|hello|hey|hiya|howdy|good\s+(?:morning|afternoon|evening)|привет|"
                            r"hallo|hola|salut|bonjour|ciao|olá|ola|cześć)\b", message, I))
    moved_only = False  # "we've moved!!" said without where to
    mark = (0, 0, 0)
    last_raw = ""
    for raw in split_clauses(message):
        before_raw, last_raw = last_raw, raw  # the sentence said just before (invariant 418)
        # Was the clause just before this one set aside, and nothing else read from it?
        prev_ignored = (len(out.ignored), len(out.statements), len(out.questions)) == (
            mark[0] + 1, mark[1], mark[2])
        mark = (len(out.ignored), len(out.statements), len(out.questions))
        if lowercase and moved_only and (m := re.match(r"^(?P<p>[a-z][\w'-]+)\s+now\b", raw)) and \
                _bare_place(f"{m.group('p').capitalize()} now", False):
            # "we've moved!! bristol now": after a move said without a place, a word and "now" is
            # where to (invariant 166)
            raw = f"now in {m.group('p').capitalize()}" + raw[m.end():]
        moved_only = bool(re.fullmatch(r"\W*(?:(?:i|we)(?:'ve|\s+have)?\s+)?(?:just\s+|finally\s+)?(?:moved|"
                                       r"moved\s+house|moved\s+out)\W*", raw, I))
        # Invariant 347: "Over the moon, passed my test, first time!": the feeling said before
        # the news and how it went after it are no part of what is kept
        said_raw = ACTUALLY.sub(r"\g<s> ", FIRST_GO.sub("", FEELING_LEAD.sub("", raw)))
        c = _PREFIX.sub("", canonical(_PREFIX.sub("", said_raw).strip(), lowercase=lowercase)).strip()
        c, person = _resolve_pronoun(c, person)
        if person is None:
            # Invariant 402: "I'm a carer for my mum. She has dementia": the one relative the
            # sentence named, anywhere in it, is who "she"/"he" in the next one is
            kin = {k.lower() for k in re.findall(r"\bmy\s+(" + "|".join(sorted(_SHE | _HE, key=len, reverse=True))
                                                 + r")\b(?!['’])", c, I)}
            person = (kin.pop(), "") if len(kin) == 1 else None
        intro = _INTRO.match(raw.strip())
        if intro and (greeted or intro.group("cue")) and intro.group("n").lower() not in _NOT_PLACES \
                and not re.search(r"(?:ish|ian|ese|ic|ist|an|ed|ing|ful|ous|y)$", intro.group("n"), I) \
                and intro.group("n").lower() not in (lx.ROLE_WORDS | lx.RELATIONS | lx.THINGS | lx.PETS
                                                     | set(lx.KINDS) | set(lx.DIETS) | set(lx.MARITAL)):
            # "Hi! I'm Zoë", "I'm Ngozi btw, I work ...": a self-introduction names the user
            # (invariant 137); a state or a nationality is no name ("Hi, I'm British")
            rest = re.sub(r"^(?:,|and)\s*", "", (intro.group("rest") or "").strip())
            c = f"my name is {intro.group('n')}" + (f", {rest}" if rest else "")
        if _WORK_CUE.search(message):
            # "I don't work at Asda anymore, I'm at Morrisons now": at an employer
            c = re.sub(r"\b(?:i'?m|i\s+am)\s+(?:now\s+)?at\s+(?=(?-i:[A-Z]))", "I now work at ", c,
                       flags=I)
            if lowercase:  # "i changed jobs, i'm at the bbc now": the word after "at" is the name
                c = re.sub(r"\b(?:i'?m|i\s+am)\s+(?:now\s+)?at\s+(?:the\s+)?(?P<w>[a-z][\w&'-]*)(?=\s+now\b)",
                           lambda m: "I now work at " + m.group("w").capitalize(), c, flags=I)
        c = _ASIDE.sub("", c).strip()
        # "(moved to Malmö in the autumn, sorry for the swedish)": a gloss in brackets is what
        # was said (invariant 270)
        c = re.sub(r"^\((?P<in>[^()]+)\)\W*$", r"\g<in>", c).strip()
        if re.search(r"\b(?:any\s*more|no\s+longer|gave\s+up|given\s+up|quit|stopped|dropped)\b", c, I):
            # "not doing Berlin any more, ... maybe next year": a hope to take up again what
            # ended neither hedges nor dates the ending; a plan keeps its "maybe" (inv. 264)
            c = _HOPE_TAIL.sub("", c).strip() or c
        if it := _ENDED_IT.search(c):
            # "my car's been at the garage all week" then "they wrote it off": "it" is the
            # kind of thing said just before, in this message or the last one (invariant 264)
            before = " ".join(history[-1:] + [message[:message.find(raw)] if raw in message else ""])
            kinds = [w for w in re.findall(r"[\w-]+", before.lower()) if w in lx.KIND_NAMES]
            if kinds:
                c = c[:it.end() - 2] + "my " + kinds[-1] + c[it.end():]
                c = canonical(c, lowercase=lowercase)
        if _CANCEL.fullmatch(c):
            # "forget the kindle thing? no actually keep it. nvm": the user took back what they
            # asked or said before it in this message; nothing of it is done (invariant 260)
            out.ignored += [st.clause for st in out.statements] + [raw]
            out.statements = []
            continue
        if _SARCASM.search(raw):
            # "oh sure, I LOVE being on hold": irony says the opposite (invariant 164)
            out.ignored.append(raw)
            continue
        if _REPORTED.search(c) or _GERUND_REMARK.match(raw.strip()) or _JEST.search(c):
            # "I told my boss I'm moving to Leeds, but I'm not": what the user told someone else
            # or took back in the same breath is not a statement (invariant 141).
            out.ignored.append(raw)
            continue
        if _TELL.match(c):
            # "Did I tell you I moved to Leeds?", "Can you remember that I'm vegan?": a statement
            c = _TELL.sub("", c).rstrip("?").strip()
        if not c:
            continue
        if (levelled := levels.read(said_raw, today, message)) is not None:
            out.statements += levelled  # invariants 385-390: a level, status or grade changed
            continue
        named = _NAMED.match(c) or _NAMED_KIND.match(c)
        if named and out.statements and _name_it(out.statements[-1], named.group("n"),
                                                 named.groupdict().get("kind")):
            continue  # "got a puppy! her name is Luna": the name of what was just said
        if out.statements and refine_move(out.statements[-1], c):
            continue  # "Jan moved to Lisbon. He's renting a place in Campo de Ourique" (inv. 331)
        if found_in := moved_in(c, today):
            out.statements += found_in  # "Mum agreed to come and live with us" (invariant 337)
            continue
        forget = forget_request(forget_lead(c).rstrip("?"))
        if forget:
            out.statements += forget
            continue
        # "my doctor thinks I might have coeliac disease": a diagnosis suspected is the user's
        # own doubt, for review (invariant 250)
        c = re.sub(r"^(?:my\s+|the\s+)?(?:doctor|gp|allergist|dermatologist|consultant|specialist|nurse)\s+"
                   r"(?:thinks|says|reckons|suspects|said)\s+(?:that\s+)?(?=i\s+(?:might|may|could)\s+"
                   r"(?:be|have)\b)", "I think ", c, flags=I)
        if re.match(r"^(?:i|we)\s+(?:might|may|could)\s+(?:be\s+(?:[\w-]+\s+)?(?:allergic|intolerant)|"
                    r"have\s+[\w -]+?(?:disease|syndrome|deficiency|intolerance))\b[^?]*\?\s*$", c, I):
            c = "I think " + c  # "I might be allergic to penicillin?": doubt, not a question (inv. 250)
        if _THINK_LEAD.match(c) and not re.match(r"^(?:i\s+think|i\s+believe)\s+(?:i|we)\s+(?:should|could|"
                                                 r"might(?!\s+(?:be\s+(?:[\w-]+\s+)?(?:allergic|intolerant)|"
                                                 r"have)\b)|may(?!\s+(?:be\s+(?:[\w-]+\s+)?(?:allergic|intolerant)|"
                                                 r"have)\b)|will|'ll|need)\b",
                                                 c, I):
            # "I think my ESTA runs out in April, not May? would need to look": a hedged
            # statement, its question mark is doubt (invariant 202); the hedge is read below
            hedged_lead = True
            c = _THINK_LEAD.sub("", c).rstrip("?").strip()
        else:
            hedged_lead = False
        doubted = truths.not_after_all(raw, message) or truths.not_after_all(c, message)
        if doubted:  # invariant 356: "maybe I'm not allergic after all?" is doubt, not a question
            out.statements += doubted
            continue
        swap = swaps.swapped_value(c, message, hedged_lead)
        if swap is not None:
            # Invariant 350: "my ESTA might run out in April, not May": one date word on record
            # put right, read before "might" sets the clause aside as a hypothetical
            out.statements.append(swap)
            continue
        if not is_question(c) and (m := _SITUATION_Q.search(c)) and bare_question(m.group("q")):
            # "a box paged for disk full, what's my routine": a situation, then a question
            # about it with no subject of its own: one question (invariant 223)
            out.questions.append(c)
            continue
        if is_question(c):
            if prev_ignored and bare_question(c):
                # "motion sensors — how many?", "My flight got cancelled, what do I usually
                # do?": the question's subject is the clause set aside before it (inv. 223)
                c = out.ignored.pop().rstrip(" .!,;:") + ": " + c
            out.questions.append(c)
            continue
        allergy = re.search(r"\b(?:allergic|intolerant)\b|^(?:i\s+)?(?:might|may|could)\s+have\s+[\w -]+?"
                            r"(?:disease|syndrome|deficiency|intolerance)\b", c, I)
        if (_CONDITIONAL.search(c) or HYPO_RE.search(c)) and not allergy:
            # A condition, a wish or a plan only considered is not a statement; what was said
            # before it in the sentence still is ("Got a new job at Acme, might move to Leeds
            # later"). A wrong write is worse than a miss (invariants 141, 155).
            head = scope_hypothetical(c)
            if head is None:
                out.ignored.append(raw)
                continue
            c = head
        hedged = hedged_lead or bool(HEDGE_RE.search(c)) or bool(re.match(r"^\W*(?:i'?m\s+|im\s+)?(?:pretty|fairly|quite|almost)\s+sure\b|"
                                                       r"^\W*(?:probably|possibly|maybe|perhaps)\b", raw, I))
        # "I live in Grenoble, I never lived in Lyon": each "I ..." after a comma is a clause;
        # what someone else believes about the user is not a fact ("my mum thinks I'm vegan").
        whole = truths.not_x_but_y(c) or truths.theirs_not_mine(c, message) or truths.wasnt_name(c) \
            or told_and_started(c, today)  # invariant 416: "told me to take X, so I've started"
        if whole:  # invariants 354, 355: one correction, read before its clauses split
            out.statements += whole
            continue
        parts = [p for p in _PARTS.split(c) if p and p.strip() and not _THEY_THINK.search(p)]
        if parts and _THIRD_SUBJECT.match(parts[0].strip()):
            # "My brother sold his Tesla and bought an e-bike": the carried subject is the
            # brother, not the user (invariant 141).
            parts = parts[:1] + [p for p in parts[1:] if not _CARRY_START.match(p.strip(" ,"))]
        # "cancelled the gym card, so my classes are at the pool now", "dropped French, doing
        # Spanish now": what ended is said up to the comma; the rest is a clause of its own,
        # read for its own value and its own date (invariant 275)
        parts = [q for p in parts for q in _after_ending(p)]
        kept: list[Statement] = []
        spare: list[Dates] = []  # dates said in a part that holds no statement
        hint = _Hint()  # "I changed my car, ...": the kind of thing the next part replaces
        said: list[str] = []  # the parts read so far
        for part in parts:
            part = canonical(part.strip(" ,"), lowercase=lowercase)
            part = re.sub(r"\b(i|we|you|they)'ve\b", r"\1 have", part.replace("’", "'"), flags=I)
            part, back_from = switch_back(part, kept, said)
            said.append(part)
            if hint.read(part):
                continue
            if kept and kept[-1].rule.startswith("act:") and re.fullmatch(r"(?:i\s+)?(?:soon\s+|quickly\s+)?(?:gave\s+(?:it\s+)?up|quit(?:\s+it)?|stopped|"
                                     r"dropped\s+(?:it|out)|hated\s+it|didn'?t\s+(?:like|enjoy|stick\s+with)\s+it)"
                                     r"(?:\s+(?:after|within)\s+(?:a|an|one|two|three|\d+)\s+\w+)?[.!]*", part.strip(), I):
                # "started the guitar but gave up": what was just taken up did not last (invariant 166)
                kept.pop()
                continue
            # invariant 353: a denial says the value true all along when the user gives it
            denied = truths.named_before(denial(part, message, history), part, message)
            found = truths.grew_up(part) or truths.no_word_of(part, message) or \
                truths.never_allergic(part, message) or truths.amend(denied, part, message) \
                or read_clause(part, message, today, history)
            if not found and hint.kind:
                found = hint.held(part)
            if not found and hint.previous:
                # "the roborock died, got a dreame instead": after a thing that ended, what was
                # got is its replacement even when its name is not known (invariant 166)
                got = re.fullmatch(r"(?:i|we)\s+(?:have\s+|'ve\s+)?(?:just\s+)?(?:got|bought|ordered|"
                                   r"replaced\s+(?:it|them|him|her)\s+with)\s+(?:a|an)\s+"
                                   r"(?:new\s+)?(?P<x>[\w'-]+(?:\s+[\w'-]+){0,2}?)(?:\s+instead|\s+now)*[.!]*",
                                   part.strip(), I)
                if got and got.group("x").lower() not in lx.NOT_THINGS:
                    thing = re.sub(r"\s+one$", " " + hint.previous.split()[-1], got.group("x"), flags=I)
                    found = [Statement(act="change", text=f"Owns {article(thing)}{thing}", fact_type="world",
                                       previous=hint.previous, clause=part, rule="own:after-ended")]
            if not found:
                found = _now_at(part, out.statements + kept, today)
            if found and _TEMPORARY.search(part):
                # "Switched to decaf for the evening", "Quit Twitter for a week": one spell of
                # it, not how the user is (invariant 162); trips keep their length (157).
                found = [st for st in found if st.rule.startswith(("trip:", "plan:", "deny:"))]
            if found and back_from is not None:
                # "gave up on VS Code and went back to Vim": one change naming what stopped
                stopped = [k for k in kept if re.match(r"^(?:has\s+given\s+up|no\s+longer|is\s+no\s+longer)\b",
                                                       k.text or "", I)]
                if len(stopped) == 1:
                    back_from = back_from or re.sub(r"^(?:on|using|with|drinking|eating)\s+", "",
                                                    stopped[0].previous or "", flags=I)
                    kept.remove(stopped[0])
                for st in found:  # "..., back to Neovim": a change (invariant 155)
                    st.act, st.previous = "change", st.previous or back_from or None
                    st.rule += "+back"
            for st in found or []:
                _trim_value(st)
            for st in found or []:
                # "Uses Obsidian instead of Notion": Notion is the old value, not part of this one
                inst = re.match(r"^(?P<v>.+?)\s+(?:instead\s+of|rather\s+than|in\s+place\s+of)\s+"
                                r"(?:(?:my|the|our|a|an)\s+)?(?P<o>[^,;.!?]+)$", st.text or "", I)
                if inst and st.act in ("assert", "change") and not st.previous:
                    st.text, st.previous, st.act = inst.group("v"), tidy(inst.group("o")), "change"
                    st.rule += "+instead"
            if found and (hint.kind or hint.previous):
                found = [hint.apply(st) for st in found]
            for st in found or []:
                if hedged:
                    st.confidence = min(st.confidence, 0.55)
            if not found:
                d = find_dates(part, today)
                if d.valid_from:
                    spare.append(d)
            kept += found or []
        if hint.previous in lx.KIND_NAMES and not any(k.rule.endswith("+kind") for k in kept):
            # "Sold the car." alone: the one car on record ended, whatever comes next
            # (invariants 155, 163); with no car on record the agent writes nothing (141)
            kept.append(Statement(act="change", text=f"No longer owns {article(hint.previous)}{hint.previous}",
                                  fact_type="world", previous=hint.previous, kind=hint.previous,
                                  clause=c, rule="own:gone+kind"))
        if spare:
            # "I'm a charge nurse now, got promoted last week": the date in the other part of
            # the sentence dates the statement (invariant 139).
            for st in kept:
                if st.valid_from is None and st.act in ("assert", "change") and st.text:
                    st.valid_from = spare[0].valid_from
        if re.search(r",\s*so\s+(?:(?:i'?m|i\s+am|we'?re)\s+)?(?:now\s+)?(?:vegan|vegetarian|pescatarian)\b", c, I):
            kept = _sums_up(kept)
        kept = _glossed(kept)
        kept = changes.left_for(kept)  # invariant 357
        for piece in [c] + (parts if len(parts) > 1 and not kept else []):
            # Invariants 375, 376, 395: a change said as the part of a fact that changed ("moved
            # the platform from GKE to EKS", "up to fifteen Hue bulbs now"), in the clause or one
            # of its parts; the agent writes it only into the one fact that says the old part
            sub = substitution.substitution(piece.strip(" ,"), message, today) if not kept else None
            if sub is not None:
                if hedged:
                    sub.confidence = min(sub.confidence, 0.55)
                kept = [sub]
        if not kept:
            prev = out.statements[-1] if out.statements else None
            if spare and prev is not None and prev.valid_from is None and prev.act in ("assert", "change") \
                    and re.match(r"^(?:[a-z]+ed|bought|got|done|seen|sold)\s+(?:on|in|last|yesterday|this)\b", raw.strip(), I):
                # "I'm allergic to sesame. Diagnosed on 12 November": a subject-less participle
                # dates what was just said (invariant 139)
                prev.valid_from = spare[0].valid_from
            elif spare and prev is not None and prev.valid_from is None and prev.act == "change" and \
                    _CHANGE_HAPPENED.match(raw.strip()):
                # Invariant 394: "… moved the broadband to Sky. The switchover happened
                # yesterday": the sentence dating the change is part of it
                prev.valid_from = spare[0].valid_from
            elif spare and prev is not None and prev.rule.endswith(":pregnant") and "due" not in (prev.text or "") \
                    and DUE_NEXT.match(raw) and spare[0].valid_from and spare[0].valid_from > today:
                # Invariant 344: "I'm pregnant! Due on 3 June": the due date said next is part
                # of it, as when said in the same clause (invariant 156)
                prev.text = f"{prev.text}, due in {spare[0].valid_from:%B %Y}"
            out.ignored.append(raw)
            continue
        out.statements += not_after_someone(kept, before_raw)  # invariant 418
    out.statements = seeing_someone(message, named_events(out.statements, message))  # inv. 333, 334
    out.statements = forget_pronoun(out.statements, message)  # invariant 339
    out.statements = named_after(out.statements, message, history)  # invariant 333
    out.statements = last_status(role_taken_over(out.statements, message))  # invariants 330, 335
    out.statements = _standalone(out.statements)
    out.statements = _merge(out.statements)
    out.statements = carried_with_allergy(out.statements)  # invariant 348
    out.statements = taken_up_again(out.statements)  # invariant 342
    out.statements = with_replacement(out.statements, message)  # invariant 379
    out.statements = changes.dated_move(changes.retrained(out.statements), message)  # invariants 357, 358
    out.statements = kin_news.more(out.statements, message, today)  # invariants 404, 408
    if bare:
        for st in out.statements:
            st.rule += "+bare"
    if _CORRECTION_LEAD.match(message.strip()):
        # "You've got it wrong, I live in York": the stored value was never true (invariant 140)
        for st in out.statements:
            if st.act in ("assert", "change") and st.slot and not CHANGE_RE.search(st.clause):
                st.act, st.harsh = "change", True
                st.rule += "+correction"
    return out


# "… and it's wrecking my sleep", "… because my family uses iMessage": a second clause with its
# own subject is a remark, not part of the value (invariant 164)
_TRAIL_CLAUSE = re.compile(r"(?:,\s*|\s+)(?:(?:and|but|because|cos|coz|so|which|though|although)\s+(?:it|it's|its|"
                           r"that|that's|this|i|i'm|im|we|we're|he|she|they|they're|honestly|tbh)|"
                           # "... since they're rebuilding the tram line": a reason (invariant 164)
                           r"(?:since|as|'cause|cause)\s+(?:it|it's|they|they're|the|he|she|there|i|i'm|we|"
                           r"we're|my|our|his|her|their)|"
                           # "... because of the climate stuff": a reason (invariant 262)
                           r"(?:because|cos|coz)\s+of)\b.*$", re.IGNORECASE)
_HOW_LONG = re.compile(r"\s+for\s+(?:about\s+|around\s+|nearly\s+|almost\s+|over\s+)?(?:a|an|one|two|three|four|five|"
                       r"six|seven|eight|nine|ten|a\s+few|a\s+couple\s+of|\d+)\s+(?:days?|weeks?|months?|years?)"
                       r"(?:\s+now)?$", re.IGNORECASE)


_MONTH = r"(?:jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]*\.?"
_DAY_SAID = re.compile(r"\s+(?:on|from|since)\s+(?:the\s+)?(?:\d{1,2}(?:st|nd|rd|th)?(?:\s+of)?\s+" + _MONTH +
                       r"|" + _MONTH + r"\s+\d{1,2}(?:st|nd|rd|th)?)(?:,?\s+\d{4})?$", re.IGNORECASE)


_CHANGE_HAPPENED = re.compile(r"^(?:the\s+|that\s+|it\s+|this\s+)?(?:switch(?:-?over)?|move|change(?:-?over)?|handover|"
                              r"swap|transfer|migration|cut-?over|upgrade|port(?:ing)?)?\s*(?:all\s+)?(?:happened|"
                              r"went\s+through|took\s+place|was\s+done|got\s+done|completed|went\s+live|"
                              r"kicked\s+in)\b", re.IGNORECASE)


_LOWER_NAME_MOVED = re.compile(r"(?P<lead>^|[.!?]\s+|[,;]\s+(?:and\s+)?)(?P<n>[a-z][a-z-]{1,20})(?P<mid>(?:['’]s|\s+has|"
                               r"\s+had|\s+just|\s+finally)*\s+(?:moved|relocated|moving|relocating)\s+"
                               r"(?:back\s+)?to\s+)(?P<p>(?!(?:the|a|an|my|our|his|her|their|work|school|uni|"
                               r"college|town|london\s+road)\b)[a-z][\w-]+)")
_NOT_NAMES = STOP_WORDS | frozenset("""i we he she they you it who everyone everybody someone somebody
    nobody one finally just also then so and but we've i've they've lol omg ok okay yes no well
    oh hey hi guess anyway honestly basically""".split())


def _trim_value(st: Statement) -> None:
    """Cut a trailing remark or length of time from a value ("Is doing the night shift at the
    warehouse for about six months now and it's wrecking their sleep" -> "Is doing the night
    shift at the warehouse"). Trips keep their length (invariant 157). Invariant 164."""
    text = st.text or ""
    cut = _TRAIL_CLAUSE.sub("", text).strip(" ,")
    if len(cut.split()) >= 2:
        text = cut
    if st.rule.startswith("act:"):
        # "Swims instead", "Cycles now", "Runs these days": the change is in the statement's
        # act, not its value (invariant 274)
        text = re.sub(r"(?:\s+(?:now|instead|these\s+days|nowadays|as\s+well|too))+$", "", text,
                      flags=re.IGNORECASE) if len(text.split()) > 1 else text
        if st.valid_from:  # "... weekly on the 20th of November": the date is when (inv. 266)
            text = _DAY_SAID.sub("", text).strip() or text
        cut = _HOW_LONG.sub("", text).strip(" ,")
        if len(cut.split()) >= 2:
            text = cut
    st.text = text or st.text


_BARE = re.compile(r"^(?P<p>(?-i:[^\W\d_a-z])[\w'-]+(?:\s+(?-i:[^\W\d_a-z])[\w'-]+)?)\s+now\s*[!.]*"
                   r"(?:\s*(?:lol|haha|x+|yay|finally))?\s*[!.]*$", re.IGNORECASE)
# Words a sentence may open with before "now" that say how the user is, not where ("Retired
# now", "Home now", "Better now").
_NOT_PLACES = frozenset("""home here there back done better fine good ok okay free busy sober
single married engaged divorced retired unemployed pregnant vegan vegetarian pescatarian ill
sick well tired awake asleep online offline ready gone off out in up over alone bald blonde
happy sad fixed sorted settled employed hired redundant freelance remote finished working
sorted safe late early open closed full broke rich poor healthy clean blocked stuck lost
everyone everything nothing someone something all both and but so yes no not only really
actually currently finally literally totally mostly usually exactly definitely officially
early""".split())


def _bare_place(message: str, lowercase: bool) -> str | None:
    """The name in a message that is only a capitalised name and "now" ("Leeds now", "Lisbon
    now 🇵🇹"), or None. Not in an all-lowercase message, where a name is not told from a word."""
    m = _BARE.match(" ".join(strip_symbols(message).split()))
    if not m or lowercase:
        return None
    words = m.group("p").split()
    if any(w.lower() in _NOT_PLACES | lx.ROLE_WORDS | lx.RELATIONS | lx.THINGS | lx.PETS
           or w.lower() in lx.KINDS or w.lower() in lx.SERVICES or w.lower() in lx.EMPLOYERS
           or w.lower() in lx.MARITAL or w.lower() in lx.DIETS
           or re.search(r"(?:ed|ing|ful|less|ive|ous|able|ible)$", w.lower())
           for w in words):
        return None
    return m.group("p")


_NOW_AT = re.compile(r"^(?:(?:i'?m|i\s+am|we'?re|we\s+are)\s+)?now\s+at\s+(?P<v>(?-i:[^\W\d_a-z])[\w'’&-]*"
                     r"(?:\s+(?-i:[^\W\d_a-z])[\w'’&-]*){0,2})\s*[.!]*$", re.IGNORECASE)


def _now_at(part: str, said: list[Statement], today: date) -> list[Statement] | None:
    """ "Left Acme last month. Now at Globex.": where the user is now, after leaving the place
    just named, replaces it; the agent reads from the user's facts whether it was a home or an
    employer (invariant 163)."""
    m = _NOW_AT.match(part.strip())
    left = [st for st in said if (st.text or "").startswith("Moved away from ") and st.previous]
    if not m or len(left) != 1:
        return None
    return [Statement(act="change", text=f"Lives in {m.group('v')}", fact_type="identity", slot="home",
                      previous=left[0].previous, clause=part, rule="location:now-at")]


# "Living in London is expensive", "Working at Acme is exhausting": a remark about a way of
# life, said by anyone, not a statement that the user lives or works there (invariant 162).
# "I'm left-handed, if that matters": a courtesy, never a condition (invariant 164)
_ASIDE = re.compile(r",?\s*\b(?:if\s+(?:that|it)(?:'s|\s+is)?\s+(?:matters|helps|relevant|useful|important|"
                    r"makes\s+a\s+difference|counts)|if\s+you\s+(?:must|need\s+to|want\s+to|have\s+to)\s+know|"
                    r"in\s+case\s+(?:you(?:'re|\s+are)\s+wondering|(?:it|that)\s+(?:matters|helps)))\b[.!]*",
                    re.IGNORECASE)
# An ironic opener before a liking: "oh sure, I LOVE being on hold", "yeah right, I love taxes"
# "they wrote it off", "someone stole it": what ended is named by "it" (invariant 264)
_ENDED_IT = re.compile(r"\b(?:wrote|written|stole|nicked|pinched|totalled|totaled)\s+it\b", I)
# "..., maybe next year": a hope for later is no part of the statement and no date of it
_HOPE_TAIL = re.compile(r",?\s*\b(?:maybe|perhaps|hopefully)\s+(?:next\s+(?:year|month|time|season|summer|spring|"
                        r"autumn|winter)|later|one\s+day|some\s+day|someday|again\s+(?:next\s+year|later))\W*$", I)
_NEVER_PAST = {"drink": "drank", "eat": "ate", "smoke": "smoked", "own": "owned", "have": "had",
               "like": "liked", "use": "used", "play": "played", "drive": "drove", "support": "supported",
               "work": "worked", "live": "lived", "take": "taken", "keep": "kept", "ride": "rode"}
_NEVER_HAVE = re.compile(r"\b(?:i|we)\s+(?:don'?t|do\s+not)\s+(?P<v>" + "|".join(_NEVER_PAST) +
                         r")\s+(?P<o>[^,.;!?]+?)\s*[,.;!]\s*(?:and\s+)?(?:(?:i|we)\s+)?(?:have\s+|'ve\s+)?"
                         r"never\s+(?:have|had|did|done)?\s*(?:in\s+my\s+life\s*)?[.!,]*(?=\s|$)", I)
# A clause that only takes back what came before it in the message (invariant 260)
_CANCEL = re.compile(r"(?:(?:no|nah|wait|oh|hmm|ok|okay|sorry|actually|on\s+second\s+thoughts?)\W+)*"
                     r"(?:keep\s+(?:it|that|them|this)(?:\s+(?:then|after\s+all|actually))?|never\s*mind|nvm|"
                     r"nevermind|scratch\s+that|ignore\s+(?:that|this|me|my\s+last\s+(?:message|bit))|"
                     r"cancel\s+that|don'?t\s+(?:forget|delete|remove|change)\s+(?:it|that|anything)(?:\s+then)?|"
                     r"forget\s+(?:i\s+said\s+(?:that|anything)|what\s+i\s+(?:just\s+)?said)|"
                     r"(?:i\s+)?take\s+(?:it|that)\s+back|leave\s+it(?:\s+as\s+it\s+is)?)\W*"
                     # "leave it, it's fine", "keep it, that's still right": the reason it stays
                     # takes nothing more back (invariant 295)
                     r"(?:(?:it|that)(?:'?s|\s+is)\s+(?:still\s+)?(?:fine|ok(?:ay)?|right|correct|true|good|"
                     r"accurate)(?:\s+(?:as\s+it\s+is|actually|after\s+all))?\W*)?", I)
_SARCASM = re.compile(r"^\W*(?:oh\s+(?:sure|great|joy|yeah|wonderful|brilliant|fantastic|lovely|perfect)|"
                      r"yeah\s+right|sure\s+sure|because\s+i\s+totally)\b[,!.…]*\s+(?:(?:i|we)\s+"
                      r"(?:\w+\s+)?(?:love|like|enjoy|adore)\b|(?:just\s+)?what\s+i\s+needed\b)", re.IGNORECASE)

_GERUND_REMARK = re.compile(r"^(?:living|working|owning|having|being|driving|renting|studying)\s+[^,.;!?]+?\s+"
                            r"(?:is|was|isn't|wasn't|can\s+be|gets|seems|feels|sounds|must\s+be)\b",
                            re.IGNORECASE)

_TEMPORARY = re.compile(r"\bfor\s+(?:(?:the|this)\s+(?:evening|night|day|afternoon|morning|weekend|week|"
                        r"month)|today|tonight|(?:a|one|two|three|a\s+few|a\s+couple\s+of|\d+)\s+"
                        r"(?:days?|weeks?|nights?|hours?|evenings?))\b", re.IGNORECASE)

_INTRO = re.compile(r"^(?:(?:hi|hello|hey|hiya)\W+)?(?:i'?m|i\s+am|this\s+is)\s+(?P<n>(?-i:[^\W\d_a-z])[\w'’-]+)"
                    r"(?P<cue>\s+(?:btw|by\s+the\s+way|here))?(?:(?P<rest>(?:\s*,|\s+and)\s+(?:i|i'm|i've|we)\b.*)|\W*)$",
                    re.IGNORECASE)
# "I think (that) ...", "I believe ...": the user's hedge before a statement (invariant 202)
_THINK_LEAD = re.compile(r"^(?:i\s+(?:think|believe|reckon|suspect)|i'?m\s+(?:pretty|fairly|quite)\s+sure)"
                         r"\s+(?:that\s+)?(?=(?:i|i'm|we|my|our|the)\b)", re.IGNORECASE)

_QUOTED = re.compile(r"[\"“”„«»][^\"“”„«»]*\b(?:i|i'm|i’m|im|my|me|we|we're|our)\b[^\"“”„«»]*[\"“”„«»]",
                     re.IGNORECASE)

_NAMED = re.compile(r"^(?:and\s+)?(?:her|his|its|their|the\s+\w+'s)\s+name(?:'s|\s+is)\s+"
                    r"(?P<n>(?-i:[^\W\d_a-z])[\w'-]*)\W*$", re.IGNORECASE)


# "we got a puppy!! a cockapoo called Bramble": what the pet just said is, and its name
# (invariant 165)
_NAMED_KIND = re.compile(r"^(?:and\s+)?(?:a|an)\s+(?P<kind>[a-z][\w-]*(?:\s+[a-z][\w-]*)?)\s+(?:called|named)\s+"
                         r"(?P<n>(?-i:[^\W\d_a-z])[\w'-]*)\W*$", re.IGNORECASE)


def _name_it(st: Statement, name: str, kind: str | None = None) -> bool:
    """Name a pet or person the previous statement introduced ("Has a puppy" -> "Has a puppy
    called Luna"); False when it introduced no one."""
    text = st.text or ""
    m = re.match(r"^(Has|Owns)\s+(?:a|an)\s+([\w -]+)$", text)
    if not m or " called " in text:
        return False
    head = m.group(2).split()[-1].lower()
    if head not in lx.PETS | lx.RELATIONS or (kind and head not in lx.PETS):
        return False
    if kind and kind.lower() not in lx.PETS and (" " in kind or re.search(r"(?:ful|y|ish|ous)$", kind, I)):
        return False  # "a real handful called Max": not what the pet is
    what = kind.lower() if kind else m.group(2)
    st.text = f"Has {article(what)}{what} called {name}"
    st.rule += "+named"
    return True


def _sums_up(statements: list[Statement]) -> list[Statement]:
    """ "started eating fish again, so pescatarian now": the diet a sentence sums up to is its one
    change (invariant 166)."""
    diets = [s for s in statements if s.slot == "diet" and s.act in ("assert", "change")]
    named = [s for s in diets if re.match(r"^Is\s+(?:" + "|".join(lx.MEAT_DIETS) + r")$", s.text or "")]
    if len(diets) == 2 and len(named) == 1:
        # "started eating fish again, so pescatarian now": the diet it adds up to is the one
        # change (invariant 166)
        other = next(s for s in diets if s is not named[0])
        named[0].act = "change"
        named[0].valid_from = named[0].valid_from or other.valid_from
        named[0].previous = named[0].previous or other.previous
        named[0].rule += "+sums-up"
        statements = [s for s in statements if s is not other]
    return statements


def _glossed(statements: list[Statement]) -> list[Statement]:
    """ "I'm pescatarian, I eat fish but no meat": what the user eats, said beside the diet it
    names, explains that diet; it is no second fact of the same slot (invariant 289)."""
    diets = [s for s in statements if s.slot == "diet" and s.act == "assert"]
    named = [s for s in diets if re.match(r"^Is\s+(?:" + "|".join(lx.MEAT_DIETS) + r")$", s.text or "")]
    if len(diets) == 2 and len(named) == 1 and not any(s.act == "change" for s in statements):
        other = next(s for s in diets if s is not named[0])
        allowed = _DIET_ALLOWS.get((named[0].text or "").split()[-1].lower(), frozenset())
        # only what the diet allows: "vegetarian but I eat fish" is an exception, kept (inv. 166)
        if set(re.findall(r"[a-z]+", (other.text or "").lower())) & allowed:
            return [s for s in statements if s is not other]
    return statements


_DIET_ALLOWS = {"pescatarian": frozenset("fish seafood eggs cheese dairy".split()),
                "vegetarian": frozenset("eggs egg cheese dairy milk".split()),
                "vegan": frozenset("tofu lentils beans plants vegetables".split())}


_ROLE_SAME = {"noun:manager": r"manager|boss|line\s+manager|(?:team\s+)?lead"}


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
    # "Laura isn't my manager any more, I report to Chidi": who no longer holds a role, and who
    # holds it now, is one change of that role naming the old one (invariant 293)
    stepped = [s for s in values if s.rule == "third:not-any-more"]
    holders = [s for s in values if (s.slot or "").startswith("noun:") and s.act == "change"]
    if len(stepped) == 1 and len(holders) == 1 and len(values) == 2 and re.search(
            r"\b(?:" + _ROLE_SAME.get(holders[0].slot or "", re.escape((holders[0].slot or "").removeprefix("noun:")))
            + r")\b", stepped[0].text or "", I):
        holders[0].previous = holders[0].previous or stepped[0].previous
        holders[0].valid_from = holders[0].valid_from or stepped[0].valid_from
        holders[0].rule += "+replaces-not-any-more"
        return [s for s in statements if s is not stepped[0]]
    # a plan said beside them is no part of what ended and what replaced it (invariant 200)
    values = [s for s in values if not s.rule.startswith(("location:plan", "plan:", "trip:"))]
    gone = [s for s in values if s.text and s.text.startswith(("Is no longer", "No longer",
                                                               "Moved away from", "Has given up"))]
    if len(gone) == 1 and len(values) == 2:
        # "gave up tea, drinking coffee now" is one switch; "gave up smoking, I run every day now"
        # is two facts (invariant 163); "sold the Golf, I cycle everywhere now" and "left Siemens,
        # moving to Graz in February" too: a plan or a new habit replaces nothing (invariant 200)
        other = next(s for s in values if s is not gone[0])
        ended = gone[0].text or ""
        shapes = (r"Prefers|Uses|Drinks|Eats|Owns|Drives|Rides|Is|Works" if ended.startswith("Has given up")
                  else r"Owns|Has|Drives|Rides|Uses|[\w-]+\s+is" if re.match(r"^No\s+longer\s+(?:owns|has)\b", ended)
                  else r"Lives\s+in|Works|Is" if ended.startswith("Moved away from") else r"\w+")
        instead = ended.startswith("Has given up") and bool(re.search(r"\binstead\b", other.clause, I))
        # "sold the Moonlander, I type on a Keychron Q1 now": a thing owned that went, and a named
        # thing in use now, is one switch; "I cycle everywhere now" names none (invariant 292)
        # "stopped taking warfarin, the cardiologist switched me to apixaban" (invariant 293)
        instead = instead or (ended.startswith("Has given up taking") and other.rule == "own:prescribed")
        instead = instead or (ended.startswith("No longer") and bool(re.search(
            r"\b(?:a|an|the|my|their)\s+(?:[\w-]+\s+)?(?-i:[A-Z])[\w-]*", other.text or ""))
            and bool(re.search(r"\b(?:now|these\s+days|nowadays|instead)\b", other.clause, I)))
        # "cancelled the credit card, so my travel insurance is an Allianz policy now": what
        # one's own noun is now replaces what ended with it (invariant 275)
        instead = instead or (ended.startswith("Has given up") and other.rule == "my-noun"
                              and other.act == "change")
        if (not re.match(r"^(?:" + shapes + r")\b", other.text or "") and not instead) or other.rule.startswith(
                ("location:plan", "plan:", "trip:")):
            # "stopped running, I swim three times a week instead": "instead" says the new
            # habit replaces the one given up, whatever its shape (invariant 255)
            return statements
    if len(gone) == 1 and len(values) == 2:
        other = next(s for s in values if s is not gone[0])
        other.act = "change"
        other.previous = gone[0].previous
        other.slot = other.slot or gone[0].slot
        other.rule += "+replaces-no-longer"
        return [s for s in statements if s is not gone[0]]
    return statements
