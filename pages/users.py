"""Users: every user the store knows, with counts per memory type and fact state."""

import pandas as pd
import streamlit as st

from memory.ui import service

st.title("Memdesk")
st.caption(f"Store: `{service().store.url}` · embedder: `{service().embedder.name}`")
users = service().users()
if not users:
    st.info("No users yet. Run `memdesk seed` (or `make demo`) to load the demo personas.")
    st.stop()
rows = [{"user": u.user_id, "episodes": u.episodes, "playbooks": u.playbooks, **u.facts}
        for u in users]
st.dataframe(pd.DataFrame(rows), hide_index=True, use_container_width=True)
