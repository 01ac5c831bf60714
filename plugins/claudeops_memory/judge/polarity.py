"""Polarity of one text: what it negates, whether it states a requirement, what it orders.

A contradiction between two memories is rarely a different word; it is the same words pointing the
other way ("restarting fixes the stall" / "restarting does not fix the stall", "must start after
wireguard" / "can start independently of wireguard", "A before B" / "B before A").  This module
reads those directions from one text's tokens: clause-bounded negation scopes, the sign of its
requirement statement, its before/after claims and whether "unless" inverts it.  ``conflicts``
then compares the directions of two texts.
"""

from __future__ import annotations

from .concepts import STOP_WORDS, content_term
from .tokens import Token, spells, words

NEGATION_CUES: frozenset[str] = words("not no never without nor none neither nothing")
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

SCOPE_BREAKERS: frozenset[str] = words(
    "; , . : ! ? ( ) but and only so because while otherwise or though although whereas then"
)
"""Tokens that end a negation scope: negation rarely crosses a clause or a coordination."""

PHRASE_BREAKERS: frozenset[str] = words(
    "for after before during when whenever if until till since with from at in on into via"
)
"""Prepositions and subordinators that end a negated phrase once it has begun."""

NEGATION_SCOPE = 4
"""How many content words after a cue are negated ("does not fix transcoding stalls")."""

PROHIBITION_RELEASERS: frozenset[str] = words("before until till")
"""Words that turn a prohibition into a wait: "do not check it before that" is an instruction to
wait, not a negated fact."""

IMPERATIVE_NEGATIONS: tuple[tuple[str, ...], ...] = (("do", "not"), ("never",))
"""Clause-initial prohibitions, which "before" releases too ("do not check it before that")."""

WAIT_RELEASERS: frozenset[str] = words("until till")
"""Words that turn any negation into a requirement: "won't start until postgres accepts
connections" means "needs postgres to accept connections before starting", not "never starts"."""

ORDER_WINDOW = 3
"""Content words on each side of "before"/"after" that name the two ordered events."""

ORDER_BOUNDARIES: frozenset[str] = words("before after because and or but so then otherwise")
"""Words that end an ordered event."""

CONDITIONS: frozenset[str] = words("if when whenever unless once while")
"""An ordering inside a condition ("devices die if it starts before the broker") states what
happens when the order is violated, not the order itself."""

CIRCUMSTANTIAL_OPENERS: frozenset[str] = words("without")
"""Words that open a condition when they open a clause: "Without X, it does Y" says what happens
when X is missing, so the denied X is a circumstance, not a claim that X is absent."""

CONDITIONAL_INVERTERS: frozenset[str] = words("unless except")
"""Words that invert a text's surface polarity: "disabled unless a token is set" means "a token
enables it", so negation, antonym and ordering signals from such a text are not trusted."""

REQUIREMENT_CUES: frozenset[str] = words(
    "must need needs needed require requires required should mandatory necessary essential depends depend"
)
"""Words that state something is required."""

REQUIREMENT_PHRASES: tuple[tuple[str, ...], ...] = (("has", "to"), ("have", "to"))
"""Multi-word requirement cues ("has to be compacted")."""

DISPENSABLE_CUES: frozenset[str] = words(
    "independently independent without enough optional optionally unnecessary unneeded fine sufficient"
    " sufficiently regardless"
)
"""Words that state something is *not* required ("starts fine without", "autovacuum is enough")."""

PERMISSION_CUES: frozenset[str] = words("can may")
"""Words that grant a permission; about going first ("gitea can start first", "may start before
the database") they say the order is not required."""

EARLY_CUES: frozenset[str] = words("first before")
"""Words that, after a permission in the same clause, make it a permission to go first."""

FAILURE_CUES: frozenset[str] = words(
    "not no never fail fails failed failing crash crashes hang hangs error errors unable refuses"
    " breaks broken"
)
"""A dispensable cue next to a failure ("fails without mosquitto") flips back to a requirement."""

PERSISTENCE_CUES: frozenset[str] = words(
    "persist persists persisted persisting remain remains remained continue continues continued recur recurs"
    " recurred"
)
"""A problem that persists *after* a remedy was not fixed by it."""

