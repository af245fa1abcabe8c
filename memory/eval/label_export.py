"""`memdesk eval export-labels`: a day of operators' decisions as a statements file that
`memdesk eval agent` reads (issue 32, invariant 494).

One case per source message (the labels of one message are one case): the message is the case's
text (earlier source messages its history), a fact it would replace or was merged into is a
`given` fact, and every label the operator let stand is an expected operation holding the words
of the value as the operator left it. A rejected proposal, or an active write an operator
retracted, expects nothing; a proposed retraction retracted expects that retraction, one kept
expects nothing (the fact stays given). Cases belong to the new user "fresh": no user id is kept, not even
inside a text; a case with a secret in any text, or whose message was forgotten, is left out; an
erased user's examples are refused.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Iterable
from datetime import date

from pydantic import BaseModel, Field

from review.label_source import collect_labels, erased
from review.labels import Outcome
from review.queue import scope

from ..models import Episode, Fact, MemoryKind
from ..sensitive import secret_in
from ..service import MemoryService
from ..tools import TIME_WORDS
from .agent_eval import FRESH, Case, Expected, Given

# Words never chosen as a value's words: they say nothing about the value.
_STOP = frozenset("""the and for are was not but her his she him its our their about after again also been before being from have having into just like
more most much only other over same some such than that their them then there these they this
those through under very were what when where which while with would your yours
prefers likes loves wants uses owns keeps has""".split())  # a fact's usual verbs
VALUE_WORDS = 3
_WORD = re.compile(r"[^\W_]+(?:['’][^\W_]+)?")


class ExportResult(BaseModel):
    cases: list[Case]
    labels: int = Field(description="labels decided since the date, before any was left out")
    left_out: dict[str, int] = Field(default_factory=dict, description="labels left out, by why")
    refused_users: list[str] = Field(default_factory=list, description="erased: never exported")


def value_words(text: str, n: int = VALUE_WORDS) -> list[str]:
    """Up to `n` words a value must hold: the longest content words, in the order said. Pure."""
    words = [w for w in _WORD.findall(text) if len(w) >= 3 and w.lower() not in _STOP
             and not TIME_WORDS.search(w)]
    seen = list(dict.fromkeys(words))
    keep = set(sorted(seen, key=lambda w: (-len(w), seen.index(w)))[:n])
    return [w for w in seen if w in keep]


def _hide(text: str, user: str) -> str:
    """The user id never leaves in a text (invariant 494)."""
    return re.sub(re.escape(user), "the user", text, flags=re.IGNORECASE)


def export_labels(service: MemoryService, users: Iterable[str], *, since: date,
                  actor: str) -> ExportResult:
    """The decided examples of `users` since `since` as statement cases. Exporting a user's
    words needs the export role for each user (invariant 121)."""
    names = scope(users)
    for user in names:
        service.require(actor, "export_user", user)
    out = ExportResult(cases=[], labels=0)
    for user in names:
        labels = collect_labels(service, [user], since=since)
        out.labels += len(labels)
        if erased(service, user):  # invariant 494: an erased user's words never leave
            out.refused_users.append(user)
            if labels:
                out.left_out["erased user"] = out.left_out.get("erased user", 0) + len(labels)
            continue
        by_message: dict[tuple[str, ...], list] = {}
        for lb in labels:
            if not lb.source_episode_ids:
                out.left_out["no source message"] = out.left_out.get("no source message", 0) + 1
                continue
            by_message.setdefault(tuple(lb.source_episode_ids), []).append(lb)
        store = service.store
        for ep_ids, group in by_message.items():
            episodes = [store.get(MemoryKind.EPISODIC, user, i) for i in ep_ids]
            if not all(isinstance(e, Episode) for e in episodes):
                why = "source message forgotten"
                out.left_out[why] = out.left_out.get(why, 0) + len(group)
                continue
            said = sorted((e for e in episodes if isinstance(e, Episode)),
                          key=lambda e: e.timestamp)
            given: list[Given] = []
            expect: list[Expected] = []
            ok = True
            for lb in group:
                ref = None
                # The fact it would replace (kept both: still there) or was merged into is what
                # the user already has on record when the message is said again.
                old_id = lb.into if lb.outcome == Outcome.MERGED else lb.supersedes
                if old_id:
                    old = store.get(MemoryKind.SEMANTIC, user, old_id)
                    if not isinstance(old, Fact):
                        ok = False
                        break
                    ref = f"g{len(given)}"
                    given.append(Given(text=_hide(old.text, user), fact_type=old.fact_type.value))
                if lb.outcome in (Outcome.REJECTED, Outcome.RETRACTED, Outcome.MERGED):
                    continue  # nothing should be written from this proposal
                if lb.decision == "retract":  # a proposed retraction retracted: no new value
                    expect.append(Expected(op="retract", old=ref))  # invariant 591
                    continue
                value = lb.final if lb.final is not None else lb.proposed
                if ref is None or lb.decision == "keep-both":
                    op, ref = "write", None
                else:
                    op = "retract" if lb.contradiction == "harsh" else "supersede"
                expect.append(Expected(op=op, value=value_words(_hide(value, user)), old=ref))
            if not ok:
                why = "replaced fact forgotten"
                out.left_out[why] = out.left_out.get(why, 0) + len(group)
                continue
            texts = [_hide(e.text, user) for e in said]
            if any(secret_in(t) for t in [*texts, *(g.text for g in given),
                                          *(w for x in expect for w in x.value)]):
                out.left_out["secret"] = out.left_out.get("secret", 0) + len(group)
                continue
            digest = hashlib.sha256("\0".join([user, *ep_ids]).encode()).hexdigest()[:12]
            out.cases.append(Case(id=f"lbl-{digest}", split="tune", user=FRESH, given=given,
                                  history=texts[:-1], text=texts[-1], expect=expect))
    return out


def cases_jsonl(cases: list[Case]) -> str:
    """One case per line, as `load_cases` reads them. Pure."""
    return "".join(json.dumps(c.model_dump(mode="json", exclude_defaults=True),
                              ensure_ascii=False) + "\n" for c in cases)
