"""The Facts page runs for real (AppTest): search, both clocks as of any moment, the chain in
version order, a timeline true to both clocks, links, and retract/forget (invariants 83, 13, 14)."""

from __future__ import annotations

import re
from datetime import UTC, datetime
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from memory.corrections import chains_in_order
from memory.models import Fact, FactState, MemoryKind
from memory.ui.timeline import timeline, timeline_html
from memory.ui.views import state_at_record_time
from tests.desk_support import html_bodies, html_table, plain
from tests.test_pages import T0, seeded_desk, store_service

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture
def desk(tmp_path, monkeypatch):
    yield from seeded_desk(tmp_path, monkeypatch)


def page(**state) -> AppTest:
    at = AppTest.from_file(str(ROOT / "pages" / "facts.py"), default_timeout=60)
    query = state.pop("query", {})
    for key, value in state.items():
        at.session_state[key] = value
    for key, value in query.items():
        at.query_params[key] = value
    return at.run()


def listing(at: AppTest):
    """The listing's rows (issue 34: one escaped HTML table, no data grid)."""
    return html_table(at, "facts-list")


def chain_table(at: AppTest):
    """The chain's HTML table (issue 34: no data grid) as a frame of its cells' text."""
    from html.parser import HTMLParser

    import pandas as pd

    class Cells(HTMLParser):
        rows: list[list[str]] = []

        def handle_starttag(self, tag, attrs):
            if tag == "tr":
                self.rows.append([])
            elif tag in ("td", "th"):
                self.rows[-1].append("")

        def handle_data(self, data):
            if self.rows and self.rows[-1]:
                self.rows[-1][-1] += data

    body = next(b for b in html_bodies(at, "class='ptab chain'"))
    parser = Cells()
    parser.rows = []
    parser.feed(body[body.index("<table class='ptab chain'>"):].split("<style>")[0])
    frame = pd.DataFrame(parser.rows[1:], columns=parser.rows[0])
    return frame.astype({"version": int})


def inspect(at: AppTest, fact_id: str) -> AppTest:
    """Pick the fact's row in the picker under the listing, by the number the listing shows."""
    picker = next(s for s in at.selectbox if (s.key or "").startswith("facts_pick_"))
    row = listing(at).set_index("id").loc[fact_id]
    assert f"#{row['#']} · {row['text'][:90]}" in picker.options  # the listing's number, text
    at = picker.select(fact_id).run()
    assert next(s for s in at.selectbox if s.key == picker.key).value == fact_id
    marked = html_bodies(at, "class='ptab facts-list'")[0]
    assert marked.count("<tr class='on'>") == 1  # the inspected row is marked in the listing
    assert f"<td>{fact_id}</td>" in marked.split("<tr class='on'>")[1].split("</tr>")[0]
    return at


def picked(at: AppTest) -> str | None:
    return next(s for s in at.selectbox if (s.key or "").startswith("facts_pick_")).value


def inspected(at: AppTest) -> str:
    return next(b for b in html_bodies(at, "class='fx'")).split("<b>")[1].split("</b>")[0]


def test_filters_search_and_chain_in_version_order(desk):
    at = page()
    assert not at.exception and not at.error
    assert set(listing(at)["state"]) == {"active", "candidate"}
    # the first fact with a supersession link is inspected by default, its chain walked back
    assert inspected(at) == "Lives in Edinburgh" and at.query_params["fact"] == desk["edinburgh"]
    assert picked(at) == desk["edinburgh"]  # the picker shows the inspected row
    chain = chain_table(at)
    assert list(chain["version"]) == [1, 2]
    assert list(chain["text"]) == ["Lives in Bristol", "Lives in Edinburgh"]
    assert list(chain["state now"]) == ["superseded", "active"]
    at.text_input(key="facts_search").input("EMAIL").run()
    assert list(listing(at)["text"]) == ["Prefers email over phone calls"]
    assert inspected(at) == "Lives in Edinburgh"  # still inspected, though not listed
    assert "not in the list above" in html_bodies(at, "class='fx'")[0]
    assert picked(at) is None and "<tr class='on'>" not in html_bodies(at, "facts-list")[0]
    at = inspect(at, desk["email"])
    assert inspected(at) == "Prefers email over phone calls"
    at.text_input(key="facts_search").input("").run()
    at.pills(key="facts_states").set_value(["superseded"]).run()
    assert list(listing(at)["text"]) == ["Lives in Bristol"]
    at.selectbox(key="facts_type").select("preference").run()
    assert "No facts match" in plain(at.info[0].value)


