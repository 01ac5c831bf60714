"""Text -> tokens: the normalised token stream every other judge module reads.

Normalising once here (case, contractions, symbols, times of day, "60s" split into a number and a
unit, "times out" as "timeout") lets the feature readers match plain words and never worry about
spelling variants.  Paths, addresses and file names stay whole ("literal" tokens): "/api/health" is
one value, not the words "api" and "health", so a different path reads as a different value.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Literal


def words(text: str) -> frozenset[str]:
    """A word set written as running text, which keeps the judge's long vocabularies readable."""
    return frozenset(text.split())


@dataclass(frozen=True, slots=True)
class Token:
    """One normalised token; ``value`` is the number for numbers, minutes after midnight for
    times of day, and the index into the extracted quantities for quantity placeholders."""

    text: str
    kind: Literal["word", "number", "clock", "punct", "quantity", "literal"]
    value: float = 0.0


_CONTRACTIONS: tuple[tuple[str, str], ...] = (
    ("won't", "will not"), ("can't", "can not"), ("cannot", "can not"), ("n't", " not"),
    ("'re", " are"), ("'s", ""), ("--", " ; "), ("~", " about "), ("%", " percent "),
    ("\u2019", "'"), ("\u2014", " ; "), ("\u2013", " ; "), ("\u2248", " about "),
)
_LITERAL_RE = (
    r"[a-z][a-z0-9+.-]*://[^\s,;()]*[^\s,;().:!?]"  # URL
    r"|(?<![\w/.])/[a-z0-9_.~/-]*[a-z0-9_~]"  # absolute path
    r"|\d{1,3}(?:\.\d{1,3}){3}(?::\d{1,5})?\b"  # IPv4 address, with a port
    r"|[a-z][a-z0-9.-]*[a-z0-9]:\d{2,5}\b"  # host:port
    r"|[a-z0-9][a-z0-9_-]*\.(?:db|sqlite3?|conf|cfg|ini|ya?ml|json|toml|log|env|sh|service|timer|socket)\b"  # file
)
"""Values written as one unit: a path, URL, address or file name is compared whole."""
_TOKEN_RE = re.compile(
    rf"@\d+|(?P<literal>{_LITERAL_RE})|\d+(?:\.\d+)?[a-z]*|[a-z][a-z0-9_']*(?:-[a-z0-9_]+)*|[;,.:!?()]"
)
_NUMBER_WITH_SUFFIX_RE = re.compile(r"(\d+(?:\.\d+)?)([a-z]*)")
_ORDINAL_SUFFIXES: frozenset[str] = words("st nd rd th")
_CLOCK_RE = re.compile(
    r"\b(\d{1,2})(?::(\d{2}))?\s*([ap])\.?m\b\.?|(?<![\d.:])\b(\d{1,2}):(\d{2})\b(?![\d.:])"
)
"""Times of day: "3am", "3 a.m.", "2:30pm", "01:00" (not the "5:53" of "10.0.0.5:53")."""
_TIME_OUT_RE = re.compile(r"\btim(?:e|es|ed|ing) out\b")
"""The verb "times out" names the same thing as the noun "timeout"."""


def _clock_marker(match: re.Match[str]) -> str:
    """Replace a time of day by "@<minutes after midnight>", one token for the tokenizer."""
    hour_12, minute_12, half, hour_24, minute_24 = match.groups()
    if hour_24 is not None:
        return f" @{int(hour_24) * 60 + int(minute_24)} "
    hour = int(hour_12) % 12 + (12 if half == "p" else 0)
    return f" @{hour * 60 + int(minute_12 or 0)} "


@lru_cache(maxsize=4096)
def normalise(text: str) -> str:
    """Lower-case, expand contractions and symbols, join "times out", and mark times of day.
    Cached like ``analyse.features``: the judge first checks every pair for the same words."""
    lowered = text.lower()
    for old, new in _CONTRACTIONS:
        lowered = lowered.replace(old, new)
    return _CLOCK_RE.sub(_clock_marker, _TIME_OUT_RE.sub("timeout", lowered))


def raw_tokens(text: str) -> list[Token]:
    """Split into words, numbers, times of day, literals and clause punctuation; "60s" becomes a
    number followed by a unit word."""
    tokens: list[Token] = []
    for match in _TOKEN_RE.finditer(normalise(text)):
        piece = match.group()
        if match.group("literal"):
            tokens.append(Token(piece, "literal"))
            continue
        if piece.startswith("@"):
            tokens.append(Token(piece, "clock", float(piece[1:])))
            continue
        number = _NUMBER_WITH_SUFFIX_RE.fullmatch(piece) if piece[0].isdigit() else None  # it starts with one
        if number is None and not piece[0].isalpha():
            tokens.append(Token(piece, "punct"))
            continue
        if number is None:
            # a setting name is its words: "max_connections" says "max connections"
            word = piece.replace("-", "").replace("'", "")
            if "_" in word:
                tokens.extend(Token(part, "word") for part in word.split("_") if part)
            elif word:
                tokens.append(Token(word, "word"))
            continue
        digits, suffix = number.groups()
        if suffix in _ORDINAL_SUFFIXES:
            tokens.append(Token(piece, "word"))
            continue
        tokens.append(Token(digits, "number", float(digits)))
        if suffix:
            tokens.append(Token(suffix, "word"))
    return tokens


def spells(tokens: list[Token], start: int, phrase: tuple[str, ...]) -> bool:
    """Whether the tokens from ``start`` on spell ``phrase``; every multi-word cue (comparators,
    "fails to", "has to", "do not") is found this way.  The first word is checked before anything
    is built, because nearly every call fails there and the judge calls this for every token."""
    end = start + len(phrase)
    if start < 0 or end > len(tokens) or tokens[start].text != phrase[0]:
        return False
    return all(token.text == word for token, word in zip(tokens[start:end], phrase, strict=True))
