"""Secrets out of everything claudeops keeps or shows: one redaction function for every path.

claudeops runs with the host's access, and what an agent reads (a config file, an environment
dump, a ``docker inspect``) can carry credentials into its text. Whatever is stored (memories,
events, cooldowns, session rows, transcripts, handoffs), printed (``--json``, logs) or served
(the dashboard and its API) passes through :func:`redact_secrets` first, so no secret is
stored, shown, logged or injected into a later prompt.

What is recognised (each a *kind*, named in the warning a redaction records, never the value):

=====================  =====================================================================
kind                   what
=====================  =====================================================================
``anthropic-key``      ``sk-ant-…`` API keys and OAuth tokens
``openai-key``         ``sk-…``, ``sk-proj-…`` keys
``github-token``       ``ghp_``/``gho_``/``ghu_``/``ghs_``/``ghr_`` tokens, ``github_pat_…``
``gitlab-token``       ``glpat-…`` and the other ``gl…-`` token prefixes
``slack-token``        ``xoxb-``/``xoxp-``/``xoxa-``/``xoxr-``/``xoxs-`` tokens, webhook URLs
``stripe-key``         ``sk_live_``/``sk_test_``/``rk_…`` keys, ``whsec_`` signing secrets
``aws-access-key``     ``AKIA…``/``ASIA…`` access key ids
``jwt``                three base64url parts starting ``eyJ``
``private-key``        PEM ``-----BEGIN … PRIVATE KEY-----`` blocks (to the end of the text if cut)
``url-password``       ``scheme://user:password@host`` in any URL
``authorization``      ``Authorization:``/``Proxy-Authorization:``/``X-Api-Key:`` values
``assignment``         ``password=``, ``token:``, ``secret=``, ``api_key=``, ``aws_secret_access_key=``
                       and the like (quoted or not, in text, shell, JSON or YAML)
``high-entropy``       any other token of at least :data:`MIN_ENTROPY_LENGTH` characters from
                       the base64 alphabet that mixes upper and lower case, has a Shannon
                       entropy of at least :data:`MIN_ENTROPY_BITS` bits per character and
                       no words in it (see :func:`looks_random`)
``credential``         the literal value of a credential variable of the runner's environment
=====================  =====================================================================

Not secrets: UUIDs, hex digests (git commits, image and container ids) and the ids the SDK and
this project write (``toolu_…``, ``msg_…``, ``req_…``) are left alone; they are lower-entropy or
single-case, or named by their prefix. A redaction keeps a recognisable prefix where there is
one (``sk-ant-***``, ``ghp_***``, ``admin:***@host``), so the operator still sees what was there.

Every replacement stops at a quote or a backslash, so redacting a JSON line never breaks the
JSON it sits in. :func:`may_hold_secret` is a cheap pre-check (substring scans) for hot paths:
when it says no, :func:`redact_secrets` would change nothing.

This is a guard against accidents — an agent quoting a config file, a tool printing a token —
not a data-loss-prevention system: a secret written in prose ("the password is hunter2") or
split across lines is not recognised. docs/runner.md says what to do about that.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass

REDACTED = "***"
MIN_ENTROPY_LENGTH = 32
"""Shortest token judged by its entropy: shorter random strings are too often ordinary words and ids."""
MIN_ENTROPY_BITS = 4.0
"""Bits per character from which a long token may be a secret: random base64 measures 4.1–4.9 at 32
characters (median 4.56) and more when longer, but so do some long camelCase identifiers, which
:data:`MAX_MEAN_CHUNK` tells apart."""
MAX_MEAN_CHUNK = 3.0
"""A token split into case runs (``get`` ``Service`` ``Health`` ``2024``) has short runs when random
(mean 1.5–2.7 characters at 32 characters, over 5,000 samples) and words when written by a person
(``ThisIsAVeryLongFunctionName2023``: 4.4). Measured together with the entropy floor, 99.8 % of
random 32-character base64 tokens and every random token of 64 are caught."""
MIN_LITERAL_SECRET = 8
"""Shortest credential-variable value redacted verbatim wherever it appears (shorter ones are words)."""

_STOP = r"""[^\s"'\\]"""  # what a value may contain: it ends at a blank, a quote or a backslash
_ID_PREFIXES = ("toolu_", "srvtoolu_", "msg_", "req_", "call_", "chatcmpl-", "file_", "batch_", "sha256:")
"""Ids the SDK, the CLI and container tools print, which look random and are not secrets."""


@dataclass(frozen=True)
class Redaction:
    """The redacted text and the kinds of secret found in it (sorted, each once)."""

    text: str
    kinds: tuple[str, ...] = ()

    @property
    def changed(self) -> bool:
        return bool(self.kinds)


@dataclass(frozen=True)
class _Rule:
    kind: str
    needles: tuple[str, ...]
    """Lower-case substrings one of which the text must contain for the pattern to be tried."""
    pattern: re.Pattern[str]
    replacement: str | Callable[[re.Match[str]], str]


def _keep_prefix(match: re.Match[str]) -> str:
    return match.group("prefix") + REDACTED


_ASSIGNED_NAMES = (
    r"password|passwd|pwd|pass|passphrase|secret|client_secret|secret_key|token|api_?key|apikey|api-key|"
    r"access_?token|refresh_?token|auth_?token|access_key|private_key|aws_secret_access_key|"
    r"aws_session_token|session_token|credentials?")

_RULES: tuple[_Rule, ...] = (
    # the body: base64, header lines (Proc-Type: 4,ENCRYPTED) and newlines, raw or JSON-escaped; the END
    # line is optional, so a key cut off mid-way is removed too
    _Rule("private-key", ("-----begin",), re.compile(
        r"-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----(?:(?!-----END)(?:[A-Za-z0-9+/=:,.\- \t\r\n]|\\[nrt]))*"
        r"(?:-----END (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----)?"), "-----BEGIN PRIVATE KEY-----" + REDACTED),
    _Rule("anthropic-key", ("sk-ant-",), re.compile(r"(?P<prefix>sk-ant-)[A-Za-z0-9_\-]{4,}"), _keep_prefix),
    _Rule("openai-key", ("sk-",), re.compile(
        r"(?<![A-Za-z0-9_\-])(?P<prefix>sk-(?:proj-|svcacct-|admin-)?)(?!ant-)[A-Za-z0-9_\-]{20,}"), _keep_prefix),
    _Rule("github-token", ("ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_"), re.compile(
        r"(?P<prefix>gh[pousr]_|github_pat_)[A-Za-z0-9_]{20,}"), _keep_prefix),
    _Rule("gitlab-token", ("glpat-", "gldt-", "glrt-", "glptt-", "glsoat-", "glcbt-", "glimt-", "glagent-"),
          re.compile(r"(?P<prefix>gl(?:pat|dt|rt|ptt|soat|cbt|imt|agent)-)[A-Za-z0-9_\-]{16,}"), _keep_prefix),
    _Rule("slack-token", ("xox",), re.compile(r"(?P<prefix>xox[abposr]-)[A-Za-z0-9\-]{10,}"), _keep_prefix),
    _Rule("slack-token", ("hooks.slack.com",), re.compile(
        r"(?P<prefix>hooks\.slack\.com/services/)[A-Za-z0-9/]+"), _keep_prefix),
    _Rule("stripe-key", ("_live_", "_test_", "whsec_"), re.compile(
        r"(?P<prefix>(?:sk|rk)_(?:live|test)_|whsec_)[A-Za-z0-9]{16,}"), _keep_prefix),
    _Rule("aws-access-key", ("akia", "asia"), re.compile(
        r"(?<![A-Z0-9])(?P<prefix>AKIA|ASIA)[A-Z0-9]{16}(?![A-Z0-9])"), _keep_prefix),
    _Rule("jwt", ("eyj",), re.compile(
        r"(?P<prefix>eyJ)[A-Za-z0-9_\-]{6,}\.eyJ[A-Za-z0-9_\-]{6,}\.[A-Za-z0-9_\-]{6,}"), _keep_prefix),
    _Rule("url-password", ("://",), re.compile(
        r"(?P<prefix>[A-Za-z][A-Za-z0-9+.\-]*://[^\s:/@\"'\\]*:)[^\s@/\"'\\]+(?=@)"), _keep_prefix),
    _Rule("authorization", ("authorization", "x-api-key"), re.compile(
        r"(?P<prefix>(?:authorization|proxy-authorization|x-api-key)\\?[\"']?\s*[:=]\s*\\?[\"']?\s*"
        r"(?:(?:bearer|basic|token|digest)\s+)?)" + _STOP + r"+", re.IGNORECASE), _keep_prefix),
    _Rule("assignment", ("pass", "pwd", "secret", "token", "key", "credential"), re.compile(
        r"(?P<prefix>(?<![A-Za-z0-9])(?:" + _ASSIGNED_NAMES + r")(?![A-Za-z0-9])\\?[\"']?\s*[:=]\s*\\?[\"']?)"
        r"(?!\*\*\*)[^\s\"'\\,;}&)]{3,}", re.IGNORECASE), _keep_prefix),
)

_NEEDLES = frozenset(needle for rule in _RULES for needle in rule.needles)
"""Every rule's needles: one substring scan each tells which rules a text can need at all."""
_TOKEN = re.compile(rf"[A-Za-z0-9+/=_\-]{{{MIN_ENTROPY_LENGTH},}}")
_UUID = re.compile(r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}")


def shannon_bits(token: str) -> float:
    """Bits of entropy per character of ``token``, from its own character frequencies."""
    length = len(token)
    return -sum(count / length * math.log2(count / length) for count in Counter(token).values())


_CASE_RUNS = re.compile(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])|\d+|.")


