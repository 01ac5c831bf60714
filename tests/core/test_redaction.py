"""The one redaction function: every kind of secret it promises to catch, and what it must leave.

Attacks first: each secret below is one a model could meet in a config file, an environment
dump or a tool's output, and copy into a marker, a final report or a handoff.
"""

from __future__ import annotations

import json
import random
import re
import string

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from claudeops.redaction import (
    _RULES,
    BATCH_TEXTS,
    REDACTED,
    Redaction,
    looks_random,
    may_hold_secret,
    redact,
    redact_secrets,
    redact_texts,
    use_secret_settings,
)

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


# Audit fixes: forms the first redactor missed. A quoted value is secret up to its closing quote, a
# name with letters before PASSWORD/TOKEN/SECRET/APIKEY (PGPASSWORD) is a credential variable, and a
# credential given as a command-line option is one too.
MISSED_FORMS = [
    ('admin password="correct horse battery staple" ok', "horse battery staple", 'password="***" ok'),
    ("PASSWORD='Tr0ub4dor &3' then", "&3", "PASSWORD='***' then"),
    ('{"DB_PASSWORD": "Tr0ub4dor &3 more"}', "&3 more", '{"DB_PASSWORD": "***"}'),
    ("connect with PGPASSWORD=Hunter2Secret psql", "Hunter2Secret", "PGPASSWORD=*** psql"),
    ("MYSQLPWD=Hunter2Secret x", "Hunter2Secret", "MYSQLPWD=*** x"),
    # the twins of the shell's PWD=/dir, which is left alone: a *_PWD whose value starts with a slash
    ("MYSQL_PWD=/s3cr3tValue x", "s3cr3tValue", "MYSQL_PWD=*** x"),
    ("OLDPWD=s3cr3tValue x", "s3cr3tValue", "OLDPWD=*** x"),
    ("db.pwd=/s3cr3tValue x", "s3cr3tValue", "db.pwd=*** x"),
    ("my-pwd=/s3cr3tValue x", "s3cr3tValue", "my-pwd=*** x"),
    ("pwd: /s3cr3tValue x", "s3cr3tValue", "pwd: *** x"),
    ("GITEATOKEN=Hunter2Secret x", "Hunter2Secret", "GITEATOKEN=*** x"),
    ("JWTSECRET: Hunter2Secret x", "Hunter2Secret", "JWTSECRET: *** x"),
    ("OPENAIAPIKEY=Hunter2Secret x", "Hunter2Secret", "OPENAIAPIKEY=*** x"),
    ("restic --password hunter2 snapshots", "hunter2", "--password *** snapshots"),
    ("restic --password=hunter2 snapshots", "hunter2", "--password=*** snapshots"),
    ("vault login --token 'abc def ghi' now", "abc def ghi", "--token '***' now"),
    ("Cookie: sessionid=abc123def; csrftoken=xyz789", "abc123def", "Cookie: ***"),
    ("< Set-Cookie: grafana_session=0a1b2c3d4e; Path=/; HttpOnly", "0a1b2c3d4e", "Set-Cookie: ***"),
    ("curl -u admin:hunter2 http://nas/api", "hunter2", "-u admin:*** http"),
    ("curl -s --user 'admin:hunter two' http://nas/api", "hunter two", "--user 'admin:***' http"),
    ("curl -fsS -uadmin:hunter2 http://nas/api", "hunter2", "-uadmin:*** http"),
    ("mysql -uroot -pMyS3cretPw -e 'select 1'", "MyS3cretPw", "-pMyS3cretPw"),
    ("docker exec db mariadb -uroot -p'My S3cret' -e 'select 1'", "My S3cret", "-p'***'"),
    ("mysqldump --password=MyS3cretPw db", "MyS3cretPw", "--password=***"),
    ("sshpass -p hunter2 ssh nas uptime", "hunter2", "sshpass -p *** ssh"),
    ("sshpass -phunter2 ssh nas uptime", "hunter2", "sshpass -p*** ssh"),
]


@pytest.mark.parametrize(("text", "secret", "shown"), MISSED_FORMS)
def test_quoted_prefixed_and_option_forms_are_redacted_whole(text: str, secret: str, shown: str) -> None:
    result = redact_secrets(text)
    assert secret not in result.text
    assert shown.replace("-pMyS3cretPw", "-p***") in result.text
    assert may_hold_secret(text)
    assert redact_secrets(result.text) == Redaction(result.text)


def test_the_audit_memory_keeps_none_of_its_three_secrets() -> None:
    text = ('connect with PGPASSWORD=Hunter2Secret psql -h db, admin password="correct horse battery staple", '
            "mysql -uroot -pMyS3cretPw")
    redacted = redact(text)
    for secret in ("Hunter2Secret", "horse", "battery", "staple", "MyS3cretPw"):
        assert secret not in redacted


OPTION_LOOKALIKES = [
    "mkdir -p /srv/data && docker compose -p media ps",  # -p is not a password outside mysql/sshpass
    "docker run -p8080:80 -u 1000:1000 nginx",  # -u user:group is not curl's -u user:password
    "ssh -p 2222 nas uptime; ps -u root",
    "cd /srv && echo PWD=/srv OLDPWD=/root",  # the shell's directories, not passwords
    "use --password to set it, or --token when scripting",
    "the cookie: jar is empty",
    '{"max_tokens": 4096, "cache_read_input_tokens": 12, "next_page_token_count": 3}',
]


