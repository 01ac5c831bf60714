"""Default memory relation judge: how does a new observation relate to an existing memory?

The memory plugin asks this every time an agent session stores an operational memory about a
service, and the answer decides whether the store reinforces an old fact, flags a contradiction,
or keeps both facts side by side.  It runs in every session and in tests, so it is pure,
deterministic, offline and fast (a fraction of a millisecond per pair): no models, no network,
only the standard library and ``rapidfuzz``.  Better judges (an LLM) plug in ahead of it through
the ``judge_memory_relation`` hook.

It has to work on sentences it has never seen, so it reads shallow linguistic *features* and
never looks for particular sentences:

* **normalisation** - lower-casing, contractions, number words ("two", "twenty five", "a minute",
  "half an hour"), units ("60s" / "60 sec" / "a minute", "95%" / "95 percent", "500GB" /
  "500 GB"), comparators ("within", "more than", "no earlier than", "about"), frequencies
  ("weekly" / "every week"), times of day ("3am" / "03:00"), light stemming, and a small table of
  operations synonyms (boot/start, db/database, clear/fix, crash/fail, healthy/health ...);
* **topical overlap** - a weighted Dice coefficient over content concepts, generic home-lab words
  (restart, container, fix ...) counting half, with fuzzy token matching (``rapidfuzz``) for
  morphology the stemmer misses;
* **conflict signals** - a concept asserted in one text and negated in the other (clause-bounded
  negation scopes, "fails to", "instead of", ``un-`` prefixes, double negation and "do not ...
  before" prohibitions handled), opposite modality (must / needs / requires vs. independently /
  without / enough / no ... needed), antonyms (enabled/disabled, automatic/manual ...), opposite
  orderings (A before B vs. B before A), and amounts of the same thing that cannot both hold
  (intervals in base units, compared only when the words around them match);
* **amount alignment** - the same amount next to the same words is strong evidence of the same
  fact; amounts that do not line up at all point to different facts.

Decision: a polarity conflict with some shared subject (overlap >= 0.3), or a value conflict with
clearly the same subject (>= 0.45), is a contradiction; otherwise enough overlap is reinforcement
(0.45, less with an anchored matching amount, more when the amounts do not line up); anything
else is distinct.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from functools import lru_cache
from math import fsum
from typing import Literal

from rapidfuzz import fuzz

Relation = Literal["reinforce", "contradict", "distinct"]

# --------------------------------------------------------------------------------------------
# Vocabulary.  These are closed-class words and generic operations vocabulary, never sentences.
# --------------------------------------------------------------------------------------------


def _words(text: str) -> frozenset[str]:
    """A word set written as running text, which keeps long vocabularies readable."""
    return frozenset(text.split())


STOP_WORDS: frozenset[str] = _words(
    """
    a an the is are was were be been being am it its this that these those there then than them they
    their to of in on at by for with from into onto as and or but so if when whenever while once during
    until till before after also just very still only even again do does did done doing has have had
    having can could may might will would shall should must need needs needed needing require requires
    required requiring take takes taking took taken spend spends spent become becomes became get gets
    got go goes make makes any some all each every about around approximately roughly nearly almost up
    out more most less least much many several few otherwise which what who whose whom where how why
    because since sometimes usually often always typically generally right new i we you he she our your
    his her my me us one ones own such via per whether also too already yet wait waits waiting waited
    enough fine optional optionally independently independent instead rather able unable not no never
    without nor none nothing neither within under over above below past unless exceed exceeds
    exceeded reach reaches reached beyond couple lot lots other another same both either
    """
)
"""Words that carry no topic.  Cue words (negation, modality, comparators) are recognised before
stop-word removal, so listing them here only keeps them out of the overlap score."""

NEGATION_CUES: frozenset[str] = _words("not no never without nor none neither nothing")
"""Words that negate the next few content words of their clause."""

NEGATION_PHRASES: tuple[tuple[str, ...], ...] = (
    ("fail", "to"),
    ("fails", "to"),
    ("failed", "to"),
    ("unable", "to"),
    ("instead", "of"),
    ("rather", "than"),
)
"""Multi-word negation cues ("fails to clear" means "does not clear")."""

SCOPE_BREAKERS: frozenset[str] = _words(
    "; , . : ! ? ( ) but and only so because while otherwise or though although whereas then"
)
"""Tokens that end a negation scope: negation rarely crosses a clause or a coordination."""

PHRASE_BREAKERS: frozenset[str] = _words(
    "for after before during when whenever if until till since with from at in on into via"
)
"""Prepositions and subordinators that end a negated phrase once it has begun."""

NEGATION_SCOPE = 4
"""How many content words after a cue are negated ("does not fix transcoding stalls")."""

PROHIBITION_RELEASERS: frozenset[str] = _words("before until till")
"""Words that turn a prohibition into a wait: "do not check it before that" is an instruction to
wait, not a negated fact."""

IMPERATIVE_NEGATIONS: tuple[tuple[str, ...], ...] = (("do", "not"), ("never",))
"""Clause-initial prohibitions; only these can be released by "before"/"until", because
"it does not reconnect until restarted" is still a negated fact."""

ORDER_WINDOW = 3
"""Content words on each side of "before"/"after" that name the two ordered events."""

ORDER_BOUNDARIES: frozenset[str] = _words("before after because and or but so then otherwise")
"""Words that end an ordered event."""

CONDITIONS: frozenset[str] = _words("if when whenever unless once while")
"""An ordering inside a condition ("devices die if it starts before the broker") states what
happens when the order is violated, not the order itself."""

CONDITIONAL_INVERTERS: frozenset[str] = _words("unless except")
"""Words that invert a text's surface polarity: "disabled unless a token is set" means "a token
enables it", so antonym and negation signals from such a text are not trusted."""

