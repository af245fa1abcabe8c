"""Plain-English canonical form of a chat clause, before the rules read it (issue 12).

People write the same statement in many voices: a texter drops the subject and the
punctuation ("sold the fiesta", "im vegan now"), a non-native speaker says "I am not more
vegan" or "my sister she is moved to Leeds", others use idioms ("upped sticks to Seattle",
"tied the knot") or emoji. Each rewrite here maps one such general form to the plain first-person
grammar the rules read ("I sold the fiesta", "I'm no longer vegan", "my sister has moved to
Leeds", "we moved to Seattle", "we got married"), so the rules stay few and general. Pure,
deterministic, no I/O; text is never assumed ASCII (non-Latin letters are kept, only symbols
such as emoji are dropped). Invariant 137.
"""

from __future__ import annotations

import re
import unicodedata

from . import lexicon as lx
from .phrases import I

# Texting shorthand and slang, whole words only (the spelling people mean).
_SHORT = {
    "im": "I'm", "ive": "I've", "dont": "don't", "cant": "can't", "didnt": "didn't",
    "doesnt": "doesn't", "isnt": "isn't", "wasnt": "wasn't", "havent": "haven't",
    "u": "you", "ur": "your", "cos": "because", "coz": "because", "cuz": "because",
    "bc": "because", "wk": "week", "wks": "weeks", "yr": "year", "yrs": "years",
    "tmrw": "tomorrow", "tmr": "tomorrow", "yday": "yesterday", "sis": "sister",
    "bro": "brother", "gf": "girlfriend", "bf": "boyfriend", "hubby": "husband",
    "missus": "wife", "gonna": "going to", "gotta": "have to", "outta": "out of",
    "ya": "you", "childs": "children", "w/": "with", "pls": "please", "plz": "please",
    "bday": "birthday", "b-day": "birthday", "hes": "he's", "shes": "she's", "thats": "that's", "theyre": "they're", "youre": "you're",
}
_SHORT_RE = re.compile(r"(?<![\w'])(" + "|".join(re.escape(k) for k in _SHORT) + r")(?![\w'])", I)

