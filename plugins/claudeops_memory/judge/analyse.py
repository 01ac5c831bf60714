"""One text -> its features: everything the pair comparison needs, computed once per text.

The store compares one new memory with every active memory of the same service and category, so
the same text is analysed over and over; ``features`` reads it once (tokens, amounts, concepts,
polarity) and caches the result, and the pair comparison only combines two finished readings.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from functools import lru_cache

from .concepts import STOP_WORDS, concept, content_term, word_concepts
from .numbers import spell_numbers
from .polarity import (
    Ordering,
    condition_positions,
    denies_a_fix,
    is_conditional,
    modality,
    negated_positions,
    orderings,
)
from .quantities import Quantity, extract_quantities
from .tokens import Token, raw_tokens, words

CONTEXT_WINDOW = 2
"""Content words on each side of a value that say what the value measures."""

CODE_TERM_PREFIX = "#"
"""Bare numbers (status codes, ports, versions) are topic terms like "#503", never words."""
FIX = concept("fix")
"""The concept a persisting problem denies ("stalls persist after a restart": it does not fix them)."""
RETAIN = concept("retain")
"""The concept a removal after a delay states ("emptied after 30 days": kept for 30 days)."""
REMOVAL_WORDS: frozenset[str] = words("empty emptied empties delete deleted deletes purge purged purges expire expired"
                                      " expires remove removed removes wipe wiped wipes")
"""Verbs that, followed by "after" and a duration, state how long something is kept."""
AMOUNT_TERM_PREFIX = "<"
"""An amount stands in a text's term sequence as "<time", "<size" ...: a place, not a topic."""


def code_term(value: float) -> str:
    """The topic term of a bare number, so "returns 503" and "not 503" name the same term."""
    return f"{CODE_TERM_PREFIX}{value:g}"


@dataclass(frozen=True, slots=True)
class Features:
    """Everything the pair comparison needs from one text, computed once per text: the content
    concepts it asserts and denies, its amounts (with bare numbers as exact "code" amounts), the
    sign of its requirement statement, its ordering claims, whether "unless" inverts it, the
    terms it uses inside condition clauses (which describe circumstances, not claims), and its
    terms in reading order (for aligning two statements of the same frame, see ``frames``)."""

    asserted: frozenset[str]
    negated: frozenset[str]
    quantities: tuple[Quantity, ...]
    modality: int
    orderings: frozenset[Ordering]
    conditional: bool
    conditioned: frozenset[str]
    sequence: tuple[str, ...]


def _context(tokens: list[Token], index: int) -> frozenset[str]:
    """Concepts of the content words nearest to ``tokens[index]`` on each side."""
    found: set[str] = set()
    for step in (-1, 1):
        position, taken = index + step, 0
        while 0 <= position < len(tokens) and taken < CONTEXT_WINDOW:
            term = content_term(tokens[position])
            if term is not None:
                found.add(term)
                taken += 1
            position += step
    return frozenset(found)


def _concepts(tokens: list[Token], negated: set[int]) -> tuple[set[str], set[str], list[Quantity]]:
    """Content concepts split into asserted and negated, plus asserted bare numbers (status
    codes, ports, versions) as exact "code" quantities, compared by identity."""
    asserted: set[str] = set()
    denied: set[str] = set()
    codes: list[Quantity] = []
    for index, token in enumerate(tokens):
        if token.kind == "number":
            terms = {code_term(token.value)}
            if index not in negated and token.text[0].isdigit():
                codes.append(Quantity("code", token.value, token.value, context=_context(tokens, index)))
        elif token.kind == "word" and token.text not in STOP_WORDS:
            terms = word_concepts(token.text)
        elif token.kind == "literal":
            terms = {token.text}
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


def _terms_at(tokens: list[Token], positions: set[int]) -> frozenset[str]:
    """The content terms of the tokens at ``positions``."""
    return frozenset(term for index in positions if (term := content_term(tokens[index])) is not None)


def _sequence(tokens: list[Token], quantities: list[Quantity], retention: set[int]) -> tuple[str, ...]:
    """The text's terms in reading order: content concepts, literals, bare numbers as code terms
    and amounts as "<dimension" places, so two statements of one frame can be aligned; a removal
    after a delay stands as the retention it states."""
    sequence: list[str] = []
    for index, token in enumerate(tokens):
        if index in retention:
            sequence.append(RETAIN)
        elif token.kind == "quantity":
            sequence.append(f"{AMOUNT_TERM_PREFIX}{quantities[int(token.value)].dimension}")
        elif token.kind == "number":
            sequence.append(code_term(token.value))
        else:
            term = content_term(token)
            if term is not None:
                sequence.append(term)
    return tuple(sequence)


def _retention_positions(tokens: list[Token], quantities: list[Quantity]) -> set[int]:
    """Removal verbs that say how long something is kept by saying when it goes: "trash is
    emptied after 30 days" is "deleted files stay in the trash for 30 days"."""
    return {
        index
        for index, token in enumerate(tokens)
        if token.text in REMOVAL_WORDS
        and index + 2 < len(tokens)
        and tokens[index + 1].text == "after"
        and tokens[index + 2].kind == "quantity"
        and quantities[int(tokens[index + 2].value)].dimension == "time"
    }


@lru_cache(maxsize=4096)
def features(text: str) -> Features:
    """Analyse one text.  Cached because the store compares one new text with many memories."""
    tokens, quantities = extract_quantities(spell_numbers(raw_tokens(text)))
    negated = negated_positions(tokens)
    asserted, denied, codes = _concepts(tokens, negated)
    if denies_a_fix(tokens):
        denied.add(FIX)
    retention = _retention_positions(tokens, quantities)
    if retention:
        asserted.add(RETAIN)
    return Features(
        asserted=frozenset(asserted - denied),
        negated=frozenset(denied),
        quantities=(*_with_context(tokens, quantities), *codes),
        modality=modality(tokens, negated),
        orderings=orderings(tokens),
        conditional=is_conditional(tokens),
        conditioned=_terms_at(tokens, condition_positions(tokens)),
        sequence=_sequence(tokens, quantities, retention),
    )
