"""Stored text made inert for the desk (invariant 80): for Markdown contexts and for HTML/Plotly.

Memory text, reasons and operator names are data. Wherever Streamlit would read Markdown (alerts,
captions, toasts, labels) or HTML (st.html, Plotly labels) they pass through one of these."""

from __future__ import annotations

import html
import re

# Markdown/HTML punctuation, Streamlit's `:colour[...]` and `:emoji:` directives, `$` maths and
# `&` entities. CommonMark turns a backslash-escaped ASCII punctuation mark into that literal mark.
_MD_SPECIAL = re.compile(r"([\\`*_{}\[\]()#+\-.!|<>~$:&=\"'^@/])")


def md(text: object) -> str:
    """For any Markdown context: every punctuation mark escaped, so `![x](url)`, `[a](b)`,
    `<img …>`, bare URLs and `:red[…]` show as the characters they are, never as elements."""
    return _MD_SPECIAL.sub(r"\\\1", str(text)).replace("\n", "  \n")


def esc(text: object) -> str:
    """For st.html and Plotly labels: HTML-escaped, quotes included."""
    return html.escape(str(text), quote=True)
