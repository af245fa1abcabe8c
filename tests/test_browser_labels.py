"""The Evals page's labels table in a real browser (issue 32): `streamlit run app.py` over the demo
personas after a scripted review session, opened by headless Chromium; the table is there with the
session's counts, and the click-through lands on the Review page's Decided tab, filtered."""

from __future__ import annotations

import pytest

from tests.label_support import run_session, seed_demo
from tests.test_browser_smoke import CHROMIUM, Walk, running_desk

pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(CHROMIUM is None, reason="Chromium is not installed"),
]


@pytest.fixture
def labelled_desk(tmp_path, monkeypatch):
    url = f"embedded:{tmp_path / 'desk.db'}"
    monkeypatch.setenv("MEMDESK_EMBEDDER", "hash")
    seed_demo(url)
    run_session(url)
    with running_desk(url, tmp_path / "streamlit.log") as base:
        yield base


def test_inv491_evals_page_shows_the_labels_table_in_a_browser(labelled_desk):
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        walk = Walk(pw, labelled_desk)
        page = walk.page
        try:
            walk.open("/evals?user=dev-ravi", "Review decisions as labels")
            page.get_by_text("By reader version, kind and day").wait_for()
            walk.settle()
            grids = page.locator("[data-testid='stDataFrame']")
            assert grids.count() == 2  # by version, by version/kind/day
            assert "10 labels" in page.inner_text("body")
            # The decisions behind a figure, drawn when opened (issue 34).
            page.get_by_text("The decisions behind this figure").click()
            page.get_by_text("decision(s) behind").wait_for()
            walk.settle()
            assert grids.count() == 3
            walk.check("evals-labels")
            page.get_by_role("link", name="Open dev-ravi's decisions in Review → Decided").click()
            page.get_by_text("linked from Evals").wait_for()
            walk.settle()
            assert "/review" in page.url and "decided=" in page.url
            walk.check("review-decided-filtered")
        finally:
            walk.close()
