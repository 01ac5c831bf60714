"""How sure the offline judge is of a call: one number per rule, from the evidence that rule used.

The judge is a fallback for markers that cite no memory, and its mistakes are not equal: a wrong
``reinforce`` drops the new fact and strengthens the one it refutes, a wrong ``contradict`` erodes
a true memory, a wrong ``distinct`` only adds a duplicate the operator can merge.  So the store
acts on a ``reinforce`` or ``contradict`` only when the judge is sure (``memory.judge_min_certainty``,
default :data:`DEFAULT_MIN_CERTAINTY`), and treats anything less as ``distinct``, flagged for review.

These rules add no vocabulary and no pair-specific conditions; they only say how much each kind of
evidence the judge already reads can be trusted:

* a reinforcement is as sure as the texts' topical overlap: content one text has and the other
  lacks is where a difference the judge cannot read ("survives a restart" / "is fixed by a
  restart") would hide;
* a reinforcement whose amounts do not line up (a time of day against a duration, a period
  against no amount) is at most half sure: the judge cannot check the part that most often differs;
  so is one where only one text denies something that no conflict rule explained ("fixes the
  blank list" / "has no effect on the blank list"): which claim the denial turns around is what a
  word list misreads; and so is one where only one text says when its claim holds and the texts
  differ in more than that (a requirement in one only, or a term each lacks): whether the other
  claim holds under that condition or against it ("survive a broker restart" / "are lost when the
  broker restarts") is what a word list misreads too;
* a contradiction the judge reads from structure — different amounts of one measured thing, a
  requirement against a dispensability, a reversed order, an antonym pair, a different value
  (a path, an address, a number) in a one-value slot — is :data:`STRUCTURAL`;
* a contradiction read from a negation alone is as sure as the overlap, and half that when both
  texts deny something (then which denial is the claim is exactly what a word list misreads), as
  is a different *word* in a one-value slot;
* a ``distinct`` is :data:`STRUCTURAL` when a rule found two things or two events, else the share
  of content the texts do not have in common.
"""

from __future__ import annotations

STRUCTURAL = 0.9
"""Certainty of a call read from the structure of both statements (amounts, modality, order,
antonyms, one-value slots) rather than from how much of their wording is shared."""
DEFAULT_MIN_CERTAINTY = 0.85
"""Below this the store treats a call as ``distinct`` and flags it for review.  Chosen on the
calibration block (tests/data/memory-relations-calibration.jsonl): from 0.85 up the judge made
no wrong ``reinforce`` there (0.8 let one through, overlap 0.80), and the dev set keeps 27/30;
docs/memory.md has the figures of every block."""
HALVED = 0.5
"""Factor for evidence the judge knows it reads poorly (unmatched amounts, denials on both sides)."""


def reinforce_certainty(overlap: float, poorly_read: bool) -> float:
    """A conflict-free pair judged the same fact: as sure as its overlap, halved when part of it is
    read poorly (amounts that differ in kind, a denial in one text only, a condition in one text
    only)."""
    return overlap * HALVED if poorly_read else overlap


def negation_certainty(overlap: float, both_deny: bool) -> float:
    """A contradiction read from a negation alone: the overlap, halved when both texts deny something."""
    return overlap * HALVED if both_deny else overlap


def slot_certainty(overlap: float, values_swapped: bool) -> float:
    """A different thing in a one-value slot: structural for values, the overlap for words."""
    return STRUCTURAL if values_swapped else overlap


def distinct_certainty(overlap: float) -> float:
    """Too little in common to be one fact: sure in proportion to what is not shared."""
    return 1.0 - overlap