# Idioms, as the plain words the rules read.
_IDIOMS: tuple[tuple[str, str], ...] = (
    (r"\btied\s+the\s+knot\b", "got married"),
    (r"\bupped\s+sticks\b", "moved"),
    (r"\b(?:flitted|decamped|relocated\s+ourselves)\b", "moved"),
    (r"\b(?:hightailed|high-tailed|legged)\s+it\s+out\s+of\b", "left"),
    (r"\bpacked\s+up\s+and\s+", ""),
    (r"\b(?:jacked|packed|chucked)\s+in\b", "quit"),
    (r"\b(?:jacked|packed|chucked)\s+(?:it|the\s+job|my\s+job)\s+in\b", "quit my job"),
    (r"\bkicked\s+the\s+(?:fags|habit|cigs|cigarettes|ciggies|smokes)\b", "quit smoking"),
    (r"\b(?:gave\s+up\s+the\s+ghost|conked\s+out|kicked\s+the\s+bucket|bit\s+the\s+dust)\b",
     "broke"),
    (r"\b(?:ditched|binned|dumped|scrapped|chucked\s+out|got\s+shot\s+of)\b", "got rid of"),
    (r"\bretrained\s+as\b", "became"),
    (r"\b(?:i've|i\s+have|i)\s+(?:been\s+|got\s+)?(?:made\s+redundant|laid\s+off|let\s+go|sacked|fired)\b",
     "I'm now unemployed"),
    (r"\b(?:split\s+up|broke\s+up)\b", "separated"),
    (r"\b(i|we|you|they|he|she)'d\s+(been|gone|had|done|lived|moved|seen|already)\b", r"\1 had \2"),
    (r"\bhanded\s+in\s+my\s+notice\s+at\b", "quit my job at"),
    (r"\bteaching\s+myself(?:\s+how)?\s+to\b", "learning to"),
    (r"\bpassed\s+away\b", "died"),
    (r"\b(?:is|are|has|have)\s+died\b", "died"),
    (r"\bshifted\s+(?=to\b|from\b|house\b)", "moved "),
    (r"\b(?:my\s+|the\s+|our\s+)?divorce\s+(?:went\s+through|came\s+through|was\s+finali[sz]ed|"
     r"is\s+final)\b", "we got divorced"),
    (r"\bmy\s+native\s+place\s+is\b", "I'm from"),
    (r"^me\s+n\s+", "me and "),
    (r"\b(?:is|are)\s+(?:no\s+longer|not\s+more|not)\s+with\s+us\b", "died"),
    (r"\b(?:is|are|was)\s+dead\b", "died"),
)
_IDIOMS += (
    # invariant 137: more idioms of work, diet, pets and family news
    (r"\b(?:landed|bagged|scored|snagged|nabbed)\s+(?:myself\s+)?(?:a|an)\s+(?:new\s+)?(?:job|gig|role|position)\b",
     "got a new job"),
    (r"\bnew\s+gig\b", "new job"),
    (r"\b(?:the|my)\s+missus\b", "my wife"),
    (r"\b(?:the|my)\s+old\s+man\b", "my dad"),
    (r"\bgot\s+hitched\b", "got married"),
    (r"\b(have|has|'ve)\s+split\b(?!\s+(?:the|a|an|my|our|it|this|that)\b)", r"\1 separated"),
    (r"\bquit\s+the\s+(?:fags|cigs|ciggies|smokes|cigarettes)\b", "quit smoking"),
    (r"\bstopped\s+to\s+smoke\b", "quit smoking"),
    (r"\bstopped\s+to\s+(drink|eat)\b", r"stopped \1ing"),
    (r"\s@\s*(?=\w)", " at "),
    (r"^we\s+we\b", "we"),
    (r"\bgot\s+rid\s+of\s+(?:the\s+|my\s+)?((?-i:[A-Z0-9])[^,;.!?]*?)\s+for\s+(?:the\s+|an?\s+)?"
     r"(?=(?-i:[A-Z0-9]))", r"switched from \1 to "),
    (r"\b(?:gone|went|moved)\s+over\s+to\b", "switched to"),
    (r"\b(i'm|i\s+am|we're|we\s+are)\s+back\s+(living|working|based)\b", r"\1 \2"),
    (r"\b(living|working)\s+now\s+(in|at|for)\b", r"now \1 \2"),
    (r"\b(i)\s+(?:am|'m)\s+having\s+(?=(?:a\s+)?(?:baby|twins)\b)", "I'm expecting "),
    (r"\b(we)\s+(?:are|'re)\s+having\s+(?=(?:a\s+)?(?:baby|twins)\b)", "we're expecting "),
    (r"\b(?:full\s+|fully\s+|totally\s+)?veggie\b", "vegetarian"),
    (r"\b(i'?m|i\s+am)\s+off\s+the\s+(?:booze|drink|sauce|alcohol)\b", "I quit drinking"),
    (r"\b(?:had\s+to\s+be\s+|was\s+|were\s+|got\s+)?(?:put\s+down|put\s+to\s+sleep)\b", "died"),
    (r"\b((?:my|our)\s+[\w-]+)'s\s+(?=(?:just\s+|finally\s+|recently\s+)*(?:moved|relocated|gone|got|"
     r"retired|died|started|had|been|become|left|graduated)\b)", r"\1 has "),
    (r"\b((?:my|our)\s+[\w-]+)'s\s+(?=(?:getting|having|starting|moving|pregnant|engaged|expecting|"
     r"retiring)\b)", r"\1 is "),
)
_IDIOMS += (
    # blind set 1 retired to tuning: constructions other writers use for the same statements
    # "We had to put Rex down": Rex died
    (r"^(?:we|i)\s+(?:had\s+to\s+|have\s+had\s+to\s+)?put\s+((?-i:[A-Z])[\w'-]+|(?:our|my)\s+[\w-]+)\s+down\b",
     r"\1 died"),
    # "Ghostty replaced WezTerm for me": the user switched from one named thing to the other
    (r"^(?!(?:the|my|our|it|this|that|he|she|they|we|i)\b)((?-i:[A-Z])[\w'.+-]*(?:\s+(?-i:[A-Z0-9])[\w'.+-]*)?)\s+"
     r"(?:has\s+)?replaced\s+(?:my\s+|the\s+)?((?-i:[A-Z])[\w'.+-]*(?:\s+(?-i:[A-Z0-9])[\w'.+-]*)?)(?:\s+for\s+(?:me|us))?\b",
     r"I switched from \2 to \1"),
    # "Nordwind made me regional lead": a promotion
    (r"^(?-i:[A-Z])[\w'&.-]*(?:\s+(?-i:[A-Z])[\w'&.-]*)?\s+(?:just\s+|finally\s+)?made\s+me\s+(?:a\s+|an\s+|the\s+)?"
     r"(?=(?:[\w-]+\s+){0,3}?(?:head|partner|" + "|".join(sorted(lx.ROLE_WORDS, key=len, reverse=True)) + r")\b)",
     "I was promoted to "),
    # A self-introduction or a home said in another language (text is never assumed English)
    (r"(^|,\s*)(?:меня\s+зовут|je\s+m'appelle|ich\s+hei(?:ß|ss)e|me\s+llamo|mi\s+chiamo|eu\s+me\s+chamo|"
     r"mam\s+na\s+imi[eę])\s+", r"\1my name is "),
    (r"(^|,\s*)(?:я\s+живу\s+в|j'habite\s+[àa]|ich\s+wohne\s+in|vivo\s+en|vivo\s+a|eu\s+moro\s+em|"
     r"mieszkam\s+w)\s+", r"\1I live in "),
    # "Our second baby, Tomás, was born on 20 November": the user had a baby called Tomás
    (r"^(?:our|my)\s+(?:(?:first|second|third|new|little)\s+)?(?:baby|baby\s+boy|baby\s+girl),\s+"
     r"((?-i:[^\W\d_a-z])[\w'’-]+),\s+was\s+born\b", r"we had a baby called \1"),
    # "was never ours actually, it's Amara's": a trailing "actually" adds nothing
    (r"\s+actually(?=\s*(?:[,;.!?]|$))", ""),
    # "moved all my notes from Notion to Obsidian", "moved everything over to Starling": a switch
    (r"\bmoved\s+(?:all\s+(?:of\s+)?)?(?:my|our|the)\s+(?:[\w-]+\s+)?(?:notes|files|photos|music|playlists|data|"
     r"emails?|documents|backups|passwords|code|repos)\s+(?:over\s+)?(?=from\b|to\b)",
     "switched "),
    (r"\bmoved\s+(?:everything|it\s+all|all\s+of\s+it)\s+(?:over\s+)?(?=to\b|from\b)", "switched "),
    # "we've added two IKEA plugs": the user got them
    (r"\b(i|we)(?:\s+have|'ve)?\s+(?:just\s+)?added\s+(?=(?:a|an|two|three|four|five|another|\d+)\s)", r"\1 got "),
    # "two plugs, one for the tree and one for the dehumidifier": what each is for is no value
    (r",\s*(?:one|both|each)\s+(?:for|in|on)\b[^.;!?]*$", ""),
    # "I'm now also allergic": "also" adds nothing to a statement
    (r"\b(am|'m|are|'re)\s+(now\s+)?also\s+", r"\1 \2"),
    # "my new manager is Dariusz": the manager is now Dariusz
    (r"^((?:my|our)\s+)new\s+(manager|boss|lead|team\s+lead|line\s+manager|gp|doctor|dentist|landlord)\s+is\s+",
     r"\1\2 is now "),
)
_IDIOMS += (
    # invariant 261: "I report to Priyanka now" names the manager; a name, never "the board"
    (r"\b(?:i|we)\s+(?:now\s+)?report\s+(?:directly\s+)?(?:in\s+)?to\s+((?-i:[^\W\d_a-z])[\w'’-]+"
     r"(?:\s+(?-i:[^\W\d_a-z])[\w'’-]+)?)(?:\s+now)?(?=\s*(?:[,.;!?]|$))", r"my manager is now \1"),
    # "... since the reorg in October": when it changed, said apart from the name (invariant 293)
    (r"\b(?:i|we)\s+(?:now\s+)?report\s+(?:directly\s+)?(?:in\s+)?to\s+((?-i:[^\W\d_a-z])[\w'’-]+"
     r"(?:\s+(?-i:[^\W\d_a-z])[\w'’-]+)?)(?:\s+now)?\s+(?=(?:since|from|as\s+of)\s)", r"my manager is now \1, "),
)
_IDIOMS += (
    # invariant 264: other words for a thing that was lost, stolen or stopped
    (r"\b(someone|somebody|they|thieves|some\s+\w+)\s+(?:just\s+)?(?:nicked|pinched|swiped|nabbed|"
     r"half-inched|robbed|stole)\b", "someone stole"),
    (r"\b(?:got|was|were|has\s+been|have\s+been)\s+(?:nicked|pinched|swiped|nabbed|half-inched)\b",
     "was stolen"),
    (r"\b(?:got|was|were|has\s+been|have\s+been)\s+(?:written\s+off|totalled|totaled)\b", "was stolen"),
    (r"^(?:they|the\s+insurers?|the\s+insurance(?:\s+company)?)\s+(?:have\s+|'ve\s+|just\s+)*"
     r"(?:wrote|written|totalled|totaled)\s+((?:my|our|the)\s+[\w-]+(?:\s+[\w-]+)?)\s+off\b", r"\1 was stolen"),
    (r"^(?:they|the\s+insurers?|the\s+insurance(?:\s+company)?)\s+(?:have\s+|'ve\s+|just\s+)*"
     r"(?:wrote|written)\s+off\s+((?:my|our|the)\s+[\w-]+(?:\s+[\w-]+)?)\b", r"\1 was stolen"),
    # "We lost Max last week": Max died ("lost my keys" is no pet and no name)
    # (invariant 386: a status is no one who died: "I lost Senator", "lost Gold this year")
    (r"^(?:we|i)\s+(?:just\s+|sadly\s+|finally\s+)*lost\s+(?!(?:senator|gold|silver|platinum|bronze|diamond|"
     r"titanium|elite|hon|frequent|premier|executive|status|tier)\b)((?-i:[A-Z])[\w'’-]+(?!\s+(?:status|tier|"
     r"card|level|membership)\b)|(?:our|my)\s+(?:old\s+)?"
     r"(?:dog|cat|puppy|kitten|rabbit|hamster|horse|pony|budgie|parrot|tortoise|guinea\s+pig))\b"
     r"(?!\s+(?:match|game|race|final|case|job|contract|bet|signal|connection|weight))", r"\1 died"),
    # "I don't need to carry the EpiPen any more": the user doesn't carry it any more
    (r"\b(don'?t|do\s+not|no\s+longer)\s+(?:need|have)\s+to\s+(?=[a-z]+\s)", r"\1 "),
    # "I'm not doing Berlin any more": the user gave it up
    (r"\b(?:i'?m|i\s+am|we'?re|we\s+are)\s+not\s+doing\s+(?=[^,.;!?]+?\s+any\s*more\b)", "I don't do "),
    # "my Corsa was stolen / written off": someone took it, whatever its name
    (r"^((?:my|our|the)\s+[\w'’.+-]+(?:\s+[\w'’.+-]+){0,2}?)\s+(?:was|got|has\s+been)\s+stolen\b",
     r"someone stole \1"),
)
_IDIOMS += (
    # invariant 266: a medicine the user is on or started is one they take
    (r"\b(?:i'?m|i\s+am)\s+(?:now\s+|currently\s+|still\s+)?on\s+(?=(?:" + lx.DOSE + r"\s+(?:of\s+)?)?"
     + lx.MEDICINE + r"|[\w-]+\s+" + lx.DOSE + r")", "I take "),
    (r"\b(started|starting|began|begun)\s+(?:on\s+)?(?=(?:" + lx.DOSE + r"\s+(?:of\s+)?)?" + lx.MEDICINE + r")",
     r"\1 taking "),
)
_MED_FORM = (r"(?:(?:a|an|some)\s+)?(?:[\w-]+\s+){0,3}?(?:tablets?|pills?|capsules?|inhalers?|patch(?:es)?|"
             r"injections?|jabs?|cream|drops|spray|supplements?|medication|meds|tonic|" + lx.MEDICINE + r")\b")
