"""Helpers for the desk's AppTest tests."""

from __future__ import annotations

import re

from streamlit.testing.v1 import AppTest


def desk_on(monkeypatch, db) -> None:
    """Point the desk at an embedded store with the offline model and no API key, and drop the
    cached runtime so the next page run opens it."""
    from memory.ui import runtime as desk_runtime

    monkeypatch.setenv("MEMDESK_STORE", f"embedded:{db}")
    monkeypatch.setenv("MEMDESK_EMBEDDER", "hash")
    monkeypatch.setenv("MEMDESK_LLM", "offline")
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    desk_runtime.clear()


def plain(markdown: str) -> str:
    """Markdown source as read on screen: the desk backslash-escapes stored text (memory.ui.md)."""
    # md() also puts an invisible word joiner before URLs and "@" (invariant 80)
    return re.sub(r"\\(.)", r"\1", markdown).replace("  \n", "\n").replace("\u2060", "")


def html_bodies(at: AppTest, marker: str = "") -> list[str]:
    return [h.proto.body for h in at.get("html") if marker in h.proto.body]


def tables_shown(at: AppTest) -> bool:
    """Whether any table of data was drawn: a data grid or a plain HTML table (issue 34: the
    Users page, the desk's default, draws plain tables)."""
    return bool(at.dataframe) or bool(html_bodies(at, "class='ptab "))


def html_table(at: AppTest, cls: str):
    """The plain HTML table of class `cls` (memory.ui.views.plain_table_html) read back as a
    DataFrame, cells as the browser shows them (numbers as numbers, empty as missing; a link
    cell as its address), and its headers' tooltips as `.attrs["titles"]`. None when no such
    table was drawn."""
    from html.parser import HTMLParser

    import pandas as pd

    body = next((b for b in html_bodies(at) if f"class='ptab {cls}'" in b), None)
    if body is None:
        return None

    class Table(HTMLParser):
        def __init__(self) -> None:
            super().__init__()
            self.rows: list[list[str]] = []
            self.titles: list[str | None] = []
            self.cell: list[str] | None = None

        def handle_starttag(self, tag, attrs):
            if tag == "tr":
                self.rows.append([])
            elif tag in ("td", "th"):
                self.cell = []
                self.href: str | None = None
                if tag == "th":
                    self.titles.append(dict(attrs).get("title"))
            elif tag == "a" and self.cell is not None:
                self.href = dict(attrs).get("href")

        def handle_endtag(self, tag):
            if tag in ("td", "th") and self.cell is not None:
                self.rows[-1].append(self.href or "".join(self.cell))
                self.cell = None

        def handle_data(self, data):
            if self.cell is not None:
                self.cell.append(data)

    def value(cell: str):
        for kind in (int, float):
            try:
                return kind(cell)
            except ValueError:
                pass
        return cell if cell else None

    t = Table()  # HTMLParser turns &amp; and the like back into text
    t.feed(body)
    head, *rows = t.rows
    frame = pd.DataFrame([[value(c) for c in r] for r in rows], columns=head)
    frame.attrs["titles"] = {h: tip for h, tip in zip(head, t.titles, strict=True) if tip}
    return frame


# Markdown and HTML payloads (invariant 80) ------------------------------------------------------
IMAGE = "![x](http://127.0.0.1:9/x.png)"  # a port nothing listens on: a fetch would be visible
LINK = "[click](http://evil)"
TAG = "<img src=x onerror=alert(1)>"
PAYLOADS = (IMAGE, LINK, TAG)


def seed_payloads(path) -> dict[str, str]:
    """A user whose memories, reasons and operator names are Markdown/HTML payloads, reaching
    every page: facts in each state, a chain, episodes, a playbook, review items (one restating
    a retracted value, so its tombstone and reason show), and decisions by a payload operator."""
    from datetime import UTC, datetime

    from memory.embeddings import get_embedder
    from memory.service import MemoryService
    from memory.stores import open_store
    from review import decide, propose

    store = open_store(f"embedded:{path}", get_embedder("hash"))
    svc = MemoryService(store, clock=lambda: datetime(2025, 5, 1, 9, 0, tzinfo=UTC))
    ids = {}
    ep = svc.write_episode("eve", f"I moved to Paris {IMAGE} and love {LINK} {TAG}")
    svc.write_episode("eve", f"My router {TAG} keeps dropping, see {LINK}")
    old = svc.write_fact("eve", f"Lives in Rome {IMAGE}", fact_type="identity",
                         source_episode_ids=[ep.id], valid_from="2020-01-01").fact
    ids["paris"] = svc.write_fact("eve", f"Lives in Paris {LINK}", fact_type="identity",
                                  supersedes_id=old.id, source_episode_ids=[ep.id],
                                  valid_from="2025-04-01").fact.id
    bad = svc.write_fact("eve", f"Owns a boat {TAG}").fact
    svc.retract("eve", bad.id, actor="cli", reason=f"never said {LINK} {IMAGE}")
    ids["candidate"] = propose(svc, "eve", f"Likes jazz {IMAGE} {LINK}", confidence=0.4,
                               source_episode_ids=[ep.id]).id
    ids["again"] = propose(svc, "eve", f"Owns a boat {TAG}").id  # restates the retracted value
    ids["contra"] = propose(svc, "eve", f"Lives in Lyon {TAG}", fact_type="identity",
                            supersedes_id=ids["paris"]).id
    done = propose(svc, "eve", f"Drinks tea {LINK}").id
    decide(svc, "eve", done, "approve", operator=TAG, expected_rev=1, comment=f"ok {IMAGE}",
           reason=f"because {LINK}")
    svc.write_playbook("eve", f"Reset {IMAGE}", f"when {LINK}", [f"hold {TAG}", "re-pair"])
    store.close()
    return ids


