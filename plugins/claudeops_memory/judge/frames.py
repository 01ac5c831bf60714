"""Frames: two texts that make one statement about different things.

"Depends on postgres" / "Depends on redis" share all their words but one, so topical overlap
alone would call them the same fact; yet they put two different things in the same place of one
statement.  Aligning the two texts' term sequences finds such a *substitution*: one stretch where
each text has terms the other lacks, with the rest of the statement (the frame) in common.

Whether both statements can hold depends on the slot.  A service has one port, one health
endpoint, one listen address, one timeout, so a different value there is a contradiction; it can
have many dependencies, many fixes for one symptom, many causes, so a different thing there is a
new, distinct fact.
"""

from __future__ import annotations

from dataclasses import dataclass
from difflib import SequenceMatcher
from math import fsum

from . import prefilter
from .analyse import AMOUNT_TERM_PREFIX, CODE_TERM_PREFIX, Features
from .concepts import GENERIC_WEIGHT, concept, weight
from .overlap import fuzzy_candidates, soft_match_among
from .tokens import words

MAX_SPAN = 3
"""Terms a substituted stretch may have on each side, unless the shared frame has more; a longer
one is a different sentence, not a different object in the same sentence."""
MIN_FRAME_WEIGHT = 1.0
"""Weight of the shared frame: one specific term ("depend") or two generic ones ("restart ... fix")."""

SINGLE_VALUED_SLOTS: frozenset[str] = frozenset(
    concept(word)
    for word in words(
        "port endpoint path url uri address ip hostname domain bind limit cap maximum max"
        " minimum size timeout interval retention version schedule default mtu password owner mode"
        " location directory"
    )
)
"""Attributes a service has one value of at a time: a different value next to one of these words
contradicts ("health endpoint is /health" / "health endpoint is /api/health")."""


@dataclass(frozen=True, slots=True)
class Substitution:
    """The one stretch where two aligned texts differ: each side's terms there, the shared terms
    right around it (which name the slot), and whether it opens both texts (their subject: "the
    NAS takes 4 minutes" / "the router takes 2 minutes" are about two things)."""

    first: tuple[str, ...]
    second: tuple[str, ...]
    neighbours: frozenset[str]
    of_subject: bool


def _is_place(term: str) -> bool:
    """Amount places ("<time") anchor an alignment but never name a substituted thing."""
    return term.startswith(AMOUNT_TERM_PREFIX)


def _novel(own: tuple[str, ...], other: tuple[str, ...]) -> set[str]:
    """Terms of ``own`` that the other text lacks, even spelled differently ("transcoder" is not
    new next to "transcoding").  Only the other text's own unshared terms can be such a spelling:
    "nxdomain" is new next to "domain" when both texts say "domain"."""
    spellings = fuzzy_candidates(term for term in other if term not in own)
    return {
        term for term in own
        if term not in other and not _is_place(term) and soft_match_among(term, spellings) is None
    }


def _substantive(first: set[str], second: set[str]) -> bool:
    """Both stretches name something new, and at least one something specific: two generic words
    ("start" / "run first") are usually rewording."""
    return bool(first and second) and any(weight(term) > GENERIC_WEIGHT for term in first | second)


def _stray(novel: set[str], stretch: tuple[str, ...]) -> bool:
    """Whether a text has a specific new term outside the substituted stretch: then the texts
    differ in more than one place and are not one frame ("retry once before escalating" /
    "one retry fixes them")."""
    return any(weight(term) > GENERIC_WEIGHT for term in novel.difference(stretch))


def _aligned_substitution(first: tuple[str, ...], second: tuple[str, ...]) -> Substitution | None:
    """The substitution between two term sequences, if they are one frame with one thing
    swapped: exactly one differing stretch names new things on both sides (words only one text
    adds, or generic rewording, are not a swap), no specific new term lies outside it, it opens
    both texts or is anchored by a shared word (an amount alone is no anchor: "drops daily and
    reconnects by itself" / "... and comes back automatically"), and the shared frame carries
    weight."""
    opcodes = SequenceMatcher(None, first, second, autojunk=False).get_opcodes()
    frame = [term for tag, i1, i2, _, _ in opcodes if tag == "equal" for term in first[i1:i2] if not _is_place(term)]
    if fsum(weight(term) for term in frame) < MIN_FRAME_WEIGHT:
        return None  # decided before the costly fuzzy spelling checks of ``_novel``: no frame, no swap
    novel_first, novel_second = _novel(first, second), _novel(second, first)
    if not novel_first or not novel_second:
        return None
    found: list[Substitution] = []
    for tag, i1, i2, j1, j2 in opcodes:
        if tag != "equal" and _substantive(novel_first.intersection(first[i1:i2]),
                                           novel_second.intersection(second[j1:j2])):
            around = {*first[max(i1 - 1, 0) : i1], *first[i2 : i2 + 1], *second[max(j1 - 1, 0) : j1],
                      *second[j2 : j2 + 1]}
            found.append(Substitution(first[i1:i2], second[j1:j2], frozenset(around), i1 == j1 == 0))
    if len(found) != 1:
        return None
    swap = found[0]
    if max(len(swap.first), len(swap.second)) > max(MAX_SPAN, len(frame)) or _stray(novel_first, swap.first):
        return None
    anchored = swap.of_subject or not all(_is_place(term) for term in swap.neighbours)
    return swap if anchored and not _stray(novel_second, swap.second) else None


def _is_value(term: str) -> bool:
    """Paths, addresses, file names and bare numbers are values rather than names of things."""
    return term.startswith(CODE_TERM_PREFIX) or not term.replace("_", "").isalnum()


def is_single_valued(substitution: Substitution, first: Features, second: Features) -> bool:
    """Whether the substituted slot holds one value at a time, so the two texts cannot both hold.

    When both texts are requirements it does not, even next to an attribute word: a service can
    need many things, port 53 free and port 3000 free alike.  Otherwise next to an attribute word
    (port, endpoint, timeout ...) it does.  One requirement, or a fix, is not single either: a
    symptom can have many cures.  Otherwise values (a path, an address, a number) are single,
    named things are not."""
    if first.modality > 0 and second.modality > 0:
        return False
    if substitution.neighbours & SINGLE_VALUED_SLOTS:
        return True
    if first.modality > 0 or second.modality > 0 or concept("fix") in substitution.neighbours:
        return False
    return swaps_values(substitution)


def swaps_values(substitution: Substitution) -> bool:
    """Whether every substituted term is a value (a path, an address, a number), not a word."""
    swapped = substitution.first + substitution.second
    return all(_is_value(term) for term in swapped if not _is_place(term))


def _swapped(substitution: Substitution) -> Substitution:
    """The same substitution seen from the other text."""
    return Substitution(substitution.second, substitution.first, substitution.neighbours, substitution.of_subject)


def find_substitution(first: tuple[str, ...], second: tuple[str, ...]) -> Substitution | None:
    """The substitution between two term sequences, whichever text comes first.

    The alignment (``difflib``) depends on the order of its inputs, and a reordered paraphrase
    ("DNS answers resume 5s after a reload" / "after a reload, DNS comes back within 5s") can
    look like a swap one way and not the other.  The relation must not depend on which text is
    the existing memory, so a swap counts only when both alignments find it."""
    if prefilter.ENABLED and prefilter.cannot_swap(first, second, MIN_FRAME_WEIGHT, MAX_SPAN):
        return None
    forward = _aligned_substitution(first, second)
    backward = _aligned_substitution(second, first)
    if forward is None or backward is None:
        return None
    return forward
