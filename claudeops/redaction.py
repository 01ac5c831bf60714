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
``cookie``             ``Cookie:``/``Set-Cookie:`` header values, the whole line
``assignment``         ``password=``, ``token:``, ``secret=``, ``api_key=``, ``aws_secret_access_key=``
                       and the like (quoted or not, in text, shell, JSON or YAML; a quoted value up
                       to its closing quote; ``PGPASSWORD=`` and other names ending in a credential word)
``option``             ``--password X`` and other credential options, ``curl -u user:password``,
                       ``mysql -pPASSWORD``, ``sshpass -p PASSWORD``
``high-entropy``       any other token of at least :data:`MIN_ENTROPY_LENGTH` characters from
                       the base64 alphabet that mixes upper and lower case, has a Shannon
                       entropy of at least :data:`MIN_ENTROPY_BITS` bits per character and
                       no words in it (see :func:`looks_random`)
``credential``         the literal value of a credential variable of the runner's environment, or
                       of a secret setting (``secret=True``: ``notify.urls``, ``health.ping_url``,
                       ``web.token``, ``database_url``…) and its secret parts (see
                       :func:`secret_setting_parts`)
=====================  =====================================================================

Not secrets: UUIDs, hex digests (git commits, image and container ids) and the ids the SDK and
this project write (``toolu_…``, ``msg_…``, ``req_…``) are left alone; they are lower-entropy or
single-case, or named by their prefix. A redaction keeps a recognisable prefix where there is
one (``sk-ant-***``, ``ghp_***``, ``admin:***@host``), so the operator still sees what was there.

