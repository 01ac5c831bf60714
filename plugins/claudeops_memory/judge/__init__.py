"""Default memory relation judge: how does a new observation relate to an existing memory?

The memory plugin asks this every time an agent session stores an operational memory about a
service, and the answer decides whether the store reinforces an old fact, flags a contradiction,
or keeps both facts side by side.  It runs in every session and in tests, so it is pure,
deterministic, offline and fast (a fraction of a millisecond per pair): no models, no network,
only the standard library and ``rapidfuzz``.  Better judges (an LLM) plug in ahead of it through
the ``judge_memory_relation`` hook.

It has to work on sentences it has never seen, so it reads shallow linguistic *features* and
never looks for particular sentences.  One module per step, in reading order:

* ``tokens`` - lower-casing, contractions, symbols and times of day ("3am" / "03:00"), split into
  words, numbers and clause punctuation;
* ``concepts`` - stop words, light stemming, operations synonyms (boot/start, db/database,
  clear/fix, crash/fail, healthy/health ...) and how much sharing a concept weighs;
* ``numbers`` - number words ("two", "twenty five", "a minute", "half an hour") and units ("60s" /
  "60 sec", "95%" / "95 percent", "500GB" / "500 GB");
* ``quantities`` - amounts as intervals in base units, with comparators ("within", "more than",
  "no earlier than", "about") and frequencies ("weekly" / "every week"), and whether the amounts of
  two texts agree, conflict or do not line up (compared only when the words around them match);
* ``polarity`` - clause-bounded negation scopes ("fails to", "instead of", double negation and
  "do not ... before" prohibitions handled), modality (must / needs / requires vs. independently /
  without / enough / no ... needed) and orderings (A before B);
* ``analyse`` - one text's features, computed once and cached per text;
* ``spellings`` - which terms may be one word spelled two ways, indexed once per term;
* ``overlap`` - topical overlap: a weighted Dice coefficient over content concepts, generic
  home-lab words counting half, with fuzzy matching for morphology the stemmer misses;
* ``conflicts`` - a concept asserted in one text and negated in the other (``un-`` prefixes
  included), opposite modality, antonyms (enabled/disabled, automatic/manual ...) and reversed
  orderings;
* ``decide`` - the thresholds that turn overlap, conflicts and amounts into a relation;
* ``certainty`` - how sure each rule is, so the store acts only on sure calls and an unsure one
  becomes ``distinct``, flagged for review (the judge is a fallback: it must do no harm);
* ``prefilter`` - exact short cuts past the costly steps (the fuzzy pass, the alignment) where
  cheap facts already prove their result;
* ``reading`` - what settling a far-apart pair needs from one text, read once per text and service;
* ``term_index`` - every text read so far filed under its terms, so a new text finds the few
  memories it touches at all;
* ``group`` - one new text against a whole group of memories: untouched memories answered at
  once, far-apart pairs settled from the readings without running the rules (the store's entry point).
"""

from __future__ import annotations

from .analyse import features
from .certainty import DEFAULT_MIN_CERTAINTY
from .concepts import concept
from .decide import Judgement, Relation, judge_pair, judge_relation
from .group import judge_group

__all__ = ["DEFAULT_MIN_CERTAINTY", "Judgement", "Relation", "concept", "features", "judge_group", "judge_pair",
           "judge_relation"]
