"""Secrets a memory never keeps (invariant 273): passwords, PINs, card numbers, keys and codes.

A fact or playbook is shown on the desk, kept in the audit log, indexed for search and handed to
the model on every turn; a password in it would be readable by every operator and leak into
prompts. The write door (memory/unit_of_work.py) refuses such a memory whole, with a message
that says what to do instead. Pure: no I/O.
"""

from __future__ import annotations

import re
import sys
from bisect import bisect_left, bisect_right
from functools import cache, lru_cache
from itertools import islice

from . import secret_frames, secret_shapes

# "my wifi password is hunter2", "PIN: 4821", "the door code is 1234#", "API key = sk-..."
_NAMED = re.compile(
    r"\b(?P<kind>(?:wi-?fi\s+|email\s+|bank\s+|account\s+|login\s+|admin\s+|root\s+)?"
    r"(?:password|passcode|passphrase|passwd|pin(?:\s+(?:code|number))?|cvv2?|cvc|"
    r"security\s+code|door\s+code|alarm\s+code|gate\s+code|access\s+code|one[- ]time\s+code|"
    r"otp|2fa\s+code|recovery\s+(?:code|phrase)|seed\s+phrase|private\s+key|api\s+key|"
    r"access\s+token|secret\s+key|auth\s+token|"
    # a token of any service, a card's number, a security question's answer
    r"(?:[\w-]+\s+)?token|(?:credit\s+|debit\s+|bank\s+)?card\s+(?:number|no\.?)|"
    r"security\s+(?:question\s+)?answer|answer\s+to\s+(?:my|the)\s+security\s+question))"
    r"(?:\s+(?:for|to|on|of)\s+[\w .'’-]{1,40}?)?\s*(?:\b(?:is|was|are)\b|=|:|->)\s*"
    r"(?P<value>[^\s,;]{2,}[^\s,;.!?])", re.IGNORECASE)
# Invariant 273: a government identity number ("my SIN is 046 454 286", "NI number: QQ 12 34
# 56 C", "SSN 123-45-6789") opens accounts in the user's name; its value holds five digits or
# more, so "my SIN expired" or "I got my PPS number" hold none. A passport number stays an
# ordinary fact (invariant 273: travel forms ask for it).
_ID_NUMBER = re.compile(
    r"\b(?:sin|ssn|social\s+(?:security|insurance)\s+(?:number|no\.?)|national\s+insurance\s+"
    r"(?:number|no\.?)|ni\s+(?:number|no\.?)|nino|tax\s+file\s+number|tfn|pps\s+(?:number|no\.?)|ppsn|"
    r"aadhaa?r(?:\s+(?:number|no\.?))?|pan\s+(?:number|card\s+number)|bvn|nin|tax\s+id(?:\s+number)?)"
    r"\s*(?:is|was|=|:|->)?\s*(?P<value>[A-Z]{0,3}[\s-]?(?:\d[\s-]?){5,}[A-Z]?)\b", re.IGNORECASE)
# Values shaped like a key or token whatever is said around them.
_TOKEN = re.compile(r"\b(?:sk|pk|rk)[-_](?:live|test|proj|ant)?[-_]?[A-Za-z0-9_-]{16,}|"
                    r"\bgh[pousr]_[A-Za-z0-9]{20,}|\bxox[abprs]-[A-Za-z0-9-]{10,}|"
                    r"\bAKIA[0-9A-Z]{16}\b|-----BEGIN [A-Z ]*PRIVATE KEY-----|"
                    r"\beyJ[\w-]{8,}\.[\w-]{8,}\.[\w-]{4,}|"  # a JSON web token
                    # vendors' documented key prefixes: Anthropic, Google, npm, SendGrid,
                    # DigitalOcean, Telegram bots, Twitch chat, GitLab, Hugging Face
                    r"\bsk-ant-[\w-]{20,}|\bAIza[\w-]{30,}|\bnpm_[A-Za-z0-9]{30,}|"
                    r"\bSG\.[\w-]{16,}\.[\w-]{30,}|\bdo[pro]_v1_[a-f0-9]{40,}|"
                    r"(?<![\w:])\d{8,10}:AA[\w-]{30,}|\boauth:[a-z0-9]{30}\b|\bglpat-[\w-]{20,}|"
                    r"\bhf_[A-Za-z0-9]{30,}|"
                    # a key by its shape alone: 24+ characters mixing upper and lower case and
                    # digits strewn among letters, not inside a web address or a path (inv. 460)
                    r"(?<![\w/.:@=+-])(?=[A-Za-z0-9+/_=.-]{24,})(?=[^\s/]*[a-z])"
                    r"(?=[^\s/]*[A-Z])(?=[^\s/]*\d[^\s/\d]+\d[^\s/\d]+\d)[A-Za-z0-9_+=.-][A-Za-z0-9+/_=.-]{23,}"
                    r"(?![\w/.:@=+-]*(?:://))")
_CARD = re.compile(r"(?<![\w-])(?:\d[ -]?){12,18}\d(?![\w-])")  # never glued to letters (ids)
# Words that say the value after "is" is no secret itself ("my password is in 1Password").
# ("password = (ask IT)": an aside in brackets)
_NOT_A_VALUE = re.compile(r"^(?:[(\[<]|(?:in|on|at|the|a|an|my|our|stored|saved|kept|written|"
                          r"managed|handled|synced|same|different|changed|reset|long|short|"
                          r"strong|weak|new|old|set|expired|locked|wrong|correct|required|"
                          r"needed|optional|recommended|mandatory|enabled|disabled|empty|blank|"
                          r"unset|missing|invalid|incorrect)(?![\w'’-]))", re.IGNORECASE)


def _card_layout(number: str) -> bool:
    """A card is written whole or in the groups its issuers print: fours (the last group
    shorter), or 4-6-5 and 4-6-4; "978-1-4028-9462-6" is an ISBN whose check digit happens to
    hold (invariant 460)."""
    groups = [len(g) for g in re.split(r"[ -]", number.strip())]
    return len(groups) == 1 or groups in ([4, 6, 5], [4, 6, 4]) or (
        all(g == 4 for g in groups[:-1]) and 1 <= groups[-1] <= 4)


def _luhn(digits: str) -> bool:
    total = 0
    for i, ch in enumerate(reversed(digits)):
        d = int(ch)
        if i % 2:
            d = d * 2 - 9 if d > 4 else d * 2
        total += d
    return total % 10 == 0


def _closes(text: str, m: re.Match) -> bool:
    """A plain word is a value only when it closes its clause (invariant 460): "my password is
    dragonfly." hands one over, "my password is too long to type" none."""
    return not m.group("value").isalpha() or re.match(
        r"[\"'”’]?\s*(?:[,.;!?)]|$|(?:and|but|so|lol|pls|please|thanks|thx|btw|ok)\b)",
        text[m.end("value"):], re.IGNORECASE) is not None


def secret_in(text: str) -> str | None:
    """What kind of secret `text` holds ("a password", "a card number", "a key or token"), or
    None. "My password manager is Bitwarden" and "I changed my PIN" hold none. Digits of any
    script are read as ASCII digits ("金庫の暗証番号は一九八二です", invariant 460)."""
    return _secret_in(secret_shapes.reading(text))


def _secret_in(text: str) -> str | None:
    for m in _NAMED.finditer(text):
        if re.search(r"manager|hint|policy|reset\s+link", text[m.start("kind"):m.end("kind") + 12],
                     re.IGNORECASE) or _NOT_A_VALUE.match(m.group("value")) \
                or m.group("value").lower() in _SECRET_WORDS \
                or re.fullmatch(r"[a-z]+ed", m.group("value")) \
                or not _closes(text, m):  # "is literally …", "was updated", "is too long to"
            continue
        kind = m.group("kind").lower()
        if re.search(r"\b(?:pin|code|otp|cvv2?|cvc|card)\b", kind) \
                and not re.search(r"\d", m.group("value")):
            continue  # a PIN or code is digits: "my PIN was blocked" hands none over
        if re.search(r"token|key", kind) and not _shaped(_core(m.group("value")), strict=False):
            continue  # "the token was worth 3 dollars": a key or token is shaped like one
        if "pin" in kind.split() or kind.startswith("pin"):
            return "a PIN"
        if "card" in kind.split():
            return "a card number"
        if "answer" in kind.split():
            return "a security answer"
        if re.search(r"key|token|phrase", kind):
            return "a key or recovery phrase"
        if re.search(r"code|otp|cvv|cvc", kind):
            return "a security code"
        return "a password"
    if _TOKEN.search(text):
        return "a key or token"
    if _ID_NUMBER.search(text):
        return "an identity number"
    for m in _CARD.finditer(text):
        digits = re.sub(r"\D", "", m.group(0))
        if 13 <= len(digits) <= 19 and _luhn(digits) and len(set(digits)) > 1 \
                and _card_layout(m.group(0)):
            return "a card number"
    if _phrased(text):  # invariant 460
        return "a password or code"
    return _shaped_kind(text)


def _shaped_kind(text: str) -> str | None:
    """Invariant 460: secrets known by their shape (memory/secret_shapes.py), and a list's items
    read one by one ("1) alarm 9021 2) shed padlock 404")."""
    if secret_shapes.url_credentials(text) or secret_shapes.command_credentials(text):
        return "a password"
    if secret_shapes.recovery_phrases(text) or secret_shapes.recovery_keys(text):
        return "a recovery phrase or key"
    if secret_shapes.dial_combinations(text):
        return "a security code"
    if secret_shapes.card_codes(text):
        return "a security code"
    if secret_shapes.identity_numbers(text):  # invariant 273
        return "an identity number"
    items = secret_shapes.list_items(text)
    for start, end in items:
        kind = secret_in(text[start:end])
        if kind:
            return kind
    return None


WITHHELD = "[withheld]"


def masked(text: str) -> str:
    """The text with every secret value replaced by "[withheld]" (invariant 273): how a user's
    message holding one is kept as their episode ("my wifi password is [withheld]"), so the
    rest of their words stay evidence and the secret is stored nowhere."""
    return _mask(text)[0]


def secret_values(text: str) -> list[str]:
    """The secret values `masked` takes out of `text` (invariant 460): what no memory written
    from this message may hold either ("Uses 5531 to get into the garage")."""
    return [v for v in _mask(text)[1] if len(v.strip()) >= 3]


def _mask(original: str) -> tuple[str, list[str]]:
    # Invariant 460: every reader marks spans on the same original text and the union is cut once, so one
    # reader's cut never hides the rest of a value from another ("card number is 4111 1111 ..."
    # loses all four groups, not the first). The readers see digits of any script as ASCII
    # digits, one character for one: the spans cut the message as written.
    text = secret_shapes.reading(original)
    items = secret_shapes.list_items(text)
    if items:  # invariant 460: each item of a list is read as a clause of its own
        segments = [(0, items[0][0]), *items]
        spans = [(a + s, a + e) for a, b in segments for s, e in _spans(text[a:b])]
    else:
        spans = _spans(text)
    spans += secret_shapes.url_credentials(text) + secret_shapes.recovery_phrases(text)
    spans += secret_shapes.command_credentials(text)
    spans += secret_shapes.recovery_keys(text) + secret_shapes.dial_combinations(text)
    spans += secret_shapes.card_codes(text) + secret_shapes.identity_numbers(text)  # inv. 273
    out, values = original, []
    for start, end in reversed(_merged([_unglued(text, *_with_tail(text, s, e))
                                        for s, e in spans])):
        values.append(original[start:end])
        out = out[:start] + WITHHELD + out[end:]
    return out, values[::-1]