REQUIREMENT_CUES: frozenset[str] = _words(
    "must need needs needed require requires required should mandatory necessary essential depends depend"
)
"""Words that state something is required."""

REQUIREMENT_PHRASES: tuple[tuple[str, ...], ...] = (("has", "to"), ("have", "to"))
"""Multi-word requirement cues ("has to be compacted")."""

DISPENSABLE_CUES: frozenset[str] = _words(
    "independently independent without enough optional optionally unnecessary unneeded fine sufficient"
    " sufficiently regardless"
)
"""Words that state something is *not* required ("starts fine without", "autovacuum is enough")."""

FAILURE_CUES: frozenset[str] = _words(
    "not no never fail fails failed failing crash crashes hang hangs error errors unable refuses"
    " breaks broken"
)
"""A dispensable cue next to a failure ("fails without mosquitto") flips back to a requirement."""

SYNONYMS: dict[str, str] = {
    # starting and restarting
    "boot": "start", "startup": "start", "launch": "start", "reboot": "restart", "bounce": "restart",
    # things and places
    "db": "database", "repo": "repository", "cert": "certificate", "tls": "ssl", "conf": "config",
    "configuration": "config", "internal": "local", "lan": "local", "private": "local",
    "external": "public", "internet": "public", "wan": "public",
    # outcomes
    "clear": "fix", "resolve": "fix", "solve": "fix", "repair": "fix", "cure": "fix", "help": "fix",
    "failure": "fail", "error": "fail", "crash": "fail", "break": "fail", "broken": "fail",
    "succeed": "work", "success": "work", "successful": "work", "stall": "hang", "freeze": "hang",
    "stuck": "hang", "disconnect": "drop",
    # state and behaviour
    "healthy": "health", "healthcheck": "health", "reachable": "available", "accessible": "available",
    "answer": "respond", "return": "respond", "reply": "respond", "response": "respond",
    "report": "log", "emit": "log", "print": "log", "attempt": "try", "dependent": "depend",
    "dependency": "depend", "probe": "check", "skip": "ignore", "freed": "free",
    "keep": "retain", "kept": "retain", "retention": "retain", "persist": "retain", "preserve": "retain",
    "survive": "retain", "intact": "retain", "automatically": "automatic", "auto": "automatic",
    "late": "delay", "latency": "delay", "lag": "delay", "twice": "two", "maintain": "maintenance",
    # recurrence (the period itself is compared as an amount)
    "daily": "period", "nightly": "period", "weekly": "period", "monthly": "period", "hourly": "period",
    "yearly": "period", "annually": "period", "periodic": "period", "periodically": "period",
    "regularly": "period", "regular": "period",
}
"""Operations synonyms, written as surface words; keys and values are stemmed when looked up."""

HYPERNYMS: dict[str, str] = {
    "compact": "maintenance", "vacuum": "maintenance", "prune": "maintenance", "purge": "maintenance",
    "cleanup": "maintenance", "clean": "maintenance", "defrag": "maintenance", "optimize": "maintenance",
    "rotate": "maintenance", "reindex": "maintenance", "housekeeping": "maintenance",
}
"""Specific words that also imply a broader concept ("must be compacted" is maintenance); the
broader concept weighs like a generic one."""

ANTONYMS: tuple[tuple[str, str], ...] = (
    ("enable", "disable"), ("online", "offline"), ("work", "fail"), ("fast", "slow"),
    ("increase", "decrease"), ("open", "close"), ("allow", "deny"), ("allow", "block"),
    ("accept", "reject"), ("accept", "refuse"), ("high", "low"), ("present", "missing"),
    ("include", "exclude"), ("start", "stop"), ("automatic", "manual"), ("unattended", "manual"),
    ("local", "public"), ("local", "remote"), ("readonly", "write"), ("readonly", "writable"),
    ("readonly", "readwrite"), ("safe", "fail"), ("safe", "corrupt"), ("green", "red"),
    ("stable", "fail"), ("stable", "drop"), ("reliable", "fail"), ("retain", "lose"),
    ("retain", "reset"), ("retain", "wipe"), ("retain", "drop"),
)
"""Pairs of surface words with opposite meaning (stemmed when used)."""

