"""Chat as a persona: each message is stored as the user's episode; replies show their memories."""

import pandas as pd
import streamlit as st

from memory.agent import chat_turn
from memory.errors import MemdeskError
from memory.ui import describe, llm_mode, pick_user, runtime, service
from memory.ui.views import hit_rows

st.title("Chat")
user = pick_user()
svc = service()
st.caption(f"Chatting as **{user}** · LLM: `{llm_mode()}` · your messages are stored as "
           f"{user}'s episodes; replies live only in this session.")

# History per persona, in this browser session only: assistant text is never evidence (inv. 9).
history = st.session_state.setdefault("chat_history", {}).setdefault(user, [])
for msg in history:
    with st.chat_message(msg["role"]):
        st.markdown(msg["content"])
        if msg.get("error"):
            st.error(msg["error"])
        if msg["role"] == "assistant":
            with st.expander(f"Memories used ({len(msg['hits'])})"):
                if msg["hits"]:
                    st.dataframe(pd.DataFrame(msg["hits"]), hide_index=True)
                else:
                    st.caption("Recall returned nothing for this message.")

if history and st.sidebar.button("Clear this conversation", key="chat_clear"):
    history.clear()  # the session view only: stored episodes stay
    st.rerun()

if prompt := st.chat_input(f"Message as {user}", key="chat_input"):
    context = [m for m in history if not m.get("error")]
    entry = {"role": "user", "content": prompt}
    history.append(entry)  # kept on screen even if the turn fails: nothing typed is lost
    try:
        turn = chat_turn(svc, user, prompt, context, llm=runtime().llm)
    except MemdeskError as exc:
        entry["error"] = describe(exc)  # shown under the message it belongs to
    else:
        history.append({"role": "assistant", "content": turn.reply,
                        "hits": hit_rows(turn.hits)})
    st.rerun()
