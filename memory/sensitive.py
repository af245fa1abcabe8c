"""Secrets a memory never keeps (invariant 273): passwords, PINs, card numbers, keys and codes.

A fact or playbook is shown on the desk, kept in the audit log, indexed for search and handed to
the model on every turn; a password in it would be readable by every operator and leak into
prompts. The write door (memory/unit_of_work.py) refuses such a memory whole, with a message
that says what to do instead. Pure: no I/O.
"""

from __future__ import annotations

import re

# "my wifi password is hunter2", "PIN: 4821", "the door code is 1234#", "API key = sk-..."
_NAMED = re.compile(
    r"\b(?P<kind>(?:wi-?fi\s+|email\s+|bank\s+|account\s+|login\s+|admin\s+|root\s+)?"
    r"(?:password|passcode|passphrase|passwd|pin(?:\s+(?:code|number))?|cvv2?|cvc|"
    r"security\s+code|door\s+code|alarm\s+code|gate\s+code|access\s+code|one[- ]time\s+code|"
    r"otp|2fa\s+code|recovery\s+(?:code|phrase)|seed\s+phrase|private\s+key|api\s+key|"
    r"access\s+token|secret\s+key|auth\s+token|"
    # a token of any service, a card's number, a security question's answer (invariant 285)
    r"(?:[\w-]+\s+)?token|(?:credit\s+|debit\s+|bank\s+)?card\s+(?:number|no\.?)|"
    r"security\s+(?:question\s+)?answer|answer\s+to\s+(?:my|the)\s+security\s+question))"
    r"(?:\s+(?:for|to|on|of)\s+[\w .'’-]{1,40}?)?\s*(?:is|was|=|:|are|->)\s*"
    r"(?P<value>[^\s,;]{2,}[^\s,;.!?])", re.IGNORECASE)
# Invariant 296: a government identity number ("my SIN is 046 454 286", "NI number: QQ 12 34
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
                    r"\bAKIA[0-9A-Z]{16}\b|-----BEGIN [A-Z ]*PRIVATE KEY-----")
_CARD = re.compile(r"(?<![\d-])(?:\d[ -]?){12,18}\d(?![\d-])")
# Words that say the value after "is" is no secret itself ("my password is in 1Password").
_NOT_A_VALUE = re.compile(r"^(?:in|on|at|the|a|an|my|our|stored|saved|kept|written|managed|"
                          r"handled|synced|same|different|changed|reset|long|short|strong|weak|"
                          r"new|old|set|expired|locked|wrong|correct|required|needed)(?![\w'’-])",
                          re.IGNORECASE)


def _luhn(digits: str) -> bool:
    total = 0
    for i, ch in enumerate(reversed(digits)):
        d = int(ch)
        if i % 2:
            d = d * 2 - 9 if d > 4 else d * 2
        total += d
    return total % 10 == 0


def secret_in(text: str) -> str | None:
    """What kind of secret `text` holds ("a password", "a card number", "a key or token"), or
    None. "My password manager is Bitwarden" and "I changed my PIN" hold none."""
    for m in _NAMED.finditer(text):
        if re.search(r"manager|hint|policy|reset\s+link", text[m.start("kind"):m.end("kind") + 12],
                     re.IGNORECASE) or _NOT_A_VALUE.match(m.group("value")):
            continue
        kind = m.group("kind").lower()
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
        if 13 <= len(digits) <= 19 and _luhn(digits) and len(set(digits)) > 1:
            return "a card number"
    return None


WITHHELD = "[withheld]"


def masked(text: str) -> str:
    """The text with every secret value replaced by "[withheld]" (invariant 273): how a user's
    message holding one is kept as their episode ("my wifi password is [withheld]"), so the
    rest of their words stay evidence and the secret is stored nowhere."""
    out = text
    for m in reversed(list(_NAMED.finditer(out))):
        if secret_in(m.group(0)):
            out = out[:m.start("value")] + WITHHELD + out[m.end("value"):]
    for m in reversed(list(_ID_NUMBER.finditer(out))):
        end = m.start("value") + len(m.group("value").rstrip(" -"))
        out = out[:m.start("value")] + WITHHELD + out[end:]
    out = _TOKEN.sub(WITHHELD, out)
    for m in reversed(list(_CARD.finditer(out))):
        digits = re.sub(r"\D", "", m.group(0))
        if 13 <= len(digits) <= 19 and _luhn(digits) and len(set(digits)) > 1:
            out = out[:m.start()] + WITHHELD + out[m.end():]
    return out


def refusal(kind: str) -> str:
    """The message a refused write carries, for the UI, the CLI and the model (invariant 7 of
    the house: clear errors)."""
    return (f"memory never keeps {kind} (it would be shown on the desk, kept in the audit log "
            "and sent to the model on every turn); keep it in a password manager instead")