_IDIOMS += (
    # invariant 302: "the GP started me on iron tablets", "my consultant put me on
    # levothyroxine", "the asthma nurse prescribed a preventer inhaler": what a clinician
    # started the user on is what the user takes; "put me on the waiting list" is no medicine
    (r"\b(?:my|the|our)\s+(?:[\w-]+\s+)?(?:doctor|doc|gp|consultant|nurse|specialist|psychiatrist|"
     r"cardiologist|dermatologist|endocrinologist|rheumatologist|neurologist|prescriber|clinic|hospital|"
     r"dietitian|midwife|dentist|vet)\s+(?:has\s+|have\s+|just\s+|now\s+)*(?:started|put)\s+me\s+on\s+"
     r"(?=" + _MED_FORM + ")", "I take "),
    (r"\b(?:my|the|our)\s+(?:[\w-]+\s+)?(?:doctor|doc|gp|consultant|nurse|specialist|psychiatrist|"
     r"cardiologist|dermatologist|endocrinologist|rheumatologist|neurologist|prescriber|clinic|hospital)\s+"
     r"(?:has\s+|have\s+|just\s+)*(?:prescribed|added)\s+(?:me\s+)?(?=" + _MED_FORM + ")", "I take "),
    # "a preventer inhaler, Clenil, two puffs": the brand named beside the form is its name
    (r"\b(?P<f>inhaler|capsules|cream|spray|patch|injection)\s*,\s*(?P<n>(?-i:[A-Z])[\w-]+)\s*(?=,)",
     r"\g<f> called \g<n>"),
)
_IDIOMS += (
    # invariant 299: a standing way the user asks the assistant to speak is their preference:
    # "give me temperatures in Celsius", "for recipes, show me grams not cups", "always text me
    # rather than email", "I always want an aisle seat"; "give me a minute" asks for nothing kept
    (r"^(?:for\s+[\w -]+?,\s*)?(?:please\s+|can\s+you\s+|could\s+you\s+)?(?:always\s+)?(?:give|show|tell|quote|send)\s+me\s+"
     r"(?=[\w -]+?\s+(?:in|not|rather\s+than|instead\s+of)\s+[\w-]+)(?!(?:a|an|one|the|this|that|it)\s)",
     "I prefer "),
    *((r"^(?:please\s+|can\s+you\s+|could\s+you\s+)?(?:always\s+|just\s+)?(?:" + how + r")\s+me\s+"
       r"(?=(?:rather\s+than|instead\s+of|not)\b)", "I prefer " + said + " ")
      for how, said in (("text", "texts"), ("e-?mail", "emails"), ("call|ring|phone", "calls"),
                        ("message", "messages"), ("whatsapp", "WhatsApp"))),
    (r"\bi\s+(?:always|usually)\s+(?:want|ask\s+for|go\s+for|choose|pick)\s+(?=(?:a|an|the)\s+[\w-]+\s+seat\b)",
     "I prefer "),
)
_IDIOMS += (
    # invariant 304: "I'm registered with a new GP, Dr Adeyemi": the provider the user is with
    (r"\b(?:i'?m|i\s+am|we'?re|we\s+are)\s+(?:now\s+)?registered\s+(?:with|at)\s+(?:a\s+new\s+|a\s+|the\s+|my\s+)?"
     r"(?P<r>gp|doctor|dentist|practice|surgery|vet)\s*,\s*(?=(?-i:[A-Z]))", r"my \g<r> is "),
)
_IDIOMS += (
    # invariant 303: "I wasn't born in Leeds" denies the birthplace on record
    (r"\b(i|we)\s+(?:was|were)(?:n'?t|\s+not)\s+born\b", r"\1 was never born"),
)
_IDIOMS += (
    # invariant 268: "I've been sober two years as of today": since two years ago
    (r"\b((?:i'?ve|i\s+have|we'?ve|we\s+have)\s+been\s+(?!to\b|in\b|on\b|at\b|here\b|there\b|away\b)"
     r"[\w-]+(?:\s+(?!for\b)[\w-]+)?)\s+(?:for\s+)?((?:a|an|one|two|three|four|five|six|seven|eight|nine|ten|"
     r"eleven|twelve|\d+)\s+(?:years?|months?|weeks?))(?:\s+(?:now|today|as\s+of\s+today|this\s+week))?\b",
     r"\1 since \2 ago"),
)
_IDIOMS += (
    # invariant 271: other words for a new job and for a switch
    # "starting as a junior UX designer at Spotify on Monday": a new job with its role (inv. 240)
    (r"\b(?:(?:i'?m|i\s+am|i)\s+)?(?:just\s+)?(?:starting|start|started|beginning|began)\s+(?:work\s+|a\s+new\s+job\s+)?"
     r"as\s+(a|an)\s+((?:[\w-]+\s+){0,3}?[\w-]+)\s+at\s+((?:the\s+)?(?-i:[^\W\d_a-z])[\w&'’.-]*(?:\s+(?-i:[^\W\d_a-z])[\w&'’.-]*)*)",
     r"I got a new job at \3 as \1 \2"),
    # "crossed over to the dark side, iPhone 16", "went over to Android": a switch
    (r"\b(?:crossed|came|jumped|defected)\s+over\s+to\s+(?:the\s+(?:dark|other)\s+side\s*[,:—–-]\s*)?", "switched to "),
    (r"\b(?:switched|moved)\s+to\s+the\s+(?:dark|other)\s+side\s*[,:—–-]\s*", "switched to "),
)
_IDIOMS_RE = tuple((re.compile(p, I), r) for p, r in _IDIOMS)

