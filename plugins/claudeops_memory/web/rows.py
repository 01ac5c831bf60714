"""The memories table's rows, each rendered once for what it shows and reused while that stays the same.

Rendering fifty rows through the row macro and working out fifty decay outlooks was most of what a
page cost once its rows were read (about 3 ms of 4–6). Between two polls a row rarely changes: a
marker reinforces one memory, a session records events that change none. So each row's HTML is
kept under everything it is rendered from — the template environment (the templates and the
inventory behind ``service_ref``), the memory's whole record, its injection status, the threshold,
its flag, its decay line, whether it is highlighted and its relative time ("5 min ago", computed
here and handed to the macro) — and the macro's output depends on nothing else. Each decay line is
kept under the record, its decay ledger entry, the policy and the current ``web.poll_seconds``
slice of the clock (the line names "now": like the table, never older than one poll interval).
A change to any of them is a different key: nothing needs invalidating, and the caches are
bounded (the least recently used entries go first).
"""

from __future__ import annotations

import threading
import weakref
from collections import OrderedDict
from collections.abc import Callable, Hashable, Mapping, Sequence
from typing import Any, Generic, TypeVar

from claudeops_web.templating import format_ago
from jinja2 import Environment
from markupsafe import Markup

from claudeops import now_timestamp
from claudeops_memory.decay import decay_ledger, outlook_lines
from claudeops_memory.decay_policy import DecayPolicy
from claudeops_memory.repository import MemoryRecord

ROW_TEMPLATE = "memories/partials/row.html"
MAX_ENTRIES = 2048
"""Rows kept per dashboard (and decay lines per process): a few pages under a few filters, each in its few
states."""

V = TypeVar("V")


class KeptByInputs(Generic[V]):
    """Values kept under everything they are computed from (the key), least recently used out first."""

    def __init__(self, capacity: int = MAX_ENTRIES) -> None:
        self._capacity = capacity
        self._lock = threading.Lock()
        self._kept: OrderedDict[Hashable, V] = OrderedDict()

    def get(self, key: Hashable) -> V | None:
        with self._lock:
            value = self._kept.get(key)
            if value is not None:
                self._kept.move_to_end(key)
            return value

    def put(self, key: Hashable, value: V) -> None:
        with self._lock:
            self._kept[key] = value
            if len(self._kept) > self._capacity:
                self._kept.popitem(last=False)


_rows_lock = threading.Lock()
_rows: weakref.WeakKeyDictionary[Environment, KeptByInputs[Markup]] = weakref.WeakKeyDictionary()
"""The rows of each dashboard's template environment, gone with it (tests build many dashboards)."""
_lines: KeptByInputs[str] = KeptByInputs()


def _rows_of(environment: Environment) -> KeptByInputs[Markup]:
    with _rows_lock:
        kept = _rows.get(environment)
        if kept is None:
            kept = _rows[environment] = KeptByInputs()
        return kept


def rendered_rows(environment: Environment, memories: Sequence[MemoryRecord], statuses: Mapping[int, str],
                  flags: Mapping[int, str], decay: Mapping[int, str], min_confidence: float,
                  added: int | None) -> list[Markup]:
    """Each memory's ``<tr>``, as the row macro renders it, from the kept rows where one was rendered the same."""
    macro: Callable[..., Any] | None = None
    kept = _rows_of(environment)
    rows = []
    for memory in memories:
        arguments = (memory, statuses.get(memory.id, "inactive"), min_confidence, memory.id == added,
                     flags.get(memory.id), decay.get(memory.id), format_ago(memory.updated_at))
        html = kept.get(arguments)
        if html is None:
            if macro is None:
                macro = environment.get_template(ROW_TEMPLATE).module.memory_row  # type: ignore[attr-defined]
            shown, status, threshold, highlighted, flag, decay_line, ago = arguments
            html = Markup(macro(shown, status, threshold, added=highlighted, flag=flag, decay=decay_line, ago=ago))
            kept.put(arguments, html)
        rows.append(html)
    return rows


def decay_lines(memories: Sequence[MemoryRecord], policy: DecayPolicy, bucket: int) -> dict[int, str]:
    """Each memory's decay outlook line (:func:`~claudeops_memory.decay.outlook_lines`), from the kept lines
    where the memory, its ledger entry and the policy are the same within the clock's ``bucket``."""
    ledger = decay_ledger(memory.id for memory in memories)
    fingerprint = policy.fingerprint
    keys = {memory.id: (memory, ledger.get(memory.id), fingerprint, bucket) for memory in memories}
    lines: dict[int, str] = {}
    for memory in memories:
        line = _lines.get(keys[memory.id])
        if line is not None:
            lines[memory.id] = line
    missing = [memory for memory in memories if memory.id not in lines]
    if missing:
        for memory_id, line in outlook_lines(missing, policy, now_timestamp(), ledger).items():
            _lines.put(keys[memory_id], line)
            lines[memory_id] = line
    return lines
