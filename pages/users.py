"""Users: every user the store knows, with counts per memory type and fact state; the chosen
user's latest episodes and audit log, and links to their facts and review queue."""

import pandas as pd
import streamlit as st

from memory.ui import clear_errors, md, page_guard, page_link, pick_user, service, user_summaries
from memory.ui.views import episode_rows

page_guard()  # issue 14: inside the desk's navigation, and nothing before login
st.title("Memdesk")
svc = service()
st.caption(md(f"Store: {svc.store.url} · embedder: {svc.embedder.name}"))
user = pick_user()  # an empty store stops here with how to seed it
with clear_errors():
    users = user_summaries(svc)
    rows = [{"user": u.user_id, "episodes": u.episodes, "playbooks": u.playbooks, **u.facts}
            for u in users]
    st.dataframe(pd.DataFrame(rows), hide_index=True, width="stretch")
    c1, c2, c3 = st.columns(3)
    c1.metric("Users", len(users))
    c2.metric("Episodes", sum(u.episodes for u in users))
    c3.metric("Active facts", sum(u.facts.get("active", 0) for u in users))

    st.subheader(f"Recent activity: {md(user)}")
    l1, l2, l3 = st.columns(3)
    page_link("facts", "Facts", container=l1, user=user)
    page_link("review", "Review queue", container=l2, user=user)
    page_link("recall", "Recall debugger", container=l3, user=user)
    recent, audit = st.tabs(["Latest episodes", "Audit log"])
    episodes = svc.episodes(user)[-10:][::-1]
    recent.dataframe(pd.DataFrame(episode_rows(episodes)), hide_index=True, width="stretch")
    events = [{"at": e.at, "actor": e.actor, "action": e.action, "outcome": e.outcome,
               "targets": ", ".join(e.target_ids), "reason": e.reason or ""}
              for e in svc.audit(user, limit=25)]
    audit.dataframe(pd.DataFrame(events), hide_index=True, width="stretch")
