"""Stored text is shown as text on every page (invariant 80): a user whose memories, reasons and
operator name are Markdown image/link and HTML payloads; each page renders them, and a
CommonMark+GFM renderer finds no link, image or script in anything Streamlit reads as Markdown
or HTML. The browser half of this check is tests/test_browser_smoke.py."""

from __future__ import annotations

import html
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

import review.queue  # noqa: F401 - pins the review package before AppTest puts pages/ on sys.path
from memory.ui import runtime as desk_runtime
from review import decide
from tests.desk_support import (
    IMAGE,
    LINK,
    PAYLOADS,
    TAG,
    decide_button,
    html_bodies,
    markdown_elements,
    plain,
    rendered_elements,
    seed_payloads,
    unsafe_output,
)

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture
def desk(tmp_path, monkeypatch):
    ids = seed_payloads(tmp_path / "desk.db")
    monkeypatch.setenv("MEMDESK_STORE", f"embedded:{tmp_path / 'desk.db'}")
    monkeypatch.setenv("MEMDESK_EMBEDDER", "hash")
    desk_runtime.clear()
    yield ids
    desk_runtime().service.store.close()
    desk_runtime.clear()


def page(name: str, **query) -> AppTest:
    at = AppTest.from_file(str(ROOT / "pages" / name), default_timeout=60)
    at.session_state["operator_name"] = TAG  # a valid operator name, and a payload
    for key, value in {"user": "eve", **query}.items():
        at.query_params[key] = value
    return at.run()


def shown_payloads(at: AppTest) -> set[str]:
    """Payloads that reached the page as text (so the check below is not vacuous)."""
    text = " ".join([plain(m) for m in markdown_elements(at)]
                    + [html.unescape(b) for b in html_bodies(at)]
                    + [" ".join(map(str, d.value.astype(str).values.ravel())) for d in at.dataframe])
    return {p for p in PAYLOADS if p in text}


def safe(at: AppTest, *, expect: int = 1) -> None:
    assert not at.exception, at.exception
    assert unsafe_output(at) == []
    assert len(shown_payloads(at)) >= expect


def test_the_checker_catches_raw_payloads():
    for p in PAYLOADS:
        assert {"a", "img"} & set(rendered_elements(f"text {p}")), p
    assert rendered_elements("see http://evil") == ["p", "a"]  # GFM autolinks count too
    from memory.ui import md

    for p in (*PAYLOADS, "see http://evil www.evil.com", ":red[x] :smile: $x$"):
        assert rendered_elements(md(p)) == ["p"], p


def test_users_page(desk):
    safe(page("users.py"))


def test_facts_page(desk):
    at = page("facts.py")
    safe(at, expect=2)
    at.toggle(key="asof_valid_on").set_value(True).run()
    at.radio(key="facts_timeline_scope").set_value(
        at.radio(key="facts_timeline_scope").options[1]).run()
    # issue 34: the retract expander and the sources tab draw when opened
    at.session_state["facts_single_open"] = True
    at.session_state["facts_tabs"] = "Source episodes"
    at.run()
    at.checkbox(key="facts_confirm").check().run()
    safe(at, expect=2)
    retracted = next(f.id for f in desk_runtime().service.facts("eve", states=["retracted"]))
    safe(page("facts.py", fact=retracted))


def test_review_page(desk):
    at = page("review.py")
    safe(at, expect=2)
    seen, reasons = set(), []
    for _ in range(4):  # every waiting item, including the one restating a retracted value
        seen |= shown_payloads(at)
        reasons += [plain(w.value) for w in at.warning]
        decide_button(at, "skip").click().run()
        safe(at)
    assert seen == set(PAYLOADS)
    assert any(IMAGE in r and "retracted by cli" in r for r in reasons)  # tombstone, as text
    decide_button(at, "reject").click().run()  # no reason: an error quoting nothing unsafe
    safe(at)
    item = at.session_state["review_cursor"]
    other = f"{TAG}2"  # another operator, also a payload
    decide(desk_runtime().service, "eve", item, "reject", operator=other, expected_rev=None,
           reason=f"no {IMAGE}")
    decide_button(at, "approve").click().run()
    assert any(f"decided meanwhile by {other}: reject" in plain(w.value) for w in at.warning)
    safe(at)
    at.radio(key="review_view").set_value("List").run()
    safe(at)
    at.radio(key="review_view").set_value("Decided").run()
    safe(at)


def test_consolidate_page(desk):
    at = page("consolidate.py")
    at.button(key="consolidate_plan_btn").click().run()
    safe(at)


def test_recall_page(desk):
    at = page("recall.py", q=f"Paris jazz router boat {LINK}")
    safe(at, expect=2)
    at.session_state["recall_tabs"] = "Pictures"  # issue 34: tabs draw when opened
    safe(at.run(), expect=0)  # the pictures: no payload drawn as an element (desk_support)
    at.session_state["recall_tabs"] = "Why not?"
    at.run()
    at.text_input(key="recall_whynot_find").input("boat").run()
    safe(at, expect=0)  # nothing rendered as an element; the payloads showed in Hits above


def test_audit_page(desk):
    """Issue 14: the audit page quotes operators' names and reasons (payloads here) as text."""
    at = page("audit.py")
    safe(at)
    assert any(TAG in t.value for t in at.text)  # the payload operator, by name, as text


def test_evals_page(desk, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    safe(page("evals.py"), expect=0)


def test_inv80_md_keeps_bare_urls_and_addresses_plain_in_the_browser():
    """The browser's GFM renderer links URLs after undoing escapes (tests/test_browser_text.py
    shows it on a label): md() puts a word joiner where a link would start, so none can."""
    from memory.ui import md
    from memory.ui.safe import WORD_JOINER

    shown = md("Reads https://evil.example/x, (www.evil.com) and mail a@evil.com")
    assert shown.count(WORD_JOINER) == 3
    for start in ("https", "www", "@"):
        assert f"{WORD_JOINER}{start}" in shown.replace("\\", "")
    assert plain(shown) == "Reads https://evil.example/x, (www.evil.com) and mail a@evil.com"