PERSISTENCE_RELEASERS: frozenset[str] = words("after despite")
"""Words that, after a persistence cue in the same clause, name the remedy that did not work."""

Ordering = tuple[frozenset[str], frozenset[str]]
"""(earlier, later) concepts of an ordering claim."""


def _clause_start(tokens: list[Token], index: int) -> int:
    """Position of the first token of the punctuation-delimited clause containing ``index``."""
    while index > 0 and tokens[index - 1].kind != "punct":
        index -= 1
    return index


def _clause_of(tokens: list[Token], index: int) -> list[str]:
    """The words of the clause containing ``index`` (punctuation-delimited)."""
    end = index
    while end < len(tokens) and tokens[end].kind != "punct":
        end += 1
    return [token.text for token in tokens[_clause_start(tokens, index) : end]]


def _clause_before(tokens: list[Token], index: int) -> list[str]:
    """The words of the clause up to (not including) ``index``."""
    return [token.text for token in tokens[_clause_start(tokens, index) : index]]


# Negation scopes.


_NEGATION_PHRASE_STARTS: frozenset[str] = frozenset(phrase[0] for phrase in NEGATION_PHRASES)
"""The words a negation phrase can start with: any other word starts none (checked for every token)."""
_REQUIREMENT_PHRASE_STARTS: frozenset[str] = frozenset(phrase[0] for phrase in REQUIREMENT_PHRASES)


def _negation_cue_length(tokens: list[Token], index: int) -> int:
    """Length of the negation cue starting at ``index`` (0 when there is none)."""
    text = tokens[index].text
    if text in NEGATION_CUES:
        return 1
    if text not in _NEGATION_PHRASE_STARTS:
        return 0
    for phrase in NEGATION_PHRASES:
        if spells(tokens, index, phrase):
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


def _next_scope_breaker(tokens: list[Token], index: int) -> int:
    """Position of the first scope breaker at or after ``index`` (the end of the tokens if none):
    where the clause containing ``index`` ends for negation."""
    while index < len(tokens) and tokens[index].text not in SCOPE_BREAKERS:
        index += 1
    return index


def _waits_until(tokens: list[Token], index: int) -> bool:
    """Whether the negation cue at ``index`` is a wait: "not ... until" in one clause."""
    return bool(WAIT_RELEASERS.intersection(_clause_of(tokens, index)[len(_clause_before(tokens, index)) :]))


def _is_releasable_prohibition(tokens: list[Token], index: int) -> bool:
    """Whether the cue at ``index`` opens a wait rather than a negated fact: "not ... until"
    anywhere, or an imperative like "do not check it before that" ("wait, then check")."""
    if _waits_until(tokens, index):
        return True
    for phrase in IMPERATIVE_NEGATIONS:
        start = index + 1 - len(phrase)
        if not spells(tokens, start, phrase):
            continue
        if start == 0 or tokens[start - 1].kind == "punct":
            return bool(PROHIBITION_RELEASERS.intersection(_clause_of(tokens, index)))
    return False


def _is_double_negation(tokens: list[Token], index: int) -> bool:
    """Whether the clause after the cue at ``index`` holds a second negation: "fails to start
    without redis" and "cannot start without redis" assert that redis is required (which the
    modality signal captures), not that starting or redis are negated."""
    start = index + _negation_cue_length(tokens, index)
    end = _next_scope_breaker(tokens, start)
    return any(_negation_cue_length(tokens, position) for position in range(start, end))


def negated_positions(tokens: list[Token]) -> set[int]:
    """Positions inside a negation scope (the next few content words of the cue's clause)."""
    negated: set[int] = set()
    index = 0
    while index < len(tokens):
        length = _negation_cue_length(tokens, index)
        if not length:
            index += 1
        elif _is_double_negation(tokens, index):
            index = _next_scope_breaker(tokens, index + length)
        else:
            end = _scope_end(tokens, index + length)
            if not _is_releasable_prohibition(tokens, index):
                negated.update(range(index + length, end))
            index = end
    return negated