def _spans(text: str) -> list[tuple[int, int]]:
    spans: list[tuple[int, int]] = []
    for m in _NAMED.finditer(text):
        if secret_in(m.group(0)) and _closes(text, m):
            spans.append((m.start("value"), m.end("value")))
    for m in _ID_NUMBER.finditer(text):
        spans.append((m.start("value"), m.start("value") + len(m.group("value").rstrip(" -"))))
    spans += [(m.start(), m.end()) for m in _TOKEN.finditer(text)]
    for m in _CARD.finditer(text):
        digits = re.sub(r"\D", "", m.group(0))
        if 13 <= len(digits) <= 19 and _luhn(digits) and len(set(digits)) > 1 \
                and _card_layout(m.group(0)):
            spans.append((m.start(), m.end()))
    spans += _phrased(text)  # invariant 460: however it is phrased
    return spans


# Japanese and Korean particles and copulas, Chinese "是"/"的", glued to a value written in
# Latin letters or digits ("PINは4719です", "비밀번호는 1234입니다"): no part of the value
_PARTICLE = re.compile(r"^[\u3040-\u309f\uac00-\ud7af是的了]+|[\u3040-\u309f\uac00-\ud7af是的了。]+$")


def _unglued(text: str, start: int, end: int) -> tuple[int, int]:
    value = text[start:end]
    if not re.search(r"[A-Za-z0-9]", value):
        return start, end
    lead = _PARTICLE.search(value)
    if lead and lead.start() == 0 and lead.end() < len(value):
        start += lead.end()
        value = text[start:end]
    trail = _PARTICLE.search(value)
    if trail and trail.start() > 0:
        end = start + trail.start()
    return start, end


def _with_tail(text: str, start: int, end: int) -> tuple[int, int]:
    """A value's own trailing "!", "#" or "*" ("Pa55word!", "2580#") belongs to it: a mark left
    behind would be part of the secret kept."""
    while end < len(text) and text[end] in "!#*" and (
            end + 1 == len(text) or not text[end + 1].isalnum()):
        end += 1
    if text[start:end].isdigit():  # the rest of a number said in groups: "4929 1234 5678 9012"
        more = re.match(r"(?:[ -]\d{2,})+(?![\w/])", text[end:])
        if more and not _count_or_measure(text, end + more.end()):
            end += more.end()
    return start, end


def refusal(kind: str) -> str:
    """The message a refused write carries, for the UI, the CLI and the model (invariant 7 of
    the house: clear errors)."""
    return (f"memory never keeps {kind} (it would be shown on the desk, kept in the audit log "
            "and sent to the model on every turn); keep it in a password manager instead")


# Secrets by phrasing (issue 30, invariant 460) ----------------------------------------------------
# A secret noun ("the wifi password here", "gate code's", "my PIN number", "bike lock combo")
# and a value near it: right after it or after a cue ("is", ":", "=", "'s", "to"), a few words on
# ("the one-time code they texted me is 552019"), or said first ("it's hunter2, the wifi
# password I mean"; "use 5531 to get in, that's the keypad code"). A plain word is a value only
# right after a cue and only for the nouns whose values are words (a password, a maiden name, a
# security answer); otherwise a value is digits or a word with digits or symbols in it, so
# "the wifi password is on the fridge" and "I changed my PIN yesterday" hold none.
_STRONG = (r"pass(?:word|wd|code|phrase)s?|pwd?|mot\s+de\s+passe|maiden\s+name|"
           r"security\s+answer|answer\s+to\s+(?:my|the)\s+security\s+question")
_PHRASE = r"(?:recovery|seed|backup)\s+(?:phrase|words)"
_WEAK = (r"pins?(?:\s+(?:number|code))?|cvv2?|cvc|combination|combo|otp|2fa(?:\s+code)?|"
         r"(?:backup|recovery|one[- ]time|verification|access|security|unlock|disarm|keypad|"
         r"door|gate|alarm|garage|opener|safe|locker|sim|entry|lock)(?:'s|’s)?\s+codes?|"
         r"codes?(?=\s+(?:for|to)\s+(?:the\s+|my\s+|our\s+)?(?:\w+\s+)?(?:door|gate|alarm|"
         r"garage|safe|unlock|phone|locker|wifi|keypad|alarm|house|front|back)\b)|"
         r"(?:api|secret|private|access|wifi|wi-?fi|network|wpa2?|licen[cs]e)\s+keys?|"
         r"(?:api|access|auth|bearer|refresh)\s+tokens?|tokens?(?=\s+for\b)")
_NOUN = re.compile(rf"\b(?:(?P<strong>{_STRONG})|(?P<phrase>{_PHRASE})|(?P<weak>{_WEAK})|"
                   r"(?P<key>keys?))\b"
                   r"(?P<tail>(?:'s|’s)?)", re.IGNORECASE)
# After a noun, words that say it is no value's place ("password manager", "PIN pad").
_NOT_THIS = re.compile(r"\s*(?:manager|managers|policy|policies|reset|hint|link|pad|strength|"
                       r"requirements?|rules?|protected|field|box|word|review|ring|expired|"
                       r"changed|stopped|protection|name|names|base|block|snippet|editor|"
                       r"smell|review|balance|balances|price|prices|sale|supply|"
                       # "wifi network name", "wifi speed": the network's, not its key's
                       r"network|networks|speed|signal|router|provider|plan|bill|calling|"
                       r"extender|ssid|band|channel|connection|coverage|dongle|outage)\b"
                       # "Pin 7 on the Raspberry Pi": a small number right after the noun labels it
                       r"|\s+\d{1,2}(?![\d\w.:/-]|\s+\d)", re.IGNORECASE)
_OF_A_NETWORK = re.compile(r"\s*(?:network|networks|speed|signal|router|provider|plan|bill|"
                           r"calling|extender|ssid|band|channel|connection|coverage|dongle|"
                           r"outage)\b", re.IGNORECASE)


def _not_this(text: str, start: int, end: int) -> re.Match | None:
    """What after a noun says it is no value's place; a network's words only after a network's
    noun ("wifi router" is a device, "kata sandi router" — Indonesian puts the owner after —
    the router's password; invariant 460)."""
    m = _NOT_THIS.match(text, end)
    if m and _OF_A_NETWORK.fullmatch(m.group()) and not _NETWORK.search(text, start, end) \
            and not re.search(r"wlan|internet|wifi|wi-fi", text[start:end], re.IGNORECASE):
        return None
    return m
_CUE = re.compile(r"\s*(?:(?:is|are|=|:|->|-|—|–|to|as)(?=[\s\"'“‘]|$)|[:=]|'s\b|’s\b)\s*",
                  re.IGNORECASE)
_WORD = re.compile(r"[\"'“‘]?[^\s\"'“”‘’,;]+[\"'”’]?")
_DIGITS = re.compile(r"^(?:\d{3,}#?|\d+(?:[-/.]\d+)+#?)$")
_COMPLEX = re.compile(r"^(?=.*[A-Za-z])(?=.*[\d!#$%&*@_^~+=|\\/-]).{5,}$")
_LONE_DIGIT = re.compile(r"\d")
_QUOTED = re.compile(r"^[\"'“‘](.+?)[\"'”’]$")
_EDGE = ".,;:!?()[]"
_SECRET_WORDS = frozenset({"it", "its", "it's", "it’s", "is", "the", "my", "our", "here",
                           "for", "to", "of", "on", "me", "and", "pls", "please", "just",
                           "withheld", "now", "still", "currently", "literally", "simply",
                           "actually", "basically", "probably", "always", "also", "never",
                           "not", "no", "none", "usually", "all", "both", "every",
                           # when, not what: "changed my password - again" (invariant 460)
                           "again", "today", "tonight", "yesterday", "tomorrow", "twice",
                           "finally", "already", "lately", "recently", "anyway", "sadly"})
WINDOW = 7  # words after a noun a value may come
# where it is kept, or where to look ("password: see 1Password, the entry 'staging db'")
_WHERE = re.compile(r"^(?:in|on|at|under|inside|behind|stored|saved|kept|written|managed|"
                    r"handled|synced|somewhere|taped|stuck|printed|see|check|ask|via)$",
                    re.IGNORECASE)
_NETWORK = re.compile(r"\b(?:wi-?fi|network|router|wpa2?|ssid)\b", re.IGNORECASE)
# words that may stand between a noun and where it is kept: a form of "be", a modal, a hedge
_LEAD = frozenset({"be", "is", "was", "are", "were", "been", "being", "stays", "lives", "should",
                   "will", "would", "might", "may", "must", "could", "can", "probably",
                   "likely", "maybe", "perhaps", "still", "definitely", "usually", "always",
                   "now", "also", "just", "normally", "somewhere"})


def _core(word: str) -> str:
    core = word.strip(_EDGE)
    m = _QUOTED.match(core)
    return m.group(1) if m else core.strip("\"'“”‘’")


def _value_like(core: str) -> bool:
    if re.fullmatch(r"\d+['’]?s", core):
        return False  # "2019's hit song", "the 1990s": a year's, no value
    if "@" in core and "." in core.split("@")[-1]:
        return False  # an email address is a login name, no secret
    if core.lower().startswith(("http", "www.")):
        return False
    return bool(_DIGITS.match(core) or _COMPLEX.match(core))


def _spaced_digits(words: list[re.Match], i: int) -> int:
    """How many single-digit words start at i ("2 5 8 0"): three or more make one value."""
    n = 0
    while i + n < len(words) and re.fullmatch(r"\d", _core(words[i + n].group())):
        n += 1
    return n if n >= 3 else 0


def _phrase_rest(text: str, start: int) -> list[tuple[int, int]]:
    """The rest of a recovery phrase's clause when it is list words: never "is written on paper
    in the safe" nor advice ("recovery phrase: write it on paper, never in a file")."""
    end = re.search(r"[.;!?\n]|$", text[start:])
    stop = start + (end.start() if end else len(text) - start)
    first = re.match(r"[\w'’]+", text[start:stop])
    if stop - start >= 8 and not (first and (_WHERE.match(first.group())
                                             or _NOT_A_VALUE.match(first.group()))) \
            and secret_shapes.listed_share(text[start:stop]) >= 2 / 3:
        return [(start, stop)]
    return []


def _phrased(text: str) -> list[tuple[int, int]]:
    """Spans of secret values handed over in `text`, by phrasing."""
    words = list(_WORD.finditer(text))
    starts, ends = [w.start() for w in words], [w.end() for w in words]  # bisected per noun
    spans: list[tuple[int, int]] = []
    for noun in _NOUN.finditer(text):
        after = text[noun.end():]
        if _not_this(text, noun.start(), noun.end()) or _ordinary_after().match(text, noun.end()) \
                or _not_its_value(text, noun.start(), noun.end()):
            continue  # "combination oven", "code postal": another thing's name (invariant 460)
        if noun.group("key") and not _NETWORK.search(text):
            continue  # "the key to good bread": a key is a secret only of a network
        strong, phrase = noun.group("strong"), noun.group("phrase")
        cue = _CUE.match(after)
        start = noun.end() + (cue.end() if cue else 0)
        if phrase and cue:  # a recovery phrase: the rest of the clause
            spans += _phrase_rest(text, start)
            continue
        at = bisect_left(starts, start)
        rest = words[at:at + WINDOW]
        found = False
        for k, w in enumerate(rest):
            core = _core(w.group())
            if _WHERE.match(core) and (cue or k > 0) and all(
                    _core(r.group()).lower() in _LEAD for r in rest[:k]):
                # "is stored in 1Password", "should be in the check-in email", "is probably in
                # the sign-in letter": where, not what
                break
            run = _spaced_digits(rest, k)
            if run:
                spans.append((w.start(), rest[k + run - 1].end()))
                found = True
                break
            if core.isdigit() and _count_or_measure(text, w.end()):
                break  # "Combination skis: 160 cm left, 165 right": quantities, no code
            if k > 0 and (_ordinary(core, generic=False)
                          or _core(rest[k - 1].group()).lower() in _ordinary_nouns()):
                # "for room 1204", "for building 2201": the number of an ordinary thing
                continue  # a few words on, a year, a time or a price is no value (inv. 460)
            if _value_like(core) or (
                    k == 0 and (strong or _QUOTED.match(w.group().strip(_EDGE)))
                    and cue and cue.group().strip().lower() != "to"  # "password to login"
                    # a plain word closes its clause: "my password is too long to type" or
                    # "password - ask Tom" hand none over (invariant 460)
                    and (_QUOTED.match(w.group().strip(_EDGE)) or not core.isalpha()
                         or re.match(r"[\"'”’]?\s*(?:[,.;!?)]|$)", text[w.end():]))
                    and core and core.lower() not in _SECRET_WORDS
                    and not _NOT_A_VALUE.match(core) and len(core) >= 3):
                spans.append((w.start() + w.group().index(core), w.start()
                              + w.group().index(core) + len(core)))
                found = True
                if not noun.group("weak") or "code" not in noun.group().lower():
                    break
            elif found:
                break
        if not found:
            # said first: "it's hunter2, the wifi password", "use 5531 ..., that's the code"
            before = text[max(0, noun.start() - 200):noun.start()]  # bounded: never quadratic
            if re.search(r"(?:it'?s|it’s|that'?s|that’s|that is|it is)\s+(?:the\s+|my\s+|our"
                         r"\s+)?(?:\w+\s+){0,2}$", before, re.IGNORECASE) or \
                    re.search(r",\s*(?:the|my|our)\s+(?:\w+\s+){0,2}$", before):
                last = bisect_right(ends, noun.start())
                prior = words[max(0, last - 12):last]
                for w in reversed(prior):
                    core = _core(w.group())
                    if _value_like(core):
                        off = w.start() + w.group().index(core)
                        spans.append((off, off + len(core)))
                        break
    return _merged(spans + _logins_and_wifi(text) + _framed(text) + _scanned(text)
                   + _carded(text) + _paired(text) + _login_pairs(text) + _any_named(text)
                   + _table_columns(text) + _qa_pairs(text))


