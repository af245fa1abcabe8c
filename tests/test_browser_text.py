"""Issue 30, item 6: text stays text in every label, toast and confirmation (invariant 80).
A fact holding bare URLs and the pages' Markdown/HTML payloads, seen in a real browser
(Chromium driven by Playwright) in the Facts confirmation label, the Facts toast and the Review
approve toast: no link, image or handler is rendered, nothing is fetched."""

from __future__ import annotations

import pytest

from tests.desk_support import IMAGE, LINK, TAG
from tests.test_browser_smoke import CHROMIUM, Walk, running_desk

pytest.importorskip("playwright.sync_api", reason="pip install playwright (dev extra)")
pytestmark = [pytest.mark.browser,
              pytest.mark.skipif(CHROMIUM is None, reason="Chromium is not installed")]

URLS = "https://evil.example/x www.evil.com mailto:evil@evil.com"


def _seed(db) -> dict[str, str]:
    from memory.embeddings import get_embedder
    from memory.service import MemoryService
    from memory.stores import open_store
    from review import propose

    store = open_store(f"embedded:{db}", get_embedder("hash"))
    svc = MemoryService(store)
    fact = svc.write_fact("zed", f"Reads {URLS} {LINK} {IMAGE} {TAG}").fact
    cand = propose(svc, "zed", f"Follows {URLS} {LINK} {TAG}").id
    store.close()
    return {"fact": fact.id, "candidate": cand}


@pytest.fixture
def server(tmp_path):
    db = tmp_path / "desk.db"
    ids = _seed(db)
    with running_desk(f"embedded:{db}", tmp_path / "streamlit.log") as url:
        yield url, ids


def _no_links(walk: Walk, where: str) -> None:
    p = walk.page
    for selector in ("a[href*='evil']", "a[href^='mailto']", "img[src*='127.0.0.1:9']",
                     "img[src='x']", "[onerror]"):
        assert p.locator(selector).count() == 0, f"{where}: {selector} rendered"
    walk.check(where)


def test_inv80_labels_and_toasts_show_stored_text_as_text(server):
    url, ids = server
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        walk = Walk(pw, url)
        page = walk.page
        try:
            walk.open("/?user=zed", "Recent activity")
            page.get_by_role("textbox", name="Operator", exact=True).fill("rita")
            page.get_by_role("textbox", name="Operator", exact=True).press("Enter")
            walk.settle()
            walk.open(f"/facts?user=zed&fact={ids['fact']}", "Supersession chain")
            page.get_by_text("Retract or forget this fact").click()
            label = page.get_by_text("I confirm:", exact=False).first
            label.wait_for()
            walk.settle()
            assert "evil.example" in label.inner_text()  # the text is there, as text
            _no_links(walk, "facts-confirm")
            label.click()
            walk.settle()
            page.get_by_role("button", name="Apply").click()
            page.locator("[data-testid='stToast']").first.wait_for()
            walk.settle()
            _no_links(walk, "facts-toast")
            walk.open("/review?user=zed", "Item 1 of 1")
            page.get_by_role("button", name="Approve").click()
            toast = page.locator("[data-testid='stToast']").first
            toast.wait_for()
            walk.settle()
            assert "evil.example" in toast.inner_text()
            _no_links(walk, "review-approve-toast")
        finally:
            walk.close()