def test_as_of_lists_and_each_versions_state_then(desk):
    """Invariants 13 and 14 through the desk, and the chain table as of that moment."""
    at = page()
    at.toggle(key="asof_valid_on").set_value(True).run()
    at.datetime_input(key="asof_valid").set_value(datetime(2024, 6, 1)).run()
    assert not at.error
    assert set(listing(at)["text"]) == {"Lives in Bristol", "Prefers email over phone calls"}
    # The moment in force is said above the list (a refused date leaves the last good one).
    assert any("As-of view (true at 2024-06-01 00:00 UTC)" in c.value for c in at.caption)
    chain = chain_table(at).set_index("text")
    assert chain.loc["Lives in Bristol", "true at 2024-06-01 00:00"] == "true"
    assert chain.loc["Lives in Edinburgh", "true at 2024-06-01 00:00"] == "not yet true"
    assert inspected(at) == "Lives in Edinburgh"  # the inspected fact survives the as-of change
    at.toggle(key="asof_valid_on").set_value(False).run()
    at.toggle(key="asof_rec_on").set_value(True).run()
    at.datetime_input(key="asof_rec").set_value(datetime(2024, 6, 1)).run()
    chain = chain_table(at).set_index("text")
    # What the store believed on 2024-06-01: Bristol, although it is superseded today.
    assert chain.loc["Lives in Bristol", "believed at 2024-06-01 00:00"] == "active"
    assert chain.loc["Lives in Edinburgh", "believed at 2024-06-01 00:00"] == "not yet recorded"
    assert set(listing(at)["text"]) == {"Lives in Bristol", "Prefers email over phone calls"}
    at.datetime_input(key="asof_rec").set_value(datetime(2025, 4, 1)).run()
    assert set(listing(at)["text"]) == {"Lives in Edinburgh", "Prefers email over phone calls"}
    assert chain_table(at).set_index("text").loc[
        "Lives in Bristol", "believed at 2025-04-01 00:00"] == "superseded"
    drawn = timeline_of(at)
    assert drawn.count("class='asof rec'") == len(timeline_rows(drawn)) == 2  # as-of line
    assert "class='asof'" not in drawn  # no valid-time moment chosen
    at.datetime_input(key="asof_rec").set_value(datetime(2023, 1, 1)).run()
    assert "No facts match" in plain(at.info[0].value)
    assert inspected(at) == "Lives in Edinburgh"


def test_timeline_orders_versions_and_marks_never_true_values(desk):
    svc = store_service()
    glasgow = svc.write_fact("ana", "Lives in Glasgow", fact_type="identity",
                             supersedes_id=desk["edinburgh"], contradiction="harsh",
                             actor="cli").fact
    at = page(query={"fact": glasgow.id})
    assert inspected(at) == "Lives in Glasgow"
    rows = timeline_rows(timeline_of(at))
    assert [(label.split(" · ")[0], state) for label, state, _ in rows] == [
        ("v1", "superseded"), ("v2", "retracted"), ("v3", "active")]
    assert rows[1][0].endswith("Lives in Edinburgh")
    assert [kinds for *_, kinds in rows] == [["valid", "recorded", "ended"],
                                             ["wrongly_believed", "never_true"],
                                             ["assumed", "recorded"]]  # Glasgow: no valid_from
    assert list(chain_table(at)["state now"]) == ["superseded", "retracted", "active"]
    at.radio(key="facts_timeline_scope").set_value(
        at.radio(key="facts_timeline_scope").options[1]).run()
    cand = [r for r in timeline_rows(timeline_of(at)) if r[1] == "candidate"]
    assert len(cand) == 1 and "Owns a cat" in cand[0][0] and cand[0][2] == ["candidate"]


def timeline_of(at: AppTest) -> str:
    return next(b for b in html_bodies(at, "class='tl'"))


def timeline_rows(drawn: str) -> list[tuple[str, str, list[str]]]:
    """(label, state, kinds of marks) per drawn row, top to bottom."""
    out = []
    for chunk in drawn.split("<div class='r' data-state='")[1:]:
        state = chunk.split("'", 1)[0]
        label = chunk.split("<div class='l'", 1)[1].split(">", 1)[1].split("</div>", 1)[0]
        out.append((label, state, re.findall(r"data-kind='(\w+)'", chunk)))
    return out