def _logins_and_wifi(text: str) -> list[tuple[int, int]]:
    spans = []
    # "login: ana@x.com / Sunflower!2", "admin / Nas!Secure7", "user jsmith pass Q7!mxz42"
    for m in re.finditer(r"\b(?:log-?in|credentials|details|user(?:name)?|admin)\b[^\n]{0,60}?"
                         r"(?:\s/\s*|\bpass\s+)(?P<v>[^\s,;]+)", text, re.IGNORECASE):
        if _value_like(_core(m.group("v"))):
            spans.append((m.start("v"), m.start("v") + len(m.group("v").rstrip(_EDGE))))
    # "wifi = ZebraCrossing42", "wifi pw: ..." (pw is a noun above)
    for m in re.finditer(r"\bwi-?fi\s*[:=]\s*(?P<v>[^\s,;]+)", text, re.IGNORECASE):
        core = _core(m.group("v"))
        if _value_like(core) and _long_enough("a network key", core):  # "wifi: 300 Mbps" is none
            spans.append((m.start("v"), m.start("v") + len(m.group("v").rstrip(_EDGE))))
    return spans


# Handing-over frames (invariant 460) -------------------------------------------------------------
# A secret noun from a table of many phrasings and languages (memory/secret_frames/), a few words
# at most, a copula ("is", "=", ":", "it's", "est", "ist", "lautet", "é", "är", "это", "是" …)
# and a token shaped like a secret: digits, letters with digits, mixed case or symbols, or a
# word-list passphrase. And the generic frame "my X: <token>" when X is no ordinary noun (a
# flight, a room, an order …) and the token is no ordinary number (a price, a year, a time, a
# flight number, a version, a postcode). The tables are data; this is the one reader of them.
def _alternation(words: list[str]) -> str:
    """The words as one pattern, longest first; a word never stops short of a longer one that
    goes on from its last word ("the lock" never takes "the lock box" from "lock box"). The
    word-boundary checks stand once outside the alternation (ten times faster to scan); words
    of scripts written without spaces (CJK, emoji) need none."""
    spaced: list[str] = []
    unspaced: list[str] = []
    firsts: dict[str, list[str]] = {}
    for v in set(words):
        parts = v.lower().split()
        if len(parts) > 1:
            firsts.setdefault(parts[0], []).append(r"\s+".join(re.escape(p) for p in parts[1:]))
    for w in sorted(set(words), key=len, reverse=True):
        body = r"\s+".join(re.escape(p) for p in w.split())
        goes_on = firsts.get(w.lower().split()[-1]) if len(w.split()) > 1 else None
        if goes_on:
            body += rf"(?!\s+(?:{'|'.join(sorted(goes_on, key=len, reverse=True))})(?![\w-]))"
        (unspaced if _unspaced(w[0]) else spaced).append(body)
    # a spaced word may touch a word of a script without spaces: "銀行のPINは4719です"
    out = [rf"(?:(?<![\w'’-])|(?<={_UNSPACED}))(?:{'|'.join(spaced)})(?!(?!{_UNSPACED})[\w-])"
           ] if spaced else []
    if unspaced:
        out.append(f"(?:{'|'.join(unspaced)})")
    return "|".join(out)


_UNSPACED = "[\u0e00-\u0eff\u1000-\u109f\u1780-\u17ff\u2e80-\U0002ffff]"


def _unspaced(ch: str) -> bool:
    """Scripts written without spaces between words: CJK and Thai, Lao, Myanmar, Khmer
    ("รหัสผ่านอีเมลของฉันคือ …"): their words need no word boundary (invariant 460)."""
    o = ord(ch)
    return o >= 0x2E80 or 0x0E00 <= o <= 0x0EFF or 0x1000 <= o <= 0x109F or 0x1780 <= o <= 0x17FF


def _copula(w: str) -> str:
    """One copula of the tables as a pattern: spaces as any run of spaces, a word never inside
    another ("on" never ends "mission"), a dash only between spaces ("iPad - Blue_2", never
    "Blue-2"; invariant 460)."""
    body = r"\s+".join(re.escape(p) for p in w.split())
    if set(w) == {"-"}:
        return rf"(?<=\s){body}(?=\s)"
    if w[0].isalnum() and not _unspaced(w[0]):
        body = rf"(?<![\w'’-]){body}"
    if w[-1].isalnum() and not _unspaced(w[0]):
        body = rf"{body}(?=[\s\"'“‘]|$)"
    return body


def _copulas(words: list[str]) -> str:
    return "|".join(_copula(w) for w in sorted(set(words), key=len, reverse=True))


@cache
def _frames() -> tuple[re.Pattern, re.Pattern, dict[str, str], list[re.Pattern],
                       list[re.Pattern], frozenset[str]]:
    t = secret_frames.tables()
    f = t.frames
    kinds = {" ".join(n.split()): row.kind for row in t.nouns for n in row.nouns}
    cop = _copulas(f.copulas)
    filler = rf"(?:\s+(?!(?:{cop}))[^\s.,;!?:=]+){{0,{f.filler_words}}}?"
    noun = re.compile(rf"(?P<noun>{_alternation(list(kinds))})(?:'s|’s)?{filler}\s*"
                      rf"(?P<cop>{cop})\s*(?P<tok>[\"'“‘]?[^\s,;]+)", re.IGNORECASE)
    generic = re.compile(rf"(?<![\w-])(?:{_alternation(f.possessives)})\s+"
                         # "the postgres://…": a scheme's colon labels no value
                         r"(?P<x>(?:[^\s.,;:!?=]+\s+){0,2}[^\s.,;:!?=]+)\s*[:=](?!//)\s*"
                         r"(?P<tok>[\"'“‘]?[^\s,;]+)", re.IGNORECASE)
    always = [re.compile(rx, re.IGNORECASE) for rx in f.ordinary_shapes.get("always", [])]
    generic_shapes = [re.compile(rx) for rx in f.ordinary_shapes.get("generic", [])]
    ordinary = frozenset(" ".join(n.lower().split()) for n in f.ordinary_nouns)
    return noun, generic, kinds, always, generic_shapes, ordinary


@cache
def _lower_kinds() -> dict[str, str]:
    return {k.lower(): v for k, v in _frames()[2].items()}


_PASSPHRASE = re.compile(r"^[^\W\d_]{2,}(?:[-._][^\W\d_]{2,}){2,}(?:[-._]\d+)?$")


# a number and a counter of a language written without spaces: "8文字" (characters), "6桁"
# (digits), "8자" / "8자리", "6位", "3回", "100円", "2階" (floor): a count or a measure, no value
_COUNTER = re.compile(r"\d+(?:文字|桁|자리|자|글자|位|个|個|回|日|円|元|分|時間|時|秒|歳|살|개|번|次|人|"
                      r"階|号|番|楼|层|층|호|枚|本|台|件|度|年|月|週|キロ|メートル|센티|킬로)")


def _shaped(core: str, *, strict: bool) -> bool:
    """A token shaped like a secret: digits (3+; 4+ when `strict`), letters with digits, mixed
    case within a word, symbols among letters, or a word-list passphrase (three words or more
    joined by - . _). An email address or a web address is none."""
    if len(core) < 3 or ("@" in core and "." in core.split("@")[-1]) \
            or core.lower().startswith(("http", "www.", "//")) \
            or re.match(r"(?:~?/|[A-Za-z]:\\)\w", core):  # "https://…" cut at its colon; a path
        return False
    if re.fullmatch(r"\d+['’]?s", core) or _COUNTER.search(core):
        return False  # "2019's", "the 1990s": a year's; "8文字以上": eight characters
    plain = core.rstrip("#*")
    if plain.isdigit():
        return len(plain) >= (4 if strict else 3)
    if re.fullmatch(r"\d+(?:[-/.]\d+)+", plain):  # a code in groups: "12-34", "4-1-7"
        return sum(c.isdigit() for c in plain) >= (4 if strict else 3)
    letters = any(c.isalpha() for c in core)
    digits = any(c.isdigit() for c in core)
    symbols = any(not c.isalnum() for c in core)
    if letters and digits:
        if strict:  # "Model3", "iPhone15" are names: a generic value needs more than that
            return len(core) >= 6 and (sum(c.isdigit() for c in core) >= 2 and symbols
                                       or sum(c.isdigit() for c in core) >= 3 or symbols)
        return len(core) >= 4
    if _PASSPHRASE.match(core):
        return True
    if letters and symbols and len(core) >= (6 if strict else 5) and not core.endswith("'s"):
        return bool(re.search(r"[!#$%&*+=?@^_~|\\/]", core))
    inner = core[1:]
    return not strict and len(core) >= 6 and any(c.isupper() for c in inner) and any(c.islower() for c in core)


def _ordinary(core: str, *, generic: bool = True) -> bool:
    """An ordinary number's shape (memory/secret_frames/frames.json): a price, a time, a
    version, a measure, a year; in the generic frame also a date, a flight number, a postcode
    or a short number (invariant 460). Beside a secret noun "4-1-7" is a combination."""
    _n, _g, _k, always, generic_shapes, _o = _frames()
    return any(rx.match(core) for rx in always) or _YEAR.match(core) is not None or (
        generic and any(rx.match(core) for rx in generic_shapes))


_YEAR = re.compile(r"^(?:19|20)\d\d$")


@cache
def _ordinary_nouns() -> frozenset[str]:
    return frozenset(n.lower() for n in secret_frames.tables().frames.ordinary_nouns)
_FUNCTION = (r"(?:this|its|thanks|as|is|was|has|plus|yes|us|always|pls|his|for|on|in|to|at|then|"
             r"and|or|the|my|our|your|a|an|if|so|but|with|from|by|of|it|that|which|e|et|y|und)")
_COUNT = re.compile(rf"\s+(?:(?!{_FUNCTION}\b)[a-z]+\s+)?(?!{_FUNCTION}\b)[a-z]{{3,}}s\b")


def _count_or_measure(text: str, end: int) -> bool:
    """A number a unit or a counted plural follows is a quantity ("120 mg", "300 pins",
    "3 dollars"), no code."""
    nxt = re.match(r"\s*(\S+)", text[end:])
    unit = nxt.group(1).strip(_EDGE).lower() if nxt else ""
    if unit and unit != "in" and (_ordinary("1 " + unit, generic=False)
                                  or unit in {"people", "staff", "users", "times", "members"}):
        return True
    return _COUNT.match(text, end) is not None or _STATUS.match(text, end) is not None


