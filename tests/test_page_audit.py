"""The audit log as people read it (issue 34): each row names the memory's text or says it was
forgotten, links facts to the Facts page, and filters by date range, actor, action, outcome."""

from __future__ import annotations

from datetime import UTC, date, datetime

import review.queue  # noqa: F401 - pins the review package before AppTest puts pages/ on sys.path
from memory.models import AuditEvent
from memory.ui.audit_views import FORGOTTEN, AuditFilter, audit_rows, audit_table_html, keep, link
from tests.desk_support import LINK, TAG, html_elements, html_table
from tests.test_pages import desk, page, store_service  # noqa: F401 - the fixture


def test_inv515_rows_name_the_memory_or_forgotten_and_link_facts(desk):  # noqa: F811
    svc = store_service()
    gone = svc.write_fact("ana", f"Owns a kayak {TAG}", actor="cli").fact
    svc.forget("ana", gone.id, actor="cli", reason="asked to")
    at = page("pages/audit.py", user="ana")
    assert not at.exception and not at.error
    assert not at.dataframe  # issue 34: one escaped HTML table, no data grid
    rows = html_table(at, "audit-list")
    by_target = {t.split(", ")[0]: (m, o) for t, m, o in
                 zip(rows["targets"], rows["memory"], rows["open"], strict=True)}
    assert by_target[desk["bristol"]] == ("Lives in Bristol",
                                          f"facts?user=ana&fact={desk['bristol']}")
    assert by_target[gone.id][0] == FORGOTTEN and not isinstance(by_target[gone.id][1], str)
    assert "plan" not in rows.columns  # a column empty on every row is left out
    assert TAG not in " ".join(map(str, rows["memory"]))  # forgotten: its text is not kept
    # filters: action, actor, date range (issue 34: drawn when their expander is opened)
    assert not [w for w in at.multiselect if w.key == "audit_actions"]
    at.session_state["audit_filters_open"] = True
    at.run().multiselect(key="audit_actions").select("forget").run()
    assert list(html_table(at, "audit-list")["action"]) == ["forget"]
    at.multiselect(key="audit_actions").unselect("forget").run()
    at.multiselect(key="audit_actors").select("cli").run()
    assert set(html_table(at, "audit-list")["who"]) == {"cli"}
    at.date_input(key="audit_until").set_value(date(2017, 1, 1)).run()
    assert "No audit event matches" in at.info[0].value
    at.session_state["audit_filters_open"] = False  # closed, both filters stay in force
    at.run()
    assert "No audit event matches" in at.info[0].value
    assert any("2 filters in force" in c.value for c in at.caption)


def test_inv515_filters_and_rows_are_pure():
    def ev(actor, action, day, outcome="ok", targets=("fact_1",)):
        return AuditEvent(actor=actor, user_id="ana", action=action, target_ids=list(targets),
                          outcome=outcome, at=datetime(2025, 5, day, 12, tzinfo=UTC))
    events = [ev("cli", "write_fact", 1), ev("operator:rita", "review_approve", 3),
              ev("operator:vic", "denied", 5, outcome="denied", targets=())]
    assert [keep(e, AuditFilter(since=date(2025, 5, 2), until=date(2025, 5, 3)))
            for e in events] == [False, True, False]
    assert [keep(e, AuditFilter(actors={"cli"}, actions={"write_fact"})) for e in events] == [
        True, False, False]
    assert [keep(e, AuditFilter(outcomes={"denied"})) for e in events] == [False, False, True]
    rows = audit_rows(events, {"fact_1": "Likes tea"}, "ana")
    assert [(r["memory"], r["open"]) for r in rows] == [
        ("Likes tea", "facts?user=ana&fact=fact_1"), ("Likes tea", "facts?user=ana&fact=fact_1"),
        ("", None)]
    assert link("ana", "ep_1") is None and link("catalog", "fact_1") is None


def test_inv80_the_audit_table_escapes_stored_text_and_links_only_desk_pages():
    event = AuditEvent(actor=f"operator:{TAG}", user_id="ana", action="retract",
                       target_ids=["fact_1"], reason=f"said {LINK}",
                       at=datetime(2025, 5, 1, 12, tzinfo=UTC))
    body = audit_table_html(audit_rows([event], {"fact_1": f"Likes {TAG} {LINK}"}, "ana"))
    assert set(html_elements(body)) - {"table", "tr", "th", "td", "style"} == {"desk-link"}
    assert TAG not in body and "&lt;img" in body
    assert "href='facts?user=ana&amp;fact=fact_1'" in body


def test_a_long_log_is_drawn_a_page_of_rows_at_a_time(desk):  # noqa: F811
    """Issue 34: 100 rows at a time; the other pages reach every event, newest first."""
    svc = store_service()
    for n in range(110):
        svc.write_fact("ana", f"Note {n:03d} about the garden", actor="cli")
    at = page("pages/audit.py", user="ana")
    assert not at.exception and not at.error
    total = len(svc.audit("ana", limit=300))
    first = html_table(at, "audit-list")
    assert len(first) == 100 and "Note 109 about the garden" in set(first["memory"])
    at.number_input(key="audit_page").set_value(2).run()
    second = html_table(at, "audit-list")
    assert len(second) == total - 100
    assert set(first["targets"]).isdisjoint(second["targets"])
    at.number_input(key="audit_limit").set_value(50).run()  # one page now: no page input
    assert not [w for w in at.number_input if w.key == "audit_page"]
    assert len(html_table(at, "audit-list")) == 50
