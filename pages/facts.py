"""Fact inspector: search and filter one user's facts, inspect a fact's chain on both clocks (as
of any moment), follow it to its review item, sources and audit, and retract or forget it."""

from datetime import datetime

import streamlit as st

from memory.access import needed
from memory.bulk_facts import bulk_facts
from memory.clock import as_utc
from memory.errors import MemdeskError, NotFoundError
from memory.models import FactState, FactType
from memory.ui import (
    can,
    clear_errors,
    esc,
    fact_review_events,
    facts_listing,
    mark_changed,
    md,
    operator_actor,
    operator_role,
    page_guard,
    page_link,
    pick_user,
    role_label,
    service,
    show_error,
)
from memory.ui.timeline import timeline, timeline_html
from memory.ui.views import (
    asof_chain_rows,
    chain_table_html,
    episodes_by_id,
    facts_by_id,
    plain_table_html,
    scroll_html,
)

TIMELINE_MAX = 40  # rows a timeline stays readable with
TABLE_PAGE = 100  # listing rows drawn at once (issue 34: 200 cost the browser ~70 ms more)
AUDIT_SCAN = 5000  # audit events searched for the inspected fact
MINUTE = "%Y-%m-%d %H:%M"  # moments in the inspector's tables (UTC)
INSPECT = "facts_inspect"  # {user: fact id}: not a widget, so it survives as-of and filters
ss = st.session_state

page_guard()  # issue 14: inside the desk's navigation, and nothing before login
st.title("Facts")
user = pick_user()
svc = service()
inspect: dict = ss.setdefault(INSPECT, {})
wanted = st.query_params.get("fact")  # a link from another page names the fact
if wanted and ss.get("facts_url_seen") != (user, wanted):
    ss["facts_url_seen"] = (user, wanted)
    inspect[user] = wanted
if flash := ss.pop("facts_flash", None):
    st.toast(md(flash), icon=":material/check_circle:")

s1, s2, s3 = st.columns([2, 4, 1])  # room for every state chip on one line
needle = s1.text_input("Search text", key="facts_search", placeholder="words in the fact")
# Chips, not a multiselect: the same choice for less of the browser's time (issue 34).
states = s2.pills("States", [s.value for s in FactState], selection_mode="multi",
                  default=["active", "candidate"], key="facts_states") or []
ftype = s3.selectbox("Type", ["any", *[t.value for t in FactType]], key="facts_type")
v_col, r_col = st.columns(2)
since = datetime(2000, 1, 1)  # record time: nothing was recorded before this store
ever = datetime(1900, 1, 1)  # valid time: what the user says can be dated long ago
valid_on = v_col.toggle("As of valid time", key="asof_valid_on",
                        help="versions whose validity interval covers this moment (invariant 13)")
# A picker is drawn only while its toggle is on (issue 34: two fewer widgets on every visit).
valid_at = v_col.datetime_input("True at (UTC)", key="asof_valid", min_value=ever) \
    if valid_on else None
rec_on = r_col.toggle("As of record time", key="asof_rec_on",
                      help="what the store believed at this moment (invariant 14)")
rec_at = r_col.datetime_input("Believed at (UTC)", key="asof_rec", min_value=since) \
    if rec_on else None
valid_at = as_utc(valid_at) if valid_on and valid_at else None  # the pickers say UTC
rec_at = as_utc(rec_at) if rec_on and rec_at else None
if valid_at or rec_at:
    # As-of answers span states (a superseded version may be the one true then): the as-of
    # rules choose the states, so the state filter steps aside.
    # The moments in force, in words: a date the picker refused leaves the last good one applied.
    moments = " · ".join(f"{what} {when:%Y-%m-%d %H:%M} UTC" for what, when in
                         (("true at", valid_at), ("believed at", rec_at)) if when)
    st.caption(f"As-of view ({moments}): states are chosen by the as-of rules; the state filter "
               "is ignored.")

try:
    rows = facts_listing(svc, user, states=states or None,
                         fact_type=None if ftype == "any" else ftype, valid_at=valid_at,
                         recorded_at=rec_at, needle=needle)
except MemdeskError as exc:
    show_error(exc)
    st.stop()
ids = [r["id"] for r in rows]
on_page: list[dict] = []  # the listing's rows drawn now


def on_pick(user_id: str, key: str) -> None:
    """A row picked in the listing's picker is inspected (the picker drew its rows' ids)."""
    if picked := ss.get(key):
        ss[INSPECT][user_id] = picked


if user not in inspect and rows:
    inspect[user] = next((r["id"] for r in rows if r["linked"]), ids[0])
chosen = inspect.get(user)
if not rows:
    st.info(f"No facts match these filters for {md(user)}.")