# Fillers that frame a clause and carry nothing ("Long story short, ...", "..., lol").
_FRAME = re.compile(
    r"^(?:(?:funnily|oddly|weirdly|sadly|luckily|happily|unfortunately|fortunately)\s+enough|"
    r"long\s+story\s+short|long\s+story|to\s+be\s+honest|honestly|tbh|ngl|not\s+gonna\s+lie|"
    r"not\s+going\s+to\s+lie|just\s+so\s+(?:you|ya)\s+know|fun\s+fact|basically|so\s+basically|"
    r"y'all|guys|mate|sadly|unfortunately|luckily|in\s+the\s+end|as\s+it\s+turns\s+out|"
    r"it\s+turns\s+out)\b[,:!]?\s*", I)
_TAIL = re.compile(r"(?:[\s,]+(?:lol|lmao|haha+|btw|tbh|ngl|mate|innit|ugh|meh|sigh|yay|woo+|ffs|smh|omg|actually|"
                   r"for\s+what\s+it'?s\s+worth|"
                   r"rain\s+or\s+shine|bless\s+(?:him|her|them)|doctor'?s\s+orders))+\s*([.!?]*)$", I)

# Verbs a texter starts a first-person clause with, the subject left out ("sold the fiesta").
_SUBJECTLESS = re.compile(
    r"^(?:(?:just|finally|recently|also|now|then|already)\s+)*(?:moved|relocated|switched|changed|"
    r"left|quit|joined|started|took\s+up|taken\s+up|bought|got|sold|adopted|upgraded|replaced|swapped|finished|"
    r"passed|turned|became|retired|married|divorced|separated|graduated|promoted\s+to|live|work|use|drive|ride|speak|gave|"
    r"been|hate|love|like|prefer|own|have|got\s+rid\s+of|gave\s+up|stopped|traded|rescued|"
    r"picked\s+up|ordered|dropped|cancell?ed|went\s+to|flew\s+to|spent\s+(?:a|an|the|two|three|four|five|\d+)|(?:can't|cannot|don't|never)\s+(?:eat|drink|have|use|own|drive|play|smoke|swim|run|cycle|ride|wear|watch)|"
    r"never\s+(?:lived|worked|had|owned|been|drank|ate|used|liked|smoked))\b", I)
_SUBJECTLESS_BE = re.compile(
    r"^(?:(?:just|finally|now|also)\s+)*(?:allergic|vegan|vegetarian|pescatarian|gluten-free|"
    r"lactose|coeliac|celiac|not\s+(?:vegan|vegetarian|pescatarian|allergic|married|engaged)|no\s+longer|"
    r"living|working|using|eating|drinking|learning|training|studying|based|married|engaged|"
    r"starting\s+(?:at|with|a\s+new\s+job)|"
    r"divorced|single|retired|pregnant|diabetic|asthmatic|dyslexic|autistic|epileptic|anaemic|anemic)\b", I)

_BASE_VERBS = "work|live|study|use|drive|speak|eat|play|have|teach|own|ride|run"
_PERFECT_ING = {"living": "lived", "working": "worked", "owning": "owned", "using": "used",
                "having": "had", "eating": "eaten", "driving": "driven", "studying": "studied"}


_PREPS = frozenset("""in at to from with near for of on by into onto via around about over under
behind beside between across past through""".split())

def strip_symbols(text: str) -> str:
    """Text without emoji, pictographs, flags and their joiners; letters of every script stay."""
    out = []
    for ch in text:
        cat = unicodedata.category(ch)
        if cat == "So" or (cat == "Sk" and ord(ch) > 0x2000) or ch in "\u200d\ufe0f\ufe0e\u20e3":
            out.append(" ")
        else:
            out.append(ch)
    return re.sub(r"[ \t]+", " ", "".join(out)).strip()


def is_lowercase_message(message: str) -> bool:
    """Typed without any capital letter: names are in lower case too (a texter). A word written
    all in capitals ("BBC", "NHS") or "I" does not count: "amara's moved to london, she got a
    job at the BBC" is typed in lower case all the same (invariant 399)."""
    plain = [w for w in re.findall(r"[^\W\d_]+", message) if not (len(w) >= 2 and w.isupper())]
    letters = [c for w in plain for c in w]
    return len(letters) >= 3 and not any(c.isupper() for c in letters)


_KIN = ("sister|brother|mum|mom|mother|dad|father|wife|husband|girlfriend|boyfriend|partner|son|"
        "daughter|grandma|grandmother|grandpa|grandfather|gran|nan|aunt|uncle|cousin|niece|nephew|"
        "fiance|fiancee|fiancé|fiancée")


def _short(m: re.Match) -> str:
    word = m.group(1)
    if word.lower() == "u" and (m.string[m.start() - 1:m.start()] == "-" and m.start() > 0
                                or m.string[m.end():m.end() + 1] == "-"):
        # "U-Bahn", "u-turn": a letter of a compound, not "you" (invariant 248)
        return word
    return _SHORT[word.lower()]


_TENS = {"twenty": 20, "thirty": 30, "forty": 40, "fifty": 50, "sixty": 60, "seventy": 70,
         "eighty": 80, "ninety": 90}
_UNITS = {"one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8,
          "nine": 9}


def _age_words(m: re.Match) -> str:
    n = _TENS[m.group("t").lower()] + (_UNITS[m.group("u").lower()] if m.group("u") else 0)
    return f"{m.group('pre')}{n}"


# "a 3D printer (Bambu A1 mini)", "a new phone (Pixel 9)": the model in brackets names the thing
# (invariant 267); a bracket that is a remark ("(finally)", "(sorry)") starts lower case
_MODEL_AFTER = re.compile(r"\b(?P<art>a|an|the|my|our)\s+(?P<new>(?:new|second-hand|used|refurbished)\s+)?"
                          r"(?P<n>[\w-]+(?:\s+[\w-]+){0,2}?)\s*\((?P<m>(?-i:[A-Z0-9])[^()]{0,30}?)\)", re.IGNORECASE)


