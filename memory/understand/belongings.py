"""Things the user owns or pays for that ended or were replaced, said in the shapes people use
(invariants 320-323): "the Dyson died, so I got a Shark instead", "took the Eufy camera down
and put an Aqara G3 in", "binned them and gone for Hue sensors instead", "my Brompton was
stolen outside the station yesterday", "sold the Ranger to a bloke in Ballarat", "gave my PS5
to my nephew", "sacked off the gym membership", "dropped my Kindle in the bath and it's dead".

`belongings(message)` (pure, deterministic) rewrites such a message into the shapes the
clause readers already know: "I replaced the X with Y" (own:replaced), "I switched from X to
Y" (own:switched, for a service the user uses) or "I no longer own the X" (own:gone). The
agent then replaces only a fact on record that names X; with none, nothing is ended
(invariant 141). A thing that merely broke ("my phone died on the train") is no ending: it
takes a replacement said beside it or a word of finality ("for good", "in the bin", "written
off", "stolen").
"""

from __future__ import annotations

import re
from datetime import date
from difflib import get_close_matches

from . import lexicon as lx
from .canon import respell
from .dates import find_dates
from .phrases import I, article

_W = r"[\w'’+&-]+(?:\.[\w'’+&-]+)*"
# the thing: "the Dyson", "my XM5s", "our old Roborock S8", "the Eufy camera in the lounge"
_OWN = r"(?P<x>(?:the|my|our)\s+(?:old\s+)?" + _W + r"(?:\s+(?!(?:has|have|had|is|was|were|got|finally|just|died|broke)\b)" + _W + r"){0,5}?)"
# a named service or brand said bare: "ditched Airalo", "dumped AGL"
_NAMED = r"(?P<n>(?-i:[A-Z])[\w'’+.-]*(?:\s+(?-i:[A-Z0-9])[\w'’+.-]*){0,2})"
# what comes after a thing and is no part of it: where, to whom, when
_PLACE_TAIL = re.compile(r"\s+(?:in|into|on|onto|at|outside|inside|near|from|to|off|for|with|under|by|behind|"
                         r"down|away|out|up|over|after|during|while|last|this|yesterday|today)\b.*$", I)
_MONTH = r"(?:january|february|march|april|may|june|july|august|september|october|november|december)"
_WHEN = re.compile(r"\b(?:yesterday|today|this\s+morning|last\s+(?:night|week|weekend|month|year|"
                   r"monday|tuesday|wednesday|thursday|friday|saturday|sunday)|on\s+(?:monday|tuesday|"
                   r"wednesday|thursday|friday|saturday|sunday)|(?:a|two|three|few)\s+(?:days|weeks)\s+ago|"
                   r"(?:at|over)\s+the\s+weekend|in\s+" + _MONTH + r"|on\s+(?:the\s+)?\d{1,2}(?:st|nd|rd|th)?\s+"
                   r"(?:of\s+)?" + _MONTH + r"|on\s+" + _MONTH + r"\s+\d{1,2}(?:st|nd|rd|th)?)\b", I)

# Invariant 320: a thing that ended, said of the thing ("the X died / was stolen")
_GONE_SUBJ = re.compile(
    r"^(?:(?:so|and|but|ugh|well|sadly|anyway)\s+)?" + _OWN + r"(?:['’]s)?\s+(?:has\s+|have\s+|had\s+|finally\s+|just\s+|"
    r"completely\s+|properly\s+|officially\s+)*(?P<how>died|is\s+dead|are\s+dead|broke(?:\s+down)?|packed\s+(?:in|up)|"
    r"gave\s+up\s+the\s+ghost|(?:got|was|were|been|has\s+been|have\s+been)\s+(?:stolen|nicked|pinched|"
    r"written\s+off|totalled|totaled|binned))\b(?P<tail>[^,;]*)$", I)
# ... said of what the user did with it ("sold the Ranger", "binned them", "gave my PS5 to ...")
_GONE_VERB = re.compile(
    r"^(?:(?:so|and|but|well|anyway)\s+)?(?:(?:i|we)(?:\s+|(?=['’])))?(?:['’]ve\s+|have\s+|had\s+|just\s+|finally\s+|also\s+)*"
    r"(?P<v>sold|closed|cancell?ed|binned|chucked(?:\s+out|\s+away)?|ditched|dumped|scrapped|sacked\s+off|got\s+rid\s+of|"
    r"gave\s+away|given\s+away|donated|sent\s+back|recycled|gave|given|took|taken)\s+"
    r"(?:" + _OWN + r"|(?P<p>it|them)|" + _NAMED + r")(?P<tail>(?:\s+(?:down|away|back|off|out)(?:\s+(?:the|my|our)\s+[^,;]*)?)?"
    r"(?:\s+(?:to|on|at|in|for|outside|via)\s+[^,;]*)?(?:\s+" + _WHEN.pattern + r")?)\W*$", I)