NEGATING_PREFIXES: tuple[str, ...] = ("un", "in", "non", "dis", "im")
"""Prefixes that negate a word: "unavailable" negates "available" when the other text uses the
positive word."""

GENERIC_WEIGHT = 0.5
GENERIC_CONCEPTS: frozenset[str] = _words(
    "restart start container service run fail fix check health time server period maintenance work try"
    " log first second host respond"
)
"""Concepts so common in home-lab memories that sharing them says little about the subject."""

FUZZY_WEIGHT = 0.8
FUZZY_MIN_RATIO = 85.0
FUZZY_MIN_LENGTH = 5

# --------------------------------------------------------------------------------------------
# Numbers and units.
# --------------------------------------------------------------------------------------------

NUMBER_WORDS: dict[str, float] = {
    "zero": 0, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8,
    "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13, "fourteen": 14, "fifteen": 15,
    "sixteen": 16, "seventeen": 17, "eighteen": 18, "nineteen": 19, "twenty": 20, "thirty": 30,
    "forty": 40, "fifty": 50, "sixty": 60, "seventy": 70, "eighty": 80, "ninety": 90, "hundred": 100,
    "a": 1, "an": 1, "single": 1, "half": 0.5, "dozen": 12,
}
"""Number words; "a"/"an" only count when a unit follows ("a minute", "within a second")."""

VAGUE_NUMBERS: dict[str, tuple[float, float]] = {
    "several": (2, 9), "few": (2, 5), "couple": (2, 3), "some": (2, 9),
}
"""Vague quantifiers as ranges, so "several minutes" still conflicts with "within a second"."""

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

FREQUENCY_WORDS: dict[str, float] = {
    "hourly": 3600, "daily": 86400, "nightly": 86400, "weekly": 604800, "fortnightly": 1209600,
    "monthly": 2592000, "quarterly": 7776000, "yearly": 31536000, "annually": 31536000,
}
"""Adverbs of frequency, as a period in seconds."""

FREQUENCY_INTRODUCERS: frozenset[str] = _words("every each per once")
"""Words after which an amount is a period, not a duration: "every week", "once a day"."""

INSTANT_WORDS: frozenset[str] = _words("instantly immediately instant immediate instantaneously")
"""Words meaning "zero time", which conflict with any noticeable delay; so do "right after" and
"right away"."""

DELAY_INTRODUCERS: frozenset[str] = _words("after once when until")
"""Words that, shortly after "only", promise a delay: "only (freed) after the nightly cleanup"
conflicts with "immediately".  The ordering word itself stays in place for the ordering check."""

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

EXACT_TOLERANCE = 1.2
"""A bare "10s" is read as 10s ± 20 %; stated values are rarely more precise than that."""
APPROXIMATE_TOLERANCE = 1.5
"""An "about 2 minutes" covers 80 s to 3 min, so paraphrases with rounding still agree."""

# --------------------------------------------------------------------------------------------
# Decision thresholds on the topical similarity (weighted Dice, 0..1).
# --------------------------------------------------------------------------------------------

POLARITY_CONFLICT_FROM = 0.3
"""Negation, modality and antonym conflicts name their own shared concept, so modest overlap
suffices ("needs no maintenance" vs "must be compacted monthly")."""
VALUE_CONFLICT_FROM = 0.45
"""Different numbers are common between unrelated facts about one service, so a value conflict
needs clearly the same subject ("20s to accept connections" vs "pg_dump takes 40 minutes")."""
SAME_SUBJECT_FROM = 0.6
"""Overlap at which two values of one dimension are taken to measure the same thing even when
the words right next to them differ ("stays under 2 GB" / "regularly exceeds 6GB")."""
CONTEXT_SHARE_MIN = 1.0
"""Weight of concepts two conflicting values must share around them: one specific word, or two
generic ones ("returns 503" / "returns 200" next to "healthcheck")."""
CONTEXT_WINDOW = 2
"""Content words on each side of a value that say what the value measures."""
REINFORCE_FROM = 0.45
"""Without a conflict, this much overlap is the same fact."""
REINFORCE_WITH_ANCHORED_QUANTITY_FROM = 0.2
"""A matching amount next to the same words ("tunnel drops every 24 hours" / "tunnel disconnects
daily") is strong evidence: the rest is usually just rewording.  A matching amount elsewhere
("nightly backups" / "14 daily snapshots") proves nothing."""
REINFORCE_WITH_UNMATCHED_AMOUNTS_FROM = 0.7
"""Texts whose amounts do not line up (GB of heap vs seconds to load, "takes 20 minutes" vs no
amount at all) state different aspects unless they are near-identical otherwise."""


Ordering = tuple[frozenset[str], frozenset[str]]
"""(earlier, later) concepts of an ordering claim."""


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


@dataclass(frozen=True, slots=True)
class Token:
    """One normalised token; ``value`` is the number for numbers, minutes after midnight for
    times of day, and the index into the extracted quantities for quantity placeholders."""

    text: str
    kind: Literal["word", "number", "clock", "punct", "quantity"]
    value: float = 0.0


