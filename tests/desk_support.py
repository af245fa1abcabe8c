"""Helpers for the desk's AppTest tests."""

from __future__ import annotations

import re

from streamlit.testing.v1 import AppTest


def plain(markdown: str) -> str:
    """Markdown source as read on screen: the desk backslash-escapes stored text (memory.ui.md)."""
    return re.sub(r"\\(.)", r"\1", markdown).replace("  \n", "\n")


def html_bodies(at: AppTest, marker: str = "") -> list[str]:
    return [h.proto.body for h in at.get("html") if marker in h.proto.body]
