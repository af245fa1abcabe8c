"""Issue 30, item 7: every eval command validates its data file and exits 2 naming the first
bad record, never "internal error (KeyError)" (invariant 458). The real CLI, in-process."""

from __future__ import annotations

import json

import pytest

from memory.cli import main

BAD = [
    ("locomo", "--data", "f.json", '[{"x": 1}]', "record 1 is not a LoCoMo conversation"),
    ("locomo", "--data", "f.json", '{"x": 1}', "a JSON list of conversations"),
    ("locomo", "--data", "f.json", json.dumps([{"conversation": {
        "session_1_date_time": "1:56 pm on 8 May, 2023",
        "session_1": [{"dia_id": "D1:1", "speaker": "A", "text": "hi"}]},
        "qa": [{"question": "q?", "category": "x"}], "sample_id": "s1"}]),
     "record 1 is not a LoCoMo conversation"),
    ("locomo", "--data", "f.json", json.dumps([{"conversation": {
        "session_1_date_time": "yesterday", "session_1": []}, "qa": [], "sample_id": "s"}]),
     "record 1"),
    ("recall", "--questions", "q.json", '[{"x": 1}]', "record 1"),
    ("recall", "--questions", "q.json", '{"x": 1}', "not a JSON list"),
    ("agent", "--data", "a.jsonl", '[{"x": 1}]', "line 1"),
    ("answers", "--data", "b.jsonl", '{"x": 1}\n', "line 1"),
]


@pytest.mark.parametrize("command,flag,name,content,says", BAD,
                         ids=[f"{b[0]}-{i}" for i, b in enumerate(BAD)])
def test_inv458_a_bad_data_file_is_exit_2_naming_the_record(
        command, flag, name, content, says, tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("MEMDESK_EMBEDDER", "hash")
    monkeypatch.setenv("MEMDESK_STORE", f"embedded:{tmp_path / 's.db'}")
    path = tmp_path / name
    path.write_text(content, encoding="utf-8")
    code = main(["eval", command, flag, str(path)])
    err = capsys.readouterr().err
    assert code == 2, err
    assert says in err and "internal error" not in err and "Traceback" not in err


def test_inv458_a_file_that_is_not_utf8_is_exit_2(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("MEMDESK_EMBEDDER", "hash")
    monkeypatch.setenv("MEMDESK_STORE", f"embedded:{tmp_path / 's.db'}")
    for command, flag in (("agent", "--data"), ("answers", "--data")):
        path = tmp_path / f"{command}.jsonl"
        path.write_bytes(b"\xff\xfe{}")
        assert main(["eval", command, flag, str(path)]) == 2
        assert "not UTF-8" in capsys.readouterr().err
