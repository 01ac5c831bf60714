"""The sessions part of the JSON API (mounted under ``/api/v1``; plugins add their own parts)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated, Any

from litestar import get
from litestar.exceptions import NotFoundException, ValidationException
from litestar.params import FromPath, QueryParameter

from claudeops import SESSION_STATUSES as STATUSES
from claudeops import count_sessions, db, get_session_dict, session_dicts
from claudeops_web import session_queries
from claudeops_web.pagination import ApiLimit, ApiOffset, OffsetPagination


@dataclass(frozen=True)
class SessionOut:
    """A session as the API returns it; ``chain`` lists the escalation chain's session ids."""

    id: int
    tier: int
    model: str
    trigger: str
    status: str
    started_at: str
    ended_at: str | None
    duration_ms: int | None
    duration_api_ms: int | None
    cost_usd: float | None
    num_turns: int | None
    result: str | None
    error: str | None
    parent_session_id: int | None
    runner: str | None
    chain: list[int]


def _session_out(row: dict[str, Any], chain: list[session_queries.ChainLink]) -> SessionOut:
    return SessionOut(row["id"], row["tier"], row["model"], row["trigger"], row["status"], row["started_at"],
                      row["ended_at"], row["elapsed_ms"], row["duration_api_ms"], row["cost_usd"], row["num_turns"],
                      row["result"], row["error"], row["parent_session_id"], row["runner"], [link.id for link in chain])


@get("/sessions", sync_to_thread=True, tags=["sessions"])
def list_sessions(status: Annotated[str | None, QueryParameter(schema_extra={"enum": list(STATUSES)})] = None,
                  limit: ApiLimit = 50, offset: ApiOffset = 0) -> OffsetPagination[SessionOut]:
    """Sessions, newest first, optionally only those with ``status``."""
    if status is not None and status not in STATUSES:
        raise ValidationException(f"unknown status {status!r}; use one of {', '.join(STATUSES)}")
    with db.connection_context():
        rows = session_dicts(status=status, limit=limit, offset=offset)
        chains = session_queries.escalation_chains(rows)
        total = count_sessions(status)
    return OffsetPagination(items=[_session_out(row, chains[row["id"]]) for row in rows], total=total, limit=limit,
                            offset=offset)


@get("/sessions/{session_id:int}", sync_to_thread=True, tags=["sessions"], raises=[NotFoundException])
def get_session(session_id: FromPath[int]) -> SessionOut:
    """One session by id."""
    with db.connection_context():
        row = get_session_dict(session_id)
        if row is None:
            raise NotFoundException(f"there is no session #{session_id}")
        chain = session_queries.escalation_chains([row])[session_id]
    return _session_out(row, chain)