def markdown_elements(at: AppTest) -> list[str]:
    """Every string on the page that Streamlit reads as Markdown: text elements, alerts,
    captions, toasts, and the labels of widgets, expanders and tabs."""
    out = []

    def walk(node):
        proto = getattr(node, "proto", None)
        kind = type(node).__name__
        if kind in ("Markdown", "Caption", "Error", "Warning", "Info", "Success", "Toast",
                    "Title", "Header", "Subheader", "Latex"):
            out.append(str(node.value))
        elif proto is not None and getattr(proto, "label", None):
            out.append(proto.label)
        if kind == "Radio":
            out.extend(str(o) for o in node.options)
        for child in (node.children.values() if isinstance(getattr(node, "children", None), dict)
                      else []):
            walk(child)

    walk(at._tree)
    return out


def rendered_elements(markdown: str) -> list[str]:
    """The HTML tags a CommonMark + GFM renderer (autolinks included) makes of this source."""
    from html.parser import HTMLParser

    from markdown_it import MarkdownIt

    tags: list[str] = []

    class Collect(HTMLParser):
        def handle_starttag(self, tag, attrs):
            tags.append(tag)

    Collect().feed(MarkdownIt("gfm-like").render(markdown))
    return tags


# A link the desk itself draws in a table (plain_table_html's link columns): to a desk page,
# relative, named "open". Stored text is escaped, so it can never make one.
DESK_LINK = re.compile(r"^(facts|review|recall)\?[\w%&=.\-]*$")


def html_elements(body: str) -> list[str]:
    """The elements of an HTML body, a desk link (DESK_LINK) counted as "desk-link"."""
    from html.parser import HTMLParser

    tags: list[str] = []

    class Collect(HTMLParser):
        def handle_starttag(self, tag, attrs):
            desk = tag == "a" and DESK_LINK.match(dict(attrs).get("href") or "")
            tags.append("desk-link" if desk else tag)

    Collect().feed(body)
    return tags


COOKIE_SCRIPT = "<script>document.cookie = 'memdesk_operator='"


def unsafe_output(at: AppTest) -> list[str]:
    """What on this page would become a link, an image or a script in a browser."""
    bad = []
    for text in markdown_elements(at):
        found = {"a", "img", "script", "iframe"} & set(rendered_elements(text))
        if found:
            bad.append(f"markdown {sorted(found)}: {text[:120]}")
    for h in at.get("html"):
        body = h.proto.body
        if body.startswith(COOKIE_SCRIPT):  # the desk's own session cookie (a quoted name)
            continue
        found = {"a", "img", "script", "iframe"} & set(html_elements(body))
        if found:
            bad.append(f"html {sorted(found)}: {body[:120]}")
    import json

    def strings(node):
        if isinstance(node, str):
            yield node
        elif isinstance(node, dict):
            for v in node.values():
                yield from strings(v)
        elif isinstance(node, list):
            for v in node:
                yield from strings(v)

    for chart in at.get("plotly_chart"):
        for s in strings(json.loads(chart.proto.spec)):
            if "<img" in s or "<a " in s or "<a>" in s:  # Plotly renders <a href> as a link
                bad.append(f"plotly: {s[:120]}")
    return bad


def decide_button(at: AppTest, name: str):
    """The review focus view's button for `name` (approve, reject, skip…): its key also names
    the item and revision it was drawn with (invariant 81), so tests find it by prefix."""
    found = [b for b in at.button if (b.key or "").split("__")[0] == f"review_{name}"]
    assert len(found) == 1, [b.key for b in at.button]
    return found[0]
