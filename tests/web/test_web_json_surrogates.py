"""A JSON body whose string holds a lone surrogate escape (``"\\udcff"``) is text no UTF-8 can hold:
a 400 with the one UTF-8 message naming the field, not the decoder's "invalid utf-16 surrogate
pair" (audit of issue 13/6)."""

from __future__ import annotations

import pytest
from claudeops_memory import repository

from claudeops.store import db


@pytest.mark.parametrize(("body", "message"), [
    (rb'{"category": "timing", "observation": "a\udcffb"}',
     "the JSON field 'observation' is not UTF-8 text (byte 0xff at offset 1); send it encoded as UTF-8"),
    (rb'{"category": "timing", "observation": "ok", "service": "\ud800x"}',
     "the JSON field 'service' is not UTF-8 text (byte 0xd800 at offset 0); send it encoded as UTF-8"),
])
def test_a_lone_surrogate_escape_in_a_json_body_is_the_one_message(client, body: bytes, message: str) -> None:
    response = client.post("/api/v1/memories", content=body, headers={"content-type": "application/json"})
    assert response.status_code == 400
    assert response.json()["detail"] == message
    with db.connection_context():
        assert repository.list_memories() == []


@pytest.mark.parametrize("text", [r"a\\udcffb", "😀", r"\ud83d\ude00"], ids=["escaped-backslash", "emoji", "pair"])
def test_an_escaped_backslash_and_a_whole_surrogate_pair_are_text(client, text: str) -> None:
    body = ('{"category": "timing", "observation": "note ' + text + '"}').encode()
    response = client.post("/api/v1/memories", content=body, headers={"content-type": "application/json"})
    assert response.status_code == 201, response.text