# "404 not found", "500 error": a number a status follows is a web page's or a device's
_STATUS = re.compile(r"\s+(?:not\s+found|errors?|forbidden|unauthori[sz]ed|bad\s+request|"
                     r"server\s+error|timeout)\b", re.IGNORECASE)



def _owned_by_ordinary(before: str, ordinary: frozenset[str]) -> bool:
    """"model number of the fridge: RB38T602CSA": the label is an ordinary noun's (invariant 460)."""
    m = re.search(r"(?:^|\s)([\w-]+)\s+([\w-]+)\s+(?:of|for|on|at)\s*$", before)
    return bool(m and (m.group(2).lower() in ordinary
                       or f"{m.group(1)} {m.group(2)}".lower() in ordinary))


_VERBS = frozenset({"be", "been", "will", "would", "is", "was", "are", "were", "said", "says",
                    "told", "asked", "wrote", "said:"})
# how far a copula is looked for after its noun: a long sentence is read in linear time
_REACH_CHARS = 400
_LAST_WORD = re.compile(r"([\w-]+)\W*$")  # the word before a noun, searched in a window
_LAST_TWO = re.compile(r"(?:([\w-]+)\s+)?([\w-]+)\W*$")


def _qualified(text: str, start: int, not_after: frozenset[str]) -> bool:
    """The word or two words before a noun make it another thing's ("zip code", "promo code",
    "visual studio code" — while "studio door" stays a door; invariant 460)."""
    m = _LAST_TWO.search(text, max(0, start - 100), start)
    return bool(m and (m.group(2).lower() in not_after
                       or f"{m.group(1) or ''} {m.group(2)}".lower() in not_after))
_SCANNED_ONLY = frozenset({"an identity number", "a security answer", "a recovery phrase"})


def _framed(text: str) -> list[tuple[int, int]]:
    noun, generic, kinds, always, generic_shapes, ordinary = _frames()
    _kinds = _lower_kinds()
    spans = []

    def take(m: re.Match, *, strict: bool, kind: str = "") -> None:
        raw = m.group("tok")
        core = _core(raw)
        if not core or not _shaped(core, strict=strict) or _NOT_A_VALUE.match(core) \
                or not _long_enough(kind, core):
            return
        if any(rx.match(core) for rx in always) or strict and any(
                rx.match(core) for rx in generic_shapes) \
                or core.isdigit() and _count_or_measure(text, m.start("tok") + len(raw)):
            return  # "Combination skis: 160 cm": a measure
        off = m.start("tok") + raw.index(core)
        spans.append((off, off + len(core)))

    not_after = _scan_tables()[3]
    bare = frozenset(secret_frames.tables().frames.bare_nouns)
    for m in noun.finditer(text):
        said = " ".join(m.group("noun").lower().split())
        if _qualified(text, m.start(), not_after) or said in bare \
                or _not_this(text, m.start("noun"), m.end("noun")) \
                or _ordinary_after().match(text, m.end("noun")) \
                or _not_its_value(text, m.start("noun"), m.end("noun")) \
                or _kinds[said] in _SCANNED_ONLY:
            continue  # "zip code is 94110"; a bare "code", an id or an answer: the scan reads
        if not _clock(text, said, (m.start("tok"), m.start("tok") + len(_core(m.group("tok"))))):
            take(m, strict=False, kind=_kinds[said])
    for m in generic.finditer(text):
        x = " ".join(m.group("x").lower().split())
        last = x.split()[-1]
        if x in ordinary or last in ordinary or " ".join(x.split()[-2:]) in ordinary \
                or _VERBS.intersection(x.split()) \
                or _owned_by_ordinary(text[max(0, m.start() - 100):m.start()], ordinary):
            continue  # "the rent will be: 1450": a clause, no label (invariant 460)
        if not _clock(text, x, (m.start("tok"), m.start("tok") + len(_core(m.group("tok"))))):
            take(m, strict=True)
    return spans


# "Popular PINs like 1111", "passwords such as Password1": examples of a kind, nobody's own
_EXAMPLES = re.compile(r"['’]?\s+(?:like|such\s+as|e\.g\.|for\s+(?:example|instance)|including)"
                       r"(?![\w-])", re.IGNORECASE)
_OWNER = re.compile(r"(?:^|[^\w'’-])(?P<w>[\w'’-]+)\s+(?:of|for)\s+(?:(?:the|my|our|your|this|"
                    r"that|his|her|their|a|an)\s+)?(?:[\w'’-]+\s+){0,2}$", re.IGNORECASE)


@cache
def _owners() -> frozenset[str]:
    return frozenset(w.lower() for w in secret_frames.tables().frames.owners)


def _not_its_value(text: str, start: int, end: int) -> bool:
    """A noun whose value is not what follows (invariant 460): examples of its kind ("Common
    PINs like 1234"), or another thing's, named before it ("SSID of the cabin wifi is …", "the
    name of the office wifi": frames.json `owners`)."""
    if _EXAMPLES.match(text, end):
        return True
    m = _OWNER.search(text, max(0, start - 80), start)
    return bool(m and m.group("w").lower() in _owners())


