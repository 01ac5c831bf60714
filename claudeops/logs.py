"""Logging to stderr, as text for people or as JSON lines for log shippers.

Cron mails whatever a job prints, so stdout stays for results and everything diagnostic goes
to stderr, one line per record. With JSON logs that includes the one line per problem that
cron mails (:func:`report_problem`), so a log shipper reading stderr never meets plain text.

Nothing written there carries a secret: the handler redacts every formatted record (message,
exception and all, :mod:`claudeops.redaction`), whichever plugin logged it, and so does
:func:`report_problem`. Redaction keeps a JSON line valid JSON.
"""

from __future__ import annotations

import json
import logging
import sys
from collections.abc import Iterable
from typing import TextIO

import click

from claudeops.clock import now_timestamp
from claudeops.config import LOG_FORMATS, LOG_LEVELS
from claudeops.redaction import may_hold_secret, redact, secret_literals
from claudeops.wording import one_line

CORE_PACKAGE = "claudeops"

SDK_LOGGER = "claude_agent_sdk"
"""The SDK logs the failures the runner already reports as a session's one-line reason (``Fatal
error in message reader: …`` and the CLI's stderr note): from cron that mails one problem three
times, so its records show only when ``log_level`` is info or debug."""

log = logging.getLogger("claudeops")


SESSION_FIELDS = ("session_id", "tier", "status")
"""Fields a record about a session carries (``extra=``), so a log shipper can filter on them
instead of parsing the message; :func:`session_fields` builds them."""


def session_fields(session_id: int, tier: int, status: str | None = None) -> dict[str, object]:
    """The ``extra`` of a record about one session."""
    fields: dict[str, object] = {"session_id": session_id, "tier": tier}
    if status is not None:
        fields["status"] = status
    return fields


class JsonFormatter(logging.Formatter):
    """One JSON object per record: time, level, logger, message, a session's fields when the record
    is about one, and the exception, if any."""

    def format(self, record: logging.LogRecord) -> str:
        payload = {
            "time": now_timestamp(),
            "level": record.levelname.lower(),
            "logger": record.name,
            "message": record.getMessage(),
        }
        payload.update({name: value for name in SESSION_FIELDS if (value := getattr(record, name, None)) is not None})
        if record.exc_info:
            payload["exception"] = self.formatException(record.exc_info)
        return json.dumps(payload, ensure_ascii=False)


class StderrHandler(logging.StreamHandler[TextIO]):
    """Writes to whatever ``sys.stderr`` is when a record is emitted, like logging's own ``_StderrHandler``,
    with every secret redacted.

    rich's live progress line swaps ``sys.stderr`` for a proxy that prints above the line; a
    handler holding the stream it was created with would write straight through it and garble
    the display. Redacting the formatted line, rather than the record, catches the exception
    text too and leaves the record as it was for any other handler.
    """

    def __init__(self, literals: tuple[str, ...] = ()) -> None:
        logging.Handler.__init__(self)  # not StreamHandler's: it would assign the stream this class looks up
        self.literals = literals

    def format(self, record: logging.LogRecord) -> str:
        text = super().format(record)
        return redact(text, self.literals) if may_hold_secret(text, self.literals) else text

    # Read-only on purpose, where StreamHandler's is a plain attribute: nothing may pin another stream.
    @property
    def stream(self) -> TextIO:  # type: ignore[override]
        return sys.stderr


def configure_logging(level: str = "warning", fmt: str = "text", packages: Iterable[str] = ()) -> None:
    """Send the core's loggers and those of ``packages`` to stderr at ``level`` in ``fmt`` (text or json).

    ``packages`` are the top-level packages of the loaded plugins (:meth:`claudeops.app.App.logged_packages`),
    third parties included, so ``--log-level debug`` reaches a plugin's own ``logging.getLogger(__name__)``.
    """
    if level not in LOG_LEVELS:
        raise ValueError(f"log level must be one of {', '.join(LOG_LEVELS)}, not {level!r}")
    if fmt not in LOG_FORMATS:
        raise ValueError(f"log format must be {' or '.join(LOG_FORMATS)}, not {fmt!r}")
    handler = StderrHandler(secret_literals())
    text_format = logging.Formatter("claudeops: %(levelname)s: %(message)s")
    handler.setFormatter(JsonFormatter() if fmt == "json" else text_format)
    root = logging.getLogger()
    if (existing := _installed_handler()) is not None:
        root.removeHandler(existing)
    root.addHandler(handler)
    root.setLevel(logging.WARNING)
    for name in dict.fromkeys((CORE_PACKAGE, *packages)):
        logging.getLogger(name).setLevel(level.upper())
    logging.getLogger(SDK_LOGGER).setLevel(level.upper() if level in ("debug", "info") else logging.CRITICAL)


def json_logging() -> bool:
    """Whether :func:`configure_logging` set up JSON lines (callers then keep plain text off stderr)."""
    handler = _installed_handler()
    return handler is not None and isinstance(handler.formatter, JsonFormatter)


def report_problem(message: str, text_prefix: str = "claudeops: ", fields: dict[str, object] | None = None) -> None:
    """The one line cron mails for a problem: plain ``text_prefix + message``, or an error record with JSON logs.

    The plain line carries no log level, which is what cron mail and existing scripts read, so
    it is written directly rather than through the text formatter, redacted here as the handler
    redacts records. ``fields`` (see :func:`session_fields`) go into the JSON record.
    """
    message = one_line(message)
    if json_logging():  # the handler redacts
        log.error("%s", message, extra=fields)
    else:
        click.echo(f"{text_prefix}{redact(message, secret_literals())}", err=True)


def _installed_handler() -> StderrHandler | None:
    """The handler :func:`configure_logging` installed: it is the one :class:`StderrHandler` on the root logger."""
    return next((handler for handler in logging.getLogger().handlers if isinstance(handler, StderrHandler)), None)
