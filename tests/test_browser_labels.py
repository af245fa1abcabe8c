"""The Evals page's labels table in a real browser (issue 32): `streamlit run app.py` over the demo
personas after a scripted review session, opened by headless Chromium; the table is there with the
session's counts, and the click-through lands on the Review page's Decided tab, filtered."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from tests.label_support import run_session, seed_demo
from tests.test_browser_smoke import CHROMIUM, ROOT, Walk, free_port, wait_healthy

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
    port = free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith("MEMDESK_")}
    env.update(MEMDESK_STORE=url, MEMDESK_EMBEDDER="hash", MEMDESK_LLM="offline")
    env.pop("ANTHROPIC_API_KEY", None)
    log = tmp_path / "streamlit.log"
    with log.open("wb") as out:
        proc = subprocess.Popen(
            [sys.executable, "-m", "streamlit", "run", "app.py", "--server.port", str(port),
             "--server.address", "127.0.0.1", "--server.headless", "true"],
            cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT)
    base = f"http://127.0.0.1:{port}"
    try:
        wait_healthy(base, proc)
        yield base
    finally:
        proc.terminate()  # only the server this fixture started
        try:
            proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def test_inv495_evals_page_shows_the_labels_table_in_a_browser(labelled_desk):
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        walk = Walk(pw, labelled_desk)
        page = walk.page
        try:
            walk.open("/evals?user=dev-ravi", "Review decisions as labels")
            page.get_by_text("By reader version, kind and day").wait_for()
            walk.settle()
            grids = page.locator("[data-testid='stDataFrame']")
            assert grids.count() >= 3  # by version, by version/kind/day, the decisions behind
            assert "10 labels" in page.inner_text("body")
            walk.check("evals-labels")
            page.get_by_role("link", name="Open dev-ravi's decisions in Review → Decided").click()
            page.get_by_text("linked from Evals").wait_for()
            walk.settle()
            assert "/review" in page.url and "decided=" in page.url
            walk.check("review-decided-filtered")
        finally:
            walk.close()
