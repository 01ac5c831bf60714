"""Logging to stderr, as text for people or as JSON lines for log shippers.

Cron mails whatever a job prints, so stdout stays for results and everything diagnostic goes
to stderr, one line per record.
"""

from __future__ import annotations

import json
import logging
import sys

from claudeops.clock import now_timestamp
from claudeops.plugins import DEFAULT_PLUGINS

LOG_LEVELS = ("debug", "info", "warning", "error")
LOG_FORMATS = ("text", "json")
LOGGED_PACKAGES = tuple(dict.fromkeys(name.split(".")[0] for name in DEFAULT_PLUGINS))
"""The top-level packages of the built-in plugins (the core among them), whose loggers ``log_level`` sets."""


class JsonFormatter(logging.Formatter):
    """One JSON object per record: time, level, logger, message (and the exception, if any)."""

    def format(self, record: logging.LogRecord) -> str:
        payload = {
            "time": now_timestamp(),
            "level": record.levelname.lower(),
            "logger": record.name,
            "message": record.getMessage(),
        }
        if record.exc_info:
            payload["exception"] = self.formatException(record.exc_info)
        return json.dumps(payload, ensure_ascii=False)


def configure_logging(level: str = "warning", fmt: str = "text") -> None:
    """Send the ``claudeops*`` loggers to stderr at ``level`` in ``fmt`` (text or json)."""
    if level not in LOG_LEVELS:
        raise ValueError(f"log level must be one of {', '.join(LOG_LEVELS)}, not {level!r}")
    if fmt not in LOG_FORMATS:
        raise ValueError(f"log format must be {' or '.join(LOG_FORMATS)}, not {fmt!r}")
    handler = logging.StreamHandler(sys.stderr)
    text_format = logging.Formatter("claudeops: %(levelname)s: %(message)s")
    handler.setFormatter(JsonFormatter() if fmt == "json" else text_format)
    root = logging.getLogger()
    for existing in list(root.handlers):
        if getattr(existing, "_claudeops", False):
            root.removeHandler(existing)
    handler._claudeops = True  # type: ignore[attr-defined]
    root.addHandler(handler)
    root.setLevel(logging.WARNING)
    for name in LOGGED_PACKAGES:
        logging.getLogger(name).setLevel(level.upper())