def test_timeline_and_chain_grouping_are_pure():
    old = Fact(user_id="u", text="Lives in <b>Bristol</b>", state=FactState.SUPERSEDED,
               recorded_at=T0, superseded_at=datetime(2025, 2, 1, tzinfo=UTC),
               valid_from=datetime(2020, 1, 1, tzinfo=UTC), valid_to=datetime(2025, 1, 1, tzinfo=UTC))
    new = Fact(user_id="u", text="Lives in Edinburgh", recorded_at=datetime(2025, 2, 1, tzinfo=UTC),
               valid_from=datetime(2025, 1, 1, tzinfo=UTC), supersedes=old.id)
    old = old.model_copy(update={"superseded_by": new.id})
    other = Fact(user_id="u", text="Likes tea", recorded_at=T0)
    assert [[f.text for f in c] for c in chains_in_order([new, other, old])] == [
        ["Lives in <b>Bristol</b>", "Lives in Edinburgh"], ["Likes tea"]]
    tl = timeline([new, other, old], now=datetime(2025, 6, 1, tzinfo=UTC), versions=False)
    assert [r.label for r in tl.rows] == ["v1 · Lives in <b>Bristol</b>",
                                          "v2 · Lives in Edinburgh", "v1 · Likes tea"]
    drawn = timeline_html(tl)
    assert "Lives in &lt;b&gt;Bristol&lt;/b&gt;" in drawn and "<b>Bristol" not in drawn
    assert [r[2] for r in timeline_rows(drawn)] == [
        ["valid", "recorded", "ended"], ["valid", "recorded"], ["assumed", "recorded"]]
    assert state_at_record_time(old, datetime(2025, 1, 15, tzinfo=UTC)) == "active"
    assert state_at_record_time(old, datetime(2025, 3, 1, tzinfo=UTC)) == "superseded"


def test_inv83_an_unknown_valid_start_is_drawn_as_assumed_and_the_legend_says_so():
    now = datetime(2025, 6, 1, tzinfo=UTC)
    known = Fact(user_id="u", text="Lives in Leeds", recorded_at=datetime(2025, 3, 1, tzinfo=UTC),
                 valid_from=datetime(2024, 1, 1, tzinfo=UTC))
    unknown = Fact(user_id="u", text="Lives in York", recorded_at=datetime(2025, 3, 1, tzinfo=UTC))
    a, b = (timeline([f], now=now).rows[0].marks[0] for f in (known, unknown))
    assert (a.kind, a.start) == ("valid", known.valid_from)
    assert (b.kind, b.start) == ("assumed", unknown.recorded_at)  # where the store assumed it
    drawn = timeline_html(timeline([known, unknown], now=now, versions=False))
    assert "class='b valid'" in drawn and "class='b assumed'" in drawn
    assert "valid from unknown: drawn from when recorded" in drawn
    only_known = timeline_html(timeline([known], now=now))
    assert "valid from unknown" not in only_known  # the legend lists what is drawn


def test_a_fact_said_seconds_ago_gets_a_readable_time_axis():
    """A fact just said in Chat lives for seconds: its timeline spans at least a day around it,
    not milliseconds with overlapping tick labels; a long chain keeps its own span."""
    from datetime import timedelta

    now = datetime(2026, 12, 2, 9, 41, 20, tzinfo=UTC)
    fresh = Fact(user_id="u", text="Lives in Kraków", recorded_at=now - timedelta(seconds=2))
    tl = timeline([fresh], now=now)
    assert tl.hi - tl.lo >= timedelta(days=1) and tl.lo <= fresh.recorded_at <= now <= tl.hi
    old = Fact(user_id="u", text="Lives in Leeds", recorded_at=now - timedelta(days=90))
    tl = timeline([old], now=now)
    assert timedelta(days=90) <= tl.hi - tl.lo < timedelta(days=96)


def test_links_to_review_sources_and_audit(desk):
    at = page(query={"fact": desk["cat"]})
    assert inspected(at) == "Owns a cat called Miso"
    assert any("Open its review item" in plain(c.value) for c in at.caption)
    at = page(query={"fact": desk["bristol"]})
    assert html_table(at, "fx-sources") is None  # a closed tab: not drawn
    assert not at.dataframe  # issue 34: no data grid; the listing is plain HTML
    at.session_state["facts_tabs"] = "Source episodes"  # issue 34: tabs draw when opened
    at.run()
    sources = html_table(at, "fx-sources")
    assert list(sources["text"]) == ["I live in Bristol with my partner"]
    at.session_state["facts_tabs"] = "Audit events"
    at.run()
    assert html_table(at, "fx-audit") is None  # read on demand
    at.toggle(key="facts_show_audit").set_value(True).run()
    audit = html_table(at, "fx-audit")
    assert set(audit["action"]) == {"write_fact", "supersede"}


def test_scope_follows_user_picker_and_unknown_user_is_an_error(desk):
    at = page()
    at.selectbox(key="user").select("bob").run()
    assert list(listing(at)["text"]) == ["Lives in Lisbon"] and at.query_params["user"] == "bob"
    at = page(query={"user": "zed"})
    assert "Unknown user 'zed'" in plain(at.error[0].value)
    assert at.selectbox(key="user").value == "ana"  # nothing guessed, the page still works
    at = page(query={"user": "bob"})
    assert not at.error and at.selectbox(key="user").value == "bob"


