"""The one redaction function: every kind of secret it promises to catch, and what it must leave.

Attacks first: each secret below is one a model could meet in a config file, an environment
dump or a tool's output, and copy into a marker, a final report or a handoff.
"""

from __future__ import annotations

import json
import random
import string

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from claudeops.redaction import REDACTED, Redaction, looks_random, may_hold_secret, redact, redact_secrets

PEM = ("-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtz\n"
       "c2gtZWQyNTUxOQAAACDzW3wX9Vp0vXoYb3Kq\n-----END OPENSSH PRIVATE KEY-----")
SECRETS = [
    # (kind, text with the secret, the secret value that must be gone)
    ("anthropic-key", "ANTHROPIC_API_KEY=sk-ant-api03-AbCdEf0123456789_-xyzXYZ", "AbCdEf0123456789_-xyzXYZ"),
    ("openai-key", "using key sk-proj-Ab12Cd34Ef56Gh78Ij90Kl12Mn34 for tests", "Ab12Cd34Ef56Gh78Ij90Kl12Mn34"),
    ("github-token", "git clone https://ghp_16C7e42F292c6912E7710c838347Ae178B4a@github.com/o/r",
     "16C7e42F292c6912E7710c838347Ae178B4a"),
    ("github-token", "GH_TOKEN github_pat_11ABCDEFG0abcdefghijkl_mnopqrstuvwxyz0123456789ABCDEF",
     "11ABCDEFG0abcdefghijkl_mnopqrstuvwxyz0123456789ABCDEF"),
    ("gitlab-token", "registry login with glpat-xR4nd0mT0k3nV4lu3zZ", "xR4nd0mT0k3nV4lu3zZ"),
    ("slack-token", "bot token xoxb-2048975347-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx",
     "2048975347-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx"),
    ("slack-token", "webhook https://hooks.slack.com/services/T0000/B0000/XXXXXXXXXXXXXXXXXXXXXXXX",
     "T0000/B0000/XXXXXXXXXXXXXXXXXXXXXXXX"),
    ("stripe-key", "STRIPE=sk_live_4eC39HqLyjWDarjtT1zdp7dc", "4eC39HqLyjWDarjtT1zdp7dc"),
    ("aws-access-key", "aws_access_key_id = AKIAIOSFODNN7EXAMPLE", "IOSFODNN7EXAMPLE"),
    ("assignment", "aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
     "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"),
    ("high-entropy", "the secret key is wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY, rotate it",
     "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"),
    ("jwt", "cookie eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0."
            "dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U",
     "dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U"),
    ("private-key", f"found in /root/.ssh/id_ed25519:\n{PEM}\n", "b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQ"),
    ("private-key", "-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA7Zq3 (cut off)", "MIIEowIBAAKCAQEA7Zq3"),
    ("url-password", "DATABASE_URL=postgresql://claudeops:p4ssw0rd@db:5432/x", "p4ssw0rd"),
    ("url-password", "redis://:s3cret@cache:6379/0 answers PONG", "s3cret"),
    ("assignment", "config has password=hunter2 in it", "hunter2"),
    ("assignment", 'env: {"DB_PASSWORD": "Tr0ub4dor&3"}', "Tr0ub4dor"),
    ("assignment", "smtp:\n  password: correct-horse-battery\n", "correct-horse-battery"),
    ("assignment", "curl 'https://api.example/v1?token=abcd1234efgh&x=1'", "abcd1234efgh"),
    ("assignment", "export API_KEY='k3y-v4lu3-123'", "k3y-v4lu3-123"),
    ("authorization", "curl -H 'Authorization: Bearer opaque-token-value' https://x", "opaque-token-value"),
    ("authorization", "curl -H 'Authorization: Basic YWRtaW46aHVudGVyMg==' nas", "YWRtaW46aHVudGVyMg=="),
    ("authorization", "X-Api-Key: 0123456789abcdef", "0123456789abcdef"),
]


@pytest.mark.parametrize(("kind", "text", "secret"), SECRETS, ids=[f"{kind}-{i}" for i, (kind, _, _) in
                                                                  enumerate(SECRETS)])
def test_every_kind_of_secret_is_removed_and_named(kind: str, text: str, secret: str) -> None:
    result = redact_secrets(text)
    assert secret not in result.text
    assert kind in result.kinds
    assert REDACTED in result.text
    assert may_hold_secret(text)
    assert redact_secrets(result.text) == Redaction(result.text)  # redacting twice changes and reports nothing


def test_a_redaction_keeps_what_kind_of_secret_it_was() -> None:
    text = "sk-ant-api03-abcdef012345 ghp_16C7e42F292c6912E7710c838347Ae178B4a admin:pw@ in https://admin:pw@nas/"
    assert redact(text) == "sk-ant-*** ghp_*** admin:pw@ in https://admin:***@nas/"


