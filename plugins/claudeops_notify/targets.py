"""The configured Apprise URLs as targets, and keeping every part of them out of what is shown.

An entry is ``URL`` or ``tag1,tag2=URL`` (Apprise's own text-config syntax): a target with tags
receives only notifications of those kinds (``outage``, ``event``, ``session``, ``cooldown``,
``budget``, ``review``, ``digest``, ``test``), one without tags receives every kind. Entries come
from ``notify.urls`` (in the file, or ``CLAUDEOPS_NOTIFY_URLS``, where the list is split at
commas, so a URL with a comma in it belongs in ``notify.urls_file``) and from the lines of
``notify.urls_file``.

A target is shown only as ``#<n> <scheme>`` (``#2 tgram``): the URL holds credentials, and
Apprise's own messages name hosts, paths and tokens, so :func:`scrub` takes every part of every
URL out of a text before it may be logged, stored or served.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import parse_qsl, unquote, urlsplit

from claudeops import ConfigError, redact_secrets

ENTRY = re.compile(r"^\s*(?:(?P<tags>[A-Za-z0-9_-]+(?:\s*,\s*[A-Za-z0-9_-]+)*)\s*=\s*)?(?P<url>[A-Za-z][A-Za-z0-9+.-]*://\S+)\s*$")
KINDS = ("outage", "event", "session", "cooldown", "budget", "review", "digest", "test")
"""The routing tags, one per kind of notification (docs/notifications.md § Routing)."""
HIDDEN = "***"
MIN_SECRET_PART = 3
"""Parts of a URL shorter than this (a port such as ``80``, ``a``) are too common to take out of text."""


@dataclass(frozen=True)
class Target:
    """One URL to notify, known to the operator by its position and scheme only."""

    index: int
    url: str
    tags: frozenset[str]

    @property
    def scheme(self) -> str:
        return self.url.split("://", 1)[0].lower()

    @property
    def label(self) -> str:
        return f"#{self.index} {self.scheme}"

    def receives(self, kind: str) -> bool:
        return not self.tags or kind in self.tags


class TargetError(ConfigError):
    """An entry that is not a URL, or an unreadable URL file; the message never holds a URL."""


def load_targets(urls: list[str], urls_file: str) -> list[Target]:
    """Every configured target, the inline ones first, numbered from 1 in that order."""
    entries = [(f"notify.urls entry {number}", text) for number, text in enumerate(_rejoined(urls), 1)]
    if urls_file:
        entries += list(_file_entries(Path(urls_file).expanduser()))
    targets: list[Target] = []
    for where, text in entries:
        match = ENTRY.match(text)
        if match is None:
            raise TargetError(f"{where} is not an Apprise URL (expected scheme://… or tags=scheme://…)")
        tags = frozenset(tag.strip().lower() for tag in (match["tags"] or "").split(",") if tag.strip())
        unknown = sorted(tags - set(KINDS))
        if unknown:
            raise TargetError(f"{where}: unknown tag {unknown[0]!r}; tags are {', '.join(KINDS)}")
        targets.append(Target(len(targets) + 1, match["url"], tags))
    return targets


def _rejoined(items: list[str]) -> list[str]:
    """Entries as written: ``a,b=URL`` from the environment arrives split at its comma, ``["a", "b=URL"]``."""
    entries: list[str] = []
    pending: list[str] = []
    for item in (part.strip() for part in items):
        if not item:
            continue
        if "://" not in item:
            pending.append(item)  # a tag before a comma: it belongs to the next entry
            continue
        entries.append(",".join([*pending, item]))
        pending = []
    entries.extend(pending)  # left over: not a URL, reported as such
    return entries


def _file_entries(path: Path) -> list[tuple[str, str]]:
    try:
        lines = path.read_text().splitlines()
    except OSError as exc:
        raise TargetError(f"notify.urls_file {path}: cannot read: {exc.strerror or exc}") from None
    return [(f"{path} line {number}", line) for number, line in enumerate(lines, 1)
            if line.strip() and not line.lstrip().startswith(("#", ";"))]


def secret_parts(targets: list[Target]) -> list[str]:
    """Every piece of every URL that could identify or open it: the URL, user, password, host, path
    segments, query values; longest first, so a part inside another is replaced after it."""
    parts: set[str] = set()
    for target in targets:
        parts.add(target.url)
        parts.update(_pieces(target.url))
    return sorted((part for part in parts if len(part) >= MIN_SECRET_PART), key=len, reverse=True)


def _pieces(url: str) -> set[str]:
    try:
        split = urlsplit(url)
        netloc, host = split.netloc, split.hostname
        pieces = {netloc, split.path, split.query, host or "", split.username or "", split.password or ""}
    except ValueError:  # an unparsable port or bracket: fall back on the bare text
        rest = url.split("://", 1)[-1]
        return {rest, *re.split(r"[/:@?&=#,]", rest)}
    pieces.update(segment for segment in split.path.split("/") if segment)
    pieces.update(value for _, value in parse_qsl(split.query, keep_blank_values=False))
    pieces.update(re.split(r"[:@]", netloc))
    return pieces | {unquote(piece) for piece in pieces}


def scrub(text: str, parts: list[str]) -> str:
    """``text`` with every URL part replaced by ``***``, then through the one redaction function."""
    for part in parts:
        if part in text:
            text = text.replace(part, HIDDEN)
    return redact_secrets(text).text
