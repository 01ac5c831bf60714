"""claudeops: scheduled Claude Agent SDK sessions that watch and repair a home lab.

This module is **the plugin API**: everything a plugin may import from the core, built-in
plugins and third-party plugins alike (``from claudeops import hookimpl, Session``). Any other
``claudeops.*`` module is internal and may be renamed between versions; a test
(``tests/core/test_architecture.py``) reads the imports of every built-in plugin and of the
example plugin and fails on one that reaches past this list. ``docs/plugins.md`` documents each
name. The dashboard host ``claudeops_web`` is the one plugin others may import as well (for its
page-contribution types and helpers).

The hooks themselves are declared in :mod:`claudeops.hookspecs`.
"""

from claudeops.app import App
from claudeops.cli.context import AppState, fail, open_store_or_fail, pass_app, refuse_to_overwrite
from claudeops.clock import Clock, FakeClock, from_timestamp, now_timestamp, to_timestamp, utc_now
from claudeops.config import Config, ConfigError, parse_flag, setting
from claudeops.exit_codes import EXIT_FAILED, EXIT_INTERRUPTED, EXIT_LOCKED, EXIT_OK, EXIT_USAGE
from claudeops.hookspecs import hookimpl
from claudeops.markers import MAX_LINE_CHARS, Marker, MarkerRegistry, MarkerType
from claudeops.notable import LEVELS as EVENT_LEVELS
from claudeops.notable import SERVICE_STATUS_OF_LEVEL, UNKNOWN_STATUS, NotableEvent, ServiceStatus
from claudeops.plugins import PluginError, plugin_failure
from claudeops.redaction import Redaction, redact, redact_secrets
from claudeops.services import MARKER_SERVICE, MAX_SERVICE_LENGTH, canonical_service, service_name, unquoted
from claudeops.session import EscalationRequest, Handoff, JudgedCommand, Outcome, Session
from claudeops.session_rows import STATUSES as SESSION_STATUSES
from claudeops.session_rows import SessionRow, count_sessions, get_session_dict, session_dicts
from claudeops.store import (
    MAX_ROW_ID,
    BaseModel,
    Migration,
    StoreError,
    add_column,
    close_store,
    create_frozen_tables,
    db,
    insert_returning_id,
    is_row_id,
    portable_sql,
    write_patiently,
)
from claudeops.toolgate import simple_commands, without_global_options
from claudeops.version import __version__
from claudeops.wording import counted, one_line

__all__ = [
    "EVENT_LEVELS",
    "EXIT_FAILED",
    "EXIT_INTERRUPTED",
    "EXIT_LOCKED",
    "EXIT_OK",
    "EXIT_USAGE",
    "MARKER_SERVICE",
    "MAX_LINE_CHARS",
    "MAX_ROW_ID",
    "MAX_SERVICE_LENGTH",
    "SERVICE_STATUS_OF_LEVEL",
    "SESSION_STATUSES",
    "UNKNOWN_STATUS",
    "App",
    "AppState",
    "BaseModel",
    "Clock",
    "Config",
    "ConfigError",
    "EscalationRequest",
    "FakeClock",
    "Handoff",
    "JudgedCommand",
    "Marker",
    "MarkerRegistry",
    "MarkerType",
    "Migration",
    "NotableEvent",
    "Outcome",
    "PluginError",
    "Redaction",
    "ServiceStatus",
    "Session",
    "SessionRow",
    "StoreError",
    "__version__",
    "add_column",
    "canonical_service",
    "close_store",
    "count_sessions",
    "counted",
    "create_frozen_tables",
    "db",
    "fail",
    "from_timestamp",
    "get_session_dict",
    "hookimpl",
    "insert_returning_id",
    "is_row_id",
    "now_timestamp",
    "one_line",
    "open_store_or_fail",
    "parse_flag",
    "pass_app",
    "plugin_failure",
    "portable_sql",
    "redact",
    "redact_secrets",
    "refuse_to_overwrite",
    "service_name",
    "session_dicts",
    "setting",
    "simple_commands",
    "to_timestamp",
    "unquoted",
    "utc_now",
    "without_global_options",
    "write_patiently",
]
