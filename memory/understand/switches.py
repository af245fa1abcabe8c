"""Switches said in other shapes, rewritten into the one the clause readers know.

People rarely say "I switched from X to Y". They say "ditched X for Y", "X → Y", "moved my
dotfiles off X onto Y", "trying Y instead of X", "went with Y. bye X", or tell that X ended in
one clause and name Y in another: "X died. Replaced it with Y", "X got stolen so it's Y now",
"we're on Y now, X kept dropping out". `switches(message)` (pure, deterministic) rewrites each
such pair into "I switched from X to Y" so one reader (`things.possessions`, rule own:switched)
reads them all, and the agent supersedes the fact that names X — or, with nothing on record
naming X, writes Y alone (invariant 248). Only a pair is rewritten: an ending with no named
replacement, or a new thing with no ending, is left to the other rules.
"""

from __future__ import annotations

import re

from . import lexicon as lx
from .phrases import I

# A short name of a thing: one to four words, no clause inside ("the Roborock", "ZHA",
# "a Nix home-manager flake", "AirPods Pro").
_W = r"[\w'’+-]+(?:\.[\w'’+-]+)*"  # a word; a dot only inside ("v2.1"), never the full stop
# Later words of a name are no preposition or joiner: "the kids at school" is no thing's name.
_MORE = r"(?:\s+(?!(?:at|in|on|to|for|from|with|of|by|into|onto|off|and|or|but|so|because)\b)" + _W + r")"
_NP = r"(?:(?:my|our|the|a|an)\s+)?" + _W + _MORE + r"{0,3}?"
_DET = re.compile(r"^(?:my|our|the|a|an)\s+", I)
# Words that are no thing switched to or from: pronouns, time words, fillers.
_NOT_THING = frozenset("""it it's its this that these those them they he she him her me i we you
    now then today yesterday tonight everything nothing something anything all one ones same
    again home here there back work time good fine kids children baby family friends guests
    walk run ride trip holiday holidays flight weekend week day night hours while bit
    city countryside country coast seaside suburbs sea mountains north south""".split())

# Direct shapes, each one clause.
_FOR = re.compile(r"\b(?:(?:i|we|(?-i:[A-Z])[\w-]+)\s+(?:have\s+|'ve\s+)?)?(?:finally\s+|just\s+|also\s+)*"
                  r"(?:ditched|dumped|dropped|binned|swapped|traded|exchanged|replaced)\s+"
                  r"(?P<x>" + _NP + r")\s+(?:for|with)\s+(?P<y>" + _NP + r")(?=\s*(?:[,.;!?]|$|\s+(?:last|this|"
                  r"yesterday|today|on|in|at|after|because|since|as|so)\b))", I)
_ARROW = re.compile(r"(?:^|(?<=[.!?;:]\s)|(?<=^))\s*(?P<x>" + _W + r"(?:\s+" + _W + r")?)\s*(?:→|->|=>|⟶|➡️?)\s*"
                    r"(?P<y>" + _W + r"(?:\s+" + _W + r")?)\s*(?=[,.;!?]|$)", I)
_OFF_ONTO = re.compile(r"\b(?:(?:i|we)\s+(?:have\s+|'ve\s+)?)?(?:finally\s+|just\s+|also\s+)*"
                       r"(?:moved|moving|migrated|migrating|switched|switching|ported|porting)\s+"
                       r"(?:(?P<what>(?:my|our|the)\s+[\w'’ -]+?)\s+)?(?:off(?:\s+of)?|away\s+from|"
                       r"over\s+from)\s+(?P<x>" + _NP + r")\s+(?:onto|to|over\s+to|into)\s+"
                       r"(?P<y>" + _NP + r")(?=\s*(?:[,.;!?]|$|\s+(?:last|this|yesterday|today|on|in|"
                       r"at|after|because|since|as|so)\b))", I)
_INSTEAD = re.compile(r"^(?:(?:i'?m|i\s+am|we'?re|we\s+are)\s+)?(?:now\s+)?(?:trying|trialling|testing|using|"
                      r"went\s+with|going\s+with|gone\s+with|on|with)\s+(?P<y>" + _NP + r")\s+"
                      r"(?:instead\s+of|rather\s+than|in\s+place\s+of)\s+(?P<x>" + _NP + r")"
                      r"(?=\s*(?:[,.;!?]|$|\s+(?:from\s+now\s+on|now|for\s+good)\b))", I)

# Two-clause shapes: one clause says X ended, another names Y as what is used now.
_ENDED = re.compile(
    r"^(?:(?:so|and|but|ok|okay|well)\s+)?(?:(?:my|our|the)\s+)?(?P<x>[\w'’+.-]+(?:\s+[\w'’+.-]+){0,2}?)"
    r"(?:'s|’s)?(?:\s+(?:left|right|front|back|top|bottom)\s+\w+)?\s+(?:finally\s+|just\s+)?"
    r"(?:is\s+dead|'s\s+dead|died|broke|broke\s+down|packed\s+in|gave\s+up|got\s+(?:stolen|nicked|"
    r"crushed|smashed|wrecked|lost)|was\s+(?:stolen|nicked|crushed|smashed|wrecked|lost)|"
    r"(?:kept|keeps)\s+(?:crashing|dropping(?:\s+out)?|breaking|dying|freezing|failing)\b.*)"
    r"(?:\s+(?:on|at|in)\s+(?:the\s+)?[\w'’-]+(?:\s+[\w'’-]+)?)?\W*$", I)