def _model_first(m: re.Match) -> str:
    art = m.group("art")
    lead = (m.group("new") or "") + m.group("m").strip()
    if art.lower() in ("a", "an"):
        art = "an" if re.match(r"[aeiou]", lead, re.IGNORECASE) else "a"
    return f"{art} {lead} {m.group('n')}"


# Invariant 309: the verbs of change the rules read, so that one with two adjacent letters
# swapped ("swtiched", "strated") is still read; only a swap, never a letter dropped or added
# ("stared" stays "stared"), and only for words of six letters or more.
_CHANGE_VERBS = frozenset("""switched switching started starting stopped stopping changed changing
cancelled canceled cancelling replaced replacing upgraded upgrading finished finishing married
divorced retired promoted adopted bought ordered joined quitting moving relocated""".split())


def _swaps(word: str) -> set[str]:
    return {word[:i] + word[i + 1] + word[i] + word[i + 2:] for i in range(len(word) - 1)
            if word[i] != word[i + 1]}


_RESPELL = {typo: verb for verb in _CHANGE_VERBS if len(verb) >= 6 for typo in _swaps(verb)
            if typo not in _CHANGE_VERBS}


def respell(text: str) -> str:
    """The text with a verb of change that has two adjacent letters swapped put right
    (invariant 309); every other word as written. Pure."""
    def fix(m: re.Match[str]) -> str:
        w = m.group(0)
        right = _RESPELL.get(w.lower())
        if right is None:
            return w
        return right.capitalize() if w[0].isupper() else right
    return re.sub(r"[A-Za-z]{6,}", fix, text)