@dataclass(frozen=True, slots=True)
class Features:
    """Everything the pair comparison needs from one text, computed once per text: the content
    concepts it asserts and denies, its amounts (with bare numbers as exact "code" amounts), the
    sign of its requirement statement, its ordering claims, and whether "unless" inverts it."""

    asserted: frozenset[str]
    negated: frozenset[str]
    quantities: tuple[Quantity, ...]
    modality: int
    orderings: frozenset[Ordering]
    conditional: bool


# --------------------------------------------------------------------------------------------
# Text -> tokens.
# --------------------------------------------------------------------------------------------

_CONTRACTIONS: tuple[tuple[str, str], ...] = (
    ("won't", "will not"), ("can't", "can not"), ("cannot", "can not"), ("n't", " not"),
    ("'re", " are"), ("'s", ""), ("--", " ; "), ("~", " about "), ("%", " percent "),
    ("\u2019", "'"), ("\u2014", " ; "), ("\u2013", " ; "), ("\u2248", " about "),
)
_TOKEN_RE = re.compile(r"@\d+|\d+(?:\.\d+)?[a-z]*|[a-z][a-z0-9_']*(?:-[a-z0-9_]+)*|[;,.:!?()]")
_NUMBER_WITH_SUFFIX_RE = re.compile(r"(\d+(?:\.\d+)?)([a-z]*)")
_ORDINAL_SUFFIXES: frozenset[str] = _words("st nd rd th")
_CLOCK_RE = re.compile(r"\b(\d{1,2})(?::(\d{2}))?\s*([ap])\.?m\b\.?|\b(\d{1,2}):(\d{2})\b")
"""Times of day: "3am", "3 a.m.", "2:30pm", "01:00"."""


def _clock_marker(match: re.Match[str]) -> str:
    """Replace a time of day by "@<minutes after midnight>", one token for the tokenizer."""
    hour_12, minute_12, half, hour_24, minute_24 = match.groups()
    if hour_24 is not None:
        return f" @{int(hour_24) * 60 + int(minute_24)} "
    hour = int(hour_12) % 12 + (12 if half == "p" else 0)
    return f" @{hour * 60 + int(minute_12 or 0)} "


def _normalise(text: str) -> str:
    """Lower-case, expand contractions and symbols, and mark times of day."""
    lowered = text.lower()
    for old, new in _CONTRACTIONS:
        lowered = lowered.replace(old, new)
    return _CLOCK_RE.sub(_clock_marker, lowered)


def _raw_tokens(text: str) -> list[Token]:
    """Split into words, numbers, times of day and clause punctuation; "60s" becomes a number
    followed by a unit word."""
    tokens: list[Token] = []
    for piece in _TOKEN_RE.findall(_normalise(text)):
        if piece.startswith("@"):
            tokens.append(Token(piece, "clock", float(piece[1:])))
            continue
        number = _NUMBER_WITH_SUFFIX_RE.fullmatch(piece)
        if number is None:
            kind: Literal["word", "punct"] = "word" if piece[0].isalpha() else "punct"
            tokens.append(Token(piece.replace("-", "").replace("'", ""), kind))
            continue
        digits, suffix = number.groups()
        if suffix in _ORDINAL_SUFFIXES:
            tokens.append(Token(piece, "word"))
            continue
        tokens.append(Token(digits, "number", float(digits)))
        if suffix:
            tokens.append(Token(suffix, "word"))
    return tokens


def _is_unit(tokens: list[Token], index: int) -> bool:
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
        return _is_unit(tokens, index + 1)
    if word == "half":
        return _is_unit(tokens, index + 1) or _is_unit(tokens, index + 2)
    return word in NUMBER_WORDS


def _spell_numbers(tokens: list[Token]) -> list[Token]:
    """Turn number words into numbers ("twenty five" -> 25, "a minute" -> 1 minute)."""
    result: list[Token] = []
    for index, token in enumerate(tokens):
        if token.kind != "word" or not _counts_as_number(tokens, index):
            result.append(token)
            continue
        value = NUMBER_WORDS[token.text]
        previous = result[-1] if result and result[-1].kind == "number" else None
        if previous is None:
            result.append(Token(token.text, "number", value))
        elif previous.text == "half":
            continue
        elif token.text == "hundred":
            result[-1] = replace(previous, value=previous.value * 100)
        elif 20 <= previous.value < 100 and value < 10:
            result[-1] = replace(previous, value=previous.value + value)
        else:
            result.append(Token(token.text, "number", value))
    return result


def _ends_with(tokens: list[Token], end: int, phrase: tuple[str, ...]) -> bool:
    """Whether the tokens just before ``end`` spell ``phrase``."""
    start = end - len(phrase)
    return start >= 0 and tuple(token.text for token in tokens[start:end]) == phrase


def _comparator(tokens: list[Token], start: int) -> tuple[Bound | None, int]:
    """The comparator that ends just before ``start``, and how many tokens it has."""
    for phrase, bound in COMPARATORS:
        if _ends_with(tokens, start, phrase):
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