# ... or of "it" just after the thing was named ("dropped my Kindle in the bath and it's dead")
_GONE_IT = re.compile(r"^(?:(?:so|and|but|now)\s+)?(?:it'?s|it\s+is|it\s+has|it|they'?re|they\s+are)\s+"
                      r"(?:now\s+|completely\s+|totally\s+|properly\s+|officially\s+|been\s+)*"
                      r"(?P<how>dead|died|toast|knackered|gone\s+in\s+the\s+bin|in\s+the\s+bin|written\s+off|"
                      r"been\s+written\s+off|beyond\s+repair)\b[^,;]*$", I)
# what makes "died" an ending: the thing is thrown out or past fixing; "finally died", "it's
# dead" may be a flat battery (invariant 320)
_FINAL = re.compile(r"\b(?:for\s+good|beyond\s+repair|in\s+the\s+bin|binned|written\s+off|"
                    r"stolen|nicked|pinched|totall?ed|can'?t\s+be\s+(?:fixed|repaired)|"
                    r"not\s+worth\s+(?:fixing|repairing))\b", I)
_NOT_THING = frozenset("""it this that one ones them they kids children baby family friends day
    week night weekend time plan plans trip flight meeting appointment""".split())
# Invariant 320: papers, money and the body are lost or hurt, never a possession that ended;
# people are never things ("our landlord", "my friend's car" is someone else's)
_NOT_OWNED = frozenset("""passport passports licence license visa card cards wallet purse keys key id
    permit documents papers cash money ticket tickets handbag bag phone-number number knee knees back
    wrist ankle arm leg hip shoulder heart neck foot feet hand hands finger toe tooth teeth landlord
    landlady neighbour neighbor boss manager colleague teacher doctor gp vet dentist nurse""".split())

# Invariant 321: what replaced it, in the clause beside the ending
_Y = r"(?P<y>(?:(?:a|an|the|some|two|three|four|new)\s+)*(?-i:[A-Z0-9])" + _W + r"(?:\s+" + _W + r"){0,3}?)"
_Y_END = r"(?=\s*(?:[,.;!?]|$|\s+(?:instead|now|in\s+|on\s+|for\s+|under\s+|from\s+|to\s+|as\s+|last\s+|"
_Y_END += r"this\s+|since\s+|yesterday|today|which|that|so|and|because)\b))"
_NEW = [
    (re.compile(r"^(?:(?:so|and|then|now|anyway)\s+)*(?:(?:last\s+\w+|this\s+\w+|" + _WHEN.pattern + r"),?\s+)?(?:(?:i|we)(?:\s+|(?=['’])))?"
                r"(?:['’]ve\s+|have\s+|just\s+|finally\s+|then\s+)*(?P<v>got|bought|ordered|picked\s+up|put|fitted|"
                r"installed|gone\s+for|went\s+for|replaced\s+(?:it|them)\s+with|moved\s+(?:everything|it\s+all|"
                r"it|them|all\s+of\s+it)\s+(?:over\s+)?(?:onto|on\s+to|to)|upgraded\s+to)\s+(?:(?:ourselves|"
                r"myself|me|us)\s+)?" + _Y + _Y_END, I), "replaced"),
    (re.compile(r"^(?:(?:so|and|then|now|anyway)\s+)*(?:(?:i|we)(?:\s+|(?=['’])))?(?:['’]m\s+|['’]re\s+|am\s+|are\s+|['’]ve\s+been\s+|"
                r"have\s+been\s+|now\s+|just\s+)*(?P<v>use|using|on|with|reading\s+on|gone\s+with|went\s+with|"
                r"switched\s+to|moved\s+to|signed\s+up\s+(?:with|to))\s+" + _Y + _Y_END, I), "switched"),
]
_CLAUSE = re.compile(r"\s*[,;]\s*|(?<=[.!?])\s+|\s+(?=(?:so|and\s+then|and)\s+(?:i|we|i'?ve|we'?ve|it'?s|it|"
                     r"last|yesterday|put|got|bought|gone|went|replaced|moved|now)\b)", I)


