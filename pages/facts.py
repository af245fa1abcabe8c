"""Fact inspector: filter one user's facts, walk a supersession chain, see both clocks, correct."""

from datetime import datetime

import pandas as pd
import streamlit as st

from memory.models import FactState, FactType
from memory.ui import clear_errors, operator_actor, pick_user, service
from memory.ui.views import chain_rows, fact_rows, timeline_figure

TIMELINE_MAX = 40  # rows a timeline stays readable with

st.title("Facts")
user = pick_user()
svc = service()
if flash := st.session_state.pop("facts_flash", None):
    st.success(flash)

left, right = st.columns([3, 1])
states = left.multiselect("States", [s.value for s in FactState], default=["active", "candidate"],
                          key="facts_states")
ftype = right.selectbox("Type", ["any", *[t.value for t in FactType]], key="facts_type")
v_col, r_col = st.columns(2)
since = datetime(2000, 1, 1)
valid_on = v_col.toggle("As of valid time", key="asof_valid_on",
                        help="versions whose validity interval covers this moment (invariant 13)")
valid_at = v_col.datetime_input("True at (UTC)", key="asof_valid", min_value=since,
                                disabled=not valid_on)
rec_on = r_col.toggle("As of record time", key="asof_rec_on",
                      help="what the store believed at this moment (invariant 14)")
rec_at = r_col.datetime_input("Believed at (UTC)", key="asof_rec", min_value=since,
                              disabled=not rec_on)
if valid_on or rec_on:
    # As-of answers span states (a superseded version may be the one true then): the as-of
    # rules choose the states, so the state filter steps aside.
    st.caption("As-of view: states are chosen by the as-of rules; the state filter is ignored.")

with clear_errors():
    facts = svc.facts(user, states=None if (valid_on or rec_on) else (states or None),
                      fact_type=None if ftype == "any" else ftype,
                      as_of_valid=valid_at if valid_on else None,
                      as_of_recorded=rec_at if rec_on else None)
    if not facts:
        st.info(f"No facts match these filters for {user}.")
        st.stop()
    st.dataframe(pd.DataFrame(fact_rows(facts)), hide_index=True)

    by_id = {f.id: f for f in facts}
    linked = next((n for n, f in enumerate(facts) if f.supersedes or f.superseded_by), 0)
    chosen = st.selectbox("Inspect fact", list(by_id), index=linked, key="facts_chosen",
                          format_func=lambda i: f"[{by_id[i].state.value}] {by_id[i].text}")
    chain = svc.chain(user, chosen)
    st.subheader(f"Supersession chain ({len(chain)} version{'s' if len(chain) > 1 else ''})")
    st.dataframe(pd.DataFrame(chain_rows(chain, chosen)), hide_index=True)
    whole = st.radio("Timeline of", ["this chain", f"all listed facts (first {TIMELINE_MAX})"],
                     horizontal=True, key="facts_timeline_scope") != "this chain"
    st.plotly_chart(timeline_figure(facts[:TIMELINE_MAX] if whole else chain, svc.clock(),
                                    versions=not whole), key="facts_timeline")

    fact = by_id[chosen]
    with st.expander("Retract or forget this fact"):
        st.caption("Retract: it was never true; the value is tombstoned and cannot return. "
                   "Forget: hard delete; the audit keeps only the id and a hash.")
        action = st.radio("Action", ["retract", "forget"], horizontal=True, key="facts_action")
        reason = st.text_input("Reason", key="facts_reason")
        sure = st.checkbox(f"I confirm: {action} “{fact.text}”", key="facts_confirm")
        if st.button("Apply", type="primary", disabled=not sure, key="facts_apply"):
            actor = operator_actor()
            if action == "retract":
                tomb = svc.retract(user, chosen, actor=actor, reason=reason or None)
                flash = f"Retracted {chosen}; tombstone {tomb.id} keeps the value dead."
            else:
                svc.forget(user, chosen, actor=actor, reason=reason or None)
                flash = f"Forgot {chosen}; the audit keeps its id and a hash."
            st.session_state["facts_flash"] = flash
            del st.session_state["facts_confirm"]  # a new confirmation for the next action
            st.rerun()
