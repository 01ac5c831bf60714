"""Amounts: durations, periods, sizes, percentages and times of day, found and compared as intervals.

Two memories about one service often differ only in a number ("takes 30s" / "takes a minute"), and
the same amount is often spelled differently ("60s" / "about a minute" / "within a minute").  Every
amount is therefore read as an interval in base units, together with its comparator and the words
around it, so agreement is interval overlap and a conflict needs two values that measure the same
thing.
"""

from __future__ import annotations

from dataclasses import dataclass
from math import fsum
from typing import Literal

from .concepts import weight
from .numbers import UNITS, is_unit
from .tokens import Token, spells, words

Bound = Literal["upper", "lower", "approximate"]


def _phrases(bound: Bound, text: str) -> list[tuple[tuple[str, ...], Bound]]:
    """Comparator phrases written as "|"-separated running text."""
    return [(tuple(phrase.split()), bound) for phrase in text.split("|")]


COMPARATORS: tuple[tuple[tuple[str, ...], Bound], ...] = tuple(
    sorted(
        _phrases(
            "upper",
            "within|under|below|less than|up to|at most|no more than|not more than|fewer than|max|maximum"
            "|shorter than|no later than|not later than|no longer than|not longer than",
        )
        + _phrases(
            "lower",
            "more than|over|above|past|exceeds|exceed|passes|at least|beyond|longer than|later than|min"
            "|minimum|reaches|no less than|not less than|no earlier than|not earlier than|no sooner than"
            "|not before|no fewer than",
        )
        + _phrases("approximate", "about|around|approximately|roughly|nearly|almost|some|circa"),
        key=lambda entry: -len(entry[0]),
    )
)
"""Words before an amount that turn it into a bound or an estimate, longest first so that
"no more than" wins over "more than".  They are consumed with the amount, so the "no" in
"no earlier than 15s" is not read as a negation."""

VAGUE_NUMBERS: dict[str, tuple[float, float]] = {
    "several": (2, 9), "few": (2, 5), "couple": (2, 3), "some": (2, 9),
}
"""Vague quantifiers as ranges, so "several minutes" still conflicts with "within a second"."""

FREQUENCY_WORDS: dict[str, float] = {
    "hourly": 3600, "daily": 86400, "nightly": 86400, "weekly": 604800, "fortnightly": 1209600,
    "monthly": 2592000, "quarterly": 7776000, "yearly": 31536000, "annually": 31536000,
}
"""Adverbs of frequency, as a period in seconds."""

FREQUENCY_INTRODUCERS: frozenset[str] = words("every each per once")
"""Words after which an amount is a period, not a duration: "every week", "once a day"."""

INTERVAL_NOUNS: frozenset[str] = words("interval intervals cadence")
"""Nouns that make an amount next to them a period: "at a 15 minute interval", "an interval of
15 minutes" say "every 15 minutes"."""

INSTANT_WORDS: frozenset[str] = words("instantly immediately instant immediate instantaneously")
"""Words meaning "zero time", which conflict with any noticeable delay; so do "right after" and
"right away"."""

DELAY_INTRODUCERS: frozenset[str] = words("after once when until")
"""Words that, shortly after "only", promise a delay: "only (freed) after the nightly cleanup"
conflicts with "immediately".  The ordering word itself stays in place for the ordering check."""

EXACT_TOLERANCE = 1.2
"""A bare "10s" is read as 10s ± 20 %; stated values are rarely more precise than that."""
APPROXIMATE_TOLERANCE = 1.5
"""An "about 2 minutes" covers 80 s to 3 min, so paraphrases with rounding still agree."""

SAME_SUBJECT_FROM = 0.6
"""Overlap at which two values of one dimension are taken to measure the same thing even when
the words right next to them differ ("stays under 2 GB" / "regularly exceeds 6GB")."""
CONTEXT_SHARE_MIN = 1.0
"""Weight of concepts two conflicting values must share around them: one specific word, or two
generic ones ("returns 503" / "returns 200" next to "healthcheck")."""