def _thing(x: str | None) -> str | None:
    """The thing named, without what follows it (where, to whom); None for no thing."""
    if not x:
        return None
    x = _PLACE_TAIL.sub("", x.strip()).strip()
    words = re.sub(r"^(?:the|my|our)\s+(?:old\s+)?", "", x, flags=I).split()
    if not words or words[0].lower() in _NOT_THING or {w.lower() for w in words} & (
            lx.RELATIONS | lx.NAMED_ONLY_RELATIONS | lx.PETS | _NOT_OWNED | {"friend", "ex", "job", "notice"}):
        return None
    if any(re.search(r"['’]s?$", w) for w in words[:-1]):
        return None  # "my friend's car", "my mum's dog": someone else's
    return x


def _owned_kind(x: str) -> bool:
    """ "the Dyson", "the Eufy camera", "the dishwasher": a name, or a kind of thing people own."""
    words = re.sub(r"^(?:the|my|our)\s+(?:old\s+)?", "", x, flags=I).split()
    return any(w[:1].isupper() or any(ch.isdigit() for ch in w) for w in words) or (
        words[-1].lower() in lx.THINGS or words[-1].lower().rstrip("s") in lx.THINGS)


def _last_np(text: str) -> str | None:
    """The thing of the user's a clause is about: its subject ("the Aqara sensors were rubbish"),
    else the last one named and not a place ("dropped my Kindle in the bath")."""
    subj = re.match(r"^(?:(?:so|and|but)\s+)?(?P<x>(?:the|my|our)\s+(?:old\s+)?" + _W + r"(?:\s+" + _W +
                    r"){0,4}?)\s+(?:was|were|is|are|kept|keeps|had|has|have|'s|’s)\b", text.strip(), I)
    if subj:
        return _thing(subj.group("x"))
    found = list(re.finditer(r"(?<!\bin\s)(?<!\bon\s)(?<!\bat\s)(?<!\bfrom\s)\b(?:my|our|the)\s+"
                             r"(?:old\s+)?" + _W + r"(?:\s+" + _W + r"){0,3}", text, I))
    for m in reversed(found):
        if (t := _thing(m.group(0))) and not re.search(r"\b(?:bath|pool|river|sea|lake|canal|toilet|sink|floor|"
                                                         r"park|station|road|street|lounge|kitchen|garden|bin|loo)$", t, I):
            return t
    return None


# Invariant 322: "got a new phone, samsung s24, old one finally died": the new one of a kind,
# its name said after it, replaces the old one of that kind
_OLD_ONE = re.compile(r"^(?:(?:and|so|but)\s+)?(?:the\s+|my\s+|our\s+)?old\s+one\s+(?:has\s+|'s\s+|finally\s+|"
                      r"just\s+)*(?:died|is\s+dead|'s\s+dead|broke|packed\s+in|gave\s+up)\b", I)
_GOT_NEW = re.compile(r"^(?:(?:i|we)(?:\s+|(?=['’])))?(?:['’]ve\s+|have\s+|just\s+|finally\s+)*(?:got|bought)\s+"
                      r"(?:a|an)\s+new\s+(?P<k>[\w-]+)$", I)


def _new_one(parts: list[str], old_one: int) -> str | None:
    for i, raw in enumerate(parts[:-1]):
        m = _GOT_NEW.match(raw.strip())
        name = parts[i + 1].strip().rstrip(".!?")
        kind = m.group("k").lower() if m else ""
        kind = kind if kind in lx.KINDS else next(iter(get_close_matches(kind, lx.KINDS, n=1, cutoff=0.85)), "")
        if m and kind and re.fullmatch(
                r"(?:(?:a|an|the)\s+)?[\w'’+-]+(?:\s+[\w'’+-]+){0,2}", name, I) and re.search(r"\d|(?-i:[A-Z])", name):
            name = re.sub(r"^(?:a|an|the)\s+", "", name, flags=I)
            return ". ".join([f"I got a new {kind}, {article(name)}{name}",
                              *_rest(parts, {i, i + 1, old_one})]) + "."
    return None


def _rest(parts: list[str], drop: set[int]) -> list[str]:
    """The other clauses, without remarks about the thing ("I never had time for it")."""
    return [parts[i].strip().rstrip(".") for i in range(len(parts))
            if i not in drop and not re.search(r"\b(?:it|them|one)\b", parts[i], I)]


