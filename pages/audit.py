"""Audit log: who did what to one user's memory (or in the shared scope), newest first: every
change, refused write and denied attempt, with the identity it was made under (issue 14)."""

import streamlit as st

from memory.models import CATALOG
from memory.ui import clear_errors, md, page_guard, pick_user, service
from memory.ui.audit_views import AuditFilter, audit_rows, audit_table_html, keep, target_texts
from memory.ui.views import scroll_html

FILTERS: dict[str, object] = {"audit_since": None, "audit_until": None, "audit_actors": [], "audit_actions": [],
           "audit_outcomes": []}  # widget defaults

TABLE_PAGE = 100  # rows drawn at once (as on the Facts page)

page_guard()  # issue 14: inside the desk's navigation, and nothing before login
st.title("Audit log")
user = pick_user()
svc = service()
shared = st.sidebar.checkbox("Shared scope (catalog, desk-wide checks)", key="audit_shared",
                             help="the catalog's writes and role checks that name no user "
                                  "(eval runs)")
scope = CATALOG if shared else user
ss = st.session_state
limit = int(st.number_input("Latest", 10, 10_000, 300, step=100, key="audit_limit"))
# The filters' widgets are drawn only while their expander is open (issue 34: five widgets, a
# date picker among them, fewer on every visit); their values stay in force when it closes.
kept: dict = ss.setdefault("audit_filters_kept", {k: ss.get(k, v) for k, v in FILTERS.items()})
in_force = sum(bool(kept[k]) for k in FILTERS)
# A fixed label: a changing one would close the box at every change of a filter.
box = st.expander("Filters", key="audit_filters_open", on_change="rerun")
if in_force and not box.open:
    st.caption(f"{in_force} filter{'s' if in_force > 1 else ''} in force (open Filters to "
               "change them)")
with clear_errors():
    events = svc.audit(scope, limit=limit)
    if box.open:
        for k in FILTERS:
            ss.setdefault(k, kept[k])  # back from the kept values after the box was closed
        with box:
            c2, c3 = st.columns(2)
            c2.date_input("From (UTC day)", key="audit_since")
            c3.date_input("To (UTC day)", key="audit_until")
            c4, c5, c6 = st.columns(3)
            # Options: what these events hold, plus what is chosen (valid across users).
            c4.multiselect("Actor", sorted({e.actor for e in events} | set(ss["audit_actors"])),
                           key="audit_actors", placeholder="anyone")
            c5.multiselect("Action",
                           sorted({e.action for e in events} | set(ss["audit_actions"])),
                           key="audit_actions", placeholder="any")
            c6.multiselect("Outcome", ["ok", "denied", "refused"], key="audit_outcomes",
                           placeholder="any")
        kept.update({k: ss[k] for k in FILTERS})
    since, until, actors, actions, outcomes = (kept[k] for k in FILTERS)
    flt = AuditFilter(since=since, until=until, actors=set(actors), actions=set(actions),
                      outcomes=set(outcomes))
    shown = [e for e in events if keep(e, flt)]
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
            # One text element, a line per actor: each element costs the browser (issue 34).
            st.text("\n".join(
                f"{actor}: " + ", ".join(f"{a} ×{n}" for a, n in
                                         sorted(acts.items(), key=lambda kv: -kv[1]))
                for actor, acts in sorted(tally.items(), key=lambda kv: -sum(kv[1].values()))))
        # Each row names the memory by its text (or "forgotten") and links to it; a page of
        # rows at a time as one escaped HTML table (issue 34: the data grid's scripts cost the
        # browser more than the rest of the page, and each row's memory is read only when drawn).
        pages = max(1, -(-len(shown) // TABLE_PAGE))
        first = 0
        if pages > 1:
            if ss.get("audit_page", 1) > pages:  # fewer events now (a filter, another user)
                ss["audit_page"] = 1
            first = (int(st.number_input(f"Page (of {pages})", 1, pages, 1, key="audit_page"))
                     - 1) * TABLE_PAGE
        on_page = shown[first:first + TABLE_PAGE]
        st.html(scroll_html(audit_table_html(audit_rows(
            on_page, target_texts(svc, scope, on_page), scope)), 24)
            + "<style>.audit-list th{position:sticky;top:0;background:#fff}</style>")
    else:
        st.info("No audit event matches these filters.")
