"""Two operators in two browsers review one queue to empty without colliding (issue 34,
invariant 510): `streamlit run app.py` on localhost, two headless Chromium contexts (two
people, two sessions), each handed its own item by the review layer's leases."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from tests.test_browser_smoke import ARTIFACTS, CHROMIUM, FLAGS, running_desk

ROOT = Path(__file__).resolve().parent.parent
playwright = pytest.importorskip("playwright.sync_api", reason="pip install playwright (dev extra)")
pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(CHROMIUM is None, reason="Chromium is not installed "
                       "(`apt-get install chromium`; .ci/run installs it)"),
]
TEXTS = ["Likes sailing", "Has a dog called Rex", "Drinks oat milk", "Works in Leeds"]


def seed_queue(path: Path) -> None:
    from memory.embeddings import get_embedder
    from memory.service import MemoryService
    from memory.stores import open_store
    from review import propose

    store = open_store(f"embedded:{path}", get_embedder("hash"))
    start = datetime.now(UTC) - timedelta(hours=1)
    for n, text in enumerate(TEXTS):  # oldest first: the queue's order
        svc = MemoryService(store, clock=lambda n=n: start + timedelta(minutes=n))
        propose(svc, "ana", text)
    store.close()


@pytest.fixture
def team_desk(tmp_path):
    db = tmp_path / "team.db"
    seed_queue(db)
    with running_desk(f"embedded:{db}", tmp_path / "streamlit.log") as url:
        yield url, tmp_path / "streamlit.log"


def settle(page) -> None:
    page.wait_for_timeout(300)
    page.wait_for_function("!document.querySelector('[data-testid=\"stStatusWidget\"]')",
                           timeout=60_000)
    page.wait_for_timeout(300)


def shown(page) -> str | None:
    cards = page.locator(".rv-card .rv-x")
    return cards.first.inner_text() if cards.count() else None


def sign_in(context, url: str, name: str):
    page = context.new_page()
    page.set_default_timeout(60_000)
    page.goto(url + "/review?user=ana")
    page.locator(".rv-card .rv-x").first.wait_for()
    settle(page)
    box = page.get_by_role("textbox", name="Operator", exact=True)
    box.fill(name)
    box.press("Enter")
    settle(page)
    return page


def test_inv510_two_browsers_review_the_queue_to_empty_without_colliding(team_desk):
    url, log = team_desk
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=FLAGS)
        try:
            alice = sign_in(browser.new_context(viewport={"width": 1300, "height": 900}), url,
                            "alice")
            bob = sign_in(browser.new_context(viewport={"width": 1300, "height": 900}), url,
                          "bob")
            assert shown(alice) == TEXTS[0] and shown(bob) == TEXTS[1]
            assert "1 being reviewed by others" in bob.inner_text("body")
            # "previous" and "next" step over the item alice holds
            bob.get_by_role("button", name="Next").click()
            settle(bob)
            assert shown(bob) == TEXTS[2]
            bob.get_by_role("button", name="Previous").click()
            settle(bob)
            assert shown(bob) == TEXTS[1]
            decided: dict[str, list[str]] = {"alice": [], "bob": []}
            for _ in range(len(TEXTS)):
                for name, page in (("alice", alice), ("bob", bob)):
                    mine, theirs = shown(page), shown(bob if page is alice else alice)
                    if mine is None:
                        continue
                    assert mine != theirs
                    decided[name].append(mine)
                    page.get_by_role("button", name="Approve").click()
                    # wait for the decision itself (the item leaves this page), not only for the
                    # rerun to look finished: on a loaded machine it may not have begun yet
                    page.wait_for_function(
                        "t => { const c = document.querySelector('.rv-card .rv-x');"
                        " return !c || c.innerText !== t; }", arg=mine, timeout=60_000)
                    settle(page)
                    assert "decided meanwhile" not in page.inner_text("body")
            for page in (alice, bob):
                page.reload()
                page.get_by_text("Nothing waiting").wait_for()
                settle(page)
            assert sorted(decided["alice"] + decided["bob"]) == sorted(TEXTS)
            assert len(decided["alice"]) == len(decided["bob"]) == 2  # nobody waited idle
            assert "Decided today: alice 2 · bob 2" in alice.inner_text("body")
            ARTIFACTS.mkdir(parents=True, exist_ok=True)
            alice.screenshot(path=str(ARTIFACTS / "review-team-empty.png"), full_page=True)
        finally:
            browser.close()
    text = log.read_text(errors="replace")
    assert "Traceback" not in text, text[-3000:]
