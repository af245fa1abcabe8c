"""Memdesk desk: `streamlit run app.py`. Pages are thin; they call memory/ and review/."""

from pathlib import Path

import streamlit as st

from memory.ui import sidebar_status

st.set_page_config(page_title="Memdesk", page_icon="🗂️", layout="wide")

HERE = Path(__file__).parent
# (file, title): the order operators meet them. A page lands with its feature.
PAGES = [
    ("pages/users.py", "Users"),
    ("pages/chat.py", "Chat"),
    ("pages/facts.py", "Facts"),
    ("pages/review.py", "Review queue"),
    ("pages/consolidate.py", "Consolidate"),
    ("pages/recall.py", "Recall debugger"),
    ("pages/evals.py", "Evals"),
]
pages = [st.Page(str(HERE / f), title=t, default=(i == 0))
         for i, (f, t) in enumerate(PAGES) if (HERE / f).exists()]
nav = st.navigation(pages)
sidebar_status()  # store, embedder, LLM mode, review badge, operator name: on every page
nav.run()