def is_conditional(tokens: list[Token]) -> bool:
    """Whether "unless"/"except" inverts the text's surface polarity (see ``CONDITIONAL_INVERTERS``)."""
    return any(token.text in CONDITIONAL_INVERTERS for token in tokens)


# Modality.


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


def _permits_going_first(tokens: list[Token], index: int) -> bool:
    """Whether ``tokens[index]`` grants permission to go first: "can start first" (but not
    "can not start before")."""
    if tokens[index].text not in PERMISSION_CUES or spells(tokens, index + 1, ("not",)):
        return False
    rest = _clause_of(tokens, index)[len(_clause_before(tokens, index)) :]
    return bool(EARLY_CUES.intersection(rest))


def modality(tokens: list[Token], negated: set[int]) -> int:
    """Sign of the requirement statement: +1 required ("needs", "won't ... until"), -1 dispensable,
    0 neither or mixed."""
    votes = 0
    for index, token in enumerate(tokens):
        if token.text in REQUIREMENT_CUES:
            votes += _requirement_vote(tokens, index, negated)
        elif token.text in _REQUIREMENT_PHRASE_STARTS and any(
                spells(tokens, index, phrase) for phrase in REQUIREMENT_PHRASES):
            votes += 1
        elif token.text in DISPENSABLE_CUES:
            votes += _dispensable_vote(tokens, index)
        elif token.text in NEGATION_CUES and _waits_until(tokens, index):
            votes += 1
        elif _permits_going_first(tokens, index):
            votes -= 1
    return (votes > 0) - (votes < 0)


# Orderings.


def _order_side(tokens: list[Token], index: int, step: int) -> frozenset[str]:
    """Up to ``ORDER_WINDOW`` content concepts on one side of an ordering word, stopping at the
    clause, another ordering word or a condition."""
    found: set[str] = set()
    position = index + step
    while 0 <= position < len(tokens) and len(found) < ORDER_WINDOW:
        token = tokens[position]
        if token.kind == "punct" or token.text in ORDER_BOUNDARIES:
            break
        term = content_term(token)
        if term is not None:
            found.add(term)
        position += step
    return frozenset(found)


def orderings(tokens: list[Token]) -> frozenset[Ordering]:
    """(earlier, later) concept sets for each "X before Y" / "Y after X" claim."""
    found: set[Ordering] = set()
    for index, token in enumerate(tokens):
        if token.text not in {"before", "after"} or CONDITIONS.intersection(_clause_before(tokens, index)):
            continue
        left, right = _order_side(tokens, index, -1), _order_side(tokens, index, 1)
        if left and right:
            found.add((right, left) if token.text == "after" else (left, right))
    return frozenset(found)


def denies_a_fix(tokens: list[Token]) -> bool:
    """Whether the text says a problem persists after a remedy ("failures persist after
    restarting"), which denies that the remedy fixes it."""
    return any(
        token.text in PERSISTENCE_CUES
        and PERSISTENCE_RELEASERS.intersection(_clause_of(tokens, index)[len(_clause_before(tokens, index)) :])
        for index, token in enumerate(tokens)
    )


def _opens_circumstance(tokens: list[Token], index: int) -> bool:
    """Whether ``tokens[index]`` opens a condition: a condition word, or "without" opening its
    clause ("without /dev/dri, it transcodes in software" = "when /dev/dri is missing, ...")."""
    text = tokens[index].text
    if text in CONDITIONS:
        return text != "unless"
    return text in CIRCUMSTANTIAL_OPENERS and (index == 0 or tokens[index - 1].kind == "punct")


def condition_positions(tokens: list[Token]) -> set[int]:
    """Positions inside a condition clause ("if no traffic flows", "when the upstream is
    unreachable", a fronted "without X,"): from the condition word to the end of its clause.
    What is negated there describes the circumstances, not the claim."""
    positions: set[int] = set()
    for index in range(len(tokens)):
        if _opens_circumstance(tokens, index):
            end = index
            while end < len(tokens) and tokens[end].kind != "punct":
                end += 1
            positions.update(range(index, end))
    return positions