@dataclass(frozen=True, slots=True)
class Quantity:
    """A measured value as an interval in base units, so paraphrased amounts compare directly.

    ``context`` holds the concepts around the value, which tell what it measures: two different
    values only conflict when they measure the same thing."""

    dimension: str
    low: float
    high: float
    bound: Bound | None = None
    context: frozenset[str] = frozenset()

    def overlaps(self, other: Quantity) -> bool:
        """Two readings agree when their intervals intersect; two bounds in the same direction
        name thresholds, which agree only when the thresholds do ("above 90%" is not "above 50%")."""
        if self.dimension != other.dimension:
            return False
        if self.bound == other.bound and self.bound in {"upper", "lower"}:
            mine, theirs = (self.high, other.high) if self.bound == "upper" else (self.low, other.low)
            return max(mine, theirs) <= min(mine, theirs) * EXACT_TOLERANCE**2
        return self.low <= other.high and other.low <= self.high

    def measures_same_as(self, other: Quantity) -> bool:
        """Whether the two values are attached to the same words (see ``CONTEXT_SHARE_MIN``)."""
        return fsum(weight(term) for term in self.context & other.context) >= CONTEXT_SHARE_MIN


def _comparator(tokens: list[Token], start: int) -> tuple[Bound | None, int]:
    """The comparator that ends just before ``start``, and how many tokens it has."""
    for phrase, bound in COMPARATORS:
        if spells(tokens, start - len(phrase), phrase):
            return bound, len(phrase)
    return None, 0


def _interval(bound: Bound | None, value: float) -> tuple[float, float]:
    """An amount as the interval of values it allows."""
    if bound == "upper":
        return 0.0, value
    if bound == "lower":
        return value, float("inf")
    tolerance = APPROXIMATE_TOLERANCE if bound == "approximate" else EXACT_TOLERANCE
    return value / tolerance, value * tolerance


@dataclass(frozen=True, slots=True)
class _Found:
    """A quantity found in the token stream, spanning ``tokens[start:end]``."""

    quantity: Quantity
    start: int
    end: int


_ONE_WORD_AMOUNT_STARTS: frozenset[str] = INSTANT_WORDS | frozenset(FREQUENCY_WORDS) | {"right", "only"}
"""The words :func:`_word_quantity` reads an amount from: any other word (nearly all) is none."""


def _word_quantity(tokens: list[Token], index: int) -> Quantity | None:
    """An amount said in one word: a time of day, "instantly" / "right after" (zero time),
    "only after" (some delay) or a frequency adverb ("weekly")."""
    token = tokens[index]
    if token.kind == "clock":
        return Quantity("clock", token.value, token.value)
    if token.text not in _ONE_WORD_AMOUNT_STARTS:
        return None
    following = [later.text for later in tokens[index + 1 : index + 3]]
    if token.text in INSTANT_WORDS or (token.text == "right" and following[:1] in (["after"], ["away"])):
        return Quantity("time", 0.0, 0.5)
    if token.text == "only" and DELAY_INTRODUCERS.intersection(following):
        return Quantity("time", 1.0, float("inf"))
    if token.text in FREQUENCY_WORDS:
        return Quantity("period", *_interval(None, FREQUENCY_WORDS[token.text]))
    return None


def _names_a_period(tokens: list[Token], start: int, end: int) -> bool:
    """Whether the amount spanning ``tokens[start:end]`` is a period: "every 15 minutes", "a 15
    minute interval", "an interval of 15 minutes"."""
    before = [token.text for token in tokens[max(start - 2, 0) : start]]
    if before[-1:] and before[-1] in FREQUENCY_INTRODUCERS:
        return True
    if len(before) == 2 and before[0] in INTERVAL_NOUNS and before[1] == "of":
        return True
    return end < len(tokens) and tokens[end].text in INTERVAL_NOUNS


