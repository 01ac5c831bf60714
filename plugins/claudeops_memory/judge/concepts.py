"""Words -> concepts: the vocabulary that decides which words name the same thing.

Two memories rarely use the same words for one fact ("restarts" / "reboot", "db" / "database"), so
topical overlap, negation and antonyms are all compared on *concepts*: a light stem mapped through a
small table of operations synonyms.  The weights say how much sharing a concept tells about two
texts having the same subject.  These are closed-class words and generic operations vocabulary,
never sentences.
"""

from __future__ import annotations

from collections.abc import Set as AbstractSet
from functools import lru_cache

from .tokens import Token, words

STOP_WORDS: frozenset[str] = words(
    """
    a an the is are was were be been being am it its this that these those there then than them they
    their to of in on at by for with from into onto as and or but so if when whenever while once during
    until till before after also just very still only even again do does did done doing has have had
    having can could may might will would shall should must need needs needed needing require requires
    required requiring take takes taking took taken spend spends spent become becomes became get gets
    got go goes make makes any some all each every about around approximately roughly nearly almost up
    out more most less least much many several few otherwise which what who whose whom where how why
    because since sometimes usually often always typically generally right new i we you he she our your
    his her my me us one ones own such via per whether too already yet wait waits waiting waited
    enough fine optional optionally independently independent instead rather able unable not no never
    without nor none nothing neither within under over above below past unless exceed exceeds
    exceeded reach reaches reached beyond couple lot lots other another same both either
    use uses used using listen listens listened listening
    """
)
"""Words that carry no topic.  Cue words (negation, modality, comparators) are recognised before
stop-word removal, so listing them here only keeps them out of the overlap score."""

