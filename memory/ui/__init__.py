"""Helpers shared by the desk's pages: the service for this session and error translation."""

from __future__ import annotations

from contextlib import contextmanager

import streamlit as st

from ..errors import MemdeskError
from ..runtime import shared_service
from ..service import MemoryService


def service() -> MemoryService:
    """The desk's service (cached per store URL across reruns and sessions)."""
    try:
        return shared_service(None)
    except MemdeskError as exc:
        st.error(f"Cannot open the store: {exc}")
        st.stop()
        raise


@contextmanager
def clear_errors():
    """Translate product errors into one st.error, once, for every page (style 7)."""
    try:
        yield
    except MemdeskError as exc:
        st.error(f"{type(exc).__name__.removesuffix('Error')}: {exc}")


def pick_user(key: str = "user") -> str:
    """Sidebar user picker; the chosen user is the scope of everything on the page."""
    users = [u.user_id for u in service().users()]
    if not users:
        st.info("No users yet. Run `memdesk seed` (or `make demo`) to load the demo personas.")
        st.stop()
    current = st.session_state.get(key)
    index = users.index(current) if current in users else 0
    return st.sidebar.selectbox("User", users, index=index, key=key)
