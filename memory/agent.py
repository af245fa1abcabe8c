"""One agent turn (issue 12): store the user's words, build core memory, pre-recall, run the
agent's tool loop, maybe consolidate; everything it did is returned as a TurnTrace.

`run_turn` is the one entry point for the chat page, the CLI and the eval. The user's message is
written as an episode before any model call, so a failed model loses nothing the user said; the
reply is returned, never stored (invariants 9 and 72).
"""

from __future__ import annotations

import re
import time
import uuid
from datetime import UTC, datetime

from .agents import AgentInput, ToolRunner, get_agent
from .agents.base import Agent
from .clock import new_id
from .errors import MemdeskError, ValidationError
from .forgetting import derived_from
from .llm import LLM
from .models import Fact, FactState, FactType
from .policy import ReviewPolicy
from .readers import reader_version
from .sensitive import secret_values
from .service import MemoryService
from .text import clean_text, require_user
from .tools import MAX_QUERY_CHARS, ToolContext, execute
from .trace import ConsolidationRun, CoreItem, StepRecord, ToolCall, TurnTrace, diff_line

CORE_LIMIT = 24
# Fixed quotas (issue 12): the newest facts, the most used, and the longest-standing ones.
CORE_QUOTAS: tuple[tuple[str, int], ...] = (("recent", 10), ("used", 8), ("age", 6))
CORE_TYPES = (FactType.IDENTITY, FactType.CONSTRAINT)
_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
PRE_RECALL_K = 8


def new_session_id() -> str:
    return f"chat-{uuid.uuid4().hex[:12]}"


def core_memory(facts: list[Fact], *, limit: int = CORE_LIMIT,
                quotas: tuple[tuple[str, int], ...] = CORE_QUOTAS) -> list[CoreItem]:
    """Up to `limit` active identity and constraint facts for the system prompt, chosen by
    recency, use and age in fixed quotas (invariant 79); a quota with too few facts leaves its
    room to recency. Pure."""
    pool = [f for f in facts if f.state == FactState.ACTIVE and f.fact_type in CORE_TYPES]
    orders = {
        "recent": sorted(pool, key=lambda f: (f.valid_from or f.recorded_at, f.recorded_at, f.id),
                         reverse=True),
        "used": sorted((f for f in pool if f.use_count > 0),
                       key=lambda f: (f.use_count, f.last_used_at or _EPOCH, f.id), reverse=True),
        "age": sorted(pool, key=lambda f: (f.recorded_at, f.id)),
    }
    chosen: dict[str, CoreItem] = {}
    for why, n in quotas:
        for f in orders[why]:
            if n <= 0 or len(chosen) >= limit:
                break
            if f.id not in chosen:
                chosen[f.id] = CoreItem(id=f.id, text=f.text, fact_type=f.fact_type.value,
                                        why=why)
                n -= 1
    for f in orders["recent"]:
        if len(chosen) >= limit:
            break
        chosen.setdefault(f.id, CoreItem(id=f.id, text=f.text, fact_type=f.fact_type.value,
                                         why="recent"))
    return list(chosen.values())


def consolidation_every(setting: str) -> int | None:
    """MEMDESK_AGENT_CONSOLIDATION as a count of new episodes: manual -> None, every_turn -> 1,
    every_N -> N."""
    value = setting.strip().lower()
    if value == "manual":
        return None
    if value == "every_turn":
        return 1
    m = re.fullmatch(r"every_(\d+)", value)
    if m and int(m.group(1)) >= 1:
        return int(m.group(1))
    raise ValidationError(f"MEMDESK_AGENT_CONSOLIDATION={setting!r}: expected manual, every_turn "
                          "or every_N (N ≥ 1)")


def _ms(started: float) -> float:
    return round((time.perf_counter() - started) * 1000, 2)