def test_the_credential_variables_values_are_removed_verbatim() -> None:
    result = redact_secrets("key is plain-key-without-prefix here", ["plain-key-without-prefix"])
    assert result.text == "key is *** here" and result.kinds == ("credential",)


NOT_SECRETS = [
    "session 550e8400-e29b-41d4-a716-446655440000 started",
    "commit 4b825dc642cb6eb9a060e54bf8d69288fbee4904 on main",
    "image sha256:4b825dc642cb6eb9a060e54bf8d69288fbee4904c3e4c7b6b5b6e5e5e5e5e5e5",
    "container 3f4a5b6c7d8e9f0a1b2c3d4e5f6a7b8c9d0e1f2a3b4c5d6e7f8a9b0c1d2e3f4a",
    "tool toolu_01A09q90qw90lq917835lq9aBcDeFgHiJ and msg_01XFDUDYJgAACzvnptvVoYEL",
    "/usr/lib/python3.11/site-packages/claude_agent_sdk/_bundled/claude",
    "/var/lib/docker/overlay2/3f4a5b6c7d8e9f0a1b2c3d4e5f6a7b8c9d0e1f2a/merged",
    "ThisIsAVeryLongFunctionNameForHandler2023Version is called",
    "getServiceHealthStatusForJellyfinContainerInstance",
    "model claude-haiku-4-5-20251001 at 2026-01-01T00:00:00Z from 192.168.1.10:8096",
    "jellyfin takes 60s to start after a restart; check /health before declaring it down",
    "the password prompt appears; token expiry is 30 days",  # words, no value assigned
    "no Claude credentials: set ANTHROPIC_API_KEY in the runner's environment",  # a word about a secret
    "login failed, password: incorrect; token: expired",
    "disk-usage-of-the-whole-volume-is-fine and task-0123456789abcdefghij",  # "sk-" inside words
    '{"type": "result", "usage": {"input_tokens": 1200, "output_tokens": 60}, "api_key_source": "none"}',
    "docker compose -p media ps --format '{{.Names}}'",
]


@pytest.mark.parametrize("text", NOT_SECRETS)
def test_ids_digests_paths_and_prose_are_left_alone(text: str) -> None:
    assert redact_secrets(text) == redact_secrets(text).__class__(text, ())


def test_random_tokens_are_caught_by_their_entropy() -> None:
    rng = random.Random(7)
    alphabet = string.ascii_letters + string.digits + "+/"
    for length in (40, 64):
        tokens = ["".join(rng.choice(alphabet) for _ in range(length)) for _ in range(500)]
        assert all(looks_random(token) for token in tokens if any(c.isupper() for c in token)
                   and any(c.islower() for c in token))


@settings(max_examples=200, deadline=None)
@given(st.dictionaries(st.sampled_from(["password", "token", "note", "url", "Authorization"]),
                       st.sampled_from([*(text for _, text, _ in SECRETS), *NOT_SECRETS, 'a "quoted" \\ value'])))
def test_redacting_a_json_line_keeps_it_json(document: dict[str, str]) -> None:
    line = json.dumps(document)
    assert json.loads(redact(line)).keys() == document.keys()


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=300))
def test_redaction_never_raises_and_may_hold_secret_never_misses(text: str) -> None:
    result = redact_secrets(text)
    if result.changed:
        assert may_hold_secret(text)
    assert redact_secrets(result.text) == Redaction(result.text)  # idempotent, and nothing found the second time


AWS_SECRET = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"


@pytest.mark.parametrize("value", ["Authorization:", "Authorization:\x1f", "token:]]]", f"é{AWS_SECRET}",
                                   f"\\é{AWS_SECRET}", f"\\\\{AWS_SECRET}", f"line\n{AWS_SECRET}", f"\x1f{AWS_SECRET}"])
@pytest.mark.parametrize("ensure_ascii", [True, False])
def test_a_json_escape_stays_whole_and_json_punctuation_is_never_taken_for_a_value(value: str,
                                                                                  ensure_ascii: bool) -> None:
    """Found by fuzzing: ``\\u00e9`` before a token, a string ending in ``Authorization:``."""
    line = json.dumps({"a": value, "b": [1]}, ensure_ascii=ensure_ascii)
    decoded = json.loads(redact(line))
    assert decoded["b"] == [1] and AWS_SECRET not in decoded["a"]
    if AWS_SECRET in value:
        assert decoded["a"] == value.replace(AWS_SECRET, REDACTED)


def test_a_long_token_at_the_very_start_is_judged_too() -> None:
    assert redact(AWS_SECRET) == REDACTED and redact(f"{AWS_SECRET} and more") == f"{REDACTED} and more"
