"""Recall debugger: why recall ranked what it ranked, for one user (read-only: Purpose.EXPLAIN)."""

import pandas as pd
import streamlit as st

from memory.search_config import PRESETS, Purpose
from memory.ui import clear_errors, pick_user, service
from memory.ui.views import filter_rows, hit_rows, preset_config

st.title("Recall debugger")
user = pick_user()
svc = service()

with st.form("recall_form"):
    query = st.text_input("Query", key="recall_query", placeholder="e.g. where does she live")
    c1, c2, c3, c4 = st.columns([2, 1, 1, 1])
    preset = c1.selectbox("Preset", list(PRESETS), key="recall_preset",
                          help="named recall configurations from memory.search_config")
    k = c2.number_input("k", min_value=1, max_value=200, value=10, key="recall_k")
    catalog = c3.toggle("Include catalog", key="recall_catalog")
    superseded = c4.toggle("Include superseded", key="recall_superseded")
    submitted = st.form_submit_button("Recall", type="primary")

if not submitted and "recall_last" not in st.session_state:
    st.info("Type a query and press Recall. Explain recalls never touch usage counts.")
    st.stop()

with clear_errors():
    # A toggle left off keeps the preset's own setting (e.g. with_catalog, history).
    config = preset_config(preset, k=int(k), include_catalog=catalog or None,
                           include_superseded=superseded or None)
    result = svc.recall(user, query, config=config, purpose=Purpose.EXPLAIN, explain=True)
    st.session_state["recall_last"] = query
    ex = result.explain
    st.caption(f"Path: {ex.path} · candidates per leg: "
               + ", ".join(f"{leg} {n}" for leg, n in ex.candidates.items())
               + f" · preset `{preset}`")
    if result.hits:
        rows = hit_rows(result.hits)
        for row in rows:  # issue 11 (invariant 65): what agent recall would drop, marked
            row["contradicted"] = row["id"] in result.contradicted
        st.dataframe(pd.DataFrame(rows), hide_index=True, key="recall_hits")
        if result.contradicted:
            st.caption(f"{len(result.contradicted)} contradicted episode(s): each is the source "
                       "of a retracted or rejected fact, so agent recall never returns it.")
    else:
        st.warning(f"No hits for {query!r} in {user}'s memories under preset {preset!r}.")
    st.subheader("Filters")
    st.caption("How many of this user's documents each filter removed before ranking.")
    st.dataframe(pd.DataFrame(filter_rows(ex.filters)), hide_index=True, key="recall_filters")
    with st.expander("Config used"):
        st.json(ex.config)