def canonical(clause: str, *, lowercase: bool = False) -> str:
    """The clause in the plain first-person grammar the rules read. Pure (invariant 137)."""
    c = clause.replace("’", "'").replace("‘", "'")
    # "I ❤️ sushi": the heart is the verb
    c = re.sub(r"\b(i|we)\s+(?:❤️|❤|♥️|♥|😍|🥰)\s*", r"\1 love ", c, flags=I)
    # "📍 Gdańsk now!": the pin says where the user is now (invariant 137)
    c = re.sub(r"^\s*📍\s*([^,.!?📍]+?)(?:\s+now)?\s*([!.]*)\s*$", r"now in \1\2", c)
    c = strip_symbols(c)
    # "I (finally!) moved", "I, too, am vegan": asides that only colour the statement
    c = re.sub(r"\s*\((?:\s*(?:finally|yes|again|at\s+last|lol|haha|i\s+know|seriously|really|[!?]+))+"
               r"\s*[!?.]*\)\s*", " ", c, flags=I)
    c = _MODEL_AFTER.sub(_model_first, c)
    c = re.sub(r"\b(i|we),\s*(?:too|also|as\s+well|though),\s*", r"\1 ", c, flags=I)
    c = re.sub(r"\b(we|they)\s+(?:both|all)\s+(?=[a-z])", r"\1 ", c, flags=I)
    # "I'm thirty-four", "just turned forty": the number
    c = re.sub(r"(?P<pre>\b(?:i'm|i\s+am|turned|i\s+turn)\s+)(?P<t>" + "|".join(_TENS) + r")(?:[- ](?P<u>"
               + "|".join(_UNITS) + r"))?\b", _age_words, c, flags=I)
    c = _SHORT_RE.sub(_short, c)
    # "sis moved to leeds", "Mum got a new car": a texter's relative without "my" is still
    # the relative, never the user (invariant 162)
    c = re.sub(r"^(" + _KIN + r")(?=(?:'s)?\s+(?!and\b|or\b|i\b)[a-z])", r"my \1", c, flags=I)
    if lowercase:
        c = _opening_name(c)
    prev = None
    while prev != c:
        prev = c
        c = _FRAME.sub("", c)
    c = _TAIL.sub(r"\1", c).strip()
    # "pretty sure my blood type is O negative", "probably coeliac": the hedge leaves the clause
    # (the reader marks the statement as unsure from the raw words, invariant 167)
    c = re.sub(r"^(?:i'?m\s+)?(?:pretty|fairly|quite|almost)\s+sure\s+(?:that\s+)?(?=(?:i|i'm|im|my|we|our)\b|"
               r"(?:allergic|vegan|vegetarian|coeliac|celiac|lactose|diabetic|pregnant)\b)|"
               r"^(?:probably|possibly|maybe|perhaps)\s+(?=(?:allergic|vegan|vegetarian|pescatarian|coeliac|celiac|"
               r"lactose|diabetic|asthmatic|dyslexic|autistic|pregnant|anaemic|anemic)\b)", "", c, flags=I)
    for pat, rep in _IDIOMS_RE:
        c = pat.sub(rep, c)
    # The subject a texter leaves out.
    if re.match(r"^been\s", c, I):
        c = "I've " + c
    elif _SUBJECTLESS.match(c) and not re.match(r"^(?:like|love|have)\s+(?:you|to|a\s+look)\b", c, I) \
            and not re.match(r"^(?:have|had|been|got)\s+(?:i|we)\b", c, I):
        # "have I had the jab?" is a question turned round, not "I have I had" (invariant 223)
        c = "I " + c
    elif _SUBJECTLESS_BE.match(c):
        c = "I'm " + c
    # "My car's a Skoda": is (only before a value, never a possessive "my car's engine").
    c = re.sub(r"\b((?:my|our)\s+[\w-]+)'s\s+(?=(?:a|an|the|now|still)\s|(?-i:[A-Z0-9])|[\w.+-]+@)", r"\1 is ", c,
               flags=I)
    # "I'm now the proud owner of a Fiat 500": I own.
    c = re.sub(r"\b(?:i'?m|i\s+am)\s+(?:now\s+)?(?:the\s+|a\s+)?(?:proud\s+|happy\s+|new\s+)*owner\s+of\b",
               "I now own", c, flags=I)
    # "bought a place in Harrogate and moved there": there is the place just named.
    named = re.search(r"\bin\s+((?-i:[A-Z])[\w'-]+(?:\s+(?-i:[A-Z])[\w'-]+)?)\b(?=.*\b(?:moved|moving|"
                      r"relocated|relocating)\s+there\b)", c)
    if named:
        c = re.sub(r"\b(moved|moving|relocated|relocating)\s+there\b", rf"\1 to {named.group(1)}", c)
    # "Found a flat in Leeds, moving in March": the move is to the place just found; the
    # sentence is the plan (invariants 139, 166)
    found_home = re.match(r"^(?:(?:i|we)\s+(?:have\s+|'ve\s+)?)?(?:finally\s+|just\s+)?(?:found|bought|got|rented|"
                          r"signed\s+for)\s+(?:a|an|our|my)\s+(?:new\s+|little\s+)?(?:flat|house|place|home|"
                          r"apartment|cottage)\s+in\s+(?P<p>(?-i:[A-Z])[\w'-]+(?:\s+(?-i:[A-Z])[\w'-]+)?)\s*,?\s*"
                          r"(?:and\s+|so\s+)?(?:(?:i'?m|we'?re)\s+)?moving\s+(?P<when>(?:in|next|on|at|this|from)\b[^,.;!?]*)$",
                          c, flags=I)
    if found_home:
        c = f"I'm moving to {found_home.group('p')} {found_home.group('when')}"
    # "New address is 3 Hill Road": my new address.
    c = re.sub(r"^(?:my\s+)?new\s+(address|number|phone\s+number|email|mobile|job|role|job\s+title|"
               r"employer|bank|car|phone|laptop|doctor|gp|dentist)\s*(?:is|:)\s*", r"My new \1 is ", c,
               flags=I)
    # Non-restrictive relative clauses say nothing new about the user ("my parents, who have
    # lived in Kochi their whole lives, have moved to Bangalore").
    c = re.sub(r",\s*(?:who|which|whose)\s+[^,]+,\s*", " ", c, flags=I)
    # "at a startup called Kōan": the name is the employer (invariant 164)
    c = re.sub(r"\b(at|for|with|joined)\s+(?:a|an)\s+(?:[\w-]+\s+){0,2}?(?:startup|start-up|company|firm|agency|"
               r"consultancy|studio|charity|bank|school|hospital|shop|café|cafe|restaurant|bakery|clinic|practice)\s+"
               r"(?:called|named)\s+(?=(?-i:[^\W\d_a-z]))", r"\1 ", c, flags=I)
    # "Tom and I got engaged": the user got engaged to Tom (invariant 203)
    c = re.sub(r"^(?P<n>(?-i:[^\W\d_a-z])[\w'-]+)\s+and\s+(?:i|me)\s+(?:have\s+|'ve\s+)?(?:just\s+|finally\s+)?"
               r"got\s+(?P<s>engaged|married)\b", r"I got \g<s> to \g<n>", c, flags=I)
    # "my wife and I", "me and the missus", "Tom and I": we.
    # Only as a subject: "I live in Leeds and I drink coffee" keeps Leeds (a place after a
    # preposition is never one of the people; invariant 317).
    def _we(m: re.Match) -> str:
        pre = (m.group("pre") or "").strip().lower()
        return m.group(0) if pre in _PREPS else (m.group("pre") or "") + "we"
    c = re.sub(r"(?P<pre>\b[\w'’]+\s+)?\b(?:(?:my|our)\s+[\w-]+(?:\s+(?-i:[^\W\d_a-z])[\w'-]+)?|me|"
               r"(?-i:[A-Z])[\w'-]+)\s+and\s+(?:i|me)\b(?!')", _we, c, flags=I)
    c = re.sub(r"^me\s+and\s+(?:my|the|our)\s+[\w-]+\b", "we", c, flags=I)
    # "Me and Tom are off to Rome", "we are both vegan": the user among others is "we", and
    # "both" or "all" after the verb says nothing more (invariant 310)
    c = re.sub(r"^me\s+and\s+(?-i:[^\W\d_a-z])[\w'-]+(?=\s+(?:are|were|have|had|'re|'ve|[a-z]+ed)\b)", "we", c,
               flags=I)
    c = re.sub(r"\b(we|they)(\s+are|'re|\s+were|\s+have|'ve)\s+(?:both|all)\s+(?=[a-z])", r"\1\2 ", c, flags=I)
    # "I'm out doing street photography every weekend", "we're off bouldering on Sundays": where
    # the user goes to do it is no part of what they do (invariant 312)
    c = re.sub(r"\b(i'm|i\s+am|we're|we\s+are)\s+(?:out|off)\s+(?=[a-z]{2,}ing\b)", r"\1 ", c, flags=I)
    # Non-native forms.
    c = re.sub(r"\b(am|is|are|'m|'re)\s+not\s+(?:more|anymore|any\s+more)\b", r"\1 no longer",
               c, flags=I)
    c = re.sub(r"\b(i'm|i\s+am|we're|we\s+are)\s+not\s+((?:a\s+|an\s+)?[\w-]+(?:\s+[\w-]+)?)\s+"
               r"any\s*more\b(?P<more>\s+\w)?",
               lambda m: f"{m.group(1)} no longer {m.group(2)}" + (f",{m.group('more')}" if
                                                                  m.group("more") else ""),
               c, flags=I)
    c = re.sub(r"\b(i|we)\s+(?:don't|do\s+not)\s+(\w+)(\s+[^,.;!?]+?)?\s+any\s*more\b",
               lambda m: f"{m.group(1)} no longer {m.group(2)}{m.group(3) or ''}", c, flags=I)
    c = re.sub(r",\s*not\s+(?:more|anymore|any\s+more)\s+([^,.;!?]+)", r", not \1 any more", c,
               flags=I)
    c = re.sub(r"\b(i)\s+am\s+(" + _BASE_VERBS + r")\b(?!ing)", r"\1 \2", c, flags=I)
    c = re.sub(r"^((?:my|our)\s+[\w-]+(?:\s+[^\W\d_][\w'-]*)?)\s+(?:she|he|they|it)\s+", r"\1 ",
               c, flags=I)
    c = re.sub(r"\b(?:is|are)\s+(moved|relocated|gone|left)\b", r"has \1", c, flags=I)
    c = re.sub(r"\bi\s+have\s+(?:an?\s+)?allerg(?:y|ies)\s+(?:of|to|for|on|against)\s+",
               "I'm allergic to ", c, flags=I)
    c = re.sub(r"\b(i|we)\s+(?:was|were)\s+never\s+(" + "|".join(_PERFECT_ING) + r")\b",
               lambda m: f"{m.group(1)} never {_PERFECT_ING[m.group(2).lower()]}", c, flags=I)
    c = re.sub(r"^(?:please\s+)?you\s+(forget|delete|remove|erase)\b", r"please \1", c, flags=I)
    c = re.sub(r"\bplease\s+you\s+", "please ", c, flags=I)
    c = re.sub(r"\b(?:working|doing\s+(?:a\s+)?job)\s+(?:like|as)\s+(?:an?\s+)?", "working as a ", c, flags=I)
    c = re.sub(r"\b(i|we)\s+(?:am|are)\s+having\s+", r"\1 have ", c, flags=I)
    c = re.sub(r"\b(have|bought|got|own|drive|ordered)\s+new\s+(?=[\w-]+(?<!s)\b)", r"\1 a new ", c, flags=I)
    c = re.sub(r"(\b(?:have|got|bought|own|drive|ordered)\s+(?:a|an)\s+(?:new\s+)?[\w-]+),\s*(?:it(?:'s|\s+is|"
               r"\s+was)|is|was)\s+(?:an?\s+)?(?=(?-i:[A-Z0-9]))", r"\1, a ", c, flags=I)
    c = re.sub(r"\b(my|our)\s+(wife|husband|partner|son|daughter|mum|mom|mother|dad|father|sister|"
               r"brother|dog|cat|boss|girlfriend|boyfriend|baby)\s+name\b", r"\1 \2's name", c, flags=I)
    c = re.sub(r",\s*(?:her|his|its|their)\s+(?:names?\s+(?:is|are)|name's)\s+(?=(?-i:[^\W\d_a-z]))", " called ", c,
               flags=I)
    c = re.sub(r"^me\s+i\b", "I", c, flags=I)
    c = re.sub(r"\b(i'm|i\s+am)\s+not\s+(smoking|drinking)\b(?=.*\b(?:since|any\s*more)\b)",
               r"I quit \2", c, flags=I)
    c = re.sub(r"\ballergic\s+(?:on|of|for|against|with)\s+", "allergic to ", c, flags=I)
    c = re.sub(r"\b(?:i'm|i\s+am)\s+working\s+as\s+(?:an?\s+)?", "I work as a ", c, flags=I)
    c = re.sub(r"\bwork\s+as\s+(?!an?\s|the\s)(?=[a-z])", "work as a ", c, flags=I)
    c = re.sub(r"\b(moved|moving|relocated)\s+(?:here|there|over)\s+(?=to\b)", r"\1 ", c, flags=I)
    c = re.sub(r"\b(like|love|enjoy)\s+(?:too|very)\s+much\s+", r"\1 ", c, flags=I)
    c = re.sub(r"\bi\s+have\s+(\d{1,3})\s+years\b(?!\s+(?:of|experience|left|in|at|with))",
               r"I'm \1 years old", c, flags=I)
    c = re.sub(r"\b((?-i:[A-Z])[\w'-]+)-based\b", r"based in \1", c, flags=I)
    c = re.sub(r"\b(work(?:ing)?)\s+by\s+(?:the\s+)?(?=(?-i:[A-Z]))", r"\1 at ", c, flags=I)
    c = re.sub(r"\b(work(?:s|ing)?)\s+in\s+(?:the\s+)?(?P<o>[^\W\d_][\w&'-]*(?:\s+(?-i:[A-Z])[\w&'-]*)*)",
               _work_in, c, flags=I)
    # "I have a new work in Amazon", "My new job is at Bosch": the user works there now
    # (invariant 163); "work" as a countable noun is a non-native "job"
    if not re.match(r"^(?!I\b)(?-i:[A-Z])[\w'-]+(?:\s+(?:just|finally))?\s+got\s", c):  # not "Tom got a new job"
        c = re.sub(r"\b(?:(?:i|we)\s+(?:have|'ve)\s+(?:got\s+)?|i'?ve\s+got\s+|(?:i\s+)?got\s+|^)(?:a\s+)?new\s+"
                   r"(?:job|work|position|role)\s+(?:is\s+)?(?:at|in|with|by)\s+(?=(?:the\s+)?(?-i:[^\W\d_a-z]))",
                   "I now work at ", c, flags=I)
    c = re.sub(r"^my\s+new\s+(?:job|work|employer)\s+is\s+(?:at|in|with|by)?\s*(?=(?:the\s+)?(?-i:[^\W\d_a-z]))",
               "I now work at ", c, flags=I)
    # "I'm a big fan of jazz": what the user likes, not "a big fan" (invariant 162)
    c = re.sub(r"\b(?:i'?m|i\s+am)\s+(?:a\s+)?(?:(?:big|huge|massive|great|real|total)\s+)?fan\s+of\s+",
               "I like ", c, flags=I)
    # "moved back to my hometown, Stockport,": the place named beside it (invariant 166)
    c = re.sub(r"\b(?:my|our)\s+(?:home\s*town|home\s+city|birthplace|home\s+village)\s*,\s*((?-i:[A-Z])[\w'-]+"
               r"(?:\s+(?-i:[A-Z])[\w'-]+)?)\s*,?", r"\1", c, flags=I)
    # "We have now a dog": the adverb before the verb (invariant 166)
    c = re.sub(r"\b(i|we)\s+(have|own|live|work|use|drive|eat|drink)\s+now\s+(?=(?:a|an|the|two|in|at|for)\b)",
               r"\1 now \2 ", c, flags=I)
    c = re.sub(r"\b(?:i'?m|i\s+am|we'?re|we\s+are)\s+(driv|rid)ing\s+(?=(?:a|an)\s+[^,.;!?]*\bnow\b)",
               lambda m: f"I {m.group(1)}e ", c, flags=I)
    # "I'm drinking coffee now": what the user drinks these days, not the cup in hand
    c = re.sub(r"\b(?:i'?m|i\s+am)\s+(drink|eat)ing\s+(?!(?:a|an|the|my|some|this|that)\s)(?=[^,.;!?]*\bnow\b)",
               r"I \1 ", c, flags=I)
    # "back living with my parents in Cardiff", "moved back in with my parents in Cardiff",
    # "renting in Leeds now": where the user lives (invariant 163).
    c = re.sub(r"^(?:i'?m\s+|i\s+am\s+)?back\s+(living|staying)\b", r"I'm \1", c, flags=I)
    c = re.sub(r"\b(live|lives|living|staying)\s+with\s+(?:my|our)\s+(?:[\w'-]+\s+and\s+)?[\w'-]+\s+"
               r"(?=in\s+(?-i:[^\W\d_a-z]))", r"\1 ", c, flags=I)
    c = re.sub(r"\bmoved\s+(back\s+)?in\s+with\s+(?:my|our)\s+(?:[\w'-]+\s+and\s+)?[\w'-]+\s+in\s+"
               r"(?=(?-i:[^\W\d_a-z]))", r"moved \1to ", c, flags=I)
    c = re.sub(r"(?:\b(?:i'?m|i\s+am)\s+|^|(?<=,)\s*)renting\s+(?:a\s+(?:flat|place|house|room)\s+)?"
               r"in\s+(?=(?-i:[^\W\d_a-z]))", " I'm living in ", c, flags=I).strip()
    c = re.sub(r"\b(i|we)\s+(eat|drink|use|play|live|work)\s+again\s+", r"\1 \2 ", c, flags=I)
    c = re.sub(r"\b(i'm|i\s+am)\s+again\s+", r"\1 again ", c, flags=I)
    # "X is where I grew up": I grew up in X.
    c = re.sub(r"^(?P<p>[^,]+?)\s+is\s+where\s+(?P<s>i|we)\s+(?P<v>grew\s+up|was\s+born|live)\b",
               lambda m: f"{m.group('s')} {m.group('v')} in {m.group('p')}", c, flags=I)
    # "Used to drive a Golf, now I've got a Tesla": what stopped, then what is true now.
    c = re.sub(r"^(?:i\s+|we\s+)?used\s+to\s+(?!be\b)(\w+)\s+([^,]+?),?\s+(?:but\s+|and\s+)?(?=now\b)",
               r"I no longer \1 \2, ", c, flags=I)
    # "I'm vegan and allergic to nuts": two predicates of one "I'm".
    c = re.sub(r"\b(i'm|i\s+am)\s+([^,]+?)\s+and\s+(?:also\s+)?(?=(?:allergic|vegan|vegetarian|pescatarian|"
               r"coeliac|celiac|lactose|married|divorced|engaged|retired|pregnant|diabetic|left-handed|"
               r"a|an)\s)", r"\1 \2, I'm ", c, flags=I)
    # Aspect: "I've been working for" reads as "I'm working for".
    c = re.sub(r"\bi\s*(?:'ve|\s+have)\s+been\s+(\w+ing)\b", r"I'm \1", c, flags=I)
    c = re.sub(r"\bwe\s*(?:'ve|\s+have)\s+been\s+(\w+ing)\b", r"we're \1", c, flags=I)
    # "no longer vegan eating fish again": two clauses
    c = re.sub(r"\b(vegan|vegetarian|pescatarian|veggie)\s+(eating|drinking)\b", r"\1, \2", c, flags=I)
    if lowercase:
        c = _run_on(_capitalise_names(c))
    return " ".join(c.split())


