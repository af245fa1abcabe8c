"""What the reader produces: a `Reading` per clause and an `Operation` per change it implies.

The same types come out of the offline reader and (through the model adapters) out of a model:
resolution and policy never know which produced them.
"""

from __future__ import annotations

from datetime import date
from typing import Literal

from pydantic import BaseModel

Kind = Literal["statement", "question", "forget", "nothing"]
Act = Literal["state", "change", "end", "deny"]
Subject = Literal["self", "relative", "other", "unknown"]
OpName = Literal["write", "supersede", "retract", "forget"]
Status = Literal["active", "candidate"]


class Reading(BaseModel):
    """One clause read: who it is about, what it says, how sure the user is, and the words."""

    clause: str
    kind: Kind = "statement"
    act: Act = "state"
    subject: Subject = "self"
    relation: str | None = None  # "sister" for a relative's news
    person: str = ""  # the name the clause gives its subject ("Amara", "Jan")
    key: str = ""  # the attribute a "my K is V" reading names ("terminal")
    cue: str = ""  # the cue row's words, for the policy ("got" is the least sure of all)
    slot: str | None = None
    value: str = ""  # the value span, as said (time words removed)
    text: str = ""  # the canonical fact text
    old_value: str = ""  # the value the user says it replaces ("from ZHA", "instead of Drive")
    target: str = ""  # what a denial, ending or forget request points at
    said_as: str = ""  # an ending in the third person, offered when it ends nothing on record
    when: date | None = None
    until: date | None = None  # "until June": when the value stops being true
    future: bool = False
    hedged: bool = False
    garbled: bool = False  # a value that does not read as English the user would sign
    reason: str = ""  # why the reader is unsure, or why it read nothing


class FactRef(BaseModel):
    """A fact of the user's that resolution may replace, retract or forget."""

    id: str
    text: str
    state: str = "active"
    fact_type: str = "world"


class Operation(BaseModel):
    """One change to the user's memory, with the policy's status and its reason."""

    op: OpName
    status: Status = "active"
    text: str | None = None
    slot: str | None = None
    fact_type: str = "world"
    old_id: str | None = None
    old_text: str | None = None
    valid_from: date | None = None
    valid_to: date | None = None
    confidence: float = 0.9
    harsh: bool = False  # the old value was never true: a correction, not a change
    said: str = ""  # the user's own words for what it is about ("my address")
    reason: str = ""
    evidence: str = ""  # the clause that justifies it
