"""Numbers and units: spelled-out numbers become numbers, and unit words are recognised.

Paraphrases state amounts in different spellings ("60s", "sixty seconds", "a minute", "half an
hour"); reading number words as numbers and knowing every unit's dimension and base factor is what
lets ``quantities`` compare them as plain intervals.
"""

from __future__ import annotations

from dataclasses import replace

from .concepts import STOP_WORDS
from .tokens import Token

NUMBER_WORDS: dict[str, float] = {
    "zero": 0, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8,
    "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13, "fourteen": 14, "fifteen": 15,
    "sixteen": 16, "seventeen": 17, "eighteen": 18, "nineteen": 19, "twenty": 20, "thirty": 30,
    "forty": 40, "fifty": 50, "sixty": 60, "seventy": 70, "eighty": 80, "ninety": 90, "hundred": 100,
    "a": 1, "an": 1, "single": 1, "half": 0.5, "dozen": 12, "quarter": 0.25, "quarters": 0.25,
}
"""Number words; "a"/"an" only count when a unit follows ("a minute", "within a second")."""

FRACTIONS: frozenset[str] = frozenset({"half", "quarter", "quarters"})
"""Number words that are a fraction of the unit after them ("half an hour", "a quarter of an
hour", "three quarters of an hour"): they count only before a unit, optionally through "of" and
"a"/"an", and multiply a count before them."""

UNITS: dict[str, tuple[str, float]] = {
    "ms": ("time", 0.001), "millisecond": ("time", 0.001), "milliseconds": ("time", 0.001),
    "s": ("time", 1), "sec": ("time", 1), "secs": ("time", 1), "second": ("time", 1),
    "seconds": ("time", 1), "m": ("time", 60), "min": ("time", 60), "mins": ("time", 60),
    "minute": ("time", 60), "minutes": ("time", 60), "h": ("time", 3600), "hr": ("time", 3600),
    "hrs": ("time", 3600), "hour": ("time", 3600), "hours": ("time", 3600), "d": ("time", 86400),
    "day": ("time", 86400), "days": ("time", 86400), "week": ("time", 604800),
    "weeks": ("time", 604800), "month": ("time", 2592000), "months": ("time", 2592000),
    "year": ("time", 31536000), "years": ("time", 31536000),
    "%": ("percent", 1), "percent": ("percent", 1), "pct": ("percent", 1),
    "byte": ("size", 1), "bytes": ("size", 1), "kb": ("size", 1e3), "kib": ("size", 1024),
    "mb": ("size", 1e6), "mib": ("size", 1024**2), "gb": ("size", 1e9), "gib": ("size", 1024**3),
    "tb": ("size", 1e12), "tib": ("size", 1024**4),
}
"""Unit spellings mapped to a dimension and a factor to the dimension's base unit."""


def is_unit(tokens: list[Token], index: int) -> bool:
    """Whether ``tokens[index]`` is a unit; "the second attempt" uses "second" as an ordinal."""
    if index >= len(tokens) or tokens[index].text not in UNITS:
        return False
    follower = tokens[index + 1].text if index + 1 < len(tokens) else ""
    return not (tokens[index].text == "second" and follower.isalpha() and follower not in STOP_WORDS)


def _counts_as_number(tokens: list[Token], index: int) -> bool:
    """Number words always count; "a"/"an" only before a unit ("within a second"), "half" before
    a unit or before "an" + unit ("half an hour")."""
    word = tokens[index].text
    if word in {"a", "an"}:
        return is_unit(tokens, index + 1) or (index + 1 < len(tokens) and _is_fraction(tokens, index + 1))
    if word == "of":
        return index > 0 and tokens[index - 1].text in FRACTIONS and _fraction_unit(tokens, index + 1)
    if word in FRACTIONS:
        return _is_fraction(tokens, index)
    return word in NUMBER_WORDS


def _fraction_unit(tokens: list[Token], index: int) -> bool:
    """Whether a unit follows at ``index``, possibly after "a"/"an" ("... of an hour")."""
    skip = 1 if index < len(tokens) and tokens[index].text in {"a", "an"} else 0
    return is_unit(tokens, index + skip)


def _is_fraction(tokens: list[Token], index: int) -> bool:
    """Whether the fraction word at ``index`` measures a unit: "half an hour", "quarter of an hour"."""
    if tokens[index].text not in FRACTIONS:
        return False
    after_of = index + 2 if index + 1 < len(tokens) and tokens[index + 1].text == "of" else index + 1
    return _fraction_unit(tokens, after_of)


def spell_numbers(tokens: list[Token]) -> list[Token]:
    """Turn number words into numbers ("twenty five" -> 25, "a minute" -> 1 minute)."""
    result: list[Token] = []
    for index, token in enumerate(tokens):
        if token.kind != "word" or not _counts_as_number(tokens, index):
            result.append(token)
            continue
        previous = result[-1] if result and result[-1].kind == "number" else None
        if previous is not None and previous.text in FRACTIONS:
            continue  # the "of" and "an" of "a quarter of an hour"
        value = NUMBER_WORDS[token.text]
        if previous is None:
            result.append(Token(token.text, "number", value))
        elif token.text in FRACTIONS:
            result[-1] = Token(token.text, "number", previous.value * value)
        elif token.text == "hundred":
            result[-1] = replace(previous, value=previous.value * 100)
        elif 20 <= previous.value < 100 and value < 10:
            result[-1] = replace(previous, value=previous.value + value)
        else:
            result.append(Token(token.text, "number", value))
    return result
