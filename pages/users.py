"""Users: every user the store knows, with counts per memory type and fact state; the chosen
user's latest episodes and audit log, and links to their facts and review queue; for admins,
the user's data-subject export and erasure (issue 14)."""

from urllib.parse import urlencode

import pandas as pd
import streamlit as st

from memory.cross_user import ALL_USERS, search_all_users
from memory.export import export_user, render_markdown, to_json
from memory.forgetting import erase_user
from memory.ui import (
    can,
    clear_errors,
    mark_changed,
    md,
    operator_actor,
    page_guard,
    page_link,
    pick_user,
    service,
    user_summaries,
)
from memory.ui.views import episode_rows, plain_table_html, scroll_html, user_rows

page_guard()  # issue 14: inside the desk's navigation, and nothing before login
st.title("Users")
svc = service()
st.caption(md(f"Store: {svc.store.url} · embedder: {svc.embedder.name}"))
user = pick_user()  # an empty store stops here with how to seed it
with clear_errors():
    users = user_summaries(svc)
    # Read-only tables as escaped HTML, not data grids: a grid's mount cost the browser more
    # than the rest of the page (issue 34).
    st.html(scroll_html(plain_table_html(user_rows(users), "users-list")))
    # The totals in one line, not three metric cards (issue 34: every element costs the browser).
    st.caption(f"Totals: {len(users)} users · {sum(u.episodes for u in users)} episodes · "
               f"{sum(u.facts.get('active', 0) for u in users)} active facts")

    st.subheader(f"Recent activity: {md(user)}")
    l1, l2, l3 = st.columns(3)
    page_link("facts", "Facts", container=l1, user=user)
    page_link("review", "Review queue", container=l2, user=user)
    page_link("recall", "Recall debugger", container=l3, user=user)
    # Lazy tabs (issue 34): the open one is drawn, so a visit draws one table, not two.
    recent, audit = st.tabs(["Latest episodes", "Audit log"], key="users_tabs",
                            on_change="rerun")
    if recent.open:
        episodes = svc.episodes(user)[-10:][::-1]
        if episodes:
            recent.html(plain_table_html(episode_rows(episodes), "users-episodes",
                                         when="%Y-%m-%d %H:%M", hide=()))
        else:
            recent.caption("No episodes for this user yet.")
    if audit.open:
        events = [{"at": e.at, "actor": e.actor, "action": e.action, "outcome": e.outcome,
                   "targets": ", ".join(e.target_ids), "reason": e.reason or ""}
                  for e in svc.audit(user, limit=25)]
        if events:
            audit.html(plain_table_html(events, "users-audit", when="%Y-%m-%d %H:%M", hide=()))
        else:
            audit.caption("No audit events for this user yet.")
        page_link("audit", "Whole audit log", container=audit, user=user)

ss = st.session_state
# Issue 34: the one place the desk reads across users, for admins: the scope is said on the
# button, every hit names its owner, and the search is audited (invariant 541).
if can("search_all_users"):
    across = st.expander("Search across all users (admin, audited)", key="users_across_open",
                         on_change="rerun")
    if across.open:
        with across:
            st.caption("Every user's facts whose text contains these words. Each search is "
                       "recorded in the shared audit log with its words, under your name.")
            with st.form("users_across"):
                a1, a2 = st.columns([3, 2])
                words = a1.text_input("Words", key="users_across_text",
                                      placeholder="e.g. peanut")
                states = a2.multiselect("States", ["active", "candidate", "superseded",
                                                   "retracted", "rejected"],
                                        key="users_across_states", placeholder="any state")
                go = st.form_submit_button(f"Search {ALL_USERS}", type="primary")
            if go:
                with clear_errors():
                    ss["users_across_found"] = search_all_users(
                        svc, words, actor=operator_actor(), scope=ALL_USERS,
                        states=set(states) or None)
            found = ss.get("users_across_found")
            if found is not None:
                st.caption(md(f"{found.total} fact(s) of {found.users} users contain "
                              f"“{found.query}”" + (f"; the newest {len(found.hits)} shown"
                                                    if len(found.hits) < found.total else "")))
                if found.hits:
                    st.dataframe(pd.DataFrame([{
                        "user": h.user_id, "text": h.text, "state": h.state,
                        "type": h.fact_type, "recorded": h.recorded_at,
                        "open": "facts?" + urlencode({"user": h.user_id, "fact": h.fact_id})}
                        for h in found.hits]), hide_index=True, width="stretch",
                        key="users_across_hits", column_config={
                            "text": st.column_config.TextColumn(width="large"),
                            "open": st.column_config.LinkColumn("open", display_text="open")})

# Issue 14: a data subject's copy of their memory, and erasure; admins only (the layer checks).
if can("export_user"):
    with st.expander(f"Export or erase {md(user)}'s memory (admin)"):
        st.caption("The export holds facts with their chains and both clocks, episodes, "
                   "playbooks, tombstones (as SHA-256 hashes) and the audit log; `memdesk import` "
                   "loads it into a store without this user. Preparing it is audited.")
        e1, e2 = st.columns([2, 1])
        fmt = e1.radio("Format", ["JSON", "Markdown"], horizontal=True, key="users_export_fmt")
        if e2.button("Prepare export", key="users_export_prepare", width="stretch"):
            with clear_errors():
                exp = export_user(svc, user, actor=operator_actor())
                ss["users_export"] = (user, fmt, to_json(exp) if fmt == "JSON"
                                      else render_markdown(exp))
        ready = ss.get("users_export")
        if ready and ready[0] == user:
            ext, mime = ("json", "application/json") if ready[1] == "JSON" else \
                ("md", "text/markdown")
            st.download_button(f"Download {ready[1]}", ready[2], key="users_export_download",
                               file_name=f"memdesk-{user}.{ext}", mime=mime,
                               icon=":material/download:", on_click="ignore")
        if can("erase_user"):
            st.divider()
            confirm = st.text_input(f"Type {md(user)} to erase everything this user owns (cannot "
                                    "be undone; one audit event remains)", key="users_erase_confirm")
            if st.button("Erase user", key="users_erase", disabled=confirm != user):
                with clear_errors():
                    res = erase_user(svc, user, actor=operator_actor())
                    mark_changed()
                    ss.pop("users_export", None)
                    st.success(f"Erased {md(res.user_id)}: {res.memories} memories deleted, "
                               f"{res.tombstones} tombstones kept as keyed hashes.")
