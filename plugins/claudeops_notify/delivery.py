"""Sending one message to its targets with Apprise: retries with back-off, and a hard time bound.

What it promises, and how:

* **Bounded.** Everything :func:`deliver` does ends by ``deadline`` (a ``time.monotonic()``
  value): each attempt is one ``Apprise.notify`` call whose ``timeout`` is the smaller of
  ``notify.timeout_seconds`` and the time left, and each target's sockets time out after the
  same, so a receiver that accepts and never answers costs at most that; a back-off pause never
  runs past the deadline. Apprise returns at its timeout even while a request is still stuck;
  that request's thread ends when its socket times out, at most ``timeout_seconds`` later.
* **Retried.** A target that failed is tried again after 1 s, 2 s, 4 s … (``notify.retries``
  times), only the targets that failed, all of a round's targets in parallel (Apprise's own
  threads).
* **Quiet.** Apprise's log records name hosts, paths and tokens: they never reach the
  process's logging (``propagate`` off); what a failure says comes from them through
  :func:`~claudeops_notify.targets.scrub`, one line per target.

Apprise is imported here, when something is to be sent: loading its 180 service plugins takes
about half a second, which no other command should pay.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from claudeops import one_line
from claudeops_notify.targets import Target, scrub, secret_parts

log = logging.getLogger(__name__)

BACKOFF_SECONDS = 1.0
"""The pause before the first retry; it doubles for each retry after that."""
SENT, PARTIAL, FAILED = "sent", "partial", "failed"
NOTIFY_TYPES = {"info": "info", "warning": "warning", "critical": "failure", "resolved": "success"}
"""A message's level → Apprise's notification type (which sets the icon or colour where a service has one)."""
MAX_DETAIL = 200


@dataclass(frozen=True)
class Message:
    """What to send: a title and a Markdown body, both already redacted, and a level (:data:`NOTIFY_TYPES`)."""

    title: str
    body: str
    level: str = "info"


@dataclass
class TargetResult:
    """How one target fared: delivered or not, after how many attempts, and why not (scrubbed)."""

    target: Target
    ok: bool = False
    attempts: int = 0
    detail: str = ""

    def describe(self) -> str:
        tries = f"{self.attempts} attempt{'s' if self.attempts != 1 else ''}"
        return f"{self.target.label}: sent" if self.ok else f"{self.target.label}: failed after {tries}: {self.detail}"


@dataclass
class Delivery:
    """The outcome of one message: ``sent`` (every target), ``partial`` or ``failed``, and per target."""

    results: list[TargetResult] = field(default_factory=list)

    @property
    def outcome(self) -> str:
        delivered = sum(result.ok for result in self.results)
        if delivered == len(self.results):
            return SENT
        return PARTIAL if delivered else FAILED

    @property
    def attempts(self) -> int:
        return max((result.attempts for result in self.results), default=0)

    @property
    def reason(self) -> str | None:
        """The failed targets, one phrase each (``None`` when every target got it)."""
        failed = [result.describe() for result in self.results if not result.ok]
        return "; ".join(failed) or None


def deliver(targets: list[Target], message: Message, *, timeout: float, retries: int, deadline: float) -> Delivery:
    """Send ``message`` to every target, retrying the ones that fail, all before ``deadline``."""
    delivery = Delivery([TargetResult(target) for target in targets])
    parts = secret_parts(targets)
    pending = {result.target.index: result for result in delivery.results}
    for attempt in range(retries + 1):
        left = deadline - time.monotonic()
        if not pending or left <= 0:
            break
        if attempt:
            pause = min(BACKOFF_SECONDS * 2 ** (attempt - 1), left)
            time.sleep(pause)
            left = deadline - time.monotonic()
            if left <= 0:
                break
        for index, (ok, detail, final) in _attempt(list(pending.values()), message, min(timeout, left)).items():
            result = pending[index]
            result.attempts += 1
            result.ok, result.detail = ok, one_line(scrub(detail, parts))[:MAX_DETAIL]
            if ok or final:
                del pending[index]
    for result in pending.values():
        if not result.attempts:
            result.detail = "not tried: no time left (notify.max_seconds)"
    for result in delivery.results:
        if not result.ok:
            log.warning("notification %r not delivered: %s", message.title, result.describe())
    return delivery


def _attempt(results: Iterable[TargetResult], message: Message, timeout: float) -> dict[int, tuple[bool, str, bool]]:
    """One round: every given target in one Apprise call; ``index → (ok, detail, final)``.

    ``final`` marks a failure no retry can fix (a URL Apprise does not know).
    """
    apprise = _apprise()
    asset = apprise.AppriseAsset(service_timeout=timeout)
    sender = apprise.Apprise(asset=asset)
    outcome: dict[int, tuple[bool, str, bool]] = {}
    tags = {}
    for result in results:
        tag = f"claudeops-target-{result.target.index}"
        server = apprise.Apprise.instantiate(result.target.url, asset=asset, tag=tag)
        if server is None:
            outcome[result.target.index] = (False, "not a URL Apprise knows (check the scheme and its fields)", True)
            continue
        server.socket_connect_timeout = server.socket_read_timeout = timeout
        sender.add(server)
        tags[tag] = result.target.index
    if not tags:
        return outcome
    answer = sender.notify(body=message.body, title=message.title, body_format="markdown",
                           notify_type=NOTIFY_TYPES.get(message.level, "info"), tag=list(tags),
                           match_always=False, timeout=timeout)
    seen = set()
    for service in answer:
        index = next((tags[tag] for tag in service.tag if tag in tags), None)
        if index is None:
            continue
        seen.add(index)
        outcome[index] = (bool(service), "" if bool(service) else _why(service, timeout), False)
    for tag, index in tags.items():
        if index not in seen:  # Apprise reports no result for it: count it as not delivered
            outcome[index] = (False, f"no answer from Apprise for {tag}", False)
    return outcome


def _why(service: Any, timeout: float) -> str:
    """The last warning or error Apprise logged for a failed target (scrubbed by the caller)."""
    status = getattr(service, "status", None)
    if status is not None and getattr(status, "name", "") == "TIMEOUT":
        return f"no answer within {timeout:g} s"
    messages = [entry.message for attempt in getattr(service, "attempts", ()) for entry in attempt.logs
                if str(getattr(entry, "level", "")).upper() in ("WARNING", "ERROR")]
    return messages[-1] if messages else "the service refused or failed without a reason"


def _apprise() -> Any:
    """The ``apprise`` module, its records kept from the process's logging (they name URLs).

    Both the logger of that name and the object Apprise's services log through are silenced:
    they are one object unless the logging registry was rebuilt after Apprise was imported.
    """
    logging.getLogger("apprise").propagate = False  # before the import: importing logs too
    import apprise
    from apprise.logger import logger as services_logger

    services_logger.propagate = False
    return apprise