def _merged(spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
    out: list[tuple[int, int]] = []
    for s, e in sorted(spans):
        if out and s <= out[-1][1]:
            out[-1] = (out[-1][0], max(e, out[-1][1]))
        else:
            out.append((s, e))
    return out


# The scan (invariant 460) -------------------------------------------------------------------------
# From each secret noun of the tables, up to `scan_words` words on within its sentence, the first
# copula or opener ("is", ":", "opens with", "press", "?") followed by a value of the noun's kind
# — so the noun may stand far from its value ("the code to get into the bike store at work is
# C-1492") — or a value right after the noun ("PUK 88130475"). The kind says what a value looks
# like: digits (also spaced, "7 2 0 4", or grouped, "12 345 678 901") or a secret-shaped token
# for codes, PINs, keys and passwords; for a password also one plain word closing the clause
# ("My laptop password? purplerain"); the words of the clause for a security answer ("was a
# Vauxhall Nova"); a run of eight words or more for a recovery phrase. A noun right after a word
# of `not_after` ("zip code", "promo code") is none.
# never the dot of an abbreviation: "i.e.", "no." ("licence no. is …")
# a mark alone between spaces ends no clause: "the old one with a ! on the end: Pemberley9!"
_CLAUSE_END = re.compile(r"(?<!\b[A-Za-z]\.[A-Za-z])(?<!\b[Nn][Oo])(?<!\b[Nn][Rr])(?<!\s)[.!?;]"
                         r"(?=\s|$)"
                         r"|\n")


@lru_cache(maxsize=8)
def _clause_stops(text: str) -> tuple[list[int], list[re.Match]]:
    found = list(_CLAUSE_END.finditer(text))
    return [m.start() for m in found], found


def _clause_stop(text: str, pos: int) -> re.Match | None:
    """The first clause end at or after `pos`, found once per text (a long message with many
    nouns is read in linear time, never searched again from every noun)."""
    starts, found = _clause_stops(text)
    i = bisect_left(starts, pos)
    return found[i] if i < len(found) else None


_ANSWER_END = re.compile(r"\s*(?:[,.;!?—–()]|\s-\s|\b(?:that|they|and|but|so|which|because|if|"
                         r"in\s+case|when|just|lol|btw|haha)\b|$)")
_QUESTION = re.compile(r"\banswer\s+(?:[\w'’]+\s+){0,3}?(?:to|for)\s+(?:my\s+|the\s+)?"
                       r"[\"'‘“][^\"'’”]{3,80}[\"'’”]"
                       # "the 'favourite teacher' question": a quoted topic named a question
                       r"|[\"'‘“][^\"'’”]{3,80}[\"'’”][ \t]+(?:security[ \t]+)?question\b",
                       re.IGNORECASE)
_DIGIT_WORD = r"(?:zero|oh|one|two|three|four|five|six|seven|eight|nine)"
# "four double seven one": "double" and "triple" say a digit twice or three times
_SPELLED = re.compile(rf"(?:(?:double|triple)\s+)?{_DIGIT_WORD}(?:[\s,-]+(?:(?:double|triple)\s+)?"
                      rf"{_DIGIT_WORD}){{2,}}\b", re.IGNORECASE)

# a clause opening with a subject says what happened, no answer: "was wrong, so I called the bank"
_SUBJECTS = frozenset({"i", "we", "you", "he", "she", "they", "i'm", "i’m", "i've", "i’ve",
                       "i'd", "i’d", "i'll", "i’ll", "we'd", "we’d", "we'll", "we’ll"})


@cache
def _plain_copulas() -> frozenset[str]:
    """Copulas after which one plain word closing the clause is a password ("is", ":", "→")."""
    return frozenset(secret_frames.tables().frames.plain_copulas)


@cache
def _scan_tables() -> tuple[re.Pattern, dict[str, str], re.Pattern, frozenset[str], int]:
    t = secret_frames.tables()
    kinds = {" ".join(n.lower().split()): row.kind for row in t.nouns for n in row.nouns}
    noun = re.compile(rf"(?P<noun>{_alternation(list(kinds))})(?:'s|’s)?[\"'’”]?", re.IGNORECASE)
    cop = re.compile(_copulas(t.frames.copulas), re.IGNORECASE)
    return noun, kinds, cop, frozenset(w.lower() for w in t.frames.not_after), \
        t.frames.scan_words


def _digit_run(text: str, pos: int, *, identity: bool = False,
               year: bool = False) -> tuple[int, int] | None:
    """Digits said in groups from `pos`: "7 2 0 4", "12 345 678 901", "0-4-1-1-9"; a year's
    shape only when `year` ("PIN: 1953", invariant 460)."""
    m = re.match(r"[ \t]*(?P<v>\d+(?:(?:[ \t]|[-./](?=\d))\d+)*)(?![\w/:])", text[pos:])
    if identity and not m:  # "QQ 12 34 56 C", "SMITH 804 21J 9AB": letters open it
        m = re.match(r"[ \t]*(?P<v>[A-Z]{1,5}(?:[ \t-]?[A-Z\d]{1,6}){1,5})(?![\w-])", text[pos:])
    if not m:
        return None
    value = m.group("v")
    if sum(c.isdigit() for c in value) < (5 if identity else 3) or (
            not identity and (_ordinary(value, generic=False)  # "123.456.789-09" is an id
                              and not (year and _YEAR.match(value))
                              or _count_or_measure(text, pos + m.end("v")))):
        return None
    return pos + m.start("v"), pos + m.end("v")


@cache
def _min_length() -> dict[str, int]:
    return secret_frames.tables().frames.min_length


def _long_enough(kind: str, value: str) -> bool:
    """A value holds its kind's fewest characters (a Wi-Fi key eight, as WPA2 asks): "the wifi
    at the hotel is 5GHz" or "wifi is 500 Mbps" hand no key over (invariant 460)."""
    return len(value.replace(" ", "")) >= _min_length().get(kind, 0)


def _value_at(text: str, pos: int, kind: str, copula: str | None, *,
              answer: bool = False) -> tuple[int, int] | None:
    """The span of a value of `kind` at `pos` (after a copula, or right after the noun)."""
    span = _value_of(text, pos, kind, copula, answer=answer)
    return span if span and _long_enough(kind, text[span[0]:span[1]]) else None


_PARTICIPLE = re.compile(r"[a-z]+(?:ed|ing)")
_ASKING = re.compile(r"(?:what|which|who|whose|where|when|how|name|in\s+what)\b|.*\?\s*$|"
                     r".*\byour?\b",
                     re.IGNORECASE)


def _asks(value: str) -> bool:
    """A security question's own wording, no answer: it asks ("What was your first car?",
    "name of your first pet") or names a topic of `question_topics` ("mother's maiden name")."""
    return bool(_ASKING.match(value.strip()) or _topics_said().search(value))


# 'the security question was "first school", the answer is "Hillcrest"': once a question is
# named, "answer" alone ("I said …", "I put …") names its answer in the next 200 characters
_ANSWER_CUE = re.compile(r"\b(?:answer(?:'s|’s)?[ \t]*(?:is|was|:|=|->|→|-)|(?:i|we)[ \t]+"
                         r"(?:said|put|wrote|answered|typed|gave|chose|picked|used|entered|went[ \t]+with))"
                         r"(?=[\s\"'“‘])",
                         re.IGNORECASE)


def _answered(text: str, nouns: list[tuple[int, int, str]]) -> list[tuple[int, int]]:
    spans = []
    for _start, end, kind in nouns:
        if kind != "a security answer" or "question" not in text[_start:end].lower():
            continue
        cue = _ANSWER_CUE.search(text, end, end + 200)
        stop = cue and _clause_stop(text, cue.end())
        span = cue and _value_at(text[:stop.start() if stop else len(text)], cue.end(), kind,
                                 ":", answer=True)
        if span:
            spans.append(span)
    return spans


@cache
def _topics_said() -> re.Pattern:
    words = secret_frames.tables().frames.question_topics
    return re.compile(_alternation(words) if words else r"(?!)", re.IGNORECASE)
_POINTERS = frozenset({"see", "ask", "check", "look", "call", "find", "get", "text", "use", "in",
                       "on", "at", "the", "a", "an", "same", "different", "too", "very", "so",
                       "long", "short", "new", "old", "set", "just", "not", "still"})


_LIKE = re.compile(r"optional|recommended|mandatory|enabled|disabled|empty|blank|unset|missing|"
                   r"invalid|incorrect|required|needed|expired|locked|wrong|changed|reset|too|"
                   r"long|short|strong|weak")


def _passphrase(rest: str, copula: str | None) -> int:
    """"ssh passphrase for the pi → tangerine dream over reykjavik": after a copula, three to
    eight plain words closing the clause (their length; 0 when none: read as a password)."""
    said = re.match(r"[^\W\d_]{2,}(?:[ \t]+[^\W\d_]{2,}){2,7}(?=[\"'”’]?\s*(?:[,.;!?]|$))", rest)
    first = said.group().split()[0].lower() if said else ""
    if _LIKE.fullmatch(first):
        return 0  # "is optional but recommended": what it is like ("correct horse …" is one)
    # never where it is kept, what was done to it, or who to ask: "is in the password
    # manager", "was changed by IT today", "see the sealed envelope", "ask Tom"
    if said and copula in _plain_copulas() and first not in _SECRET_WORDS | _SUBJECTS \
            and first not in _POINTERS and not re.fullmatch(r"[a-z]+ed", first) \
            and not _WHERE.match(said.group()) and not _scan_tables()[0].search(said.group()):
        return said.end()
    return 0


# a console's passkey: arrows and controller buttons, four presses or more (invariant 460)
_BUTTON = r"(?:[←↑→↓⬅⬆➡⬇]|\b(?:[LR][BT]|[ABXY])\b)"
_BUTTONS = re.compile(rf"{_BUTTON}(?:[ \t,]*{_BUTTON}){{3,}}")


def _keys_pressed(rest: str, kind: str) -> int:
    """How long a value of keys pressed in turn at the start of `rest` is, 0 when none: digits
    with an entry panel's key between them ("27 klucz 48"), a console's buttons ("↓ ← ↑ → LB
    RB")."""
    keyed = _keyed().match(rest) if kind in ("a PIN", "a security code") else None
    if keyed:
        return keyed.end()
    pressed = _BUTTONS.match(rest) if kind == "a password" else None
    if pressed and re.search(r"[←↑→↓⬅⬆➡⬇]|\b[LR][BT]\b", pressed.group()):
        return pressed.end()
    return 0


@cache
def _keyed() -> re.Pattern:
    """Digits with an entry panel's key pressed between them (frames.json `keypad_keys`)."""
    keys = secret_frames.tables().frames.keypad_keys
    return re.compile(rf"\d{{1,6}}(?:[ \t]+(?:{_alternation(keys)})[ \t]+\d{{1,6}})+"
                      if keys else r"(?!)", re.IGNORECASE)


# a code as services send one: capitals and digits strewn among each other, five to eight
# ("4QX7T", "K7P2Q9"); a word and a number ("SUMMER20") is a promotion's
_CODE_SHAPE = re.compile(r"(?=.*\d[A-Z])(?=.*[A-Z]\d)(?=(?:[A-Z]*\d){2})[A-Z\d]{5,8}")
# how long a value is, said before it: "4 digits, ", "six numbers: ", "8 characters —"
_LENGTH_TOLD = re.compile(r"(?:(?:only|just)\s+)?(?:\d{1,2}|three|four|five|six|seven|eight)\s+"
                          r"(?:digits?|numbers?|characters?|chars|letters)(?:\s+long)?"
                          r"\s*(?:[,:;]|\s[-—–])\s*", re.IGNORECASE)


def _past_length(text: str, pos: int) -> int:
    told = _LENGTH_TOLD.match(text, pos)
    return told.end() if told else pos


def _value_of(text: str, pos: int, kind: str, copula: str | None, *,
              answer: bool = False) -> tuple[int, int] | None:
    lead = re.match(r"[\s:=\-—–*]*", text[pos:])  # "*4417#": the star is a key pressed
    pos += lead.end() if lead else 0
    pos = _past_length(text, pos)  # "is 4 digits, 7-0-5-2": the count, then the value
    rest = text[pos:]
    quoted = re.match(r"[\"“‘'](?P<v>[^\"”’\n]{3,60}?)[\"”’'](?=[\s,.;!?)]|$)", rest)
    if quoted and copula and kind != "an identity number":  # "is 'the owl flies at noon 4'"
        if kind == "a security answer" and not answer and _asks(quoted.group("v")):
            return None  # 'the security question was "name of your first school"'
        return pos + quoted.start("v"), pos + quoted.end("v")
    if kind == "a passphrase":
        said = _passphrase(rest, copula)
        if said:
            return pos, pos + said
        kind = "a password"
    if kind == "a recovery phrase":
        m = re.match(r"(?:[^\W\d_]{2,}[ \t]+){7,23}[^\W\d_]{2,}", rest)
        # "is written on steel plates in the safe": two words in three are on a BIP39 list
        listed = m and secret_shapes.listed_share(m.group()) >= 2 / 3
        return (pos, pos + m.end()) if m and copula and listed else None
    if kind == "a security answer":
        if not copula:
            return None
        art = re.match(r"[\"'“‘]?(?:(?:a|an|the)\s+)?", rest, re.IGNORECASE)
        start = pos + (art.end() if art else 0)
        end_m = _ANSWER_END.search(text, start)
        value = text[start:end_m.start() if end_m else len(text)].strip().strip("\"'“”‘’")
        words = value.split()
        plain = copula in _plain_copulas() and not copula[0].isalpha() or len(words) == 1
        if not value or len(words) > 4 or len(value) < 3 \
                or not (value[0].isupper() or value[0].isdigit() or plain and answer) \
                or words[0].lower() in _SECRET_WORDS | _SUBJECTS or _NOT_A_VALUE.match(value) \
                or _WHERE.match(words[0]) or len(words) == 1 and _PARTICIPLE.fullmatch(value) \
                or words[0].isdigit() and _count_or_measure(text, start + len(words[0])):
            return None  # "was rejected", "is 8 letters": what it is like, no answer
        off = text.index(value, start)
        return off, off + len(value)
    keys = _keys_pressed(rest, kind)
    if keys:
        return pos, pos + keys
    run = _digit_run(text, pos, identity=kind == "an identity number",
                     year=kind in ("a PIN", "a security code") and copula in _plain_copulas())
    if run:
        return run
    spelled = _SPELLED.match(rest)
    if spelled and kind in ("a PIN", "a security code"):  # "one two three four"
        return pos + spelled.start(), pos + spelled.end()
    w = _WORD.match(rest)
    if not w:
        return None
    core = _core(w.group())
    # "MORGA753116SM9IJ": five digits or more in one token; a tax number is one (invariant 273:
    # "my UTR is 98765 43210", "tax number: 12/345/67890"), a tax code or tax year never
    if kind == "an identity number":
        if sum(c.isdigit() for c in core) >= 5 and re.fullmatch(r"[\w./-]+", core):
            off = pos + w.group().index(core)
            return off, off + len(core)
        return None
    if not core or _NOT_A_VALUE.match(core) or _ordinary(core, generic=False):
        return None
    if kind in ("a PIN", "a security code") and not any(c.isdigit() for c in core):
        return None  # "the code? It's on GitHub": a code holds digits
    off = pos + w.group().index(core)
    if copula == "to" and not any(c.isdigit() for c in core):
        return None  # "from VS Code to JetBrains": after "to" only digits hand a value over
    if core.isdigit() and _count_or_measure(text, off + len(core)):
        return None  # "the safe limit is 120 mg a day"
    after = text[off + len(core):]
    # a value that closes its clause (a list item: "wifi pw SunnyOrchard!") needs no copula to
    # be read as leniently as after one (invariant 460)
    # "steam guard code 4QX7T": a sent code's capitals and digits
    if _shaped(core, strict=copula is None and not re.match(r"[!#*\"'”’]*\s*$", after)) \
            or kind in ("a PIN", "a security code") and _CODE_SHAPE.fullmatch(core):
        return off, off + len(core)
    if kind == "a password" and copula in _plain_copulas() and core.isalpha() and len(core) >= 4 \
            and core.lower() not in _SECRET_WORDS and not _WHERE.match(core) \
            and not re.search(r"(?:ed|ing)$", core) and re.match(r"\s*(?:[,.;!?]|$)", after):
        return off, off + len(core)
    return None


def _scanned(text: str) -> list[tuple[int, int]]:
    noun, kinds, cop, not_after, reach = _scan_tables()
    frames = secret_frames.tables().frames
    bare_nouns = frozenset(frames.bare_nouns)
    ordinary = frozenset(frames.ordinary_nouns)
    ordinary_after = _ordinary_after()
    reported = frozenset(frames.reported)
    found = [(m.start(), m.end(), kinds[" ".join(m.group("noun").lower().split())])
             for m in noun.finditer(text)]
    found += [(m.start(), m.end(), "a security answer") for m in _QUESTION.finditer(text)]
    spans = []
    for start, end, kind in found:
        if _qualified(text, start, not_after):
            continue
        if ordinary_after.match(text, end):  # "kod pocztowy", "código postal" (invariant 460)
            continue
        if _not_its_value(text, start, end):
            continue
        if _not_this(text, start, end):
            if _CHANGED.match(text[end:]):  # "our Wi-Fi changed!! now its Otter$Pond$88"
                spans += [s for s in [_anaphoric(text, end, kind, changed=True)] if s]
            continue
        # "My laptop password? purplerain": a question mark right after the noun asks for the one
        # value that follows it, and ends the clause for anything else
        asked = re.match(r"\?[ \t]*(?=\S)", text[end:])
        if asked:
            after = _clause_stop(text, end + 1)
            span = _value_at(text[:after.start() if after else len(text)], end + 1, kind, "?")
            if span:
                spans.append(span)
                continue
        stop = _clause_stop(text, end)
        clause_end = stop.start() if stop else len(text)
        span = _value_at(text[:clause_end], end, kind, None)
        said = re.sub(r"['’]s$", "", " ".join(text[start:end].lower().split()).strip("'’\"”"))
        bare = said in bare_nouns
        if span and bare and re.fullmatch(r"[\d\s./-]+", text[span[0]:span[1]]) \
                and sum(c.isdigit() for c in text[span[0]:span[1]]) < 4:
            span = None  # "back gate 2209" is a code, "shed 12" or "safe 300" none (invariant 460)
        # a lower-case answer only after a noun naming the answer itself, never the question
        answer = "question" not in said
        if span is None:
            passed = None  # where the last copula that handed nothing over ended
            for c in cop.finditer(text, end, min(clause_end, end + _REACH_CHARS)):
                said_cop = " ".join(c.group().lower().split())
                if passed is not None and said_cop in _VERB_COPULAS \
                        and _NEW_SUBJECT.search(text, passed, c.start()):
                    break  # "is 'sunny day' and the router is upstairs": another subject's
                passed = c.end()
                between = re.findall(r"[\w'’-]+", text[end:c.start()].lower())
                far = len(between) > reach
                if far and not _LABEL.match(said_cop) or bare and any(w in ordinary
                                                                      for w in between):
                    break
                # "wifi for the office is the usual one but with a 2 at the end: Pelican2": a
                # colon closing a long description labels its value (invariant 460)
                # "which my son says is insane": a copula of another clause's verb hands a plain
                # word to that clause, never to the noun (invariant 460)
                other = any(w in reported for w in between)
                span = _value_at(text[:clause_end], c.end(), kind,
                                 "," if far or other else said_cop, answer=answer)
                if span or kind == "a security answer":
                    break  # an answer follows its first copula: "→ married name on the form"
        items = _plural_list(text[:clause_end], end, said, kind, span)
        spans += items
        if items and span is None:
            continue
        if span is None:
            span = _nearby(text, (start, end, clause_end), kind, bare, ordinary)
        elif fixed := _anaphoric(text, end, kind, corrected=True):
            spans.append(fixed)  # "pin = 0000? no, it's 4826": the value said again, corrected
        if span and not _clock(text, said, span):
            spans.append(span)
    return spans + _said_first(text, found) + _derived(text, found) + _value_first(text) \
        + _used_as(text, found) + _answered(text, found) \
        + _labelled(text) + _topic_answers(text) + _replied(text, found) + _logins(text)


def _plural_list(text: str, end: int, said: str, kind: str,
                 span: tuple[int, int] | None) -> list[tuple[int, int]]:
    """The values of a list after a plural noun: "codes: front door 2287, side gate 9913",
    "backup codes 7741 0293 / 5588 1260" (the values after the first, same list)."""
    if not said.endswith("s") or kind in ("a recovery phrase", "a security answer"):
        return []
    listing = _LISTING.match(text, end)  # "codes (keep!): …" too
    if listing:
        return _listed(text, listing.end(), kind)
    if span and kind in ("a security code", "a PIN"):
        return _listed(text, span[1], kind)
    return []


def _nearby(text: str, at: tuple[int, int, int], kind: str, bare: bool,
            ordinary: frozenset[str]) -> tuple[int, int] | None:
    """A value with no copula: said before the noun, digits or a password-shaped token a few
    words after it, or in the next sentence (invariant 460)."""
    start, end, clause_end = at
    span = _said_before(text, start, kind)
    if span is None and kind in ("a PIN", "a security code", "a password") and not bare:
        span = _digits_near(text, end, clause_end, ordinary)
    if span is None and kind in ("a password", "a PIN", "a security code", "a network key"):
        span = _token_near(text, end, clause_end, kind)
    return span if span is not None else _anaphoric(text, end, kind)


@cache
def _ordinary_after() -> re.Pattern:
    words = secret_frames.tables().frames.ordinary_after
    return re.compile(rf"\s+(?:{_alternation(words)})" if words else r"(?!)", re.IGNORECASE)


# Invariant 460: the next sentence may hand over the value of the last one's noun when it opens
# with a pronoun and a copula of the tables ("The office wifi got reset. It's now ...", "new
# alarm code. it's 5817"); only a value shaped like a secret, never a plain word ("I changed my
# password. It's better"), a year or a time ("It's 2024", "It's 9am").
_NEW_SUBJECT = re.compile(r"\b(?:and|but|while|whereas)\s+(?:the|my|our|his|her|their|your|"
                          r"a|an|it|i|we|he|she|they)\b", re.IGNORECASE)
_VERB_COPULAS = frozenset({"is", "was", "are", "were", "will be", "is now", "est", "ist", "es",
                           "era", "è", "é", "är", "er", "jest", "je", "on"})
def _clock(text: str, said: str, span: tuple[int, int]) -> bool:
    """"I set the alarm to 0630", "my alarm: 0615 on weekdays": a clock's time, no code; and
    after any noun a time said "at 0600 on weekdays" ("the alarm panel beeps at …")."""
    if _CLOCK.fullmatch(text[span[0]:span[1]]) is None:
        return False
    to_time = _TO_TIME.search(text, max(0, span[0] - 20), span[0]) is not None
    when = _WHEN.match(text, span[1]) is not None
    return said in secret_frames.tables().frames.clock_nouns and (to_time or when) \
        or when and re.search(r"\bat\s*$", text[max(0, span[0] - 8):span[0]]) is not None


_TO_TIME = re.compile(r"\b(?:to|for|at|until)\s*$", re.IGNORECASE)
_WHEN = re.compile(r"\s+(?:on|every|each|daily|tomorrow|tonight|weekdays|weekends|sharp|"
                   r"in\s+the\s+morning)\b", re.IGNORECASE)
_CLOCK = re.compile(r"(?:[01]\d|2[0-3])[0-5]\d")
_LABEL = re.compile(r"^(?::|->|→|=>|⇒|➜|➡|⟶|-->)$")
_CHANGED = re.compile(r"\s*(?:changed|reset|expired|stopped)\b", re.IGNORECASE)


_CORRECTION = re.compile(r"\s*(?:no|nope|sorry|oops|actually|wait|correction)\b", re.IGNORECASE)


@cache
def _anaphora() -> re.Pattern:
    openers = _copulas(secret_frames.tables().frames.anaphora)
    return re.compile(rf"\s*(?:(?:and|so|but|ok|okay|no|nope|sorry|oops|actually|wait|"
                      rf"correction)[\s,:]+)*(?:{openers})(?:[ \t]*(?:->|→|=>|=)(?=\s))?",
                      re.IGNORECASE)  # "new one -> 5071"


# after a noun said changed, the new value may follow in the same sentence, after a comma, a
# dash or "so" ("the code for the back gate changed, new one is 6290", "PIN expired so the new
# one is 2846"); the same openers of `anaphora` (frames.json) hand it over
_LINK = re.compile(r"[^.!?;\n]{0,60}?(?:,|\s[-–—]|\bso\b)", re.IGNORECASE)


def _anaphoric(text: str, end: int, kind: str, *, corrected: bool = False,
               changed: bool = False) -> tuple[int, int] | None:
    stop = _clause_stop(text, end)
    if not secret_frames.tables().frames.anaphora:
        return None
    starts = [stop.end()] if stop else []
    if changed:
        limit = min(stop.start() if stop else len(text), end + 80)
        starts = [m.end() for m in _LINK.finditer(text, end, limit)] + starts
    for at in starts:
        opener = _anaphora().match(text, at)
        if not opener or corrected and not _CORRECTION.match(text, at):
            continue
        after = _clause_stop(text, opener.end())
        return _value_at(text[:after.start() if after else len(text)], opener.end(), kind, ",")
    return None


_LISTING = re.compile(r"\s*(?:\([^()\n]{0,40}\)\s*)?(?::|are\b:?)")


def _listed(text: str, pos: int, kind: str) -> list[tuple[int, int]]:
    """The value of each item of a list the noun opened ("front door 2287, side gate 9913",
    "48213 and 99172"): the first value among an item's first four words."""
    out = []
    for item in re.finditer(r"[^,&]+?(?=\s*(?:,|&|\band\b|\s[/|]\s|$))", text[pos:]):
        start = pos + item.start()
        for w in list(_WORD.finditer(text, start, pos + item.end()))[:4]:
            span = _value_at(text, w.start(), kind, ",")  # shaped, never a plain word
            if span:
                out.append(span)
                break
    return out


_BEFORE = re.compile(r"(?:^|[.!?;,:]\s+|\s[-–—]\s+|\n)(?P<v>[^\s,;]+)"
                     r"(?:\s+(?:is|was|=|-|—|–|→)\s+|\s*\()"
                     r"(?:(?:the|my|our|your)\s+)?(?:[\w-]+\s+){0,2}$", re.IGNORECASE)


def _said_before(text: str, start: int, kind: str) -> tuple[int, int] | None:
    """A value said before its noun, at the start of a clause: "9931 is the alarm code"."""
    m = _BEFORE.search(text, max(0, start - 300), start)
    if not m or kind in ("a recovery phrase", "a security answer"):
        return None  # "Sunflower!2 (gmail password)" is said before its noun too
    return _value_at(text, m.start("v"), kind, ",")  # shaped, never a plain word


def _digits_near(text: str, end: int, clause_end: int,
                 ordinary: frozenset[str]) -> tuple[int, int] | None:
    """Digits (four or more) a few words after a code's noun with no copula between:
    "Zugangscode fürs Büro 44 71 09"; never after an ordinary noun ("for room 1204")."""
    for w in islice(_WORD.finditer(text, end, clause_end), 4):
        if _core(w.group()).lower() in ordinary:
            return None
        if w.group()[0].isdigit():
            run = _digit_run(text[:clause_end], w.start())
            if run and sum(c.isdigit() for c in text[run[0]:run[1]]) >= 4:
                return run
            return None
    return None


# Invariant 460: a value given with what it is derived from ("the padlock is the same as my
# birthday, 1103", "PIN's the year we moved here, so 2009", "door code = dad's birth year 1961"):
# after a code's, PIN's or password's noun, a word of `derived` (frames.json) and then digits in
# the same clause are the value, a year's shape too.
_DERIVED_DIGITS = re.compile(r"(?<![\w/.:-])\d(?:[ \t-]?\d){2,7}(?![\w/.:%°-])")


# "same as my birthday 0412 for the lockbox": a derived value said before its noun, only after
# "same as" and with at most three words between it and the noun
_SAME_FIRST = re.compile(r"\b(?:same\s+as|still)\b(?P<m>[^.!?;\n]{0,40}?)(?<![\w/.:-])"
                         r"(?P<d>\d(?:[ \t-]?\d){2,7})(?![\w/.:%°-])"
                         r"(?:[ \t,—–-]+[\w'’]+){0,3}[ \t,—–-]*$", re.IGNORECASE)


@cache
def _clock_nouns() -> frozenset[str]:
    return frozenset(secret_frames.tables().frames.clock_nouns)


@cache
def _derivation() -> re.Pattern:
    words = secret_frames.tables().frames.derived
    return re.compile(rf"(?:{_alternation(words)})" if words else r"(?!)", re.IGNORECASE)


def _derived(text: str, nouns: list[tuple[int, int, str]]) -> list[tuple[int, int]]:
    not_after = _scan_tables()[3]
    spans = []
    for start, end, kind in nouns:
        if kind not in ("a PIN", "a security code", "a password", "a network key"):
            continue
        if _qualified(text, start, not_after) or _ordinary_after().match(text, end):
            continue
        stop = _clause_stop(text, end)
        clause_end = min(stop.start() if stop else len(text), end + 160)
        said = _derivation().search(text, end, clause_end)
        if not said:  # said first: "same as my birthday 0412 for the lockbox"
            first = _SAME_FIRST.search(text, max(0, start - 80), start)
            if first and _derivation().search(first.group("m")) \
                    and not _TO_TIME.search(text, max(0, first.start("d") - 8), first.start("d")) \
                    and not (" ".join(text[start:end].lower().split()) in _clock_nouns()
                             and _CLOCK.fullmatch(first.group("d"))):  # "2024 … alarm clock"
                spans.append((first.start("d"), first.end("d")))
            continue
        digits = said and _DERIVED_DIGITS.search(text, said.end(), clause_end)
        if digits and not _count_or_measure(text, digits.end()):
            spans.append((digits.start(), digits.end()))
        elif said:  # "postcode + birth year, BS71987": the value made of both
            for w in _WORD.finditer(text, said.end(), clause_end):
                core = _core(w.group())
                if _LONE_DIGIT.search(core) and _shaped(core, strict=True) and not _ordinary(core):
                    off = w.start() + w.group().index(core)
                    spans.append((off, off + len(core)))
                    break
    return spans


# Invariant 460: a value said first, its noun after a cue pointing back ("Quartz_Hill_204 ←
# steam login", "5937 – that's the lockbox", "'Pebble&Fern9' is what the router wants"): a token
# shaped like a secret opening a clause, an arrow, dash, "=" or "is", and within six words a
# secret noun of the tables, or (for a token with a password's symbols) a word that names an
# account's secret ("login", "the netflix one", "what the router wants").
_FIRST = re.compile(r"(?:^|(?<=[\n.!?;]\s)|(?<=\n))[ \t>]*(?P<v>[\"'“‘]?[^\s\"'“”‘’]+[\"'”’]?)"
                    r"[ \t]*(?:<-+|←|⟵|⇐|-+>|→|=>|➜|–|—|-|=|is|was)[ \t]+(?P<rest>[^\n.!?;]{1,60})",
                    re.IGNORECASE)
_ACCOUNT = re.compile(r"(?:^|\s)(?:(?:that'?s|that’s)\s+(?:the|my|our)\s+[\w+-]+\s*$|"
                      r"log-?in|sign-?in|logon|the\s+[\w+-]+\s+one|wants|needs|takes|"
                      r"asks\s+for|uses)\b(?!\s+(?:name|id|e-?mail|page|screen|form)\b)",
                      re.IGNORECASE)
def _names_secret(rest: str, n: re.Match, bare: frozenset[str], not_after: frozenset[str]) -> bool:
    """A noun that names a secret: never a bare one ("B-4471 is the gate": a place) nor one an
    ordinary word qualifies ("the zip code"); "<- garage keypad" names the keypad's code."""
    said = " ".join(n.group("noun").lower().split())
    return said not in bare and not _qualified(rest[:n.start()], n.start(), not_after)


# Invariant 460: a password-shaped token under a short label opening a clause ("work laptop:
# Q4-Forecast!x", "parent portal login → ParentsEve#9"): a symbol inside the token, between a
# letter or digit on each side, eight characters or more ("C#m7" is a chord), and the token
# closing its clause; never after an ordinary label ("Flight: …", "Order: …").
_LABELLED = re.compile(r"(?:^|(?<=[\n.!?;]\s)|(?<=\n))[ \t>*•-]*(?P<label>(?:[^\W\d_][\w'’-]*[ \t]+)"
                       r"{0,3}[^\W\d_][\w'’-]*)[ \t]*(?::|→|->|=>|➜|=)[ \t]*"
                       r"(?P<v>[\"'“‘`]?[^\s\"'“”‘’`]+[\"'”’`]?)(?=[ \t]*(?:[,;!?()]|\.(?:\s|$)|\n|$))")
# "Server=sql01;Database=crm", "a+b=c2", a URL: settings, sums and addresses (a URL's password
# is read by memory/secret_shapes.py), no password
_SETTING = re.compile(r"^[\w.+-]*=|.*;|.*://")
_INNER_SYMBOL = re.compile(r"[^\W_][!#$%&*@^~+=?][^\W_]")


def _labelled(text: str) -> list[tuple[int, int]]:
    ordinary = _ordinary_nouns()
    noun = _scan_tables()[0]
    spans = []
    for m in _LABELLED.finditer(text):
        if noun.search(m.group("label")):
            continue  # "WLAN im Büro:": a secret's noun, read by its kind's rules
        core = _core(m.group("v"))
        words = m.group("label").lower().split()
        service = _services().fullmatch(" ".join(words))  # "netflix: Bluebell_Lane_88"
        if not (_passwordish(core) and (_INNER_SYMBOL.search(core) or service)) \
                or _ordinary(core) \
                or _SETTING.match(core) or len(core) < 8 \
                or words[-1] in ordinary or " ".join(words[-2:]) in ordinary:
            continue
        off = m.start("v") + m.group("v").index(core)
        spans.append((off, off + len(core)))
    return spans


# Invariant 460: a security question's topic asked and answered ("first pet? Biscuit", "first
# car: Fiesta"): the topics are data (frames.json `question_topics`); a topic in a sentence
# ("our first pet was a goldfish") answers nothing.
@cache
def _topics() -> re.Pattern:
    words = secret_frames.tables().frames.question_topics
    return re.compile(rf"(?:{_alternation(words)})(?:'s|’s)?(?:\s+name)?\s*(?:\?|:|=|->|→)[ \t]*"
                      if words else r"(?!)", re.IGNORECASE)


def _topic_answers(text: str) -> list[tuple[int, int]]:
    spans = []
    for m in _topics().finditer(text):
        stop = _clause_stop(text, m.end())
        span = _value_at(text[:stop.start() if stop else len(text)], m.end(),
                         "a security answer", ":", answer=True)
        if span:
            spans.append(span)
    return spans


# Invariant 460: a quoted e-mail reply ("> whats the wifi password at yours\nKestrel_Moon_4"):
# a quoted line naming a secret's noun is a question; the first line of the reply under it
# answers it when it opens (after "sure,", "it's" …) with a value of the noun's kind, shaped like
# one (never a plain word: "thanks, yes").
_QUOTED_LINE = re.compile(r"^[ \t]*>.*$", re.MULTILINE)
_REPLY_OPENER = re.compile(r"[ \t]*(?:(?:sure|yes|yep|yeah|ok|okay|no\s+probs?|np|hi|hey|here|"
                           r"it'?s|it’s|its|of\s+course|course)\b[ \t]*[,:!—–-]*[ \t]*)*",
                           re.IGNORECASE)
_ASKED_BARE = frozenset({"code", "codes", "le code", "der code", "codice", "código", "koden",
                         "kod", "код", "pin", "pins"})


def _live(text: str, start: int, end: int) -> bool:
    """A noun that names a secret here: not "promo code", "code postal" or "password policy"."""
    before = _LAST_WORD.search(text, max(0, start - 100), start)
    return not (before and before.group(1).lower() in _scan_tables()[3]
                or _ordinary_after().match(text, end) or _not_this(text, start, end))


def _replied(text: str, nouns: list[tuple[int, int, str]]) -> list[tuple[int, int]]:
    if ">" not in text:
        return []
    bare = frozenset(secret_frames.tables().frames.bare_nouns)
    spans = []
    for q in _QUOTED_LINE.finditer(text):
        asked = [(k, " ".join(text[s:e].lower().split()).strip("'’\"”"))
                 for s, e, k in nouns if q.start() <= s < q.end() and _live(text, s, e)]
        asked = [(k, said) for k, said in asked if said not in bare or said in _ASKED_BARE]
        answer = re.compile(r"\n[ \t]*(?:>[ \t]*)?\n|\n").search(text, q.end())
        if not asked or not answer:
            continue
        line = re.match(r"[^\n]*", text[answer.end():])
        if not line or line.group().lstrip().startswith(">") or not line.group().strip():
            continue
        opener = _REPLY_OPENER.match(text, answer.end())
        start = opener.end() if opener else answer.end()
        end = answer.end() + line.end()
        span = _value_at(text[:end], start, asked[-1][0], ",")
        if span and not _clock(text, asked[-1][1], span):
            spans.append(span)
    return spans


# "my sister's netflix login, Sunbeam_Road_14": a password-shaped token right after "login"
# (a plain name after it is a user name: "my login is jsmith")
_LOGIN = re.compile(r"\b(?:log-?in|sign-?in|logon)\b[ \t]*(?:is|was|[,:=→-]|->)?[ \t]*"
                    r"(?P<v>[\"'“‘`]?[^\s\"'“”‘’`,;]+)", re.IGNORECASE)


def _logins(text: str) -> list[tuple[int, int]]:
    spans = []
    for m in _LOGIN.finditer(text):
        core = _core(m.group("v"))
        if _passwordish(core) and not _ordinary(core):
            off = m.start("v") + m.group("v").index(core)
            spans.append((off, off + len(core)))
    return spans


def _passwordish(core: str) -> bool:
    """A password's shape, not a name's: letters and digits with a symbol among them
    ("Ravenna#31", "Pebble&Fern9"), or joined by "_" in mixed case ("Quartz_Hill_204"); never a
    dash's name ("GT-7700"), a digitless "snake_case" or a file's "Q3_2024"."""
    if not (_LONE_DIGIT.search(core) and re.search(r"[^\W\d_]", core)):
        return False
    if re.search(r"[^\W_][!#$%&*@^~+=?]|[!#$%&*@^~+=?][^\W_]", core):
        return True
    return "_" in core and core.lower() != core and core.upper() != core


# "password123 is still the most common password": a kind's example, no one's secret
_GENERIC = re.compile(r"\b(?:common|popular|weak|weakest|worst|typical|default|famous|example|"
                      r"classic|cliché|cliche|like|most|such|joke|fake|dummy|sample)\b", re.IGNORECASE)


@cache
def _services() -> re.Pattern:
    """Services whose name says a password-shaped token is its login ("… <- netflix")."""
    words = secret_frames.tables().frames.services
    return re.compile(_alternation(words) if words else r"(?!)", re.IGNORECASE)


def _value_first(text: str) -> list[tuple[int, int]]:
    noun, kinds, _cop, not_after, _reach = _scan_tables()
    bare = frozenset(secret_frames.tables().frames.bare_nouns)
    spans = []
    for m in _FIRST.finditer(text):
        core = _core(m.group("v"))
        if not core or not _shaped(core, strict=True) or _ordinary(core):
            continue
        rest = " ".join(m.group("rest").split()[:6])
        if _GENERIC.search(rest):
            continue
        named = any(_names_secret(rest, n, bare, not_after) for n in noun.finditer(rest))
        if named or _passwordish(core) and (_ACCOUNT.search(rest) or _services().search(rest)):
            off = m.start("v") + m.group("v").index(core)
            spans.append((off, off + len(core)))
    return spans


def _token_near(text: str, end: int, clause_end: int, kind: str) -> tuple[int, int] | None:
    """A password-shaped token closing the clause a few words after its noun with no copula
    ("пароль от ноутбука Сирень#2017", "password for the work laptop Birch&Lake4"): the words
    between say whose it is (invariant 460)."""
    for w in islice(_WORD.finditer(text, end, clause_end), 5):
        core = _core(w.group())
        if _passwordish(core) and _long_enough(kind, core) and re.match(r"[\"'”’!#*]*\s*(?:[,.;!?)]|$)", text[w.end():clause_end]
                                           + (text[clause_end:clause_end + 1] or "")):
            off = w.start() + w.group().index(core)
            return off, off + len(core)
    return None


def _said_first(text: str, nouns: list[tuple[int, int, str]]) -> list[tuple[int, int]]:
    """A value an opener hands over before its noun: "enter 3917 on the panel to disarm the
    alarm", "use 4471 for the gate" (the noun in the same sentence)."""
    frames = secret_frames.tables().frames
    if not nouns or not frames.openers:
        return []
    opener = re.compile(rf"(?:{_alternation(frames.openers)})\s+", re.IGNORECASE)
    spans = []
    for m in opener.finditer(text):
        if _ADVICE.search(text, max(0, m.start() - 30), m.start()):
            continue  # "don't use 1111 as your PIN": advice, nothing handed over
        run = _digit_run(text, m.end())
        if not run or sum(c.isdigit() for c in text[run[0]:run[1]]) < 4:
            continue
        stop = _clause_stop(text, run[1])
        sentence_end = stop.start() if stop else len(text)
        # the noun anywhere in the sentence: "if the alarm goes off, punch 8 0 6 4"
        stops = _clause_stops(text)[1]
        before = [m2.end() for m2 in stops if m2.end() <= m.start()]
        sentence_start = before[-1] if before else 0
        named = [" ".join(text[s:e].lower().split()) for s, e, _k in nouns
                 if (run[1] <= s or sentence_start <= s < m.start()) and s < sentence_end
                 and text[s:e].lower().strip() not in ("token",)
                 and not _generic_plural(text, s, e)]
        if named and not (_CLOCK.fullmatch(text[run[0]:run[1]])  # "set it to 0630, the alarm"
                          and set(named) & set(frames.clock_nouns)):
            spans.append(run)
    return spans


_DETERMINERS = frozenset({"the", "my", "our", "your", "his", "her", "their", "its", "these",
                          "those", "both", "new", "old"})


def _generic_plural(text: str, start: int, end: int) -> bool:
    """"use 1111 or 2580 as PINs", "make bad PINs": a plural noun with no determiner speaks of
    such values in general, never of the user's own (invariant 460)."""
    said = text[start:end].rstrip("'’\"”").lower()
    if not said.endswith("s") or said.endswith(("ss", "'s", "’s")):
        return False
    before = _LAST_WORD.search(text, max(0, start - 40), start)
    return not before or before.group(1).lower() not in _DETERMINERS


# "we use Maple_Leaf_77 as the wifi password", "set 6143 as the PIN for the new card": a value
# made the noun's by "as" and a determiner, the noun within three words after it
_USED_AS = re.compile(r"\b(?:use[sd]?|using|set|sets|chose|choose|pick(?:ed)?|made|make|went\s+with|"
                      r"put|keep|kept)\s+(?P<v>[^\s,;]+)\s+as\s+(?:my|the|our|your|his|her|their|"
                      r"its|a|an)\s+(?:[\w'’-]+\s+){0,3}$", re.IGNORECASE)


_ADVICE = re.compile(r"\b(?:don'?t|don’t|do\s+not|never|avoid|shouldn'?t|shouldn’t|not\s+to)"
                     r"\s+(?:\w+\s+)?$", re.IGNORECASE)


def _used_as(text: str, nouns: list[tuple[int, int, str]]) -> list[tuple[int, int]]:
    spans = []
    for start, _end, kind in nouns:
        m = _USED_AS.search(text, max(0, start - 120), start)
        if m and _ADVICE.search(text, max(0, m.start() - 30), m.start()):
            continue  # "don't set 0000 as your PIN"
        if not m or kind in ("a recovery phrase", "a security answer", "an identity number"):
            continue
        span = _value_at(text, m.start("v"), kind, ",")  # shaped, never a plain word
        if span and span[1] <= m.end("v"):
            spans.append(span)
    return spans


# Invariant 460: beside a card number its expiry and a three or four digit number are the card's code
# ("4165 9822 0017 3356, 09/29, 617 on the back"); a number in four groups of four is a card's
# whether or not its check digit holds when its expiry follows (a typed-in number may be
# mistyped; with "exp 08/28" it is a card handed over); inside an IBAN
# ("DE89 3704 0044 ...") it is a bank account's, an ordinary fact (invariant 273).
_GROUPED_CARD = re.compile(r"(?<![\w-])(?<![A-Z]{2}\d\d[ -])\d{4}([ -])\d{4}\1\d{4}\1\d{4}(?![\w-])")
_EXPIRY = re.compile(r"[\s,;]*(?:(?:exp(?:iry|ires)?|valid\s+(?:thru|until))\.?:?\s*)?"
                     r"(?:0[1-9]|1[0-2])\s?/\s?(?:\d\d|20\d\d)(?!\d)", re.IGNORECASE)
_AFTER_CARD = re.compile(r"(?<![\w/])\d{3,4}(?![\w/])")


def _carded(text: str) -> list[tuple[int, int]]:
    spans = []
    for m in _GROUPED_CARD.finditer(text):
        expiry = _EXPIRY.match(text, m.end())
        digits = re.sub(r"\D", "", m.group())
        if not expiry and not _luhn(digits):
            continue  # "Ordered 1234 5678 9012 3456 widgets": no card without its expiry
        spans.append((m.start(), m.end()))
        near = _AFTER_CARD.search(text, m.end(), min(len(text), m.end() + 40))
        if near and not _YEAR.match(near.group()):
            spans.append((near.start(), near.end()))
    return spans


# A service and its password said as a pair: "gmail / Bluebell_2021".
_PAIR = re.compile(r"(?<!\S)[A-Za-z][\w.@+-]*\s+/\s+(?P<v>[^\s,;]+)")


# A login said as a pair: an e-mail address, then after a comma, slash or bar a token shaped like
# a password closing the clause ("Mum's iCloud: mum.kit@example.com, Daffodil-1961"; invariant
# 460). A word after the address ("…@example.com, he checks it daily") is none.
_ADDRESS_THEN = re.compile(r"(?<![\w.+-])[\w.+-]{1,64}@[\w-]+(?:\.[\w-]+)+[ \t]*(?:[,/|;]|\s[-–—])[ \t]*"
                           r"(?P<v>[\"'“‘`]?[^\s,;\"'“”‘’`]+[\"'”’`]?)(?=[ \t]*(?:[,;.!?)\n]|$))")


# Whatever names it (invariant 460): a possessive or "the", up to six words, a copula and a
# token shaped like a password (a symbol among letters and digits, or words joined by "_" in
# mixed case) closing its clause — "my login for the council site is Fern!Gully82", "the magic
# word for the router is Tangerine#44" — never when the last word names an ordinary thing
# ("my username is Dave_Smith88", "the file is Q3_Report_2024.xlsx").
@cache
def _any_noun() -> re.Pattern:
    owners = _alternation([*secret_frames.tables().frames.possessives, "the"])
    return re.compile(rf"(?:{owners}|(?<![\w'’-])[^\W\d_][\w-]{{0,30}}(?:['’]s\b|s['’](?=\s)))"
                      rf"\s+(?P<x>(?:[^\s.,;:!?=]+\s+){{0,5}}?"
                      r"[^\s.,;:!?=]+)[ \t]*(?:\b(?:is|was)\b|=|:|->|→)[ \t]*"
                      # single digits keyed in turn ("kids' iPad: 2 4 6 8"), or one token
                      r"(?P<v>\d(?:[ \t-]\d){3,7}(?![\w/.:-])|"
                      r"[\"'“‘`]?[^\s\"'“”‘’`,;]+[\"'”’`]?)(?=[ \t]*(?:[,.;!?()]|$))",
                      re.IGNORECASE)


def _any_named(text: str) -> list[tuple[int, int]]:
    ordinary = _ordinary_nouns()
    spans = []
    for m in _any_noun().finditer(text):
        core = _core(m.group("v"))
        said = m.group("v").strip("\"'“”‘’`")  # "Pickle9!": its own "!" makes it a password's
        words = m.group("x").lower().split()
        joined = not re.search(r"[!#$%&*@^~+=?]", said)  # "Mulan_Rocks2020": no symbol
        keyed = re.fullmatch(r"\d(?:[ \t-]\d){3,7}", said) is not None
        if keyed and not _count_or_measure(text, m.end("v")) \
                and words[-1] not in ordinary and words[0] not in _owners():
            spans.append((m.start("v"), m.end("v")))
            continue
        if not _passwordish(said) or len(core) < 6 or _ordinary(core) or core[0] in "@#" \
                or joined and sum(c.isdigit() for c in core) < 2 \
                or words[-1] in ordinary or " ".join(words[-2:]) in ordinary \
                or words[0] in ordinary or words[0] in _owners() \
                or _VERBS.intersection(words) or _GENERIC.search(m.group("x")):
            continue  # "@Dave_Bakes22", "team name", "the name of the office wifi"
        off = m.start("v") + m.group("v").index(core)
        spans.append((off, off + len(core)))
    return spans


# A table whose header names a secret (invariant 460): "| site | user | pass |" or
# "name,url,username,password" — each later row's cell in that column is the secret.
_CELLS = re.compile(r"^[ \t]*\|?(.*?)\|?[ \t]*$")


def _cells(line: str) -> list[tuple[int, int]]:
    """The cells of a table row as spans of `line`: split by "|", else by commas or tabs."""
    sep = "|" if line.count("|") >= 2 else "\t" if "\t" in line else ","
    body = _CELLS.match(line) if sep == "|" else None
    start, inner = (body.start(1), body.group(1)) if body else (0, line)
    out, pos = [], start
    for cell in inner.split(sep):
        lead = len(cell) - len(cell.lstrip())
        out.append((pos + lead, pos + len(cell.rstrip())))
        pos += len(cell) + 1
    return out


def _table_columns(text: str) -> list[tuple[int, int]]:
    if "\n" not in text:
        return []
    noun, kinds = _scan_tables()[:2]
    bare = frozenset(secret_frames.tables().frames.bare_nouns)  # "| item | code |": a product's
    spans: list[tuple[int, int]] = []
    lines = [(m.start(), m.group()) for m in re.finditer(r"[^\n]+", text)]
    for i, (_at, header) in enumerate(lines[:-1]):
        cells = _cells(header)
        if len(cells) < 2:
            continue
        named = [j for j, (a, b) in enumerate(cells)
                 if (said := " ".join(header[a:b].lower().split())) and noun.fullmatch(said)
                 and (said not in bare or kinds.get(said) == "a password")
                 and kinds.get(said) in ("a password", "a PIN", "a security code",
                                         "a key or recovery phrase")]
        for at, row in lines[i + 1:i + 200]:  # a table of a few hundred rows at most
            row_cells = _cells(row)
            if len(row_cells) != len(cells) or re.fullmatch(r"[\s|:,-]*", row):
                continue  # "|---|---|": a Markdown table's rule
            for j in named:
                a, b = row_cells[j]
                loose = " ".join(header[slice(*cells[j])].lower().split()) in bare  # "pass"
                if b - a >= 3 and not _PLACEHOLDER_CELL.match(row[a:b]) \
                        and not (loose and not _shaped(row[a:b], strict=False)):
                    spans.append((at + a, at + b))
    return spans


_PLACEHOLDER_CELL = re.compile(r"(?:n/?a|none|-+|\?+|tbc|tbd|\*+|\.\.\.|…)$", re.IGNORECASE)


# "Q: router admin? A: Heron_Gate_61": an answer to a question naming a login or a secret
_QA = re.compile(r"\bQ[:.)][ \t]*(?P<q>[^\n]{2,80}?\?)[ \t\n]*A[:.)][ \t]*"
                 r"(?P<v>[\"'“‘`]?[^\s\"'“”‘’`,;]+[\"'”’`]?)(?=[ \t]*(?:[,.;!?)\n]|$))")


def _qa_pairs(text: str) -> list[tuple[int, int]]:
    spans = []
    noun = _scan_tables()[0]
    for m in _QA.finditer(text):
        core = _core(m.group("v"))
        asks = noun.search(m.group("q")) or _ACCOUNT.search(m.group("q")) \
            or re.search(r"\badmin\b", m.group("q"), re.IGNORECASE)
        if asks and (_passwordish(core) or re.fullmatch(r"\d{4,8}", core)):
            off = m.start("v") + m.group("v").index(core)
            spans.append((off, off + len(core)))
    return spans


def _login_pairs(text: str) -> list[tuple[int, int]]:
    spans = []
    for m in _ADDRESS_THEN.finditer(text):
        core = _core(m.group("v"))
        if re.search(r"[^\W\d_]", core) and _LONE_DIGIT.search(core) \
                and _shaped(core, strict=False) and not _ordinary(core):
            off = m.start("v") + m.group("v").index(core)
            spans.append((off, off + len(core)))
    return spans


def _paired(text: str) -> list[tuple[int, int]]:
    spans = []
    for m in _PAIR.finditer(text):
        core = _core(m.group("v"))
        if not core.isdigit() and _shaped(core, strict=True) and any(c.isalpha() for c in core):
            off = m.start("v") + m.group("v").index(core)
            spans.append((off, off + len(core)))
    return spans


def reload_tables() -> None:
    """Forget every table the detector has read, here and in the modules it reads them
    through: the tests that prove the rows are data edit a copy of a table, then reload."""
    for module in (secret_frames, secret_shapes, sys.modules[__name__]):
        for value in list(vars(module).values()):
            clear = getattr(value, "cache_clear", None)
            if callable(clear):
                clear()
