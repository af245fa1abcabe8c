"""Stored text made inert for the desk (invariant 80): for Markdown contexts and for HTML/Plotly.

Memory text, reasons and operator names are data. Wherever Streamlit would read Markdown (alerts,
captions, toasts, labels) or HTML (st.html, Plotly labels) they pass through one of these."""

from __future__ import annotations

import html
import re

# Markdown/HTML punctuation, Streamlit's `:colour[...]` and `:emoji:` directives, `$` maths and
# `&` entities. CommonMark turns a backslash-escaped ASCII punctuation mark into that literal mark.
_MD_SPECIAL = re.compile(r"([\\`*_{}\[\]()#+\-.!|<>~$:&=\"'^@/])")
# Invariant 80: the browser's GFM renderer links bare URLs and addresses found in the text
# *after* escapes are undone, so escaping cannot stop it. It links a URL only where the
# character before it is a space or punctuation, and an address only where a word character
# touches "@": a WORD JOINER (U+2060, invisible, no width) there keeps each one plain text.
_AUTOLINK = re.compile(r"(?i)(?=https?:/|www\.)|(?=@)")
WORD_JOINER = "\u2060"


def md(text: object) -> str:
    """For any Markdown context: every punctuation mark escaped, so `![x](url)`, `[a](b)`,
    `<img …>`, bare URLs and `:red[…]` show as the characters they are, never as elements."""
    inert = _AUTOLINK.sub(WORD_JOINER, str(text))
    return _MD_SPECIAL.sub(r"\\\1", inert).replace("\n", "  \n")


def esc(text: object) -> str:
    """For st.html and Plotly labels: HTML-escaped, quotes included."""
    return html.escape(str(text), quote=True)