_NOT_NAMES = frozenset("""a an the my our your his her their this that it home work town bed
school uni university hospital love trouble pain charge time general fact case touch debt shape
luck public private advance order line place front mind doubt bits tears office me you them us
him there here now then again all some any no one two three""".split())


_RUN_ON_KEEP = frozenset("""i we just finally and then have had 've also recently never already
they he she you it who that which so but or not""".split())


# Words a texter opens a message with that are not who it is about ("omg got a new job").
_FILLERS = frozenset("""lol omg yay ok okay yes yeah yep update news today yesterday guess well anyway btw
hey hi hello woo wow ugh phew haha hooray sigh welp right so also soo tbh honestly basically
finally just recently sis bro mum dad hubby wifey""".split())


def _run_on(c: str) -> str:
    """A texter's run-on ("sold my car got an ebike instead", "moved to leeds new job at
    asda"): a comma before a verb or "new job" that starts a new clause."""
    if re.match(r"^(?!I\b)(?-i:[A-Z])[\w'-]+\s+(?:just\s+|finally\s+)?(?:got|moved|sold|bought|left|quit|joined|"
                r"started|switched)\s", c):
        return c  # "Tom got a new job at the council": one clause about Tom (invariant 165)

    def cut(m: re.Match) -> str:
        before = c[:m.start()].split()
        if not before or before[-1].lower().strip(",") in _RUN_ON_KEEP:
            return m.group(0)
        if len(before) == 1 and re.fullmatch(r"(?-i:[A-Z])[\w'-]+", before[0]) and before[0] != "I":
            return m.group(0)  # "Tom got a new job": a name is the verb's subject
        if re.search(r"\b(?:died|broke|broke\s+down|packed\s+in|stopped\s+working|was\s+stolen|got\s+stolen)$",
                     c[:m.start()].strip(), I):
            return "," + m.group(0)  # "the roborock died got a dreame": the ended thing is a clause
        if re.match(r"^(?:my|our|the|his|her|their|a|an|this|that|some|every\w*|some\w+|he|she|they|"
                    r"it)\b", c[:m.start()].rsplit(",", 1)[-1].strip(), I):
            # "our landlord sold the house": the verb has its subject, someone else (invariant 162)
            return m.group(0)
        return "," + m.group(0)
    return re.sub(r"\s+(?=(?:got|bought|moved|joined|started|switched|sold|quit|left)\s+(?:a|an|the|my|to|"
                  r"at|into|from)\b|new\s+job\b)", cut, c, flags=I)


