"""Audit log: who did what to one user's memory (or in the shared scope), newest first: every
change, refused write and denied attempt, with the identity it was made under (issue 14)."""

import pandas as pd
import streamlit as st

from memory.models import CATALOG
from memory.ui import clear_errors, md, page_guard, pick_user, service

page_guard()  # issue 14: inside the desk's navigation, and nothing before login
st.title("Audit log")
user = pick_user()
svc = service()
shared = st.sidebar.checkbox("Shared scope (catalog, desk-wide checks)", key="audit_shared",
                             help="the catalog's writes and role checks that name no user "
                                  "(eval runs)")
scope = CATALOG if shared else user
c1, c2, c3, c4 = st.columns([1, 2, 2, 2])
limit = int(c1.number_input("Latest", 10, 10_000, 300, step=100, key="audit_limit"))
outcomes = c2.multiselect("Outcome", ["ok", "denied", "refused"], key="audit_outcomes",
                          placeholder="any")
who = c3.text_input("Who (contains)", key="audit_who", placeholder="e.g. @example.com")
what = c4.text_input("Action (contains)", key="audit_action", placeholder="e.g. review_")
with clear_errors():
    events = svc.audit(scope, limit=limit)
    shown = [e for e in events
             if (not outcomes or e.outcome in outcomes)
             and (not who or who.casefold() in e.actor.casefold())
             and (not what or what.casefold() in e.action.casefold())]
    people = {e.actor for e in shown}
    denied = sum(e.outcome == "denied" for e in shown)
    st.caption(md(f"{len(shown)} of the latest {len(events)} events of {scope} · "
                  f"{len(people)} actors · {denied} denied"))
    if shown:
        # Who did what, in words: one line per actor with their actions and outcomes.
        tally: dict[str, dict[str, int]] = {}
        for e in shown:
            what_done = e.action if e.outcome == "ok" else \
                f"{(e.after or {}).get('attempted', e.action)} ({e.outcome})"
            tally.setdefault(e.actor, {}).setdefault(what_done, 0)
            tally[e.actor][what_done] += 1
        with st.expander(f"By who ({len(tally)})", expanded=True):
            for actor, acts in sorted(tally.items(), key=lambda kv: -sum(kv[1].values())):
                st.text(f"{actor}: " + ", ".join(f"{a} ×{n}" for a, n in
                                                  sorted(acts.items(), key=lambda kv: -kv[1])))
        st.dataframe(pd.DataFrame([{
            "at": e.at, "who": e.actor, "action": e.action, "outcome": e.outcome,
            "attempted": (e.after or {}).get("attempted", "") if e.outcome == "denied" else "",
            "targets": ", ".join(e.target_ids), "reason": e.reason or "",
            "comment": e.comment or "", "plan": e.plan_id or ""} for e in shown]),
            hide_index=True, width="stretch")
    else:
        st.info("No audit event matches these filters.")
