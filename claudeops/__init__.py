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
from claudeops.cli.context import (
    LIMIT,
    AppState,
    UsageProblem,
    aligned_rows,
    apply_log_options,
    echo_listing,
    echo_stream,
    fail,
    open_store_or_fail,
    pass_app,
    refuse_to_overwrite,
)
from claudeops.cli.doctor import Check as DoctorCheck
from claudeops.clock import Clock, FakeClock, from_timestamp, now_timestamp, to_timestamp, utc_now
from claudeops.collector import collector_paused
from claudeops.config import Config, ConfigError, parse_flag, setting
from claudeops.data_cache import StampedCache, cached, time_bucket
from claudeops.directives import directive_reason, find_directives
from claudeops.encoding import bytes_problem, text_problem
from claudeops.exit_codes import (
    EXIT_FAILED,
    EXIT_INTERRUPTED,
    EXIT_LOCKED,
    EXIT_NEWER_DATABASE,
    EXIT_OK,
    EXIT_REFUSED,
    EXIT_USAGE,
)
from claudeops.hookspecs import hookimpl
from claudeops.inventory import KINDS as INVENTORY_KINDS
from claudeops.inventory import Inventory, InventoryService
from claudeops.maintenance import Pause, end_pauses, is_paused, pause_service, paused_services, pauses_in_force
from claudeops.markers import MAX_LINE_CHARS, Marker, MarkerRegistry, MarkerType
from claudeops.notable import (
    COOLDOWN_REFUSED,
    EVENT_KINDS,
    FINDING,
    REVIEW_ITEM,
    SERVICE_STATUS_OF_LEVEL,
    SESSION_FAILED,
    SESSION_INTERRUPTED,
    START_REFUSED,
    UNKNOWN_STATUS,
    NotableEvent,
    ServiceStatus,
)
from claudeops.notable import LEVELS as EVENT_LEVELS
from claudeops.ops_dir import OpsDir, OpsDocument, read_ops_dir
from claudeops.plugins import PluginError, plugin_failure
from claudeops.redaction import (
    Redaction,
    add_secret_values,
    mask_secret,
    may_hold_secret,
    redact,
    redact_secrets,
    redact_texts,
)
from claudeops.redaction_ledger import redaction_warning
from claudeops.runner.launch import (
    LaunchError,
    RunBusy,
    RunOrder,
    StartedRun,
    StartRefused,
    StopRefused,
    start_refusal,
    start_run,
    stop_session,
)
from claudeops.runner.lock import lock_holder
from claudeops.services import MARKER_SERVICE, MAX_SERVICE_LENGTH, canonical_service, service_name, unquoted
from claudeops.session import (
    EscalationRequest,
    Handoff,
    JudgedCommand,
    Outcome,
    Run,
    RunOutcome,
    Session,
    SessionDetail,
)
from claudeops.session_rows import STATUSES as SESSION_STATUSES
from claudeops.session_rows import SessionRow, count_sessions, get_session_dict, session_dicts, spend_since
from claudeops.store import (
    MAX_ROW_ID,
    BaseModel,
    Migration,
    StoreError,
    add_column,
    close_store,
    create_frozen_tables,
    data_stamp,
    db,
    insert_returning_id,
    is_locked,
    is_row_id,
    portable_sql,
    redact_columns,
    storage_problem,
    write_patiently,
)
from claudeops.token_estimate import CHARS_PER_TOKEN, estimate_tokens, estimate_tokens_of
from claudeops.toolgate import (
    WRITING_TOOLS,
    ComputedWord,
    ShellCommand,
    command_refusal,
    shell_commands,
    simple_commands,
    without_global_options,
)
from claudeops.version import __version__
from claudeops.windows import MaintenanceWindow, parse_duration, parse_window
from claudeops.wording import counted, one_line

__all__ = [
    "CHARS_PER_TOKEN",
    "COOLDOWN_REFUSED",
    "EVENT_KINDS",
    "EVENT_LEVELS",
    "EXIT_FAILED",
    "EXIT_INTERRUPTED",
    "EXIT_LOCKED",
    "EXIT_NEWER_DATABASE",
    "EXIT_OK",
    "EXIT_REFUSED",
    "EXIT_USAGE",
    "FINDING",
    "INVENTORY_KINDS",
    "LIMIT",
    "MARKER_SERVICE",
    "MAX_LINE_CHARS",
    "MAX_ROW_ID",
    "MAX_SERVICE_LENGTH",
    "REVIEW_ITEM",
    "SERVICE_STATUS_OF_LEVEL",
    "SESSION_FAILED",
    "SESSION_INTERRUPTED",
    "SESSION_STATUSES",
    "START_REFUSED",
    "UNKNOWN_STATUS",
    "WRITING_TOOLS",
    "App",
    "AppState",
    "BaseModel",
    "Clock",
    "ComputedWord",
    "Config",
    "ConfigError",
    "DoctorCheck",
    "EscalationRequest",
    "FakeClock",
    "Handoff",
    "Inventory",
    "InventoryService",
    "JudgedCommand",
    "LaunchError",
    "MaintenanceWindow",
    "Marker",
    "MarkerRegistry",
    "MarkerType",
    "Migration",
    "NotableEvent",
    "OpsDir",
    "OpsDocument",
    "Outcome",
    "Pause",
    "PluginError",
    "Redaction",
    "Run",
    "RunBusy",
    "RunOrder",
    "RunOutcome",
    "ServiceStatus",
    "Session",
    "SessionDetail",
    "SessionRow",
    "ShellCommand",
    "StampedCache",
    "StartRefused",
    "StartedRun",
    "StopRefused",
    "StoreError",
    "UsageProblem",
    "__version__",
    "add_column",
    "add_secret_values",
    "aligned_rows",
    "apply_log_options",
    "bytes_problem",
    "cached",
    "canonical_service",
    "close_store",
    "collector_paused",
    "command_refusal",
    "count_sessions",
    "counted",
    "create_frozen_tables",
    "data_stamp",
    "db",
    "directive_reason",
    "echo_listing",
    "echo_stream",
    "end_pauses",
    "estimate_tokens",
    "estimate_tokens_of",
    "fail",
    "find_directives",
    "from_timestamp",
    "get_session_dict",
    "hookimpl",
    "insert_returning_id",
    "is_locked",
    "is_paused",
    "is_row_id",
    "lock_holder",
    "mask_secret",
    "may_hold_secret",
    "now_timestamp",
    "one_line",
    "open_store_or_fail",
    "parse_duration",
    "parse_flag",
    "parse_window",
    "pass_app",
    "pause_service",
    "paused_services",
    "pauses_in_force",
    "plugin_failure",
    "portable_sql",
    "read_ops_dir",
    "redact",
    "redact_columns",
    "redact_secrets",
    "redact_texts",
    "redaction_warning",
    "refuse_to_overwrite",
    "service_name",
    "session_dicts",
    "setting",
    "shell_commands",
    "simple_commands",
    "spend_since",
    "start_refusal",
    "start_run",
    "stop_session",
    "storage_problem",
    "text_problem",
    "time_bucket",
    "to_timestamp",
    "unquoted",
    "utc_now",
    "without_global_options",
    "write_patiently",
]