def _word_quantity(tokens: list[Token], index: int) -> Quantity | None:
    """An amount said in one word: a time of day, "instantly" / "right after" (zero time),
    "only after" (some delay) or a frequency adverb ("weekly")."""
    token = tokens[index]
    if token.kind == "clock":
        return Quantity("clock", token.value, token.value)
    following = [later.text for later in tokens[index + 1 : index + 3]]
    if token.text in INSTANT_WORDS or (token.text == "right" and following[:1] in (["after"], ["away"])):
        return Quantity("time", 0.0, 0.5)
    if token.text == "only" and DELAY_INTRODUCERS.intersection(following):
        return Quantity("time", 1.0, float("inf"))
    if token.text in FREQUENCY_WORDS:
        return Quantity("period", *_interval(None, FREQUENCY_WORDS[token.text]))
    return None


def _number_quantity(tokens: list[Token], index: int) -> _Found | None:
    """A number (or vague quantifier) followed by a unit, with the comparator before it."""
    token = tokens[index]
    vague = VAGUE_NUMBERS.get(token.text)
    if not (token.kind == "number" or vague) or not _is_unit(tokens, index + 1):
        return None
    dimension, factor = UNITS[tokens[index + 1].text]
    start = index - 1 if vague and index > 0 and tokens[index - 1].text == "a" else index
    bound, length = _comparator(tokens, start)
    start -= length
    if vague:
        bound, (low, high) = None, (vague[0] * factor, vague[1] * factor)
    else:
        low, high = _interval(bound, token.value * factor)
    if start > 0 and tokens[start - 1].text in FREQUENCY_INTRODUCERS and dimension == "time":
        dimension = "period"
    return _Found(Quantity(dimension, low, high, bound), start, index + 2)


def _period_without_number(tokens: list[Token], index: int) -> _Found | None:
    """A period with an implicit count of one: "every week", "each month"."""
    if tokens[index].text not in FREQUENCY_INTRODUCERS or not _is_unit(tokens, index + 1):
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


def _extract_quantities(tokens: list[Token]) -> tuple[list[Token], list[Quantity]]:
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


# --------------------------------------------------------------------------------------------
# Words -> concepts.
# --------------------------------------------------------------------------------------------


_SUFFIX_PASSES: tuple[tuple[tuple[str, int], ...], ...] = (
    (("ies", 3), ("ied", 3), ("ing", 3), ("ed", 3), ("ly", 4), ("s", 3)),
    (("al", 4),),
)
"""Inflection first, then one derivational suffix: "automatically" -> "automatical" -> "automatic"."""
_KEEP_ENDINGS: tuple[str, ...] = ("ss", "eed", "us")
"""Endings that look like suffixes but are not: "process", "succeed", "status"."""


@lru_cache(maxsize=4096)
def stem(word: str) -> str:
    """Strip common inflections so restarts / restarting / restarted all read "restart"."""
    for suffixes in _SUFFIX_PASSES:
        for suffix, minimum in suffixes:
            if word.endswith(suffix) and len(word) - len(suffix) >= minimum:
                if not word.endswith(_KEEP_ENDINGS):
                    word = word[: -len(suffix)] + ("y" if suffix in {"ies", "ied"} else "")
                break
    if len(word) > 3 and word[-1] == word[-2] and word[-1] not in "lsz":
        word = word[:-1]
    if len(word) > 3 and word.endswith("e"):
        word = word[:-1]
    return word


_STEMMED_SYNONYMS: dict[str, str] = {stem(key): stem(value) for key, value in SYNONYMS.items()}


@lru_cache(maxsize=4096)
def concept(word: str) -> str:
    """Map a surface word to its canonical concept (stem, then synonym table)."""
    direct = SYNONYMS.get(word)
    stemmed = stem(direct) if direct else stem(word)
    return _STEMMED_SYNONYMS.get(stemmed, stemmed)


_HYPERNYM_CONCEPTS: dict[str, str] = {concept(key): concept(value) for key, value in HYPERNYMS.items()}
_ANTONYM_CONCEPTS: tuple[tuple[str, str], ...] = tuple((concept(a), concept(b)) for a, b in ANTONYMS)
_GENERIC_CONCEPTS: frozenset[str] = frozenset(
    {concept(word) for word in GENERIC_CONCEPTS} | set(_HYPERNYM_CONCEPTS.values())
)


def weight(term: str) -> float:
    """How much sharing ``term`` says about two texts having the same subject."""
    return GENERIC_WEIGHT if term in _GENERIC_CONCEPTS else 1.0


# --------------------------------------------------------------------------------------------
# Polarity: negation scopes, modality, before/after orderings.
# --------------------------------------------------------------------------------------------


def _negation_cue_length(tokens: list[Token], index: int) -> int:
    """Length of the negation cue starting at ``index`` (0 when there is none)."""
    if tokens[index].text in NEGATION_CUES:
        return 1
    for phrase in NEGATION_PHRASES:
        if tuple(token.text for token in tokens[index : index + len(phrase)]) == phrase:
            return len(phrase)
    return 0


