"""The agent's three memory tools and one executor bound to the session's user (issue 12).

`recall_memory`, `write_memory` and `forget_memory` are pydantic models; their JSON schemas (for
Claude's tool use, and for the MCP server of issue 15) are derived from those models. `execute`
runs one call for a `ToolContext`: the user comes from the context, never from the arguments, so
a user id, index or scope the model supplies is stripped and recorded (invariant 70). Writes go
through MemoryService and review.propose, so they pass the same gates as every other write.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import date, datetime
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator
from pydantic import ValidationError as PydanticError

from .errors import MemdeskError, ValidationError
from .models import PROPOSED_RETRACTION, Fact, FactState, MemoryKind, Playbook
from .policy import ReviewPolicy
from .ranking import RankedHit
from .search_config import Purpose, RecallConfig
from .sensitive import refusal
from .service import MemoryService, RecallExplain
from .text import normalise

MAX_HITS = 20
MAX_QUERY_CHARS = 2000
# Keys a model might use to choose whose memory to touch. Compared case- and punctuation-blind.
SCOPE_KEYS = frozenset({"user", "userid", "user_id", "users", "username", "owner", "ownerid",
                        "scope", "index", "indexname", "namespace", "tenant", "tenantid",
                        "asuser", "foruser", "onbehalfof", "account", "accountid", "store",
                        "persona", "customer", "customerid"})
# Relative time words never belong in a stored value: they go stale the day after (inv. 74).
TIME_WORDS = re.compile(
    r"\b(?:yesterday|today|tonight|tomorrow|recently|lately|just now|the other day|"
    r"(?:last|next|this|coming)\s+(?:week|weekend|month|year|night|morning|evening|"
    r"monday|tuesday|wednesday|thursday|friday|saturday|sunday|spring|summer|autumn|fall|"
    r"winter)|\d+\s+(?:days?|weeks?|months?|years?)\s+ago|a\s+(?:day|week|month|year)\s+ago)\b",
    re.IGNORECASE)
# An explicit request to forget, in the user's own words this turn (invariant 75).
FORGET_REQUEST = re.compile(r"\b(?:forget|delete|erase|remove|wipe|scrub|purge|unlearn|"
                            r"get rid of (?:what|the note|that|everything|my)|stop remembering|"
                            r"don'?t (?:remember|keep|store))\b", re.IGNORECASE)


class _Args(BaseModel):
    model_config = ConfigDict(extra="forbid")


class RecallArgs(_Args):
    """Search this user's memories (and the shared help catalog)."""

    query: str = Field(min_length=1, max_length=MAX_QUERY_CHARS,
                       description="what to look for, in plain words")
    include_superseded: bool = Field(
        False, description="also return facts that stopped being true (history), e.g. for "
                           "'where have I lived?'")
    include_catalog: bool = Field(True, description="also search the shared help documents")
    k: int = Field(8, ge=1, le=MAX_HITS, description="how many memories to return")