def _work_in(m: re.Match) -> str:
    """ "work in Siemens" is "work at Siemens" when the name is an employer's; "work in London"
    and "work in IT" stay (invariant 163)."""
    words = m.group("o").split()
    low = [w.lower() for w in words]
    if " ".join(low) in lx.EMPLOYERS or (low[0] in lx.EMPLOYERS and len(words) == 1) or (
            len(words) > 1 and low[-1] in lx.ORG_WORDS and words[0][:1].isupper()):
        name = " ".join(w if w[:1].isupper() else w.capitalize() for w in words)
        return f"{m.group(1)} at {name}"
    return m.group(0)


def _capitalise_names(c: str) -> str:
    """In an all-lowercase message, the word after "joined", "left", "at", "in ... now" is a
    name ("left deloitte joined kpmg" -> Deloitte, Kpmg)."""
    def up(m: re.Match) -> str:
        word = m.group("w")
        if word.lower() in _NOT_NAMES or word.lower().endswith("ing"):
            return m.group(0)
        return m.group(0)[:m.start("w") - m.start()] + word[:1].upper() + word[1:]
    c = re.sub(r"\b(?:joined|left|quit|start(?:ed|ing)\s+at|notice\s+at|work(?:ing)?\s+(?:at|for)|job\s+(?:at|with)|"
               r"employed\s+by)\s+(?:the\s+)?(?P<w>[^\W\d_][\w&'-]*)", up, c, flags=I)
    c = re.sub(r"\b(?:switched|moved|changed|went)\s+(?:\w+\s+){0,2}?(?:to|from)\s+(?P<w>[^\W\d_][\w'-]*)",
               up, c, flags=I)
    c = re.sub(r"\bfrom\s+(?P<w>[^\W\d_][\w'-]*)", up, c, flags=I)
    c = re.sub(r"\bin\s+(?P<w>[^\W\d_][\w'-]*)(?=\s+now\b)", up, c, flags=I)
    c = re.sub(r"\bnow\s+in\s+(?P<w>[^\W\d_][\w'-]*)", up, c, flags=I)
    c = re.sub(r"^(?P<w>[^\W\d_][\w'-]*)(?=\s+(?:has\s+)?(?:died|passed\s+away)\b)", up, c, flags=I)
    # "my sister anjali moved to london": the word between a relation and a verb is a name
    c = re.sub(r"\b(?:my|our)\s+(?:" + _KIN + r")\s+(?P<w>[^\W\d_][\w'-]*)(?=\s+(?:just\s+|finally\s+)?(?:moved|lives|"
               r"is|got|works|has|started|joined|left|turned|retired|died)\b)",
               lambda m: m.group(0) if m.group("w").lower() in _NOT_NAMES | _RUN_ON_KEEP | _FILLERS
               else up(m), c, flags=I)
    return _opening_name(c)


def _opening_name(c: str) -> str:
    """ "tom got a new job": one unknown word opening an all-lowercase message before a verb of
    news is who it is about, not a filler (invariant 165)."""
    def up(m: re.Match) -> str:
        w = m.group("w")
        if w.lower() in _NOT_NAMES | _RUN_ON_KEEP | _FILLERS or w.lower().endswith(("ly", "ed", "ing")):
            return w
        return w[:1].upper() + w[1:]
    return re.sub(r"^(?P<w>[^\W\d_][\w-]*)(?=(?:'s)?\s+(?:just\s+|finally\s+)?(?:got|moved|sold|bought|left|quit|"
                  r"joined|started|switched)\s)", up, c, flags=I)
