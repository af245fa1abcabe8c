"""Memdesk desk: `streamlit run app.py`. Pages are thin; they call memory/ and review/."""

from pathlib import Path

import streamlit as st

HERE = Path(__file__).parent
# (file, title, icon): the order operators meet them. A page lands with its feature.
PAGES = [
    ("pages/users.py", "Users", ":material/group:"),
    ("pages/chat.py", "Chat", ":material/chat:"),
    ("pages/facts.py", "Facts", ":material/timeline:"),
    ("pages/review.py", "Review queue", ":material/fact_check:"),
    ("pages/consolidate.py", "Consolidate", ":material/merge:"),
    ("pages/recall.py", "Recall debugger", ":material/troubleshoot:"),
    ("pages/evals.py", "Evals", ":material/monitoring:"),
    ("pages/tokens.py", "MCP tokens", ":material/key:"),
    ("pages/audit.py", "Audit log", ":material/history:"),
]

if __name__ != "__main__":
    # `streamlit run app.py` imports this module and serves its `app`: Streamlit's server with
    # the desk's base URL in every HTML page, so the browser connects without first probing
    # `/<page>/_stcore/health` (issue 34, memory/desk_http.py). Each session runs this file as
    # the script (`__main__`), below.
    from starlette.middleware import Middleware

    from memory.desk_http import BackendBase

    app = st.App(__file__, middleware=[Middleware(BackendBase)])


def desk() -> None:
    """The desk's shell, run for every session and rerun: sidebar, page links, the page."""
    # Imported here, inside a script run: imported with the module above, memory.ui's caches
    # would be made before Streamlit's runtime exists (and without its cache storage).
    from memory.ui import leave_review, login_on, require_access, sidebar_status, warm_up
    from memory.ui.auth import DESK_CSS, return_after_sign_in

    st.set_page_config(page_title="Memdesk", page_icon="🗂️", layout="wide")
    # Issue 14: with login configured nothing below runs before the identity provider says who
    # this is; without it, the desk serves only 127.0.0.1 (or MEMDESK_ALLOW_ANONYMOUS) under a
    # banner.
    require_access(at_start=True)
    warm_up()  # first run in this server process: open the store, load the embedder meanwhile

    pages = [st.Page(str(HERE / f), title=t, icon=icon, default=(i == 0))
             for i, (f, t, icon) in enumerate(PAGES) if (HERE / f).exists()]
    # Issue 34: the page list is drawn by this script (the links below), never by Streamlit's
    # own sidebar navigation, which on a first visit flashed the pages/ folder's file list for
    # seconds until this script ran (.streamlit/config.toml: client.showSidebarNavigation).
    nav = st.navigation(pages, position="hidden")
    # Issue 34: signing in ends at the root; go on to the page and `?user=` asked for
    # (invariant 174).
    return_after_sign_in(landed_on_root=nav.url_path == "")
    with st.sidebar.container(key="desk_nav"):
        for p in pages:
            st.page_link(p)
    if login_on():  # local mode carries the desk's style in its banner: one element fewer
        st.html(DESK_CSS)
    leave_review(nav.title)  # issue 34: another page frees the review item this session held
    sidebar_status()  # operator name, store, embedder, LLM mode, review badge: on every page
    nav.run()


if __name__ == "__main__":
    desk()
