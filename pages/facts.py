"""Fact inspector: one user's facts by state, with their supersession chains."""

import pandas as pd
import streamlit as st

from memory.models import FactState
from memory.ui import clear_errors, pick_user, service

st.title("Facts")
user = pick_user()
svc = service()
states = st.multiselect("States", [s.value for s in FactState], default=["active", "candidate"])
with clear_errors():
    facts = svc.facts(user, states=states or None)
    if not facts:
        st.info(f"No facts in states {', '.join(states) or 'any'} for {user}.")
        st.stop()
    rows = [{"id": f.id, "state": f.state.value, "type": f.fact_type.value, "text": f.text,
             "confidence": f.confidence, "valid_from": f.valid_from, "valid_to": f.valid_to,
             "recorded_at": f.recorded_at, "use_count": f.use_count} for f in facts]
    st.dataframe(pd.DataFrame(rows), hide_index=True, use_container_width=True)
    chosen = st.selectbox("Chain of", [f.id for f in facts],
                          format_func=lambda i: next(f.text for f in facts if f.id == i))
    for f in svc.chain(user, chosen):
        st.markdown(f"- **{f.state.value}** · {f.text} · recorded {f.recorded_at:%Y-%m-%d}"
                    + (f" · superseded {f.superseded_at:%Y-%m-%d}" if f.superseded_at else ""))