_ENDED_VERB = re.compile(
    r"^(?:(?:i|we|(?:(?:the|our|my)\s+)?[\w'’-]+(?:\s+[\w'’-]+)?)\s+(?:have\s+|'ve\s+|has\s+)?)?"
    r"(?:finally\s+|just\s+)?(?:sold|closed|cancelled|canceled|ditched|dumped|binned|dropped|quit|"
    r"(?:finished\s+)?(?:moving|moved|migrating|migrated|switching|switched|getting|got)\s+"
    r"(?:(?:my|our|the)\s+[\w'’ -]+?\s+)?off(?:\s+of)?)\s+(?P<x>(?:(?:my|our|the)\s+)?[\w'’+.-]+(?:\s+[\w'’+.-]+)?"
    r"?)(?:\s+(?:account|subscription|contract|plan))?\W*$", I)
_BYE = re.compile(r"^(?:bye(?:\s+bye)?|goodbye|so\s+long|farewell|rip|r\.i\.p\.?)\s+(?P<x>[\w'’+.-]+"
                  r"(?:\s+[\w'’+.-]+)?)\W*(?:,.*)?$", I)
_NOW_Y = [
    # "replaced it with a Dreame L10s"
    re.compile(r"^(?:(?:i|we)\s+(?:have\s+|'ve\s+)?)?(?:just\s+)?replaced\s+(?:it|them|him|her)\s+"
               r"with\s+(?P<y>" + _NP + r")(?=\s*(?:[,.;!?]|$))", I),
    # "(so) it's AirPods Pro now", "it's all OpenTofu now", "it's the U-Bahn all year round now"
    re.compile(r"^(?:so\s+)?(?:it'?s|it\s+is|its)\s+(?:all\s+)?(?P<y>" + _NP + r")"
               r"(?:\s+(?:all\s+year(?:\s+round)?|full\s+time|for\s+good|every\s+day))?\s+now\b", I),
    # "typing on a Glove80 now", "we're on BT now", "I'm back on Neovim", "using Helix now"
    re.compile(r"^(?:so\s+)?(?:(?:i'?m|i\s+am|we'?re|we\s+are)\s+)?(?:now\s+)?(?:back\s+)?"
               r"(?:typing|writing|working|living|running)?\s*(?:on|with|using)\s+(?P<y>" + _NP + r")"
               r"(?:\s+(?:full\s+time|for\s+good))?\s+(?:now|instead)\b", I),
    re.compile(r"^(?:so\s+)?(?:(?:i'?m|i\s+am|we'?re|we\s+are)\s+)back\s+(?:on|with|to|using)\s+"
               r"(?P<y>" + _NP + r")(?=\s*(?:[,.;!?]|$|\s+(?:full\s+time|for\s+good|now)\b))", I),
    # "Revolut is my main bank now", "plain SQLite is plenty for it"
    re.compile(r"^(?:plain\s+|just\s+|good\s+old\s+)?(?P<y>" + _NP + r")\s+is\s+(?:(?:my|our)\s+(?:main\s+|new\s+)?"
               r"[\w-]+(?:\s+[\w-]+)?\s+now|plenty|enough|all\s+(?:i|we)\s+need)\b", I),
    # "they go to a Nabu Casa subscription now", "it runs on Proxmox now"
    re.compile(r"^(?:so\s+)?(?:they|it)\s+(?:all\s+)?(?:go(?:es)?|live|lives|run|runs|sync|syncs|sit|sits)\s+"
               r"(?:to|on|in|at)\s+(?P<y>" + _NP + r")\s+now\b", I),
    # "went with Ghostty", "settled on Helix"
    re.compile(r"^(?:(?:i|we)\s+)?(?:finally\s+)?(?:(?:went|gone|going)\s+(?:with|for)|picked|chose|"
               r"settled\s+on)\s+(?P<y>" + _NP + r")"
               r"(?=\s*(?:[,.;!?]|$))", I),
]
_CLAUSES = re.compile(r"((?<=[.!?;])\s+|,\s+|\s+(?:so|and\s+so)\s+(?=(?:it|i|we|i'm|we're)\b))", I)


def _thing(np: str) -> str | None:
    """The name of a thing said, without its article; None for a pronoun or filler."""
    np = re.sub(r"['’]s$", "", _DET.sub("", np.strip(" ,.;!?")).strip())
    if not np or np.lower() in _NOT_THING or np.split()[0].lower() in _NOT_THING:
        return None
    if re.match(r"^(?:his|her|their|your)\b", np, I) or {w.lower() for w in np.split()} & (
            lx.RELATIONS | lx.NAMED_ONLY_RELATIONS | {"friend", "colleague", "boss", "manager"}):
        return None  # "dumped my boyfriend for his brother": people are never a thing (inv. 141)
    return np


