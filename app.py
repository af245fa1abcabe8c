"""Memdesk desk: `streamlit run app.py`. Pages are thin; they call memory/ and review/."""

import streamlit as st

st.set_page_config(page_title="Memdesk", page_icon="🗂️", layout="wide")

pages = [
    st.Page("pages/users.py", title="Users", default=True),
    st.Page("pages/facts.py", title="Facts"),
]
st.navigation(pages).run()