class WriteArgs(_Args):
    """Remember a fact or a playbook, or retract a fact the user says was never true."""

    kind: Literal["fact", "playbook", "retraction"] = Field(
        "fact", description="fact: one durable statement about the user; playbook: steps that "
                            "fixed a problem; retraction: the user says a recalled fact was "
                            "never true and gives no replacement (name it in supersedes_id)")
    text: str | None = Field(
        None, max_length=500,
        description="fact: a short canonical third-person statement without the subject and "
                    "without relative time words, e.g. 'Lives in Edinburgh', 'Owns a Lumio Hub "
                    "v2', 'Allergic to peanuts', 'Main editor is Helix'")
    fact_type: Literal["identity", "preference", "constraint", "world"] = "world"
    confidence: float = Field(0.85, ge=0.0, le=1.0,
                              description="below 0.7 when the user hedges; it then waits for "
                                          "an operator's review")
    supersedes_id: str | None = Field(
        None, description="id of a fact recalled in this turn that this one replaces (or, "
                          "for a retraction, the fact the user denies)")
    contradiction: Literal["natural", "harsh"] | None = Field(
        None, description="natural: the old fact was true and stopped being true (a move, a "
                          "switch); harsh: it was never true (the user denies it)")
    never_true: str | None = Field(
        None, max_length=500,
        description="with contradiction natural: the part of the replaced fact the user says "
                    "was never true, as a fact of its own ('Allergic to shellfish' when "
                    "'Allergic to peanuts and shellfish' becomes 'Allergic to peanuts'); it is "
                    "marked never true so it cannot come back")
    valid_from: date | None = Field(None, description="when it became true, if the user's "
                                                      "words date it (ISO date)")
    valid_to: date | None = Field(None, description="when it stops being true, if stated")
    name: str | None = Field(None, max_length=200, description="playbook: a short name")
    trigger: str | None = Field(None, max_length=500,
                                description="playbook: the situation it is for")
    steps: list[str] | None = Field(None, description="playbook: the steps, in order")
    reason: str = Field("", max_length=500, description="why, in a few words")

    @model_validator(mode="after")
    def _shape(self) -> WriteArgs:
        if self.kind == "fact" and not (self.text or "").strip():
            raise ValueError("a fact needs `text`")
        if self.kind == "playbook" and not (self.name and self.trigger and self.steps):
            raise ValueError("a playbook needs `name`, `trigger` and `steps`")
        if self.kind == "retraction" and not self.supersedes_id:
            raise ValueError("a retraction names the denied fact in `supersedes_id`")
        if self.contradiction and not self.supersedes_id:
            raise ValueError("`contradiction` needs `supersedes_id`")
        if self.never_true and (not self.supersedes_id or self.contradiction == "harsh"
                                or self.kind != "fact"):
            raise ValueError("`never_true` names a part of the fact a natural supersession "
                             "replaces (supersedes_id)")
        return self


class ForgetArgs(_Args):
    """Delete one memory for good; only when the user explicitly asks to forget it."""

    memory_id: str = Field(min_length=1, max_length=200,
                           description="id of a memory recalled in this turn")
    reason: str = Field("", max_length=500)


class ToolSpec(BaseModel):
    name: str
    description: str
    args: type[_Args]

    def schema_for_model(self) -> dict[str, Any]:
        """The JSON schema of the arguments (Anthropic `input_schema`, MCP `inputSchema`)."""
        schema = self.args.model_json_schema()
        schema.pop("title", None)
        return schema


TOOLS: dict[str, ToolSpec] = {t.name: t for t in (
    ToolSpec(name="recall_memory", args=RecallArgs, description=(
        "Search the memories of the user you are talking to: their facts, their own earlier "
        "messages, playbooks that fixed their problems, and shared help documents. Returns ids "
        "you can pass to write_memory (supersedes_id) or forget_memory.")),
    ToolSpec(name="write_memory", args=WriteArgs, description=(
        "Remember something durable the user just told you about themselves: a fact (one short "
        "canonical statement), or a playbook. If it replaces a recalled fact, pass its id in "
        "supersedes_id with contradiction natural (it changed) or harsh (it was never true). "
        "To retract a fact the user denies without a replacement, use kind retraction. Dates go "
        "in valid_from/valid_to, never in the text. Low-confidence writes wait for review.")),
    ToolSpec(name="forget_memory", args=ForgetArgs, description=(
        "Delete one memory permanently. Only when the user explicitly asks you to forget or "
        "delete something; recall it first and pass its id.")),
)}


def tool_definitions() -> list[dict[str, Any]]:
    """Anthropic tool definitions, schemas derived from the pydantic models."""
    return [{"name": t.name, "description": t.description, "input_schema": t.schema_for_model()}
            for t in TOOLS.values()]