SYNONYMS: dict[str, str] = {
    # starting and restarting
    "boot": "start", "startup": "start", "launch": "start", "reboot": "restart", "bounce": "restart",
    # things and places
    "db": "database", "repo": "repository", "cert": "certificate", "tls": "ssl", "conf": "config",
    "configuration": "config", "internal": "local", "lan": "local", "private": "local",
    "external": "public", "internet": "public", "wan": "public",
    "interface": "ui", "gui": "ui", "frontend": "ui",
    "max": "limit", "maximum": "limit", "cap": "limit", "ceiling": "limit", "quota": "limit",
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
    "survive": "retain", "intact": "retain", "stay": "retain", "automatically": "automatic", "auto": "automatic",
    "sluggish": "slow", "laggy": "slow",
    # where something is put: "stored in", "written to", "saved to", "located in" name one place
    "written": "store", "save": "store", "saved": "store", "locate": "store", "located": "store",
    "reside": "store", "resides": "store",
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

GENERIC_WEIGHT = 0.5
GENERIC_CONCEPTS: frozenset[str] = words(
    "restart start container service run fail fix check health time server period maintenance work try"
    " log first second host respond"
)
"""Concepts so common in home-lab memories that sharing them says little about the subject."""

_SUFFIX_PASSES: tuple[tuple[tuple[str, int], ...], ...] = (
    (("ies", 3), ("ied", 3), ("ing", 3), ("ed", 3), ("ly", 4), ("s", 3)),
    (("al", 4),),
)
"""Inflection first, then one derivational suffix: "automatically" -> "automatical" -> "automatic"."""
_KEEP_ENDINGS: tuple[str, ...] = ("ss", "eed", "us")
"""Endings that look like suffixes but are not: "process", "succeed", "status"."""


@lru_cache(maxsize=4096)
def stem(word: str) -> str:
    """Strip common inflections so restarts / restarting / restarted all read "restart", and
    retry / retries / retried all read "retri"."""
    for suffixes in _SUFFIX_PASSES:
        for suffix, minimum in suffixes:
            if word.endswith(suffix) and len(word) - len(suffix) >= minimum:
                if not word.endswith(_KEEP_ENDINGS):
                    word = word[: -len(suffix)] + ("i" if suffix in {"ies", "ied"} else "")
                break
    if len(word) > 3 and word[-1] == word[-2] and word[-1] not in "lsz":
        word = word[:-1]
    if len(word) > 3 and word.endswith("e"):
        word = word[:-1]
    if len(word) > 3 and word.endswith("y"):  # library / libraries, movie / movies: one stem
        word = word[:-1] + "i"
    return word


_STEMMED_SYNONYMS: dict[str, str] = {stem(key): stem(value) for key, value in SYNONYMS.items()}


@lru_cache(maxsize=4096)
def concept(word: str) -> str:
    """Map a surface word to its canonical concept (stem, then synonym table)."""
    direct = SYNONYMS.get(word)
    stemmed = stem(direct) if direct else stem(word)
    return _STEMMED_SYNONYMS.get(stemmed, stemmed)


_HYPERNYM_CONCEPTS: dict[str, str] = {concept(key): concept(value) for key, value in HYPERNYMS.items()}
_GENERIC_CONCEPTS: frozenset[str] = frozenset(
    {concept(word) for word in GENERIC_CONCEPTS} | set(_HYPERNYM_CONCEPTS.values())
)


def word_concepts(word: str) -> set[str]:
    """A word's concept plus its hypernym ("compacted" is also "maintenance")."""
    term = concept(word)
    hypernym = _HYPERNYM_CONCEPTS.get(term)
    return {term, hypernym} if hypernym else {term}


def weight(term: str) -> float:
    """How much sharing ``term`` says about two texts having the same subject."""
    return GENERIC_WEIGHT if term in _GENERIC_CONCEPTS else 1.0


def specific_terms(terms: AbstractSet[str]) -> AbstractSet[str]:
    """The terms of ``terms`` that weigh more than generic ones, with one set operation."""
    return terms - _GENERIC_CONCEPTS


def total_weight(terms: AbstractSet[str]) -> float:
    """The sum of :func:`weight` over ``terms``, counted with two set operations instead of a call
    per term.  Every weight is 1 or :data:`GENERIC_WEIGHT` (a half), so the sum is exact and the
    same as adding them up one by one in any order."""
    generic = len(terms & _GENERIC_CONCEPTS)
    return (len(terms) - generic) + generic * GENERIC_WEIGHT


def content_term(token: Token) -> str | None:
    """The topic term a token contributes: a content word's concept, a literal's own text (a path
    or address is compared whole), nothing for stop words, numbers and punctuation."""
    if token.kind == "literal":
        return token.text
    if token.kind == "word" and token.text not in STOP_WORDS:
        return concept(token.text)
    return None


EVENT_OPPOSITES: tuple[tuple[str, str], ...] = (
    ("start", "stop"), ("start", "shutdown"), ("mount", "unmount"), ("lock", "unlock"), ("load", "unload"),
    ("upload", "download"), ("read", "write"), ("backup", "restore"), ("install", "uninstall"),
    ("import", "export"), ("login", "logout"),
)
"""Opposite events, as surface words: "takes 60s to start" and "takes 60s to stop" state two
facts about two events, not one fact and its denial."""

_EVENT_OPPOSITE_CONCEPTS: tuple[tuple[str, str], ...] = tuple((concept(a), concept(b)) for a, b in EVENT_OPPOSITES)
EVENT_CONCEPTS: frozenset[str] = frozenset(term for pair in _EVENT_OPPOSITE_CONCEPTS for term in pair)
"""Every concept of an opposite-event pair ("unmount" is an event, not a negated "mount")."""


def opposite_event_terms(events: AbstractSet[str]) -> frozenset[str]:
    """Every event concept opposite to one of ``events``: :func:`opposite_events` can only find
    ``events`` and another text's events opposite when that text has one of these."""
    return frozenset({two for one, two in _EVENT_OPPOSITE_CONCEPTS if one in events}
                     | {one for one, two in _EVENT_OPPOSITE_CONCEPTS if two in events})


def opposite_events(first: frozenset[str], second: frozenset[str]) -> bool:
    """Whether one text names an event and the other its opposite, and neither names both."""
    if first.isdisjoint(EVENT_CONCEPTS) or second.isdisjoint(EVENT_CONCEPTS):
        return False  # each text needs one event word: two set look-ups settle most pairs
    return any(
        (one in first and two in second and two not in first and one not in second)
        or (two in first and one in second and one not in first and two not in second)
        for one, two in _EVENT_OPPOSITE_CONCEPTS
    )