def _scope_end(tokens: list[Token], start: int) -> int:
    """End (exclusive) of the negation scope that begins at ``start``: at most
    ``NEGATION_SCOPE`` content words, within the clause, and not past a preposition or amount
    once the negated phrase has begun ("without polling for 12 hours the report goes stale")."""
    content = 0
    index = start
    while index < len(tokens) and tokens[index].text not in SCOPE_BREAKERS:
        token = tokens[index]
        if content and (token.text in PHRASE_BREAKERS or token.kind == "quantity"):
            break
        if token.text not in STOP_WORDS:
            content += 1
            if content > NEGATION_SCOPE:
                break
        index += 1
    return index


def _is_releasable_prohibition(tokens: list[Token], index: int) -> bool:
    """Whether the cue at ``index`` opens an imperative like "do not check it before that", which
    means "wait, then check" rather than "checking is wrong"."""
    for phrase in IMPERATIVE_NEGATIONS:
        start = index + 1 - len(phrase)
        if start < 0 or tuple(token.text for token in tokens[start : index + 1]) != phrase:
            continue
        if start == 0 or tokens[start - 1].kind == "punct":
            clause = _clause_of(tokens, index)
            return bool(PROHIBITION_RELEASERS.intersection(clause))
    return False


def _is_double_negation(tokens: list[Token], index: int) -> bool:
    """Whether the clause after the cue at ``index`` holds a second negation: "fails to start
    without redis" and "cannot start without redis" assert that redis is required (which the
    modality signal captures), not that starting or redis are negated."""
    position = index + _negation_cue_length(tokens, index)
    while position < len(tokens) and tokens[position].text not in SCOPE_BREAKERS:
        if _negation_cue_length(tokens, position):
            return True
        position += 1
    return False


def _clause_end(tokens: list[Token], index: int) -> int:
    """Position of the scope breaker that ends the clause containing ``index``."""
    while index < len(tokens) and tokens[index].text not in SCOPE_BREAKERS:
        index += 1
    return index


def _negated_positions(tokens: list[Token]) -> set[int]:
    """Positions inside a negation scope (the next few content words of the cue's clause)."""
    negated: set[int] = set()
    index = 0
    while index < len(tokens):
        length = _negation_cue_length(tokens, index)
        if not length:
            index += 1
        elif _is_double_negation(tokens, index):
            index = _clause_end(tokens, index + length)
        else:
            end = _scope_end(tokens, index + length)
            if not _is_releasable_prohibition(tokens, index):
                negated.update(range(index + length, end))
            index = end
    return negated


def _clause_of(tokens: list[Token], index: int) -> list[str]:
    """The words of the clause containing ``index`` (punctuation-delimited)."""
    start = index
    while start > 0 and tokens[start - 1].kind != "punct":
        start -= 1
    end = index
    while end < len(tokens) and tokens[end].kind != "punct":
        end += 1
    return [token.text for token in tokens[start:end]]


def _requirement_vote(tokens: list[Token], index: int, negated: set[int]) -> int:
    """+1 for "needs", -1 for "needs no" / "no ... needed" / "does not need"."""
    following = tokens[index + 1].text if index + 1 < len(tokens) else ""
    if index in negated or following in NEGATION_CUES:
        return -1
    return 1


def _dispensable_vote(tokens: list[Token], index: int) -> int:
    """-1 for "fine without", but +1 for "fails without" / "cannot start independently"."""
    clause = _clause_of(tokens, index)
    own = tokens[index].text
    failing = [word for word in clause if word in FAILURE_CUES and word != own]
    return 1 if failing else -1


def _modality(tokens: list[Token], negated: set[int]) -> int:
    """Sign of the requirement statement: +1 required, -1 dispensable, 0 neither or mixed."""
    votes = 0
    for index, token in enumerate(tokens):
        if token.text in REQUIREMENT_CUES:
            votes += _requirement_vote(tokens, index, negated)
        elif any(_ends_with(tokens, index + 2, phrase) for phrase in REQUIREMENT_PHRASES):
            votes += 1
        elif token.text in DISPENSABLE_CUES:
            votes += _dispensable_vote(tokens, index)
    return (votes > 0) - (votes < 0)


def _clause_before(tokens: list[Token], index: int) -> list[str]:
    """The words of the clause up to (not including) ``index``."""
    start = index
    while start > 0 and tokens[start - 1].kind != "punct":
        start -= 1
    return [token.text for token in tokens[start:index]]


def _order_side(tokens: list[Token], index: int, step: int) -> frozenset[str]:
    """Up to ``ORDER_WINDOW`` content concepts on one side of an ordering word, stopping at the
    clause, another ordering word or a condition."""
    found: set[str] = set()
    position = index + step
    while 0 <= position < len(tokens) and len(found) < ORDER_WINDOW:
        token = tokens[position]
        if token.kind == "punct" or token.text in ORDER_BOUNDARIES:
            break
        if token.kind == "word" and token.text not in STOP_WORDS:
            found.add(concept(token.text))
        position += step
    return frozenset(found)


