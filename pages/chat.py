"""Chat as a persona: each message is one agent turn (tools, writes, corrections), with the
turn's trace under the reply. Stored text is shown as text, never as Markdown."""

import json

import pandas as pd
import streamlit as st

from memory.agent import new_session_id, run_turn
from memory.errors import MemdeskError
from memory.trace import TurnTrace, core_rows, diff_line, hit_rows, step_rows, write_links
from memory.ui import (
    acting_operator,
    can,
    describe,
    llm_mode,
    mark_changed,
    md,
    page_guard,
    pick_user,
    runtime,
    service,
)

PAGES = {"facts": "pages/facts.py", "review": "pages/review.py"}

page_guard()  # issue 14: inside the desk's navigation, and nothing before login
st.title("Chat")
user = pick_user(allow_new=True)  # talking is how a new user's memory begins
svc = service()
# One session per persona in this browser tab; replies live only here (invariant 9).
sessions = st.session_state.setdefault("chat_sessions", {})
state = sessions.setdefault(user, {"id": new_session_id(), "messages": []})
st.text(f"Chatting as {user} · model {llm_mode()} · session {state['id']}")
st.caption("Your messages are stored as this user's episodes; the agent writes, corrects and "
           "forgets memories through its tools, and shows its work under each reply.")
top = st.columns([1, 1, 1, 3])
if top[0].button("New session", key="chat_new_session"):
    sessions[user] = {"id": new_session_id(), "messages": []}
    st.rerun()


def link(col, page: str, label: str, **params) -> None:
    """A link to another desk page; as plain text when this page runs outside the desk."""
    try:
        col.page_link(PAGES[page], label=label, query_params={"user": user, **params})
    except st.errors.StreamlitAPIException:  # not registered: run without app.py's navigation
        col.text(f"{label}: see the {page} page")


link(top[1], "facts", "Facts")
link(top[2], "review", "Review queue")


def show_trace(trace: TurnTrace, n: int) -> None:
    writes = trace.writes()
    with st.expander(f"Writes ({len(writes)})", expanded=bool(writes)):
        if writes:
            st.code("\n".join(diff_line(w) for w in writes), language=None)
            for lk in write_links(trace):
                key = "fact" if lk.page == "facts" else "item"
                link(st, lk.page, lk.label, **{key: lk.memory_id})
        else:
            st.text("Nothing written in this turn.")
        for attempt in trace.scope_attempts():
            st.text(f"The model tried to choose the scope in {attempt['tool']}: "
                    f"{json.dumps(attempt['ignored'], ensure_ascii=False)}; ignored, tools act "
                    f"only for {trace.user_id}.")
    with st.expander(f"Core memory ({len(trace.core_memory)})"):
        if trace.core_memory:
            st.dataframe(pd.DataFrame(core_rows(trace)), hide_index=True, key=f"core_{n}")
    pre = trace.pre_recall.result if trace.pre_recall else None
    with st.expander(f"Recalled before the model ran ({len(pre.hits) if pre else 0})"):
        if pre and pre.hits:
            st.dataframe(pd.DataFrame(hit_rows(pre.hits)), hide_index=True, key=f"pre_{n}")
        if pre and pre.explain:
            st.text("Filters: " + "; ".join(f"{f.name} removed {f.removed}"
                                            for f in pre.explain.filters))
    with st.expander(f"Tool calls ({len(trace.tool_calls)})"):
        for call in trace.tool_calls:
            r = call.result
            st.text(f"step {call.step} · {call.name} · {'ok' if r.ok else 'error'} · {call.ms} ms")
            st.code(json.dumps({"arguments": r.args, "result": r.for_model()}, indent=1,
                               ensure_ascii=False, default=str), language="json")
    with st.expander(f"Model {trace.mode}" + (" (fallback, no model configured)"
                                               if trace.fallback else "")
                     + f" · tokens {trace.usage.input_tokens} in / "
                     f"{trace.usage.output_tokens} out"):
        st.text(f"episode {trace.episode_id} · turn {trace.turn_id}"
                + (" · this message was forgotten too (a request to forget is not kept)"
                   if trace.episode_forgotten else ""))
        if trace.fallback:  # invariant 438: a fallback to the offline reader is said
            st.text(f"Fallback: {trace.fallback}")
        if trace.cut_off:
            st.text("The model's answer was cut off at its token limit; no tool call of it ran.")
        st.dataframe(pd.DataFrame(step_rows(trace)), hide_index=True, key=f"steps_{n}")
    if trace.consolidation:
        c = trace.consolidation
        with st.expander(f"Consolidation ({c.trigger}): {c.applied} of {c.ops} ops applied"):
            st.code(c.error or c.diff, language=None)


if not state["messages"]:  # issue 34: an empty session says what to do, never a blank page
    st.info(f"No messages in this session yet. Type below as {md(user)}: each message is stored "
            "as their episode, the agent answers from their memory, and its work shows under "
            "the reply.")
for n, msg in enumerate(state["messages"]):
    with st.chat_message(msg["role"]):
        st.text(msg["content"])
        if msg.get("error"):
            st.error(md(msg["error"]))  # error text can quote stored text: shown as text
        if msg.get("trace"):
            show_trace(TurnTrace.model_validate(msg["trace"]), n)

if not can("chat"):  # issue 14: chatting as a persona writes its memory: reviewers and admins
    st.caption("Chatting as a persona needs the reviewer role.")
    st.stop()
if prompt := st.chat_input(f"Message as {user}", key="chat_input"):
    earlier = [m for m in state["messages"] if not m.get("error")]
    entry = {"role": "user", "content": prompt}
    state["messages"].append(entry)  # kept on screen even if the turn fails: nothing typed is lost
    try:
        rt = runtime()
        trace = run_turn(svc, user, state["id"], prompt, history=earlier, llm=rt.llm,
                         consolidation=rt.settings.agent_consolidation,
                         operator=acting_operator())  # issue 14: who speaks as the persona
    except MemdeskError as exc:  # bad input, or a model that cannot run: nothing was written
        entry["error"] = describe(exc)
    else:
        mark_changed()  # the turn stored an episode (and maybe more): the sidebar counts move
        if trace.error:  # the model failed: the user's words are stored, nothing else changed
            entry["error"] = trace.error + " · your message was kept"
        else:
            state["messages"].append({"role": "assistant", "content": trace.reply,
                                      "trace": trace.model_dump(mode="json")})
    st.rerun()