def _switch(x: str | None, y: str | None) -> str | None:
    x, y = _thing(x or ""), _thing(y or "")
    if not x or not y or x.lower() == y.lower():
        return None
    return f"I switched from {x} to {y}"


def _direct(clause: str) -> str:
    for rx in (_FOR, _OFF_ONTO):
        m = rx.search(clause)
        if m and (said := _switch(m.group("x"), m.group("y"))):
            x = m.group("x").strip()
            if rx is _FOR and re.match(r"^(?:my|our)\s+[\w-]+$", x, I) and _thing(x):
                # "swapped my laptop for an M4 Max": the kind named is the role replaced
                said = f"I switched {x} to {_thing(m.group('y'))}"
            if rx is _OFF_ONTO and m.group("what"):  # "the photo library" is the user's own
                what = re.sub(r"^the\s+", "my ", m.group("what"), flags=I)
                said = said.replace("I switched", f"I switched {what}", 1)
            return clause[:m.start()] + said + clause[m.end():]
    m = _INSTEAD.match(clause)
    if m and (said := _switch(m.group("x"), m.group("y"))):
        return said + clause[m.end():]
    m = _ARROW.search(clause)
    if m and (said := _switch(m.group("x"), m.group("y"))):
        return clause[:m.start()] + said + clause[m.end():]
    return clause


# Invariant 254: a plan moved, its new date said in a later clause ("the MOT got moved, the
# garage rang: it's 3 March now"), and a role's next holder said in the future ("my new
# landlord will be Mr Ito"): rewritten into the shapes the readers know.
_MOVED_LATER = re.compile(
    r"^(?P<x>(?:the\s+|my\s+|our\s+)?[\w'’-]+(?:\s+[\w'’-]+){0,3}?)\s+(?:got|has\s+been|was|have\s+been|"
    r"were)\s+(?P<v>moved|rescheduled|postponed|pushed(?:\s+back)?|brought\s+forward)\b[^.!?]*?"
    r"\b(?:it'?s|it\s+is|it'?ll\s+be|now)\s+(?:now\s+)?(?:on\s+)?(?P<d>\d{1,2}(?:st|nd|rd|th)?\s+(?-i:[A-Z])[a-z]+|"
    r"(?-i:[A-Z])[a-z]+\s+\d{1,2}(?:st|nd|rd|th)?)\b(?:\s+now)?", I)
_WILL_BE = re.compile(r"\b(?P<my>my|our)\s+new\s+(?P<role>[\w-]+(?:\s+[\w-]+)?)\s+(?:will\s+be|'ll\s+be|is\s+going\s+to\s+be)"
                      r"\s+(?P<n>(?-i:[A-Z])[\w'’-]+(?:\s+(?-i:[A-Z])[\w'’-]+)?)(?:\s+(?:from|at|in|on|of)\s+[^,.;!?]*)?", I)


def _reshape(message: str) -> str:
    m = _MOVED_LATER.match(message.strip())
    if m and m.group("x").split()[-1].lower() not in _NOT_THING:
        x = m.group("x") if re.match(r"^(?:the|my|our)\s", m.group("x"), I) else "the " + m.group("x")
        message = f"{x} got moved to {m.group('d')}." + message.strip()[m.end():]
    return _WILL_BE.sub(lambda w: f". {w.group('my')} new {w.group('role')} is {w.group('n')}", message)


def switches(message: str) -> str:
    """Rewrite switches said in other shapes into "I switched from X to Y" (invariant 248), and
    plans and roles said in other shapes (invariant 254)."""
    message = _reshape(message)
    parts = _CLAUSES.split(message)  # clauses at even places, their separators between
    pieces = [_direct(p) for p in parts[0::2]]
    ended = [(i, m) for i, p in enumerate(pieces)
             if (m := _ENDED.match(p.strip()) or _ENDED_VERB.match(p.strip()) or _BYE.match(p.strip()))]
    new = [(i, m) for i, p in enumerate(pieces) for rx in _NOW_Y if (m := rx.match(p.strip()))]
    if len(ended) == 1 and len({i for i, _ in new}) == 1 and ended[0][0] != new[0][0]:
        (ei, em), (ni, nm) = ended[0], new[0]
        said = _switch(em.group("x"), nm.group("y"))
        if said and not re.match(r"^(?:(?:the|a|an|my|our)\s|\d|(?-i:[^\W\d_a-z]))", nm.group("y").strip(), I):
            said = None  # "it's raining now": what follows the ending names no thing
        if said:
            rest = pieces[ni].strip()[nm.end():]  # "... for it", "and it's lovely": a remark
            pieces[ni] = said + (rest if re.match(r"^\s*[,;.!?]", rest) else "")
            pieces[ei] = ""
    out, gap = "", False
    for i, p in enumerate(pieces):
        if not p.strip():
            gap = True
            continue
        if out:
            out += (". " if gap and not out.rstrip().endswith((".", "!", "?", ";")) else
                    " " if gap else parts[2 * i - 1])
        out, gap = out + p.strip(), False
    return out.strip() or message
