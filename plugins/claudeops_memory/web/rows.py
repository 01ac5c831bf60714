"""The memories table's rows, each rendered once for what it shows and reused while that stays the same.

Rendering fifty rows through the row macro was most of what a page cost once its rows were read
(about 3 ms of 4–6). Between two polls a row rarely changes: a marker reinforces one memory, a
session records events that change none. So each rendered row is kept under everything it is
rendered from — the template environment (the templates and the inventory behind ``service_ref``),
the memory's whole record, its injection status, the threshold, its flag, its decay line, whether
it is highlighted and its relative time ("5 min ago", computed here and handed to the macro) —
and the macro's output depends on nothing else. A change to any of them is a different key: the
cache is correct by construction and needs no invalidation; it is bounded (least recently used
rows go first).
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Hashable, Mapping, Sequence
from typing import Any

from claudeops_web.templating import format_ago
from jinja2 import Environment
from markupsafe import Markup

from claudeops_memory.repository import MemoryRecord

ROW_TEMPLATE = "memories/partials/row.html"
MAX_ROWS = 2048
"""Rows kept per process: a few pages under a few filters, each in its few states."""

_lock = threading.Lock()
_kept: OrderedDict[Hashable, Markup] = OrderedDict()


def rendered_rows(environment: Environment, memories: Sequence[MemoryRecord], statuses: Mapping[int, str],
                  flags: Mapping[int, str], decay: Mapping[int, str], min_confidence: float,
                  added: int | None) -> list[Markup]:
    """Each memory's ``<tr>``, as the row macro renders it, from the kept rows where one was rendered the same."""
    macro: Any = None
    rows = []
    for memory in memories:
        arguments = (memory, statuses.get(memory.id, "inactive"), min_confidence, memory.id == added,
                     flags.get(memory.id), decay.get(memory.id), format_ago(memory.updated_at))
        key = (environment, *arguments)
        with _lock:
            html = _kept.get(key)
            if html is not None:
                _kept.move_to_end(key)
        if html is None:
            if macro is None:
                macro = environment.get_template(ROW_TEMPLATE).module.memory_row  # type: ignore[attr-defined]
            shown, status, threshold, highlighted, flag, decay_line, ago = arguments
            html = Markup(macro(shown, status, threshold, added=highlighted, flag=flag, decay=decay_line, ago=ago))
            with _lock:
                _kept[key] = html
                if len(_kept) > MAX_ROWS:
                    _kept.popitem(last=False)
        rows.append(html)
    return rows