def _orderings(tokens: list[Token]) -> frozenset[Ordering]:
    """(earlier, later) concept sets for each "X before Y" / "Y after X" claim."""
    found: set[Ordering] = set()
    for index, token in enumerate(tokens):
        if token.text not in {"before", "after"} or CONDITIONS.intersection(_clause_before(tokens, index)):
            continue
        left, right = _order_side(tokens, index, -1), _order_side(tokens, index, 1)
        if left and right:
            found.add((right, left) if token.text == "after" else (left, right))
    return frozenset(found)


# --------------------------------------------------------------------------------------------
# Text -> features.
# --------------------------------------------------------------------------------------------


def _context(tokens: list[Token], index: int) -> frozenset[str]:
    """Concepts of the content words nearest to ``tokens[index]`` on each side."""
    found: set[str] = set()
    for step in (-1, 1):
        position, taken = index + step, 0
        while 0 <= position < len(tokens) and taken < CONTEXT_WINDOW:
            token = tokens[position]
            if token.kind == "word" and token.text not in STOP_WORDS:
                found.add(concept(token.text))
                taken += 1
            position += step
    return frozenset(found)


def _word_concepts(word: str) -> set[str]:
    """A word's concept plus its hypernym ("compacted" is also "maintenance")."""
    term = concept(word)
    hypernym = _HYPERNYM_CONCEPTS.get(term)
    return {term, hypernym} if hypernym else {term}


def _concepts(tokens: list[Token], negated: set[int]) -> tuple[set[str], set[str], list[Quantity]]:
    """Content concepts split into asserted and negated, plus asserted bare numbers (status
    codes, ports, versions) as exact "code" quantities, compared by identity."""
    asserted: set[str] = set()
    denied: set[str] = set()
    codes: list[Quantity] = []
    for index, token in enumerate(tokens):
        if token.kind == "number":
            terms = {f"#{token.value:g}"}
            if index not in negated and token.text[0].isdigit():
                codes.append(Quantity("code", token.value, token.value, context=_context(tokens, index)))
        elif token.kind == "word" and token.text not in STOP_WORDS:
            terms = _word_concepts(token.text)
        else:
            continue
        (denied if index in negated else asserted).update(terms)
    return asserted, denied, codes


def _with_context(tokens: list[Token], quantities: list[Quantity]) -> list[Quantity]:
    """Attach to each extracted quantity the concepts around its placeholder."""
    return [
        replace(quantities[int(token.value)], context=_context(tokens, index))
        for index, token in enumerate(tokens)
        if token.kind == "quantity"
    ]


@lru_cache(maxsize=1024)
def features(text: str) -> Features:
    """Analyse one text.  Cached because the store compares one new text with many memories."""
    tokens, quantities = _extract_quantities(_spell_numbers(_raw_tokens(text)))
    negated = _negated_positions(tokens)
    asserted, denied, codes = _concepts(tokens, negated)
    return Features(
        asserted=frozenset(asserted - denied),
        negated=frozenset(denied),
        quantities=(*_with_context(tokens, quantities), *codes),
        modality=_modality(tokens, negated),
        orderings=_orderings(tokens),
        conditional=any(token.text in CONDITIONAL_INVERTERS for token in tokens),
    )


# --------------------------------------------------------------------------------------------
# Pair comparison.
# --------------------------------------------------------------------------------------------


def _resolve_prefix_negations(own: Features, other: Features) -> Features:
    """Read "unavailable" as negated "available" when the other text says "available"."""
    others = other.asserted | other.negated
    moved = {
        term: concept(term[len(prefix) :])
        for term in own.asserted
        for prefix in NEGATING_PREFIXES
        if term.startswith(prefix) and len(term) - len(prefix) >= 4 and concept(term[len(prefix) :]) in others
    }
    if not moved:
        return own
    return replace(own, asserted=own.asserted - moved.keys(), negated=own.negated | set(moved.values()))


def _topic(features_: Features) -> dict[str, float]:
    """Weighted topic terms: asserted and negated concepts alike say what the text is about."""
    return {term: weight(term) for term in features_.asserted | features_.negated}


def _soft_match(term: str, candidates: dict[str, float]) -> str | None:
    """The best fuzzy partner of ``term`` ("transcoder" ~ "transcod"), if any is close enough."""
    if len(term) < FUZZY_MIN_LENGTH or term.startswith("#"):
        return None
    best: str | None = None
    best_score = FUZZY_MIN_RATIO
    for candidate in sorted(candidates):
        if len(candidate) < FUZZY_MIN_LENGTH or candidate.startswith("#"):
            continue
        prefix = candidate.startswith(term) or term.startswith(candidate)
        score = 100.0 if prefix else fuzz.ratio(term, candidate)
        if score > best_score or (best is None and score == best_score):
            best, best_score = candidate, score
    return best