Every replacement stops at a quote or a backslash, or takes a JSON string's escapes whole, so
redacting a JSON line never breaks the JSON it sits in. Every pattern scans a line in linear time
(possessive runs, no nested choice that can retry): it runs on every line of every transcript.
:func:`may_hold_secret` is a cheap pre-check for hot paths (a short trigger regex per rule, the
entropy test of each long token): when it says no, :func:`redact_secrets` would change nothing.
A rule's pattern runs only when its trigger is in the text, so a transcript of ordinary frames
(``"input_tokens": 12``, UUIDs, URLs without a password) costs a few scans, not eighteen patterns.
:func:`redact_texts` redacts many short texts (an import's) with one pre-check per batch of them.

This is a guard against accidents — an agent quoting a config file, a tool printing a token —
not a data-loss-prevention system: a secret written in prose ("the password is hunter2") or
split across lines is not recognised. docs/runner.md says what to do about that.
"""

from __future__ import annotations

import math
import os
import re
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from urllib.parse import parse_qsl, unquote

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
CREDENTIAL_VARIABLES = ("ANTHROPIC_API_KEY", "CLAUDE_CODE_OAUTH_TOKEN", "ANTHROPIC_AUTH_TOKEN")
"""The variables that authenticate the Claude Code CLI: their values are the ``credential`` kind."""

_STOP = r"""[^\s"'\\,;{}\[\]]"""
"""What a header value may contain: it ends at a blank, a quote, a backslash or JSON punctuation, so a
string that merely ends in ``Authorization:`` never has the JSON after it taken for its value."""
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
    triggers: tuple[str, ...]
    """Regexes over the case-folded text, one of which every match of ``pattern`` implies: the
    pattern is run only when one is found. Each starts with a literal, which the regex engine
    looks for as fast as ``str.find``; none has a look-behind, because folding can turn the
    character before a match into a letter (the Kelvin sign into ``k``)."""
    pattern: re.Pattern[str]
    replacement: str | Callable[[re.Match[str]], str]


def _keep_prefix(match: re.Match[str]) -> str:
    return match.group("prefix") + REDACTED


_ASSIGNED_NAMES = (
    r"pass|passphrase|client_secret|secret_key|api-key|access_?token|refresh_?token|auth_?token|access_key|"
    r"private_key|aws_secret_access_key|aws_session_token|session_token|credentials?")
_PREFIXABLE_NAMES = r"password|passwd|pwd|token|secret|api_?key"
"""Names that are credentials with any letters in front (``PGPASSWORD``, ``MYSQLPWD``, ``GITEATOKEN``,
``JWTSECRET``, ``OPENAIAPIKEY``); the other names count only as whole words."""
_SHELL_DIRECTORY = r"(?!(?<![_.\-])(?:old)?pwd=/)"
"""``PWD=/srv`` and ``OLDPWD=/root`` in an environment dump are the shell's directories, not passwords;
``MYSQL_PWD=/…``, ``db.pwd=/…`` and YAML's ``pwd: /…`` are passwords that start with a slash."""
_NAME = (r"(?<![A-Za-z0-9])" + _SHELL_DIRECTORY + r"(?:[A-Za-z0-9]*(?:" + _PREFIXABLE_NAMES + r")|"
         + _ASSIGNED_NAMES + r")(?![A-Za-z0-9])")
_NOT_VALUES = (r"(?:set|unset|none|null|nil|missing|required|empty|invalid|incorrect|wrong|expired|changed|reset|"
               r"rotated|redacted|hidden|true|false|yes|not|was|were|are|must|from)(?![^\s\"'\\,;{}\[\]&)])")
"""Words that follow "password:" in prose or a message ("credentials: set ANTHROPIC_API_KEY", "token:
expired") and say something about a secret instead of being one: such a value is left alone."""
_NOT_OPTION_VALUES = r"(?:to|or|and|if|is|when|with|option|flag|instead)(?![^\s\"'\\,;{}\[\]&)])"
"""Words after ``--password`` in prose ("use --password to set it") rather than a value."""
_ASSIGNED = r"""(?:\\?["'])?\s*[:=]"""
"""What follows a name in an assignment: an optional (escaped) quote, blanks, ``:`` or ``=``."""
_OPEN_QUOTE = r"""(?:(?P<dq>")|(?P<sq>\\?')|(?P<eq>\\"))"""
_FIRST = r"""[^\s"'\\,;{}\[\]]"""
"""The first character of a value: never a blank or JSON punctuation, so the quote that *closes* a JSON
string ending in ``password=`` is never taken for one that opens a value."""
_VALUE = (r"(?P<value>(?(dq)(?:" + _FIRST + r"|\\[^\n])(?:[^\"\\\n]|\\[^\n])*+"
          r"|(?(sq)" + _FIRST + r"""[^'"\\\n]*+"""
          r"|(?(eq)" + _FIRST + r"""[^"\\\n]*+"""
          r"""|[^\s"'\\,;{}\[\]&)]{3,}+))))""")
"""A quoted value runs to its closing quote, blanks and all (``"correct horse battery staple"``); a raw
``"`` opens a JSON string or a shell word, so its escapes are taken whole and the JSON stays JSON; an
escaped or single quote's value stops at a backslash. An unquoted value stops at a blank or punctuation."""


def _keep_before_value(match: re.Match[str]) -> str:
    return match.string[match.start():match.start("value")] + REDACTED


def _after_program(programs: str, option: str, token: str = r"[^\s|;&]") -> str:
    """``option`` anywhere among the arguments of one of ``programs``, in the same simple command.

    An argument that is itself one of the programs ends the search, so a line repeating the program
    is scanned once, not once per repetition (the redactor runs on every transcript line).
    """
    program = r"(?<![\w.-])(?:" + programs + r")(?![\w.-])"
    another = r"(?!(?:[^\s|;&]*/)?(?:" + programs + r")(?![\w.-]))"
    return program + r"(?:[ \t]++" + another + token + r"[^\s|;&]*+)*?[ \t]++" + option


_OPTION_NAMES = r"pass(?:word|wd)?|token|secret|api-?key|access-token|auth-token|client-secret"
"""Long options whose next word is a credential (``restic --password X``, ``vault login --token X``)."""
_OPTION_VALUE = r"(?P<oq>\\?[\"'])?(?P<value>(?(oq)" + _FIRST + r"""[^"'\\\n]*+|[^\s"'\\]++))"""
"""An option's value: quoted, to its closing quote; or the next word."""


_RULES: tuple[_Rule, ...] = (
    # the body: base64, header lines (Proc-Type: 4,ENCRYPTED) and newlines, raw or JSON-escaped; the END
    # line is optional, so a key cut off mid-way is removed too
    _Rule("private-key", ("-----begin",), re.compile(
        r"-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----(?!\*\*\*)"
        r"(?:(?!-----END)(?:[A-Za-z0-9+/=:,.\- \t\r\n]|\\[nrt]))*"
        r"(?:-----END (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----)?"), "-----BEGIN PRIVATE KEY-----" + REDACTED),
    _Rule("anthropic-key", ("sk-ant-",), re.compile(r"(?P<prefix>sk-ant-)[A-Za-z0-9_\-]{4,}"), _keep_prefix),
    _Rule("openai-key", (r"sk-[a-z0-9_\-]{20}",), re.compile(  # not every "disk-" or "task-"
        r"(?<![A-Za-z0-9_\-])(?P<prefix>sk-(?:proj-|svcacct-|admin-)?)(?!ant-)[A-Za-z0-9_\-]{20,}"), _keep_prefix),
    _Rule("github-token", (r"g(?:h[pousr]_|ithub_pat_)",), re.compile(
        r"(?P<prefix>gh[pousr]_|github_pat_)[A-Za-z0-9_]{20,}"), _keep_prefix),
    _Rule("gitlab-token", (r"gl(?:pat|dt|rt|ptt|soat|cbt|imt|agent)-",), re.compile(
        r"(?P<prefix>gl(?:pat|dt|rt|ptt|soat|cbt|imt|agent)-)[A-Za-z0-9_\-]{16,}"), _keep_prefix),
    _Rule("slack-token", (r"xox[abposr]-",), re.compile(r"(?P<prefix>xox[abposr]-)[A-Za-z0-9\-]{10,}"),
          _keep_prefix),
    _Rule("slack-token", (r"hooks\.slack\.com/services/",), re.compile(
        r"(?P<prefix>hooks\.slack\.com/services/)[A-Za-z0-9/]+"), _keep_prefix),
    _Rule("stripe-key", ("k_live_", "k_test_", "whsec_"), re.compile(
        r"(?P<prefix>(?:sk|rk)_(?:live|test)_|whsec_)[A-Za-z0-9]{16,}"), _keep_prefix),
    _Rule("aws-access-key", ("a(?:kia|sia)",), re.compile(
        r"(?<![A-Z0-9])(?P<prefix>AKIA|ASIA)[A-Z0-9]{16}(?![A-Z0-9])"), _keep_prefix),
    _Rule("jwt", (r"eyj[a-z0-9_\-]{6,}\.eyj",), re.compile(
        r"(?P<prefix>eyJ)[A-Za-z0-9_\-]{6,}\.eyJ[A-Za-z0-9_\-]{6,}\.[A-Za-z0-9_\-]{6,}"), _keep_prefix),
    _Rule("url-password", (r"""://[^\s/@"'\\]*:[^\s/@"'\\]*@""",), re.compile(  # a URL with a user part
        r"(?P<prefix>[A-Za-z][A-Za-z0-9+.\-]*://[^\s:/@\"'\\]*:)[^\s@/\"'\\]+(?=@)"), _keep_prefix),
    _Rule("authorization", ("authorization", "x-api-key"), re.compile(
        r"(?P<prefix>(?:authorization|proxy-authorization|x-api-key)(?:\\?[\"'])?\s*[:=]\s*(?:\\?[\"'])?\s*"
        r"(?:(?:bearer|basic|token|digest)\s+)?)" + _STOP + r"+", re.IGNORECASE), _keep_prefix),
    _Rule("cookie", ("cookie",), re.compile(
        r"(?<![A-Za-z0-9_])(?:set-)?cookie(?:\\?[\"'])?\s*:\s*(?:\\?[\"'])?\s*(?P<value>[^\s\"'\\=;,]++="
        r"[^\"'\\\r\n]*+)", re.IGNORECASE), _keep_before_value),
    # every name above ends in one of the triggers' words, then the separator: "input_tokens": 12 is no assignment
    _Rule("assignment", tuple(word + _ASSIGNED for word in (
        "pass(?:word|wd|phrase)?", "pwd", "secret", "token", "key", "credentials?")), re.compile(
        _NAME + _ASSIGNED + r"\s*" + _OPEN_QUOTE + r"?(?!\*\*\*|" + _NOT_VALUES + r")" + _VALUE, re.IGNORECASE),
        _keep_before_value),
    _Rule("option", (r"--(?:" + _OPTION_NAMES + r")[ \t]",), re.compile(
        r"(?<![\w-])--(?:" + _OPTION_NAMES + r")[ \t]++"
        r"(?!-|\*\*\*|" + _NOT_VALUES + "|" + _NOT_OPTION_VALUES + ")" + _OPTION_VALUE, re.IGNORECASE),
        _keep_before_value),
    # the password of curl's -u/--user user:password, mysql's -pPASSWORD, sshpass -p PASSWORD
    _Rule("option", ("curl",), re.compile(_after_program(
        "curl", r"""(?:-u[ \t]*+|--user(?:[ \t]++|=))(?P<uq>\\?["'])?[^\s"'\\:]*+:(?!\*\*\*)"""
                r"""(?P<value>(?(uq)[^"'\\\n]++|[^\s"'\\]++))""")), _keep_before_value),
    _Rule("option", ("mysql", "mariadb"), re.compile(_after_program(
        r"mysql\w*|mariadb(?:-\w+)?", r"-p(?!\*\*\*)" + _OPTION_VALUE)), _keep_before_value),
    _Rule("option", ("sshpass",), re.compile(_after_program(
        "sshpass", r"-p[ \t]*+(?!\*\*\*)" + _OPTION_VALUE, token="-")), _keep_before_value),
)

_TRIGGERS = tuple((rule, tuple(re.compile(trigger) for trigger in rule.triggers)) for rule in _RULES)
_ANY_TRIGGER = re.compile("|".join(f"(?:{trigger})" for rule in _RULES for trigger in rule.triggers))
SHORT_TEXT = 400
"""Below this many characters (a marker, a log line) one search for any trigger settles most texts
five times faster than a search per trigger (1.3 µs against 6.6 µs for a 90-character marker);
above it the per-trigger searches win, because each starts with a literal the engine skips to
(1.6 ms against 10 ms for 240 KB)."""
_TOKEN_ALPHABET = r"A-Za-z0-9+/=_\-"
_TOKEN = re.compile(rf"(?P<before>[^{_TOKEN_ALPHABET}])(?P<token>[{_TOKEN_ALPHABET}]{{{MIN_ENTROPY_LENGTH},}})")
"""A whole run of the base64 alphabet long enough to judge, with the character before it. Starting at a
character outside the alphabet keeps the scan linear and fast (about 1.5 ms for 240 KB, where a bare
``[…]{32,}`` retries at every character of every shorter run: 4–9 ms); the text is scanned with a
blank in front, so a token at its very start has a character before it too. A run right after a
backslash may begin inside an escape (``\\n``, ``\\u00e9``): :func:`_token_of` takes the escape off."""
_HEX4 = re.compile(r"[0-9a-fA-F]{4}")
_UUID = re.compile(r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}")


def _wanted_rules(text: str) -> list[_Rule]:
    """The rules whose patterns can match ``text``: those with a trigger in its case-folded form."""
    folded = text.casefold()  # IGNORECASE patterns match "ſ" as "s": a trigger must find it too
    if len(folded) < SHORT_TEXT and _ANY_TRIGGER.search(folded) is None:
        return []
    return [rule for rule, triggers in _TRIGGERS if any(trigger.search(folded) for trigger in triggers)]


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
    if token.lower() == token or token.upper() == token:  # single-case (or no letters): the cheapest test first
        return False
    if token.startswith(_ID_PREFIXES) or len(_UUID.sub("", token)) < MIN_ENTROPY_LENGTH:
        return False
    return shannon_bits(token) >= MIN_ENTROPY_BITS and mean_chunk(token) < MAX_MEAN_CHUNK


def _token_of(match: re.Match[str]) -> tuple[str, str]:
    """What of a :data:`_TOKEN` match to keep (the character before, an escape the run starts with) and the token.

    After an odd number of backslashes the run's first character (or ``u`` and four hex digits)
    belongs to the escape, which must stay whole for a JSON line to stay JSON.
    """
    before, token = match.group("before"), match.group("token")
    if before != "\\":
        return before, token
    text, position = match.string, match.start() - 1
    while position >= 0 and text[position] == "\\":
        position -= 1
    if (match.start() - position) % 2 == 0:  # an even run: the backslash before the token is itself escaped
        return before, token
    escape = 5 if token[0] == "u" and _HEX4.match(token, 1) else 1
    return before + token[:escape], token[escape:]


def _high_entropy(text: str, kinds: set[str]) -> str:
    def replace(match: re.Match[str]) -> str:
        kept, token = _token_of(match)
        if len(token) < MIN_ENTROPY_LENGTH or REDACTED in token or not looks_random(token):
            return match.group(0)
        kinds.add("high-entropy")
        return kept + REDACTED

    return _TOKEN.sub(replace, " " + text)[1:]


def _long_tokens(text: str) -> Iterator[str]:
    """The tokens :func:`_high_entropy` judges (escapes taken off)."""
    return (token for found in _TOKEN.finditer(" " + text) if len(token := _token_of(found)[1]) >= MIN_ENTROPY_LENGTH)


def secret_literals(environ: Mapping[str, str] | None = None) -> tuple[str, ...]:
    """Values of the credential variables set now, to redact verbatim wherever they appear.

    Values with a double quote are left out: replacing one inside a JSON line could break it.
    """
    environ = os.environ if environ is None else environ
    return tuple(value for name in CREDENTIAL_VARIABLES
                 if len(value := environ.get(name, "")) >= MIN_LITERAL_SECRET and '"' not in value)


_PLAIN_NAME = re.compile(r"[a-z/][a-z._/\-]*|\d{1,3}(?:\.\d{1,3}){3}|\[[0-9a-f:.]+\]")
"""A lower-case word, a host name, a path of words or an IP address: in a URL, a name (``claudeops``, ``hc-ping.com``,
``webhooks``), not a secret, and redacting it everywhere would blank ordinary text."""
_setting_secrets: tuple[str, ...] = ()


def secret_setting_parts(value: str) -> set[str]:
    """What of a secret setting's value to redact verbatim wherever it appears.

    The whole value, and of a URL the parts that open it: the password, and the user, the host
    of a scheme that is not http(s) (Apprise keeps tokens and topics there: ``tgram://TOKEN/…``),
    each path segment, each query value and the fragment — unless the part is a name (see
    :data:`_PLAIN_NAME`). Parts shorter than :data:`MIN_LITERAL_SECRET` are left to the rules: as
    literals they would be words. Parts with a double quote or a backslash are left out, because
    replacing one inside a JSON line could break it. A SQLite URL is a file name, not a credential:
    nothing of it is taken out of text (the state dir appears in many outputs).
    """
    value = value.strip()
    scheme, separator, rest = value.partition("://")
    if scheme.lower().startswith("sqlite"):
        return set()
    parts = {value}
    if separator:
        rest, _, fragment = rest.partition("#")
        rest, _, query = rest.partition("?")
        authority, _, path = rest.partition("/")
        userinfo, _, host = authority.rpartition("@")
        user, _, password = userinfo.partition(":")
        parts.add(password)
        named = [user, *path.split("/"), fragment, *(found for _, found in parse_qsl(query))]
        if scheme.lower() not in ("http", "https"):
            named += host.split(":")  # tgram://123456789:AAH…/: both halves of the bot token
        parts.update(part for part in named if not _PLAIN_NAME.fullmatch(part))
        parts.update({unquote(part) for part in parts})
    return {part for part in parts if len(part) >= MIN_LITERAL_SECRET and '"' not in part and "\\" not in part}


_SHOWN_SCHEME = re.compile(r"(?:[A-Za-z0-9_, \-]+=)?[A-Za-z][A-Za-z0-9+.\-]*")
"""What of a secret URL is shown before ``://``: its scheme, after Apprise's routing tags (``test=tgram``)."""


def _is_host_name(host: str) -> bool:
    """A DNS name with a dot, ``localhost`` or an IP address: a place, not a token or a topic (``tgram://TOKEN``)."""
    return bool(_PLAIN_NAME.fullmatch(host)) and ("." in host or host == "localhost")


def mask_secret(value: str) -> str:
    """How a secret setting's value is shown (``config show``, a plugin's page): a URL as ``scheme://host/...``, with
    the host only when it is a name (:func:`_is_host_name`), anything else as ``***``; empty stays empty.

    The one rule for every secret setting: user, password, port, path and query are left out, because
    a ping UUID, an ntfy topic or a webhook token sits there, and what is not shown cannot leak.
    """
    if not value:
        return value
    prefix, separator, rest = value.strip().partition("://")
    if not separator or not _SHOWN_SCHEME.fullmatch(prefix):
        return REDACTED
    host = re.split(r"[/?#]", rest, maxsplit=1)[0].rpartition("@")[2]
    host = host if host.startswith("[") else host.partition(":")[0]
    return f"{prefix}://{host}/..." if _is_host_name(host) else f"{prefix}://..."


def use_secret_settings(values: Iterable[str]) -> None:
    """Redact these secret settings' values (and their parts) in everything from now on.

    Called when the configuration is loaded (:meth:`claudeops.app.App.load`), for the whole
    process: a secret setting is as much a credential as ``ANTHROPIC_API_KEY``, and every store,
    log and output already passes through :func:`redact_secrets`, most of them without knowing
    which configuration is loaded. Longest first, so a value is replaced before a part of it.
    """
    global _setting_secrets
    _setting_secrets = ()
    add_secret_values(values)


def add_secret_values(values: Iterable[str]) -> None:
    """Redact these values (and their parts) too, like a secret setting's: for secrets a plugin reads from
    elsewhere than a setting (the notify plugin's ``urls_file``). Call it from ``configure``, which runs
    after the settings' own values were taken in."""
    global _setting_secrets
    parts = set(_setting_secrets) | {part for value in values for part in secret_setting_parts(value)}
    _setting_secrets = tuple(sorted(parts, key=lambda part: (-len(part), part)))


def redact_secrets(text: str, literals: Iterable[str] = ()) -> Redaction:
    """``text`` with every secret :mod:`claudeops.redaction` recognises replaced, and the kinds found.

    ``literals`` are values to remove verbatim (the runner's credential variables, from
    :func:`secret_literals`); the secret settings' values (:func:`use_secret_settings`) always are.
    """
    kinds: set[str] = set()
    for literal in (*_setting_secrets, *literals):
        if literal and literal in text:
            text = text.replace(literal, REDACTED)
            kinds.add("credential")
    for rule in _wanted_rules(text):
        redacted = rule.pattern.sub(rule.replacement, text)
        if redacted != text:  # a value already redacted (``admin:***@``) is matched again but changes nothing
            kinds.add(rule.kind)
            text = redacted
    if len(text) >= MIN_ENTROPY_LENGTH:
        text = _high_entropy(text, kinds)
    return Redaction(text, tuple(sorted(kinds)))


def redact(text: str, literals: Iterable[str] = ()) -> str:
    """Just the redacted text of :func:`redact_secrets`."""
    return redact_secrets(text, literals).text


BATCH_TEXTS = 32
"""Texts :func:`redact_texts` checks in one pre-check: small enough that a batch holding one secret
costs its other texts little, large enough that a batch of ordinary texts costs a few scans."""
_BATCH_SEPARATOR = "\n"
"""Between the texts of a batch: outside the token alphabet and not a backslash, so every long token
of a text is a long token of the batch, with the same escape before it."""


def redact_texts(texts: Sequence[str], literals: Iterable[str] = ()) -> list[Redaction]:
    """:func:`redact_secrets` of each of ``texts``, exactly, in order; for many short texts (an import's).

    Texts are pre-checked :data:`BATCH_TEXTS` at a time, joined by a newline: when
    :func:`may_hold_secret` says no for the batch, it says no for each text in it, and each comes
    back unchanged; otherwise each text of the batch is redacted on its own. That the batch's answer
    covers its texts holds because every check of the pre-check finds in a longer text whatever it
    finds in a part of it: a literal is a substring; a trigger is a regex with no anchor and no
    look-around, searched in the case-folded text, and case folding maps each character on its own
    (so the batch's folding holds each text's); a long token runs to the newline either side of it,
    so it is the same token, judged the same. An ordinary text costs 2.2 µs of a batch's pre-check against
    5.6 µs for a call of its own (0.39 s against 0.56 s for 100,000 observations of the benches).
    """
    literals = tuple(literals)
    results: list[Redaction] = []
    for start in range(0, len(texts), BATCH_TEXTS):
        batch = texts[start:start + BATCH_TEXTS]
        if may_hold_secret(_BATCH_SEPARATOR.join(batch), literals):
            results.extend(redact_secrets(text, literals) for text in batch)
        else:
            results.extend(Redaction(text) for text in batch)
    return results


def may_hold_secret(text: str, literals: Iterable[str] = ()) -> bool:
    """Whether :func:`redact_secrets` could change ``text``; ``False`` means it certainly would not.

    A scan for each rule's triggers and the entropy test of each long token: cheap enough for every
    batch of a transcript (about 3 ms for 240 KB of ordinary frames).
    """
    if any(literal and literal in text for literal in (*_setting_secrets, *literals)):
        return True
    if _wanted_rules(text):
        return True
    return len(text) >= MIN_ENTROPY_LENGTH and any(looks_random(token) for token in _long_tokens(text))