# --- results ---------------------------------------------------------------------------------
class HitView(BaseModel):
    """One recalled memory as the model and the trace see it, with its explain data."""

    id: str
    kind: str
    text: str
    fact_type: str | None = None
    state: str | None = None
    valid_from: date | None = None
    valid_to: date | None = None
    recorded_at: datetime | None = None
    supersedes: str | None = None  # chain links, so an answer can tell a history in order
    superseded_by: str | None = None
    rank: int
    fused: float
    bm25_rank: int | None = None
    dense_rank: int | None = None
    decay: float = 1.0
    use_boost: float = 1.0
    prior: float = 1.0

    @classmethod
    def of(cls, hit: RankedHit) -> HitView:
        doc = hit.doc
        if isinstance(doc, Playbook):
            text = f"{doc.name}: when {doc.trigger}: " + "; ".join(doc.steps)
        elif hasattr(doc, "title"):
            text = f"{doc.title}: {doc.text}"
        else:
            text = doc.text
        fact = doc if isinstance(doc, Fact) else None
        legs = hit.legs
        return cls(id=hit.id, kind=doc.kind.value, text=text,
                   fact_type=fact.fact_type.value if fact else None,
                   state=fact.state.value if fact else None,
                   valid_from=fact.valid_from.date() if fact and fact.valid_from else None,
                   valid_to=fact.valid_to.date() if fact and fact.valid_to else None,
                   recorded_at=getattr(doc, "recorded_at", None) or getattr(doc, "timestamp", None),
                   supersedes=fact.supersedes if fact else None,
                   superseded_by=fact.superseded_by if fact else None,
                   rank=hit.rank, fused=round(hit.fused_score, 6),
                   bm25_rank=legs["bm25"].rank if "bm25" in legs else None,
                   dense_rank=legs["dense"].rank if "dense" in legs else None,
                   decay=round(hit.multipliers.decay, 4),
                   use_boost=round(hit.multipliers.use_boost, 4),
                   prior=round(hit.multipliers.prior, 4))

    def for_model(self) -> dict[str, Any]:
        out: dict[str, Any] = {"id": self.id, "kind": self.kind, "text": self.text}
        for key in ("fact_type", "state", "valid_from", "valid_to", "supersedes", "superseded_by"):
            value = getattr(self, key)
            if value is not None:
                out[key] = value.isoformat() if isinstance(value, date) else value
        return out


WriteOp = Literal["write", "supersede", "retract", "forget", "playbook"]
WriteStatus = Literal["applied", "review", "refused", "duplicate"]


class WriteRecord(BaseModel):
    """One change a tool call made (or declined), for the trace's diff."""

    op: WriteOp
    status: WriteStatus
    memory_id: str | None = Field(None, description="the new fact/playbook, the review item, "
                                                    "or the forgotten memory")
    kind: str | None = None
    text: str | None = None
    fact_type: str | None = None
    old_id: str | None = None
    old_text: str | None = None
    contradiction: str | None = None
    valid_from: date | None = None
    valid_to: date | None = None
    confidence: float | None = None
    tombstone_id: str | None = None
    flags: list[str] = Field(default_factory=list)
    reason: str = ""
    also_forgotten: list[str] = Field(
        default_factory=list, description="the user's messages forgotten with it (invariant 75)")


class ToolResult(BaseModel):
    name: str
    ok: bool
    args: dict[str, Any] = Field(default_factory=dict, description="the validated arguments")
    stripped: dict[str, Any] = Field(
        default_factory=dict, description="scope keys the model supplied; ignored (inv. 70)")
    error: str | None = None
    hits: list[HitView] = Field(default_factory=list)
    explain: RecallExplain | None = None
    writes: list[WriteRecord] = Field(default_factory=list)
    message: str = ""

    def for_model(self) -> dict[str, Any]:
        """What goes back to the model as the tool result."""
        out: dict[str, Any] = {"ok": self.ok}
        if self.error:
            out["error"] = self.error
        if self.stripped:
            out["note"] = ("scope is fixed to the user you are talking to; ignored: "
                           + ", ".join(sorted(self.stripped)))
        if self.name == "recall_memory" and self.ok:
            out["hits"] = [h.for_model() for h in self.hits]
        if self.writes:
            out["writes"] = [w.model_dump(mode="json", exclude_none=True)
                             for w in self.writes]
        if self.message:
            out["message"] = self.message
        return out


