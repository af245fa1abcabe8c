"""Users: every user the store knows, with counts per memory type and fact state."""

import pandas as pd
import streamlit as st

from memory.ui import clear_errors, service
from memory.ui.views import episode_rows

st.title("Memdesk")
svc = service()
st.caption(f"Store: `{svc.store.url}` · embedder: `{svc.embedder.name}`")
with clear_errors():
    users = svc.users()
    if not users:
        st.info("No users yet. Run `memdesk seed` (or `make demo`) to load the demo personas.")
        st.stop()
    rows = [{"user": u.user_id, "episodes": u.episodes, "playbooks": u.playbooks, **u.facts}
            for u in users]
    st.dataframe(pd.DataFrame(rows), hide_index=True)
    c1, c2, c3 = st.columns(3)
    c1.metric("Users", len(users))
    c2.metric("Episodes", sum(u.episodes for u in users))
    c3.metric("Active facts", sum(u.facts.get("active", 0) for u in users))

    st.subheader("Recent activity")
    who = st.selectbox("User", [u.user_id for u in users], key="users_detail")
    recent, audit = st.tabs(["Latest episodes", "Audit log"])
    episodes = svc.episodes(who)[-10:][::-1]
    recent.dataframe(pd.DataFrame(episode_rows(episodes)), hide_index=True)
    events = [{"at": e.at, "actor": e.actor, "action": e.action, "outcome": e.outcome,
               "targets": ", ".join(e.target_ids), "reason": e.reason or ""}
              for e in svc.audit(who, limit=25)]
    audit.dataframe(pd.DataFrame(events), hide_index=True)