def similarity(first: Features, second: Features) -> float:
    """Weighted Dice overlap of the two topic term sets, with fuzzy matches counted partially."""
    left, right = _topic(first), _topic(second)
    total = fsum(left.values()) + fsum(right.values())
    if not total:
        return 0.0
    shared = 0.0
    unmatched = dict(right)
    for term, term_weight in sorted(left.items()):
        if term in unmatched:
            shared += term_weight + unmatched.pop(term)
            continue
        partner = _soft_match(term, unmatched)
        if partner is not None:
            shared += FUZZY_WEIGHT * (term_weight + unmatched.pop(partner))
    return shared / total


def _negation_conflict(first: Features, second: Features) -> bool:
    """A concept asserted by one text and denied by the other ("fixes" / "does not fix")."""
    first_claims = first.asserted | _code_terms(first)
    second_claims = second.asserted | _code_terms(second)
    return bool(first_claims & second.negated or second_claims & first.negated)


def _code_terms(features_: Features) -> set[str]:
    """Asserted bare numbers as topic terms ("#200"), to meet "not 200" in the other text."""
    return {f"#{q.low:g}" for q in features_.quantities if q.dimension == "code"}


def _antonym_conflict(first: Features, second: Features) -> bool:
    """One text uses a word, the other its antonym, and neither uses both; or one text puts A
    before B and the other B before A ("mount the share before starting" / "can start before the
    share is mounted")."""
    for word, opposite in _ANTONYM_CONCEPTS:
        for one, two in ((first, second), (second, first)):
            used = word in one.asserted and opposite in two.asserted
            if used and opposite not in one.asserted and word not in two.asserted:
                return True
    return any(
        early & other_late and late & other_early
        for early, late in first.orderings
        for other_early, other_late in second.orderings
    )


def _polarity_conflict(first: Features, second: Features) -> bool:
    """Negation, modality or antonym disagreement; "unless" texts invert their own polarity, so
    their surface negations and antonyms are not trusted."""
    if first.modality * second.modality < 0:
        return True
    if first.conditional or second.conditional:
        return False
    return _negation_conflict(first, second) or _antonym_conflict(first, second)


@dataclass(frozen=True, slots=True)
class QuantityComparison:
    """How the values of two texts relate; see ``compare_quantities``."""

    anchored_match: bool
    conflict: bool
    amounts_unmatched: bool


def _amounts(features_: Features) -> list[Quantity]:
    """Measured amounts (durations, sizes, percentages, periods), leaving out bare numbers."""
    return [q for q in features_.quantities if q.dimension != "code"]


def compare_quantities(first: Features, second: Features, overlap: float) -> QuantityComparison:
    """Compare values dimension by dimension.

    A match is *anchored* when two agreeing values also measure the same thing.  A dimension
    *conflicts* when no pair agrees although two values measure the same thing, or the texts
    overlap so much that they must.  Amounts are *unmatched* when only one text states an amount,
    or both do and none agree."""
    anchored = conflict = False
    same_subject = overlap >= SAME_SUBJECT_FROM
    for dimension in {q.dimension for q in first.quantities} & {q.dimension for q in second.quantities}:
        pairs = [
            (a, b)
            for a in first.quantities
            for b in second.quantities
            if a.dimension == dimension and b.dimension == dimension
        ]
        agreeing = [(a, b) for a, b in pairs if a.overlaps(b)]
        anchored = anchored or any(a.measures_same_as(b) for a, b in agreeing)
        if not agreeing and (same_subject or any(a.measures_same_as(b) for a, b in pairs)):
            conflict = True
    left, right = _amounts(first), _amounts(second)
    agree = any(a.overlaps(b) for a in left for b in right)
    return QuantityComparison(anchored, conflict, bool(left or right) and not agree)


def _reinforce_threshold(values: QuantityComparison) -> float:
    """Overlap needed to call a conflict-free pair the same fact, given how their values relate."""
    if values.anchored_match:
        return REINFORCE_WITH_ANCHORED_QUANTITY_FROM
    if values.amounts_unmatched:
        return REINFORCE_WITH_UNMATCHED_AMOUNTS_FROM
    return REINFORCE_FROM


def judge_relation(existing: str, new: str) -> Relation:
    """Decide whether ``new`` reinforces, contradicts, or is distinct from ``existing``.

    Both texts are assumed to be about the same service and category (the store only asks about
    such pairs), so the question is whether they make the same claim about the same subject.
    """
    if _normalise(existing).split() == _normalise(new).split():
        return "reinforce"
    first, second = features(existing), features(new)
    first, second = _resolve_prefix_negations(first, second), _resolve_prefix_negations(second, first)
    overlap = similarity(first, second)
    values = compare_quantities(first, second, overlap)
    if overlap >= POLARITY_CONFLICT_FROM and _polarity_conflict(first, second):
        return "contradict"
    if overlap >= VALUE_CONFLICT_FROM and values.conflict:
        return "contradict"
    if overlap >= _reinforce_threshold(values):
        return "reinforce"
    return "distinct"