def mean_chunk(token: str) -> float:
    """The mean length of ``token``'s case runs: words are long runs, random text short ones."""
    return len(token) / len(_CASE_RUNS.findall(token))


def looks_random(token: str) -> bool:
    """Whether a long token is likely a secret: mixed case, high entropy and no words in it.

    Single-case tokens (hex digests, container ids, base32), identifiers made of words, and the
    ids named in :data:`_ID_PREFIXES` are not; a UUID inside the token is removed first.
    """
    if token.startswith(_ID_PREFIXES) or len(_UUID.sub("", token)) < MIN_ENTROPY_LENGTH:
        return False
    if not (any(c.isupper() for c in token) and any(c.islower() for c in token)):
        return False
    return shannon_bits(token) >= MIN_ENTROPY_BITS and mean_chunk(token) < MAX_MEAN_CHUNK


def _high_entropy(text: str, kinds: set[str]) -> str:
    def replace(match: re.Match[str]) -> str:
        token = match.group(0)
        if REDACTED in token or not looks_random(token):
            return token
        kinds.add("high-entropy")
        return REDACTED

    return _TOKEN.sub(replace, text)


def redact_secrets(text: str, literals: Iterable[str] = ()) -> Redaction:
    """``text`` with every secret :mod:`claudeops.redaction` recognises replaced, and the kinds found.

    ``literals`` are values to remove verbatim (the runner's credential variables, from
    :func:`claudeops.runner.credentials.secret_literals`).
    """
    kinds: set[str] = set()
    for literal in literals:
        if literal and literal in text:
            text = text.replace(literal, REDACTED)
            kinds.add("credential")
    lowered = text.lower()
    present = {needle for needle in _NEEDLES if needle in lowered}
    for rule in _RULES:
        if not present.isdisjoint(rule.needles):
            text, count = rule.pattern.subn(rule.replacement, text)
            if count:
                kinds.add(rule.kind)
    if len(text) >= MIN_ENTROPY_LENGTH:
        text = _high_entropy(text, kinds)
    return Redaction(text, tuple(sorted(kinds)))


def redact(text: str, literals: Iterable[str] = ()) -> str:
    """Just the redacted text of :func:`redact_secrets`."""
    return redact_secrets(text, literals).text


def may_hold_secret(text: str, literals: Iterable[str] = ()) -> bool:
    """Whether :func:`redact_secrets` could change ``text``; ``False`` means it certainly would not.

    One scan for a rule's needle and one for a long token: cheap enough for every line of a transcript.
    """
    if any(literal and literal in text for literal in literals):
        return True
    lowered = text.lower()
    return any(needle in lowered for needle in _NEEDLES) or (
        len(text) >= MIN_ENTROPY_LENGTH and _TOKEN.search(text) is not None)