def run_turn(svc: MemoryService, user_id: str, session_id: str | None, message: str, *,
             llm: LLM | None = None, history: list[dict[str, str]] | None = None,
             agent: Agent | None = None,
             policy: ReviewPolicy | None = None, consolidation: str = "manual",
             operator: str | None = None) -> TurnTrace:
    """One chat turn for one user. Bad input, and a configured model that cannot run, raise
    before anything is written (invariant 438); a model failure during the turn is returned on
    the trace (`error`, naming what was already written), with the user's episode and those
    writes kept (each one atomic and audited). `operator` (the desk's `operator:NAME`) is who speaks
    as the persona: their role must allow chat, and the episode is audited as theirs."""
    user = require_user(user_id)
    text = clean_text(message, field="message")
    if operator is not None:  # issue 14 (invariant 121): a viewer's turn writes nothing
        svc.require(operator, "chat", user)
    if agent is None and llm is None:
        raise ValidationError("a chat turn needs the runtime's model (llm) or an agent")
    every = consolidation_every(consolidation)  # MEMDESK_AGENT_CONSOLIDATION, via the runtime
    if agent is None:
        assert llm is not None  # refused above without one or the other
        agent = get_agent(llm)  # invariant 438: an unusable model raises here, nothing stored
    check = getattr(getattr(agent, "llm", None), "check", None)
    if check is not None:
        check()  # invariant 438: no key, an unknown model or a server down, before storing
    session = (session_id or "").strip() or new_session_id()
    now = svc.clock()
    trace = TurnTrace(turn_id=new_id("turn"), user_id=user, session_id=session, message=text,
                      started_at=now, today=now.date(),
                      fallback=getattr(llm, "fallback", None))  # invariant 438

    started = time.perf_counter()
    episode = svc.write_episode(user, text, session_id=session,  # invariant 72
                                actor=operator or "agent")
    trace.episode_id = episode.id
    trace.steps.append(StepRecord(step=0, kind="episode", ms=_ms(started)))

    started = time.perf_counter()
    trace.core_memory = core_memory(svc.facts(user, states=[FactState.ACTIVE]))
    trace.steps.append(StepRecord(step=0, kind="core", ms=_ms(started),
                                  note=f"{len(trace.core_memory)} facts"))

    # Invariant 455: driven by an operator, the agent acts with the operator's role and is
    # audited as them (a reviewer cannot forget through chat); alone, it is the agent.
    ctx = ToolContext(service=svc, user_id=user, session_id=session, actor=operator or "agent",
                      episode_id=episode.id, user_message=text, secrets=secret_values(text),
                      policy=policy or svc.policy)
    started = time.perf_counter()
    pre = execute(ctx, "recall_memory", {"query": text[:MAX_QUERY_CHARS], "include_catalog": True,
                                         "k": PRE_RECALL_K})
    trace.pre_recall = ToolCall(step=0, call_id="pre_recall", name="recall_memory", pre=True,
                                result=pre, ms=_ms(started))
    trace.steps.append(StepRecord(step=0, kind="pre_recall", ms=trace.pre_recall.ms,
                                  note=f"{len(pre.hits)} hits"))

    trace.mode = agent.mode
    ctx.reader = reader_version(agent.mode)  # invariant 490: its writes name their reader
    try:
        out = agent.run(AgentInput(message=text, history=_history(history),
                                   core_memory=trace.core_memory, pre_recall=pre,
                                   today=trace.today), ToolRunner(ctx, trace))
    except MemdeskError as exc:
        trace.error = (f"{type(exc).__name__.removesuffix('Error')}: {exc}; "
                       f"{written_before(trace)}")
        trace.error_code = exc.exit_code
        return trace
    trace.reply, trace.understood = out.reply, out.understood
    if episode.text != text:  # invariant 460: the secret was withheld from what was kept
        trace.reply = "\n\n".join(x for x in (trace.reply.strip(), WITHHELD_NOTE) if x)
    refusals = _denied(trace)
    if refusals:  # the reply says why, whatever the agent made of the refusal
        trace.reply = "\n\n".join(x for x in (trace.reply.strip(), *refusals) if x)
    if any(w.op == "forget" and w.status == "applied" for w in trace.writes()):
        trace.episode_forgotten = _forget_request(svc, user, episode.id, operator or "agent")
    if every is not None:
        trace.consolidation = _consolidate(svc, user, every, agent, llm)
    return trace


def written_before(trace: TurnTrace) -> str:
    """Invariant 432: what a failed turn had already changed, read from its own tool calls, so
    an error never says "nothing was written" over a fact that is active."""
    done = [w for w in trace.writes() if w.status in ("applied", "review")]
    if not done:
        return "no memory was written this turn"
    return ("written before the failure (kept): "
            + "; ".join(diff_line(w).replace("\n", " ") for w in done))


_DENIED = "AccessDenied: "
WITHHELD_NOTE = ("Your message held a password, PIN, code or key: I kept your words with it "
                 "replaced by [withheld], so it is stored nowhere — keep it in a password "
                 "manager instead.")


def _denied(trace: TurnTrace) -> list[str]:
    """One sentence per tool call this turn's role refused (each already audited `denied`)."""
    out = []
    for c in trace.tool_calls:
        error = c.result.error or ""
        if error.startswith(_DENIED):
            what = "forget that" if c.name == "forget_memory" else "write that down"
            out.append(f"I could not {what}: {error.removeprefix(_DENIED)}. Nothing was changed; "
                       "an operator with that role can do it.")
    return list(dict.fromkeys(out))


def _forget_request(svc: MemoryService, user: str, episode_id: str, actor: str) -> bool:
    """Invariant 75: a message that got something forgotten is not kept either ("please forget
    that I live at 12 Rose Street" names what it forgets), unless a memory written this turn
    cites it as its source. The audit keeps the forget event with a hash."""
    if derived_from(svc, user, episode_id):
        return False
    svc.forget(user, episode_id, actor=actor, reason="a request to forget is not kept")
    return True


def _history(history: list[dict[str, str]] | None) -> list[dict[str, str]]:
    """Only role and content of earlier messages; pages keep their traces beside them."""
    out = []
    for m in history or []:
        role, content = m.get("role"), m.get("content")
        if role in ("user", "assistant") and isinstance(content, str) and content.strip():
            out.append({"role": role, "content": content})
    return out


def _consolidate(svc: MemoryService, user: str, every: int, agent: Agent,
                 llm: LLM | None) -> ConsolidationRun | None:
    """Run consolidation when MEMDESK_AGENT_CONSOLIDATION says so: every N new episodes since the
    consolidation watermark. A failure is reported on the trace; the turn stands."""
    from .consolidation.apply import apply_plan
    from .consolidation.plan import WATERMARK
    from .consolidation.planner import make_plan, parse_watermark

    said, stored = parse_watermark(svc.store.get_watermark(user, WATERMARK) or None)
    new = [e for e in svc.episodes(user) if said is None or e.timestamp > said
           or (stored is not None and e.recorded_at > stored)]
    if len(new) < every:
        return None
    run = ConsolidationRun(trigger="every_turn" if every == 1 else f"every_{every}")
    try:
        model = llm or agent.llm  # the agent's own model when the caller gave only the agent
        plan = make_plan(svc, user, model)
        applied = apply_plan(svc, plan)
    except MemdeskError as exc:
        run.error = f"{type(exc).__name__.removesuffix('Error')}: {exc}"
        return run
    run.plan_id, run.ops, run.applied = plan.id, len(plan.actionable()), len(applied.applied)
    run.diff = plan.render_diff()
    return run
