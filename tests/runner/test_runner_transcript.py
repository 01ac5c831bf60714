"""What the runner never writes to a transcript: secrets are redacted, and the line stays valid JSON."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from claudeops.redaction import may_hold_secret, redact, secret_literals
from claudeops.runner.script import bash, script_to_stream


@pytest.mark.parametrize(("secret", "kept"), [
    ("sk-ant-api03-AbCdEf0123456789_-xyz", "sk-ant-***"),
    ("Authorization: Bearer eyJhbGciOiJIUzI1NiJ9.abc", "Authorization: Bearer ***"),
    ("x-api-key: 0123456789abcdef", "x-api-key: ***"),
    ("postgresql://claudeops:p4ssw0rd@db:5432/x", "postgresql://claudeops:***@db:5432/x"),
    ("https://admin:hunter2@nas.lan/api", "https://admin:***@nas.lan/api"),
    ("redis://:s3cret@cache:6379/0", "redis://:***@cache:6379/0"),
])
def test_secrets_are_redacted_and_the_line_stays_valid_json(secret, kept):
    line = redact(json.dumps({"text": f"before {secret} after", "headers": {"x-api-key": "k-123456"}}))
    data = json.loads(line)
    assert kept in data["text"] and data["headers"]["x-api-key"] == "***"


def test_credential_variables_are_redacted_wherever_they_appear():
    literals = secret_literals({"ANTHROPIC_API_KEY": "plain-key-without-prefix", "CLAUDE_CODE_OAUTH_TOKEN": "x"})
    assert literals == ("plain-key-without-prefix",)
    assert redact('{"a": "key=plain-key-without-prefix"}', literals) == '{"a": "key=***"}'


_PIECES = ["sk-ant-", "api03", "Authorization", "AUTHORIZATION", "x-api-key", "X-Api-Key", "bearer ", "://",
           "https", "user", ":", "@", "/", "=", " ", '"', "\\", "a", "Z", "0", "-", "_", "é", "\u2028",
           "plain-key-without-prefix"]


@given(st.lists(st.sampled_from(_PIECES), max_size=40).map("".join))
def test_a_line_the_quick_check_lets_through_holds_nothing_to_redact(line):
    literals = ("plain-key-without-prefix",)
    assert may_hold_secret(line, literals) or redact(line, literals) == line


_SECRET_TEXTS = ["sk-ant-api03-AbCdEf0123456789_-xyz", "password=hunter2", "Authorization: Bearer abc.def",
                 "-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA7Zq3\n-----END RSA PRIVATE KEY-----",
                 "https://admin:pw@nas/", "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", "token:", "key=\\", "\n"]


@given(st.lists(st.dictionaries(st.sampled_from(["text", "password", "token", "content"]),
                                st.lists(st.sampled_from([*_SECRET_TEXTS, *_PIECES]), max_size=6).map("".join)),
                min_size=1, max_size=6))
def test_a_batch_redacted_at_once_is_still_one_json_object_per_line(frames):
    """The writer redacts a flush's lines in one call: no replacement may reach from one line into the next."""
    batch = "\n".join(json.dumps(frame) for frame in frames) + "\n"
    lines = redact(batch).split("\n")
    assert lines[-1] == "" and [json.loads(line).keys() for line in lines[:-1]] == [frame.keys() for frame in frames]


def test_a_transcript_of_ordinary_frames_is_written_without_running_a_single_pattern():
    """What keeps redaction cheap on the hot path: token counts, UUIDs, message and tool ids, paths and
    URLs without a user trigger nothing, so the writer's pre-check lets the batch through as it is.
    The frames are bench/runner_overhead.py's: 66 rounds of text, a tool call and 20 log lines."""
    steps: list = []
    for index in range(66):
        steps.append(f"Checking service {index}: the proxy answered 200 in 41 ms at https://svc-{index}.lan/health.")
        steps.append(bash(f"docker logs --tail 20 service-{index}", "\n".join(
            f"2026-03-14T03:00:{second:02d}Z INFO request served in 12 ms" for second in range(20))))
    batch = "\n".join(json.dumps(frame) for frame in script_to_stream(steps)) + "\n"
    assert len(batch) > 200_000 and not may_hold_secret(batch)