def _number_quantity(tokens: list[Token], index: int) -> _Found | None:
    """A number (or vague quantifier) followed by a unit, with the comparator before it."""
    token = tokens[index]
    vague = VAGUE_NUMBERS.get(token.text)
    if not (token.kind == "number" or vague) or not is_unit(tokens, index + 1):
        return None
    dimension, factor = UNITS[tokens[index + 1].text]
    start = index - 1 if vague and index > 0 and tokens[index - 1].text == "a" else index
    bound, length = _comparator(tokens, start)
    start -= length
    if vague:
        bound, (low, high) = None, (vague[0] * factor, vague[1] * factor)
    else:
        low, high = _interval(bound, token.value * factor)
    if dimension == "time" and _names_a_period(tokens, start, index + 2):
        dimension = "period"
    return _Found(Quantity(dimension, low, high, bound), start, index + 2)


def _period_without_number(tokens: list[Token], index: int) -> _Found | None:
    """A period with an implicit count of one: "every week", "each month"."""
    if tokens[index].text not in FREQUENCY_INTRODUCERS or not is_unit(tokens, index + 1):
        return None
    dimension, factor = UNITS[tokens[index + 1].text]
    if dimension != "time":
        return None
    low, high = _interval(None, factor)
    return _Found(Quantity("period", low, high), index, index + 2)


def _quantity_at(tokens: list[Token], index: int) -> _Found | None:
    """The quantity at ``index``: a one-word amount, a number with its unit, or "every week"."""
    word = _word_quantity(tokens, index)
    if word is not None:
        return _Found(word, index, index + 1)
    return _number_quantity(tokens, index) or _period_without_number(tokens, index)


def extract_quantities(tokens: list[Token]) -> tuple[list[Token], list[Quantity]]:
    """Replace quantities (with their comparators) by placeholder tokens and collect them, so
    words and amounts are compared separately: "60s" and "a minute" share no word but are the
    same amount."""
    quantities: list[Quantity] = []
    result: list[Token] = []
    index = 0
    while index < len(tokens):
        found = _quantity_at(tokens, index)
        if found is None:
            result.append(tokens[index])
            index += 1
            continue
        del result[len(result) - (index - found.start) :]
        result.append(Token(found.quantity.dimension, "quantity", len(quantities)))
        quantities.append(found.quantity)
        index = found.end
    return result, quantities


@dataclass(frozen=True, slots=True)
class QuantityComparison:
    """How the values of two texts relate; see ``compare_quantities``."""

    anchored_match: bool
    conflict: bool
    amounts_unmatched: bool


NO_AMOUNTS = QuantityComparison(anchored_match=False, conflict=False, amounts_unmatched=False)
"""Two texts without any amount: nothing to match, conflict or miss (most pairs)."""


def _amounts(quantities: tuple[Quantity, ...]) -> list[Quantity]:
    """Measured amounts (durations, sizes, percentages, periods), leaving out bare numbers."""
    return [q for q in quantities if q.dimension != "code"]


def compare_quantities(
    first: tuple[Quantity, ...], second: tuple[Quantity, ...], overlap: float
) -> QuantityComparison:
    """Compare the values of two texts dimension by dimension.

    A match is *anchored* when two agreeing values also measure the same thing.  A dimension
    *conflicts* when no pair agrees although two values measure the same thing, or the texts
    overlap so much that they must.  Amounts are *unmatched* when only one text states an amount,
    or both do and none agree."""
    if not first and not second:
        return NO_AMOUNTS
    anchored = conflict = False
    same_subject = overlap >= SAME_SUBJECT_FROM
    for dimension in {q.dimension for q in first} & {q.dimension for q in second}:
        pairs = [(a, b) for a in first for b in second if a.dimension == dimension and b.dimension == dimension]
        agreeing = [(a, b) for a, b in pairs if a.overlaps(b)]
        anchored = anchored or any(a.measures_same_as(b) for a, b in agreeing)
        if not agreeing and (same_subject or any(a.measures_same_as(b) for a, b in pairs)):
            conflict = True
    left, right = _amounts(first), _amounts(second)
    agree = any(a.overlaps(b) for a in left for b in right)
    return QuantityComparison(anchored, conflict, bool(left or right) and not agree)