def test_retract_needs_operator_and_confirmation_and_is_audited(desk):
    at = inspect(page(facts_single_open=True), desk["email"])  # the expander opened
    assert at.button(key="facts_apply").disabled  # no confirmation yet
    at.checkbox(key="facts_confirm").check().run()
    at.button(key="facts_apply").click().run()
    assert "operator name" in plain(at.error[0].value)  # nothing changed without an actor
    assert store_service().get_fact("ana", desk["email"]).state == FactState.ACTIVE
    at.session_state["operator_name"] = "maria"
    at.text_input(key="facts_reason").input("user denied it").run()
    at.button(key="facts_apply").click().run()
    assert not at.error and "Retracted" in plain(at.toast[0].value)
    assert store_service().get_fact("ana", desk["email"]).state == FactState.RETRACTED
    event = store_service().audit("ana", action="retract")[0]
    assert event.actor == "operator:maria" and event.reason == "user denied it"
    assert desk["email"] not in set(listing(at)["id"])
    assert inspected(at) == "Prefers email over phone calls"  # still inspected: now retracted


def test_forget_from_the_desk_hard_deletes(desk):
    at = inspect(page(operator_name="maria", facts_single_open=True), desk["cat"])
    at.radio(key="facts_action").set_value("forget").run()
    at.checkbox(key="facts_confirm").check().run()
    at.button(key="facts_apply").click().run()
    assert "Forgot" in plain(at.toast[0].value)
    svc = store_service()
    assert svc.store.get(MemoryKind.SEMANTIC, "ana", desk["cat"]) is None
    assert svc.audit("ana", action="forget")[0].actor == "operator:maria"


def test_a_long_listing_is_drawn_a_page_at_a_time_and_every_row_is_reachable(desk):
    """Issue 34: thousands of rows cost the browser most of the page's time; the listing draws
    100 at a time, and a row on a later page is inspected like any other."""
    svc = store_service()
    for n in range(203):
        svc.write_fact("bob", f"Has visited town number {n:03d}", actor="cli")
    at = page(user="bob")
    assert len(listing(at)) == 100
    assert any("204 facts · showing 1–100" in plain(c.value) for c in at.caption)
    at.number_input(key="facts_page").set_value(3).run()
    assert len(listing(at)) == 4
    assert list(listing(at)["#"]) == [201, 202, 203, 204]  # numbered across pages
    last = list(listing(at)["id"])[-1]
    at = inspect(at, last)
    assert inspected(at) == svc.get_fact("bob", last).text


def test_inv121_bulk_retract_confirms_the_count_and_the_role(desk):
    at = page(user="ana", operator_name="rita")
    assert not [c for c in at.checkbox if c.key == "facts_bulk_confirm"]  # closed: not drawn
    at.session_state["facts_bulk_open"] = True
    at.run()
    at.multiselect(key="facts_bulk_ids").set_value([desk["email"], desk["edinburgh"]]).run()
    confirm = at.checkbox(key="facts_bulk_confirm")
    assert "retract 2 facts of ana (needs the reviewer role; you are admin)" in plain(
        confirm.label)
    assert at.button(key="facts_bulk_apply").disabled
    confirm.check().run()
    at.button(key="facts_bulk_apply").click().run()
    assert not at.exception and "retract: 2 of 2 done" in plain(at.toast[0].value)
    svc = store_service()
    assert {svc.get_fact("ana", i).state.value for i in (desk["email"], desk["edinburgh"])} == {
        "retracted"}
    assert not at.checkbox(key="facts_bulk_confirm").value  # a new confirmation next time


def test_the_kept_listing_follows_every_change_to_the_users_facts(desk):
    """Issue 34: the listing is kept across sessions, keyed on the store's data version and the
    user's audit count; a write or a forget that no page signalled (here through the desk's own
    service, the same connection) shows on the next visit: nothing stale, nothing resurrected."""
    svc = store_service()
    before = set(listing(page())["text"])
    written = svc.write_fact("ana", "Plays the oboe", actor="cli").fact
    assert set(listing(page())["text"]) == before | {"Plays the oboe"}
    svc.forget("ana", written.id, actor="cli")
    svc.forget("ana", desk["email"], actor="cli")
    assert set(listing(page())["text"]) == before - {"Prefers email over phone calls"}


def test_the_review_tab_shows_a_decision_made_since_the_last_visit(desk):
    """Issue 34: the review decisions naming a fact are kept across visits like the listing;
    one made meanwhile (outside the desk's pages) shows on the next visit."""
    from review import decide

    at = page(query={"fact": desk["cat"]})
    assert html_table(at, "fx-review") is None  # a candidate: nothing decided yet
    decide(store_service(), "ana", desk["cat"], "approve", operator="rita", expected_rev=1,
           comment="seen it")
    events = html_table(page(query={"fact": desk["cat"]}), "fx-review")
    assert list(events["action"]) == ["review_approve"] and list(events["comment"]) == ["seen it"]
    assert "rita" in events["operator"][0]