@dataclass
class ToolContext:
    """Everything a tool call is bound to. The user is the session's; the model cannot change it."""

    service: MemoryService
    user_id: str
    session_id: str | None = None
    actor: str = "agent"
    recalled_ids: set[str] = field(default_factory=set)
    episode_id: str | None = None  # this turn's episode: evidence for writes, hidden from recall
    user_message: str | None = None  # this turn's words: forget needs an explicit request
    policy: ReviewPolicy = field(default_factory=ReviewPolicy)
    reader: str | None = None  # the agent's reader and version, stamped on its writes (inv. 490)
    # the secret values withheld from this turn's message (invariant 460): no write may hold one
    secrets: list[str] = field(default_factory=list)


class ToolRefused(MemdeskError):
    """A tool call the executor declines (reported to the model; nothing written)."""

    exit_code = 2


def _scope_key(key: str) -> bool:
    return re.sub(r"[^a-z]", "", str(key).lower()) in {re.sub(r"[^a-z]", "", k)
                                                       for k in SCOPE_KEYS}


def split_scope(args: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    """(arguments without scope keys, the scope keys the model tried to set). Pure."""
    kept: dict[str, Any] = {}
    stripped: dict[str, Any] = {}
    for key, value in args.items():
        (stripped if _scope_key(key) else kept)[key] = value
    return kept, stripped


def _first_error(exc: PydanticError) -> str:
    first = exc.errors()[0]
    where = ".".join(str(p) for p in first.get("loc", ())) or "arguments"
    return f"invalid {where}: {str(first.get('msg', 'invalid')).removeprefix('Value error, ')}"


def execute(ctx: ToolContext, name: str, args: Any) -> ToolResult:
    """Run one tool call for the context's user. Never raises for a bad call: the model gets a
    clear error back (and can correct itself); every write is the service's, audited."""
    spec = TOOLS.get(name)
    if spec is None:
        return ToolResult(name=name, ok=False,
                          error=f"unknown tool {name!r}; tools: {', '.join(TOOLS)}")
    if not isinstance(args, dict):
        return ToolResult(name=name, ok=False, error="arguments must be a JSON object")
    kept, stripped = split_scope(args)
    try:
        parsed = spec.args.model_validate(kept)
    except PydanticError as exc:
        return ToolResult(name=name, ok=False, stripped=stripped, error=_first_error(exc))
    result = ToolResult(name=name, ok=True, args=parsed.model_dump(mode="json"),
                        stripped=stripped)
    try:
        if isinstance(parsed, RecallArgs):
            _recall(ctx, parsed, result)
        elif isinstance(parsed, WriteArgs):
            _write(ctx, parsed, result)
        else:
            assert isinstance(parsed, ForgetArgs)  # the third and last tool
            _forget(ctx, parsed, result)
    except MemdeskError as exc:
        result.ok, result.error = False, f"{type(exc).__name__.removesuffix('Error')}: {exc}"
    return result


# --- recall ------------------------------------------------------------------------------------
def _recall(ctx: ToolContext, args: RecallArgs, result: ToolResult) -> None:
    hidden = {ctx.episode_id} if ctx.episode_id else set()
    config = RecallConfig(k=args.k + len(hidden), include_catalog=args.include_catalog,
                          include_superseded=args.include_superseded)
    res = ctx.service.recall(ctx.user_id, args.query, config=config, purpose=Purpose.AGENT,
                             explain=True)
    hits = [HitView.of(h) for h in res.hits if h.id not in hidden][:args.k]
    if args.include_superseded:
        hits += _chain_versions(ctx, hits)
    ctx.recalled_ids.update(h.id for h in hits)
    result.hits, result.explain = hits, res.explain


def _chain_versions(ctx: ToolContext, hits: list[HitView], *, heads: int = 5,
                    most: int = 6) -> list[HitView]:
    """History asked for: the other versions of the best facts' chains, which the search may
    miss ("Where have I worked?" finds the current job; the one before shares no word). Only the
    user's own chains, only versions that were once true (a retracted or rejected one never
    comes back, invariant 6); appended after the ranked hits, with no score of their own."""
    have = {h.id for h in hits}
    extra: list[HitView] = []
    for h in [h for h in hits if h.kind == "semantic"][:heads]:
        for f in ctx.service.chain(ctx.user_id, h.id):
            if f.id in have or f.state not in (FactState.ACTIVE, FactState.SUPERSEDED):
                continue
            have.add(f.id)
            extra.append(HitView(
                id=f.id, kind="semantic", text=f.text, fact_type=f.fact_type.value,
                state=f.state.value, valid_from=f.valid_from.date() if f.valid_from else None,
                valid_to=f.valid_to.date() if f.valid_to else None, recorded_at=f.recorded_at,
                supersedes=f.supersedes, superseded_by=f.superseded_by,
                rank=len(hits) + len(extra) + 1, fused=0.0))
            if len(extra) >= most:
                return extra
    return extra


# --- write -------------------------------------------------------------------------------------
def _recalled_fact(ctx: ToolContext, fact_id: str, action: str) -> Fact:
    """A fact the model may replace: this user's (another user's id is audited as denied,
    invariant 3) and recalled in this turn (invariant 71)."""
    fact = ctx.service.owned(ctx.user_id, MemoryKind.SEMANTIC, fact_id, actor=ctx.actor,
                             action=action)
    assert isinstance(fact, Fact)  # a semantic id reads as a Fact
    if fact_id not in ctx.recalled_ids:
        raise ToolRefused(f"{fact_id} was not recalled in this turn: recall it first, then "
                          f"{action} it")
    return fact


def _no_withheld(ctx: ToolContext, *texts: str | None) -> None:
    """Invariant 460: a value withheld from the user's message is kept out of every memory
    written from it, whatever words the model puts around it."""
    said = " ".join(t or "" for t in texts)
    if any(v in said for v in ctx.secrets):
        raise ValidationError(refusal("a password or code"))


def _write(ctx: ToolContext, args: WriteArgs, result: ToolResult) -> None:
    _no_withheld(ctx, args.text, args.name, args.trigger, *(args.steps or []))
    if args.kind == "playbook":
        return _write_playbook(ctx, args, result)
    if args.kind == "retraction":
        return _retract(ctx, args, result)
    text = " ".join((args.text or "").split())
    if m := TIME_WORDS.search(text):
        raise ToolRefused(f"{m.group(0)!r} in the text goes stale: state the value alone and "
                          "put the date in valid_from / valid_to (invariant 74)")
    svc, _policy = ctx.service, ctx.policy
    old = None
    if args.supersedes_id:
        old = _recalled_fact(ctx, args.supersedes_id, "supersede")
        if old.state != FactState.ACTIVE or old.superseded_by:
            raise ToolRefused(f"{old.id} is {old.state.value}, not the head of its chain: only "
                              "the current fact can be replaced (invariant 5)")
    contradiction = args.contradiction or ("natural" if old else None)
    op: WriteOp = "write" if old is None else ("retract" if contradiction == "harsh" else "supersede")
    record = WriteRecord(op=op, status="applied", kind="fact", text=text,
                         fact_type=args.fact_type, old_id=old.id if old else None,
                         old_text=old.text if old else None, contradiction=contradiction,
                         valid_from=args.valid_from, valid_to=args.valid_to,
                         confidence=args.confidence, reason=args.reason)
    same = _same_value(svc, ctx.user_id, text)
    if same is not None and (old is None or same.id != old.id):
        record.status, record.memory_id = "duplicate", same.id
        if same.state == FactState.CANDIDATE:
            # Invariant 76: the same value already waits for an operator; the reply says so
            # and never claims it as something on record.
            record.flags.append("awaiting_review")
        result.writes.append(record)
        result.message = (f"already on record as {same.id} ({same.state.value}); nothing "
                          "written")
        return None
    dated = old is not None and (
        (args.valid_from and args.valid_from != (old.valid_from.date() if old.valid_from else None))
        or (args.valid_to and args.valid_to != (old.valid_to.date() if old.valid_to else None)))
    if old is not None and same is not None and same.id == old.id and not dated:
        # The same words with a new valid time ("vegetarian since 2019") are a new version;
        # the same words alone are nothing new.
        record.status, record.memory_id = "duplicate", same.id
        result.writes.append(record)
        result.message = "the new value is the recalled fact itself; nothing written"
        return None
    sources = [ctx.episode_id] if ctx.episode_id else []
    review = _review_reason(ctx, text, args, old)
    if review == "drop":
        # The policy drops restated dead values: the service refuses the write below and
        # audits the refusal (invariant 7).
        review = None
    if review:
        from review.propose import propose

        cand = propose(svc, ctx.user_id, text, fact_type=args.fact_type,
                       confidence=args.confidence, source_episode_ids=sources,
                       supersedes_id=old.id if old else None,
                       contradiction=contradiction, actor=ctx.actor,
                       reason=f"{review}; {args.reason}".strip("; "), reader=ctx.reader)
        record.status, record.memory_id, record.flags = "review", cand.id, list(cand.flags)
        result.writes.append(record)
        result.message = f"sent to the review queue ({review}); not active until approved"
        return None
    res = svc.write_fact(ctx.user_id, text, fact_type=args.fact_type,
                         confidence=args.confidence, source_episode_ids=sources,
                         supersedes_id=old.id if old else None,
                         contradiction=contradiction or "natural", valid_from=args.valid_from,
                         valid_to=args.valid_to, actor=ctx.actor, reason=args.reason or None,
                         never_true=args.never_true or None, reader=ctx.reader)
    record.memory_id = res.fact.id
    record.confidence = res.fact.confidence
    record.tombstone_id = res.tombstone.id if res.tombstone else None
    if res.fact.state == FactState.CANDIDATE:
        # Held by the write path (a near-restatement of the value it retracts, invariant 62):
        # waiting for an operator, never reported as applied (invariant 219)
        record.status, record.flags = "review", list(res.fact.flags)
        result.message = "held for review by the write path; not active until approved"
    result.writes.append(record)
    return None


def _same_value(svc: MemoryService, user_id: str, text: str) -> Fact | None:
    """An active or pending fact with the same normalised text (no second copy is written). A
    proposed retraction holds a fact's text, not a value waiting (invariant 591)."""
    key = normalise(text)
    for f in svc.facts(user_id, states=[FactState.ACTIVE, FactState.CANDIDATE]):
        if normalise(f.text) == key and PROPOSED_RETRACTION not in f.flags:
            return f
    return None


def _review_reason(ctx: ToolContext, text: str, args: WriteArgs, old: Fact | None) -> str | None:
    """Why this write must wait for an operator, or None to apply it (invariant 73): the same
    review policy as consolidation, except that a harsh contradiction the user states in this
    turn is first-hand and applies (invariant 34 reserves retraction to the turn)."""
    policy = ctx.policy
    if ctx.service.tombstone_match(ctx.user_id, text) is not None:
        return "drop" if policy.previously_rejected == "drop" else "restates a value marked never true"
    if args.confidence < policy.min_confidence:
        return f"confidence {args.confidence:.2f} < {policy.min_confidence:.2f}"
    if old is not None and args.contradiction != "harsh" and policy.natural_supersessions == "review":
        return "policy sends every supersession to review"
    return None


def _retract(ctx: ToolContext, args: WriteArgs, result: ToolResult) -> None:
    old = _recalled_fact(ctx, args.supersedes_id or "", "retract")
    if old.state not in (FactState.ACTIVE, FactState.SUPERSEDED):
        raise ToolRefused(f"{old.id} is {old.state.value}; only a believed fact (active or "
                          "superseded) can be retracted")
    if args.confidence < ctx.policy.min_confidence:
        return _propose_retraction(ctx, args, old, result)
    tomb = ctx.service.retract(ctx.user_id, old.id, actor=ctx.actor,
                               reason=args.reason or "the user says it was never true")
    result.writes.append(WriteRecord(op="retract", status="applied", kind="fact",
                                     old_id=old.id, old_text=old.text, contradiction="harsh",
                                     tombstone_id=tomb.id, reason=args.reason))


def _propose_retraction(ctx: ToolContext, args: WriteArgs, old: Fact,
                        result: ToolResult) -> None:
    """Invariant 590: a retraction the reader is unsure of kills nothing: it waits in the review
    queue as a proposed retraction of `old`, with this turn's words as evidence and the
    reader's reason; an operator retracts or keeps. One proposal per fact: a second denial of
    the same fact finds the first one waiting."""
    from review.propose import propose_retraction

    why = (f"confidence {args.confidence:.2f} < {ctx.policy.min_confidence:.2f}; "
           f"{args.reason}").strip("; ")
    item, new = propose_retraction(
        ctx.service, ctx.user_id, old.id, confidence=args.confidence,
        source_episode_ids=[ctx.episode_id] if ctx.episode_id else [], actor=ctx.actor,
        reason=why, reader=ctx.reader)
    result.writes.append(WriteRecord(
        op="retract", status="review", kind="fact", memory_id=item.id, old_id=old.id,
        old_text=old.text, contradiction="harsh", confidence=args.confidence,
        flags=list(item.flags) + ([] if new else ["awaiting_review"]), reason=args.reason))
    result.message = (f"retracting {old.id} sent to the review queue ({why}); it stays on "
                      "record until an operator retracts it" if new else
                      f"a proposal to retract {old.id} already waits for review ({item.id}); "
                      "nothing written")


def _write_playbook(ctx: ToolContext, args: WriteArgs, result: ToolResult) -> None:
    if args.confidence < ctx.policy.min_playbook_confidence:
        raise ToolRefused(f"a playbook needs confidence ≥ {ctx.policy.min_playbook_confidence:.2f}"
                          " (the user confirms the steps worked)")
    pb = ctx.service.write_playbook(
        ctx.user_id, args.name or "", args.trigger or "", list(args.steps or []),
        confidence=args.confidence,
        source_episode_ids=[ctx.episode_id] if ctx.episode_id else [], actor=ctx.actor)
    result.writes.append(WriteRecord(op="playbook", status="applied", kind="playbook",
                                     memory_id=pb.id, text=f"{pb.name}: " + "; ".join(pb.steps),
                                     confidence=pb.confidence, reason=args.reason))


# --- forget ------------------------------------------------------------------------------------
def _forget(ctx: ToolContext, args: ForgetArgs, result: ToolResult) -> None:
    doc = ctx.service.find_memory(ctx.user_id, args.memory_id, actor=ctx.actor, action="forget")
    if ctx.user_message is not None and not FORGET_REQUEST.search(ctx.user_message):
        raise ToolRefused("forget_memory needs an explicit request from the user in this turn "
                          "(invariant 75)")
    if args.memory_id not in ctx.recalled_ids:
        raise ToolRefused(f"{args.memory_id} was not recalled in this turn: recall it first")
    # Invariant 75: a fact forgotten at the user's request takes the messages it came from
    # with it (this turn's own message is the turn's business: memory/agent.py).
    keep = frozenset({ctx.episode_id} if ctx.episode_id else ())
    res = ctx.service.forget(ctx.user_id, doc.id, actor=ctx.actor, reason=args.reason or None,
                             with_sources=True, keep=keep)
    ctx.recalled_ids.discard(doc.id)
    ctx.recalled_ids.difference_update(res.sources)
    result.writes.append(WriteRecord(op="forget", status="applied", memory_id=doc.id,
                                     kind=doc.kind.value, old_id=doc.id, reason=args.reason,
                                     also_forgotten=res.sources))