# Invariant 322: "We've got a new car, a Kia Niro. Picked it up yesterday.": the day it was
# collected, said in the next sentence, is when the thing became the user's
_PICKED_UP = re.compile(r"^(?:(?:i|we)\s+)?(?:(?:picked|collected|fetched)\s+(?:it|her|him|them)(?:\s+up)?|(?:it|she|they)\s+"
                        r"(?:arrived|came|was\s+delivered|got\s+delivered|were\s+delivered))\s+(?P<w>" + _WHEN.pattern + r")\W*$", I)
_ACQUIRED = re.compile(r"\b(?:got|bought|ordered|picked\s+up)\s+(?:(?:a|an)\s+)?(?:new\s+)?[\w'’+-]", I)


def dated_acquisition(message: str) -> str:
    """The acquisition with the day it was collected moved into its sentence, or the message."""
    sentences = re.split(r"(?<=[.!?])\s+", message.strip())
    for i, sent in enumerate(sentences[1:], 1):
        m = _PICKED_UP.match(sent.strip())
        if m and _ACQUIRED.search(sentences[i - 1]) and not _WHEN.search(sentences[i - 1]):
            when = re.sub(r"^on\s+", "", m.group("w"), flags=I)
            sentences[i - 1] = sentences[i - 1].rstrip(".!? ") + f", since {when}."
            return " ".join(sentences[:i] + sentences[i + 1:])
    return message


# Invariant 321: "renewed the car insurance early with Direct Line instead of Admiral",
# "renewed the home insurance but went with LV this time": a provider changed at renewal
_RENEWED = re.compile(r"^(?:(?:i|we)(?:\s+|(?=['’])))?(?:['’]ve\s+|have\s+|just\s+)*renewed\s+(?:the|my|our)\s+"
                      r"(?P<k>[\w-]+(?:\s+[\w-]+)?\s+(?:insurance|cover|breakdown\s+cover|contract|plan|tariff|deal))"
                      r"\s+(?:early\s+)?(?:,?\s*(?:but|and)\s+(?:(?:i|we)\s+)?(?:went|go|switched)\s+)?(?:with|to)\s+"
                      r"(?P<y>(?-i:[A-Z])[\w&'’.-]*(?:\s+(?-i:[A-Z])[\w&'’.-]*){0,2})(?:\s+(?:instead\s+of|rather\s+than)\s+"
                      r"(?P<x>(?-i:[A-Z])[\w&'’.-]*(?:\s+(?-i:[A-Z])[\w&'’.-]*){0,2}))?", I)


def renewed_with(message: str) -> str:
    """A provider changed at renewal, said as a switch or as where the cover is now."""
    m = _RENEWED.match(message.strip())
    if not m:
        return message
    rest = message.strip()[m.end():]
    x, y = (m.group("x") or "").rstrip("."), m.group("y").rstrip(".")
    if x:
        return f"I switched from {x} to {y}{rest}"
    if this := re.match(r"^\s+(?:this\s+time|this\s+year|instead)\b", rest, I):
        return f"My {m.group('k')} is now with {y}{rest[this.end():]}"
    return message


