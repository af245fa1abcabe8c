"""Invariant 68: user ids and free text are safe. User ids are NFC-normalised and trimmed, and
refuse invisible characters and the reserved `catalog`; labels have limits; what the CLI writes to
a terminal cannot move the cursor or reorder a line, whatever the stored text holds."""

from __future__ import annotations

import json
import unicodedata

import pytest

from memory import inputs
from memory.cli import main
from memory.errors import ScopeError, ValidationError
from memory.models import check_actor
from memory.text import require_user


def test_inv68_user_ids_are_nfc_and_trimmed_so_one_person_is_one_scope(service):
    composed, decomposed = "Zoë", unicodedata.normalize("NFD", "Zoë")
    assert composed != decomposed and require_user(f"  {decomposed}\t") == composed
    service.write_episode(decomposed, "I like hiking in the Alps")
    assert [e.text for e in service.episodes(composed)] == ["I like hiking in the Alps"]
    assert [u.user_id for u in service.users()] == [composed]


@pytest.mark.parametrize("bad", [
    "ana\u200b", "\u200dana", "an\u00ada", "ana\u202e", "a\u2066na", "ana\ufeff", "a\x00na",
    "a\x1b[2Jna", "a\x85na", "a\u2028na", "a\u2029na", "ana\ue000", "ana\U000f0000", "ana\u0378",
])
def test_inv68_invisible_and_control_characters_are_refused_in_user_ids(bad):
    with pytest.raises(ScopeError, match="invisible or control"):
        require_user(bad)


@pytest.mark.parametrize("name", ["catalog", "Catalog", " CATALOG ", "ｃａｔａｌｏｇ"])
def test_inv68_catalog_is_no_users_id(name, service):
    with pytest.raises(ScopeError, match="reserved"):
        service.write_episode(name, "hello")


@pytest.mark.parametrize("ok", ["ana", "José", "李小龙", "ana smith", "user-42_x", "👩🏽dev"])
def test_inv68_ordinary_ids_in_any_script_are_accepted(ok):
    assert require_user(ok) == unicodedata.normalize("NFC", ok)


def test_inv68_labels_have_limits_and_no_hidden_characters():
    assert inputs.label("  kitchen tablet ", "session") == "kitchen tablet"
    assert inputs.optional_label("   ", "reason") is None
    for field, limit in inputs.LIMITS.items():
        inputs.label("x" * limit, field)
        with pytest.raises(ValidationError, match=f"the limit is {limit}"):
            inputs.label("x" * (limit + 1), field)
    for bad in ("a\nb", "a\tb", "a\rb", "a\u202eb", "a\u200bb"):
        with pytest.raises(ValidationError, match="control or invisible"):
            inputs.label(bad, "comment")


@pytest.mark.parametrize("actor", ["operator:ri\x1bta", "operator:ri\u202eta", "operator:\u200b"])
def test_inv68_operator_names_refuse_invisible_characters_on_every_path(actor):
    with pytest.raises(ValueError, match="invalid actor"):
        check_actor(actor)


def test_inv68_session_ids_are_checked_by_the_service_too(service):
    with pytest.raises(ValidationError, match="session"):
        service.write_episode("ana", "hi", session_id="s\x1b[2J")


def test_inv68_terminal_output_escapes_what_would_move_the_cursor():
    text = "ok\x1b[2J\rgone\x9b31m \u202edesrever\u2066 \u2028next"
    safe = inputs.terminal_safe(text)
    assert safe == "ok\\x1b[2J\\rgone\\x9b31m \\u202edesrever\\u2066 \\u2028next"
    assert inputs.terminal_safe("line one\n\ttab, emoji 👩‍👩‍👧 and ZWJ kept") == \
        "line one\n\ttab, emoji 👩‍👩‍👧 and ZWJ kept"
    doc = json.dumps({"t": text}, ensure_ascii=False)
    assert json.loads(inputs.json_safe(doc)) == {"t": text}  # the same JSON to a parser
    assert not any(c in inputs.json_safe(doc) for c in "\x1b\r\x9b\u202e\u2066\u2028")


def test_inv68_cli_shows_stored_text_and_errors_escaped(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("MEMDESK_EMBEDDER", "hash")
    monkeypatch.setenv("MEMDESK_STORE", f"embedded:{tmp_path / 's.db'}")
    # Bidi controls never reach the terminal raw; since issue 30 (invariant 11) they do not
    # even reach the store: the value is kept as it reads.
    assert main(["write-fact", "--user", "ana", "Likes \u202egnihsif\u202c and tea"]) == 0
    capsys.readouterr()
    assert main(["facts", "--user", "ana"]) == 0
    out = capsys.readouterr().out
    assert "\u202e" not in out and "Likes gnihsif and tea" in out
    assert main(["facts", "--user", "ana", "--json"]) == 0
    raw = capsys.readouterr().out
    assert "\u202e" not in raw and json.loads(raw)[0]["text"] == "Likes gnihsif and tea"
    assert main(["recall", "--user", "a\x1b]0;pwned\x07na", "tea"]) == 2
    err = capsys.readouterr().err
    assert "\x1b" not in err and "\x07" not in err and "\\x1b]0;pwned\\x07" in err