@pytest.mark.parametrize("text", OPTION_LOOKALIKES)
def test_options_and_names_that_only_look_like_credentials_are_left_alone(text: str) -> None:
    assert redact_secrets(text) == Redaction(text)


ADVERSARIAL_LINES = [
    "curl " * 20_000,
    "/usr/bin/curl -x " * 6_000,
    "mysql -u " * 11_000,
    "sshpass -x " * 9_000,
    "a_" * 50_000 + "password=",
    "apassword" * 11_000 + "=",
    'password="' * 10_000,
    "password='" * 10_000,
    "Cookie: a=" * 10_000,
    " -u a:" * 16_000,
    "--password " * 9_000,
    "x" * 99_990 + "PASSWORD=",
]


@pytest.mark.parametrize("line", ADVERSARIAL_LINES, ids=range(len(ADVERSARIAL_LINES)))
def test_a_100k_adversarial_line_is_redacted_in_linear_time(line: str) -> None:
    """The redactor runs on every transcript line: a pattern that backtracks would stall a run."""
    import time
    started = time.perf_counter()
    redact_secrets(line)
    assert time.perf_counter() - started < 1.0


# Many texts at once (an import's): redact_texts must give each text exactly what redact_secrets gives it.
CORPUS = [*(text for _, text, _ in SECRETS), *(text for text, _, _ in MISSED_FORMS), *NOT_SECRETS,
          *OPTION_LOOKALIKES, AWS_SECRET, f"\\{AWS_SECRET}", f"\\\\{AWS_SECRET}", "Ke\u212ay: nope",
          "\u017fk-ant-api03-AbCdEf0123456789", "PASSWORD\u212a=x", "token:", "=hunter2", "password", "=x"]
"""Every attack and every look-alike above, and halves of secrets a batch puts next to each other."""
ORDINARY = [f"jellyfin takes {seconds}s to start after a restart; check /health first" for seconds in range(40)]


@pytest.mark.parametrize("text", CORPUS, ids=range(len(CORPUS)))
def test_a_text_among_many_is_redacted_exactly_as_on_its_own(text: str) -> None:
    for position in (0, 1, BATCH_TEXTS - 1, BATCH_TEXTS, len(ORDINARY) - 1):  # first, last, across batches
        texts = [*ORDINARY[:position], text, *ORDINARY[position:]]
        assert redact_texts(texts) == [redact_secrets(each) for each in texts]


def test_secrets_split_over_neighbouring_texts_are_not_joined_into_one() -> None:
    """A batch is joined for its pre-check only: what redacts a text is the text alone."""
    texts = ["config has password", "=hunter2 in it", "sk-ant-", "api03-AbCdEf0123456789", AWS_SECRET[:20],
             AWS_SECRET[20:], "curl -u admin", ":hunter2 http://nas"]
    assert redact_texts(texts) == [redact_secrets(text) for text in texts] == [Redaction(text) for text in texts]


def test_credential_values_and_secret_settings_are_removed_from_every_text() -> None:
    texts = [*ORDINARY, "key is plain-key-without-prefix here", *ORDINARY]
    assert redact_texts(texts, ["plain-key-without-prefix"])[len(ORDINARY)] == Redaction("key is *** here",
                                                                                         ("credential",))
    use_secret_settings(["https://hc-ping.com/0f3c7a2e-secret-ping-path"])
    try:
        texts = [*ORDINARY, "pinged https://hc-ping.com/0f3c7a2e-secret-ping-path ok"]
        assert redact_texts(texts) == [redact_secrets(text) for text in texts]
        assert "0f3c7a2e" not in redact_texts(texts)[-1].text
    finally:
        use_secret_settings([])


def _assertions(parsed: object) -> set[str]:
    """The anchors (``^``, ``$``, ``\\b``…) and look-arounds anywhere in a parsed regex."""
    found: set[str] = set()
    for item in parsed if isinstance(parsed, list | tuple | re._parser.SubPattern) else ():  # type: ignore[attr-defined]
        if isinstance(item, tuple) and item and str(item[0]) in ("AT", "ASSERT", "ASSERT_NOT"):
            found.add(str(item[0]))
        found |= _assertions(item)
    return found


def test_the_batch_pre_check_rests_on_triggers_without_anchors_or_look_arounds() -> None:
    """What redact_texts proves rests on this: a trigger found in a text is found in a longer text holding it."""
    assert _assertions(re._parser.parse(r"(?<!x)a\b")) == {"ASSERT_NOT", "AT"}  # type: ignore[attr-defined]
    for rule in _RULES:
        for trigger in rule.triggers:
            assert not _assertions(re._parser.parse(trigger)), (rule.kind, trigger)  # type: ignore[attr-defined]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.one_of(st.text(max_size=80), st.sampled_from(CORPUS)), max_size=3 * BATCH_TEXTS))
def test_redact_texts_is_redact_secrets_of_each_text(texts: list[str]) -> None:
    assert redact_texts(texts) == [redact_secrets(text) for text in texts]
    assert "\n".join(texts).casefold() == "\n".join(text.casefold() for text in texts)  # folding is per character