def belongings(message: str) -> str:
    """Rewrite an ended or replaced possession into "I replaced X with Y", "I switched from X to
    Y" or "I no longer own X" (invariants 320-321); the message unchanged when none is said."""
    if (renewed := renewed_with(message)) != message:
        return renewed
    parts = [p for p in _CLAUSE.split(respell(message.strip())) if p and p.strip()]
    ended: list[tuple[int, str, bool]] = []  # (clause, thing, final)
    old_one: int | None = None
    for i, raw in enumerate(parts):
        p = raw.strip().rstrip(".!?:() ").strip()
        if m := _GONE_SUBJ.match(p):
            x = _thing(m.group("x"))
            if x and re.match(r"^the\s", x, I) and not _owned_kind(x):
                x = None  # "the tram broke down": nothing of the user's
            if x and re.match(r"^(?:my|our)\s+(?-i:[A-Z])[\w'’-]*$", x, I) and re.search(r"die|dead", m.group("how"), I):
                x = None  # "our Max died": a pet or a person, never a thing (invariant 141)
            final = bool(re.search(r"stolen|nicked|pinched|written|totall?ed|binned", m.group("how"), I))
            if x:
                ended.append((i, x, final))
        elif m := _GONE_VERB.match(p):
            v = m.group("v").lower()
            tail = m.group("tail") or ""
            if v in ("gave", "given") and not re.match(r"\s+(?:away\b|to\s)", tail, I):
                continue  # "gave the car a wash": nothing given away
            if v in ("took", "taken") and not re.match(r"\s+(?:down|off)\b", tail, I):
                continue  # only "took the camera down", "took Pi-hole off the Pi"
            if v == "closed" and not re.search(r"\b(?:account|card|subscription|membership|policy)$",
                                                m.group("x") or "", I):
                continue  # "closed the window": only an account or a card is closed for good
            x = m.group("x") or m.group("n")
            if m.group("p") and i > 0:
                x = _last_np(parts[i - 1])  # "the sensors were rubbish so I've binned them"
            x = _thing(x)
            if x:
                ended.append((i, x, v not in ("took", "taken", "cancelled", "canceled")))
        elif (m := _GONE_IT.match(p)) and i > 0:
            # "it" is the thing just said to have ended, else the one named just before
            if ended and ended[-1][0] == i - 1:
                ended.append((i, ended[-1][1], bool(_FINAL.search(p))))
            elif x := _last_np(parts[i - 1]):
                ended.append((i, x, bool(_FINAL.search(p))))
        elif _OLD_ONE.match(p):
            old_one = i
    if old_one is not None and not ended:
        return _new_one(parts, old_one) or message
    if len({x.lower() for _, x, _ in ended}) != 1:
        return message
    ei, x, _ = ended[0]
    final = any(f for _, _, f in ended) or any(_FINAL.search(parts[i]) for i, _, _ in ended)
    new = [(i, m, how) for i, raw in enumerate(parts) if i not in {e for e, _, _ in ended}
           for rx, how in _NEW if (m := rx.match(raw.strip().rstrip(".!?")))]
    # the day as the date reader reads it in the clauses of the change ("since the start of
    # November", "last week"), said after the change
    when = " ".join(dict.fromkeys(f for i in sorted({e for e, _, _ in ended} | {i for i, _, _ in new})
                                  for f in find_dates(parts[i], date.today()).found))
    if re.match(r"^(?:\d|" + _MONTH + r")", when, I):
        when = "on " + when
    when = f" {when}" if when and len(when.split()) <= 6 else ""
    drop = {e for e, _, _ in ended}
    if len({i for i, _, _ in new}) == 1 and abs(new[0][0] - ei) <= 2:
        ni, nm, how = new[0]
        y = re.sub(r"^(?:(?:a|an|the|some|new)\s+)+", "", nm.group("y").strip(), flags=I)
        old = re.sub(r"^(?:the|my|our)\s+(?:old\s+)?", "", x, flags=I)
        if how == "switched":  # "cancelled the Admiral policy, went with LV": the provider
            old = re.sub(r"(?<=\w)\s+(?:renewal|policy|plan|subscription|contract|membership|account|deal|"
                         r"tariff)$", "", old, flags=I)
        if not y or y.lower() == old.lower():
            return message
        said = (f"I replaced the {old} with {'' if re.search(r's$', y) else 'a '}{y}{when}"
                if how == "replaced" else f"I switched from {old} to {y}{when}")
        drop.add(ni)
        return ". ".join([said, *_rest(parts, drop)]) + "."
    if new or not final or not re.match(r"^(?:the|my|our)\s", x, I):
        return message  # "dumped Jake": a name said bare ends something only beside its replacement
    old = re.sub(r"^(?:the|my|our)\s+(?:old\s+)?", "", x, flags=I)
    # the day as the user said it, read by the date reader, never a phrase guessed here
    # ... or in a remark about it ("closed the account, paid it off on 20 November")
    said_when = " ".join(dict.fromkeys(f for i, _, _ in ended for f in find_dates(parts[i], date.today()).found))
    said_when = said_when or " ".join(dict.fromkeys(
        f for i in range(ei + 1, min(ei + 2, len(parts))) if re.search(r"\b(?:it|them)\b", parts[i], I)
        for f in find_dates(parts[i], date.today()).found))
    if re.match(r"^(?:\d|" + _MONTH + r")", said_when, I):
        said_when = "on " + said_when  # "20 November" said after "on" elsewhere
    said_when = said_when[:1].upper() + said_when[1:] + " " if said_when else ""
    return ". ".join([f"{said_when}I got rid of the {old}",
                      *_rest(parts, drop)]) + "."