else:
    # Issue 34: a page of rows at a time. Drawing thousands of rows cost the browser most of
    # the page's time at 5,000 facts; search, filters and pages reach every one.
    pages = max(1, -(-len(rows) // TABLE_PAGE))
    page_no, picker = 1, st.selectbox
    if pages > 1:  # the page and the picker side by side: one row of the screen
        at_page, at_pick = st.columns([1, 4])
        page_no = int(at_page.number_input(f"Page (of {pages})", 1, pages, 1, key="facts_page"))
        picker = at_pick.selectbox
    first = (page_no - 1) * TABLE_PAGE
    on_page = rows[first: first + TABLE_PAGE]
    page_ids = [r["id"] for r in on_page]
    # The key names the rows, so a pick never lands on a row that took another's place; the
    # picker shows the inspected fact while it is on this page.
    key = f"facts_pick_{abs(hash(tuple(page_ids))):x}"
    ss[key] = chosen if chosen in page_ids else None
    number = {i: first + n + 1 for n, i in enumerate(page_ids)}
    text = {r["id"]: r["text"] for r in on_page}
    picker(
        "Inspect", page_ids, key=key, on_change=on_pick, args=(user, key),
        format_func=lambda i: f"#{number[i]} · {text[i][:90]}",
        placeholder="pick a row: its number or a few words of its text")
    st.caption(f"{len(rows)} fact{'s' if len(rows) != 1 else ''}"
               + (f" · showing {first + 1}–{first + len(on_page)}" if pages > 1 else ""))
    # The listing as one escaped HTML table, rows picked by number or text above it: the data
    # grid it replaces cost the browser ~0.3 s to mount (issue 34). Stored text stays text.
    st.html(scroll_html(plain_table_html(
        [{"#": first + n + 1, **{k: v for k, v in r.items() if k not in ("id", "linked")},
          "id": r["id"]} for n, r in enumerate(on_page)],
        "facts-list", when=MINUTE, hide=(), mark=chosen), 20)
        + "<style>.facts-list th{position:sticky;top:0;background:#fff}</style>")
if not chosen:
    st.stop()
if chosen != st.query_params.get("fact"):
    st.query_params["fact"] = chosen
    ss["facts_url_seen"] = (user, chosen)

try:
    fact = svc.get_fact(user, chosen)
except NotFoundError:
    inspect.pop(user, None)  # forgotten meanwhile
    st.info(md(f"Fact {chosen} no longer exists for {user}."))
    st.stop()
chain = svc.chain(user, chosen)
# The inspected fact, its chain's heading and the chain in one element (issue 34: every element
# costs the browser; these three never change apart).
st.html(f"<div class='fx'><b>{esc(fact.text)}</b><br><small>{esc(fact.state.value)} · "
        f"{esc(fact.fact_type.value)} · confidence {fact.confidence:.2f} · {esc(fact.id)}"
        + (" · not in the list above" if fact.id not in set(ids) else "")
        + "</small></div><style>.fx{padding:.5em .8em;border-left:5px solid #1565c0;"
        "background:#f5f8fc;border-radius:4px;white-space:pre-wrap;overflow-wrap:anywhere}"
        ".fx-h{font-size:1.5rem;font-weight:600;margin:1rem 0 .5rem}</style>"
        f"<div class='fx-h'>Supersession chain ({len(chain)} version"
        f"{'s' if len(chain) > 1 else ''})</div>"
        # A plain table, every column fitting and the text wrapping (issue 34).
        + chain_table_html(asof_chain_rows(chain, chosen, valid_at=valid_at,
                                           recorded_at=rec_at)))
whole = st.radio("Timeline of", ["this chain", f"all listed facts (first {TIMELINE_MAX})"],
                 horizontal=True, key="facts_timeline_scope") != "this chain"
shown = facts_by_id(svc, user, ids[:TIMELINE_MAX]) if whole else chain
# Plain HTML, no chart library: the page draws as fast as its tables (issue 34).
st.html(timeline_html(timeline(shown, svc.clock(), versions=not whole, valid_at=valid_at,
                               recorded_at=rec_at)))

# Lazy tabs and expanders (issue 34): only what is open is drawn; the browser spent about half
# a second on closed ones.
review_tab, sources_tab, audit_tab = st.tabs(["Review", "Source episodes", "Audit events"],
                                             key="facts_tabs", on_change="rerun")
with review_tab:
    if review_tab.open:
        if fact.state == FactState.CANDIDATE:
            st.caption("This fact waits in the review queue.")
            page_link("review", "Open its review item", user=user, item=fact.id)
        decided = fact_review_events(svc, user, fact.id)
        # Read-only rows as escaped HTML tables, not data grids (issue 34: a grid's mount cost
        # the browser more than the rest of the inspector).
        if decided:
            st.html(plain_table_html([{"at": e.at, "operator": e.actor, "action": e.action,
                                       "reason": e.reason or "", "comment": e.comment or ""}
                                      for e in decided], "fx-review", when=MINUTE))
        elif fact.state != FactState.CANDIDATE:
            st.caption("No review decision names this fact.")
with sources_tab:
    if sources_tab.open:
        sources = episodes_by_id(svc, user, fact.source_episode_ids)
        if sources:
            st.html(plain_table_html([{"said": e.timestamp if e else None,
                                       "text": e.text if e else "(forgotten)", "id": i}
                                      for i, e in sources], "fx-sources", when=MINUTE, hide=()))
        else:
            st.caption("No source episodes (written directly, e.g. by the CLI or an operator).")
with audit_tab:
    if audit_tab.open:
        # Reading a long audit log costs; it is read when asked for.
        if st.toggle("Show the audit events naming this fact", key="facts_show_audit"):
            events = [e for e in svc.audit(user, limit=AUDIT_SCAN) if fact.id in e.target_ids]
            if events:
                st.html(plain_table_html([{"at": e.at, "actor": e.actor, "action": e.action,
                                           "outcome": e.outcome, "reason": e.reason or "",
                                           "plan": e.plan_id or ""} for e in events],
                                         "fx-audit", when=MINUTE))
            else:
                st.caption(f"No audit event among this user's last {AUDIT_SCAN} names this fact.")

actions = [a for a in ("retract", "forget") if can(a)]  # issue 14: retract reviewer, forget admin
if not actions:
    st.caption("Retracting or forgetting a fact needs the reviewer or admin role.")
    st.stop()
single = st.expander("Retract or forget this fact" if len(actions) == 2 else
                     f"{actions[0].title()} this fact", key="facts_single_open",
                     on_change="rerun")
with single:
    if single.open:
        st.caption("Retract: it was never true; the value is tombstoned and cannot return. "
                   "Forget: hard delete; the audit keeps only the id and a hash.")
        action = st.radio("Action", actions, horizontal=True, key="facts_action")
        reason = st.text_input("Reason", key="facts_reason")
        sure = st.checkbox(f"I confirm: {action} “{md(fact.text)}”", key="facts_confirm")
        if st.button("Apply", type="primary", disabled=not sure, key="facts_apply"):
            with clear_errors():
                actor = operator_actor()
                if action == "retract":
                    tomb = svc.retract(user, chosen, actor=actor, reason=reason or None)
                    flash = f"Retracted {chosen}; tombstone {tomb.id} keeps the value dead."
                else:
                    svc.forget(user, chosen, actor=actor, reason=reason or None)
                    inspect.pop(user, None)
                    flash = f"Forgot {chosen}; the audit keeps its id and a hash."
                mark_changed()
                ss["facts_flash"] = flash
                del ss["facts_confirm"]  # a new confirmation for the next action
                st.rerun()

# Issue 34: many facts at once, with a confirmation naming the count and the role it needs.
bulk = st.expander("Retract or forget several facts", key="facts_bulk_open",
                   on_change="rerun")
with bulk:
    if bulk.open:
        b_action = st.radio("Action", actions, horizontal=True, key="facts_bulk_action")
        every = st.toggle(f"All {len(rows)} facts matching the filters", key="facts_bulk_every")
        # Choices from the table's page only: thousands of options would cost the browser what
        # paging the table saves; "all matching" reaches the rest.
        labels = {r["id"]: r["text"] for r in on_page}
        picked_ids = [r["id"] for r in rows] if every else st.multiselect(
            "Facts (this page of the table)", list(labels), format_func=lambda i: labels[i][:90],
            key="facts_bulk_ids", placeholder="choose facts (search and filters narrow the table)")
        b_reason = st.text_input("Reason", key="facts_bulk_reason")
        n = len(picked_ids)
        b_sure = st.checkbox(
            f"I confirm: {b_action} {n} fact{'s' if n != 1 else ''} of {md(user)} (needs the "
            f"{needed(b_action).value} role; you are {role_label(operator_role())})",
            key="facts_bulk_confirm", disabled=not n)
        if st.button(f"{b_action.title()} {n}", type="primary", disabled=not (b_sure and n),
                     key="facts_bulk_apply"):
            with clear_errors():
                out = bulk_facts(svc, user, picked_ids, b_action, actor=operator_actor(),
                                 reason=b_reason or None)
                done = sum(o.ok for o in out)
                failed = [f"{o.fact_id}: {o.error}" for o in out if not o.ok]
                mark_changed()
                if b_action == "forget" and inspect.get(user) in {o.fact_id for o in out if o.ok}:
                    inspect.pop(user, None)
                ss["facts_flash"] = (f"{b_action}: {done} of {len(out)} done"
                                     + (f"; not done: {'; '.join(failed)}" if failed else ""))
                for key in ("facts_bulk_confirm", "facts_bulk_ids", "facts_bulk_every"):
                    ss.pop(key, None)
                st.rerun()
