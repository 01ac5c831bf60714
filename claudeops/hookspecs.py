"""The plugin contract: every hook claudeops calls, declared in one place.

Built-in features (memory, events, cooldowns, the dashboard) implement these hooks exactly as a
third-party plugin would. Implementations may accept any subset of a hook's arguments (pluggy's
opt-in arguments), must never give them default values, and are always called with keywords.
A hook implementation may be ``async def``: the caller awaits whatever comes back.

Phases, in the order they happen:

* start-up: ``register_settings`` → ``configure`` → ``register_migrations`` →
  ``register_marker_types`` → ``register_commands`` / ``register_web``; ``doctor_checks`` in
  ``claudeops doctor``
* one run: ``before_run`` → for each tier: ``check_session_start`` → one session → ``after_run``
* one session: ``before_session`` → (``on_message`` → ``on_assistant_text`` → ``on_marker``)* and
  ``check_tool_use`` for every tool call → ``after_session``
* any time: ``record_event``, ``judge_memory_relations`` → ``judge_memory_relation``,
  ``describe_session``, ``service_statuses``, ``suppress_notification``, ``digest_lines``,
  ``collect_metrics``
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import pluggy

if TYPE_CHECKING:
    import click
    from prometheus_client import Metric

    from claudeops.cli.doctor import Check
    from claudeops.config import Config
    from claudeops.markers import Marker
    from claudeops.notable import NotableEvent, ServiceStatus
    from claudeops.session import Outcome, Run, RunOutcome, Session, SessionDetail

PROJECT = "claudeops"
hookspec = pluggy.HookspecMarker(PROJECT)
hookimpl = pluggy.HookimplMarker(PROJECT)


# --------------------------------------------------------------------------- start-up


@hookspec
def register_settings(register: Callable[[str, type], None]) -> None:
    """Declare the plugin's own ``[section]`` of ``config.toml``.

    Called once, before the configuration is validated. Call ``register(section, schema)``
    where ``schema`` is a dataclass whose fields (with type hints and defaults) are the
    section's keys; ``field(metadata={"help": ..., "env": "CLAUDEOPS_X", "secret": True})``
    documents a key, gives it an extra environment variable and masks it in ``config show``.
    Exists so a plugin's settings get the same precedence (flag > env > file > default),
    type checking and one-line errors as the core's, without core knowing the plugin.
    """


@hookspec
def configure(config: Config) -> None:
    """The configuration has been loaded and validated.

    Read your section with ``config.section("name")``. Fires once per process, before any
    store use. Returns nothing.
    """


@hookspec
def register_migrations(register: Callable[..., None]) -> None:
    """Contribute the plugin's ordered schema migrations.

    Call ``register(owner, migrations)`` with a unique owner name and a sequence of
    :class:`claudeops.store.Migration`. Each migration is applied once, in order, in its own
    transaction, and recorded in the ``claudeops_migrations`` table, so each plugin's schema
    evolves on its own. Fires before the store is used (``claudeops db migrate``, ``run``,
    ``web``).
    """


@hookspec
def register_marker_types(register: Callable[..., None]) -> None:
    """Contribute marker types the agent may write in its text.

    Call ``register(MarkerType(...))`` (name, compiled pattern, the prompt section that teaches
    the model the marker, the handler). The core parses each assistant text block once and
    dispatches every match to its type's handler; text from tool results, user messages and
    system events never produces markers. Marker names must be unique across plugins.
    """


@hookspec
def register_commands(cli: click.Group) -> None:
    """Add sub-commands or command groups to the ``claudeops`` command line.

    Fires when the CLI is built, after plugins are loaded; a disabled plugin's commands
    therefore disappear with it.
    """


@hookspec
def register_web(register: Callable[..., None]) -> None:
    """Contribute pages to the dashboard.

    Call ``register(...)`` with keyword arguments, all optional: ``routes`` (Litestar route
    handlers or controllers for HTML pages), ``api_routes`` (handlers mounted under
    ``/api/v1``), ``nav`` (a list of ``claudeops_web.NavEntry``), ``template_dir`` (a folder
    joined to the Jinja search path), ``static_dir`` (served under
    ``/static/plugins/<plugin>/``), ``overview_cards`` (``claudeops_web.OverviewCard``; ``wide``
    ones span the page above the grid), ``session_panels`` (``claudeops_web.SessionPanel``,
    sections of a session's page), ``tasks`` (``async task(web)`` run while the dashboard
    serves) and ``webhooks`` (paths only a bearer token opens: ``web.alert_token`` or
    ``web.token``). Fires when the dashboard app is built.
    """


# --------------------------------------------------------------------------- one run


@hookspec
def before_run(run: Run) -> None:
    """A run (``claudeops run``, or a test's chain) is about to start its first session.

    For what concerns the run as a whole, not one session: the health plugin pings a
    dead-man's switch here (``/start``). Keep it short and bounded: the first session waits.
    """


@hookspec(firstresult=True)
def check_session_start(run: Run, tier: int, parent_id: int | None) -> str | None:
    """A session of ``tier`` is about to start; return a one-line reason to refuse it, else ``None``.

    Asked before the run's first session (``parent_id`` ``None``) and before each escalated
    tier (``parent_id`` the session that asked). A refused session gets no row: the runner
    records a ``warning`` event of kind ``start_refused`` with the reason, starts no further
    tier, and the run exits with ``EXIT_REFUSED``. Exists so that limits across runs (the
    budget plugin's spend caps) are enforced by whoever owns them, not by the core.
    """


@hookspec
def run_not_started(run: Run, outcome: RunOutcome) -> None:
    """The run failed before its first session could start; ``outcome`` has the exit code and the one-line reason.

    After the configuration loaded: no Claude credentials, a missing prompt, a lock file or a
    database that cannot be used, a database a newer claudeops wrote. Not for a lock another
    live run holds (exit 75), which is no failure of the schedule. ``before_run`` and
    ``after_run`` do not fire for such a run, and the store may not be open: only tell someone
    (the health plugin pings ``/fail`` here). A failure here is logged, never changes the exit code.
    """


@hookspec
def after_run(run: Run, outcome: RunOutcome) -> None:
    """The run ended (every session recorded, or a start refused); ``outcome`` has its exit code and reason.

    Fires once per run, also when it fails or is interrupted; a failure here is logged and
    never changes the exit code. The health plugin pings success or ``/fail`` here, the notify
    plugin sends the daily digest when it is due.
    """


# --------------------------------------------------------------------------- one session


@hookspec
def before_session(session: Session) -> None:
    """The session row exists and the SDK options are about to be built.

    Prepare (the memory plugin runs staleness decay here) and contribute system-prompt
    sections with ``session.add_prompt_section(name, text, order)``; sections are appended to
    the Claude Code system prompt in ascending ``order`` (then name), so the result is stable.
    Conventional orders: 10 environment, 20 handoff from a lower tier, 30 cooldown state,
    40 memory. Fires for every tier, escalated ones included.

    A failure is logged and the session goes on without the plugin, unless the plugin is
    required (``claudeops_required = True`` on its module or object, as the memory and cooldowns
    plugins declare): then the session fails before the model is asked anything. Called again
    while SQLite reports the database locked (up to ``lock_patience_seconds``), with the failed
    attempt's prompt sections taken back, so keep its writes in one transaction.
    """


@hookspec
def on_message(session: Session, message: Any) -> None:
    """Every message the SDK yields (system, assistant, user/tool result, result), raw.

    For observers such as live progress displays. Never parse markers here: tool output
    arrives through this hook too. Raw means unredacted: text you keep or show from a message
    goes through ``session.redact(text, where)`` first.
    """


@hookspec
def on_assistant_text(session: Session, text: str) -> None:
    """One ``TextBlock`` of an ``AssistantMessage``, as it arrives.

    Only text the model wrote reaches this hook, with secrets redacted; a single response can
    arrive as several messages, so this fires once per block, not once per turn.
    """


@hookspec
def on_marker(session: Session, marker: Marker) -> None:
    """A marker was parsed from assistant text and its type's handler has run.

    For cross-cutting observers (counting, notifications); storing a marker is the job of its
    type's handler. The marker (its text and groups) was redacted before the handler saw it.
    """


@hookspec(firstresult=True)
def check_tool_use(session: Session, tool_name: str, tool_input: dict[str, Any]) -> str | None:
    """The model is about to call a tool. Return a reason string to deny the call.

    The reason is sent back to the model as the tool result, so say what the limit is and
    when it ends. Return ``None`` to have no opinion. The first non-``None`` answer wins.
    Exists so that limits (cooldowns, dry run) are enforced, not just advised.
    """


@hookspec
def after_session(session: Session, outcome: Outcome) -> None:
    """The session ended and its outcome (status, reason, cost, turns) has been recorded.

    Fires for completed, failed and interrupted sessions alike, before any escalation starts.
    """


# --------------------------------------------------------------------------- any time


@hookspec
def record_event(event: NotableEvent) -> None:
    """Something an operator should see happened (escalation, failure, a blocked action).

    The runner and plugins call this instead of writing to a table, so core does not depend
    on the events plugin being present. ``session.record_event`` redacts the message first; an
    event from outside a session may still hold a secret, so redact before storing or sending it.
    """


@hookspec(firstresult=True)
def judge_memory_relations(
    new: str, existing: list[str], service: str | None, category: str, session: Session | None
) -> list[object] | None:
    """Judge one new memory observation against all the candidate memories at once.

    Asked before :func:`judge_memory_relation`, once per observation that cites no memory,
    with the texts of the active memories of the same service and category it must be compared
    with (never empty). Exists for judges that pay per call, a model above all: one request for
    the whole group instead of one per pair. Return one answer per item of ``existing``, in
    order — a relation string, a verdict record (see :func:`judge_memory_relation`) or ``None``
    to leave that pair to :func:`judge_memory_relation` — or ``None`` to leave them all.
    ``session`` is the session that wrote the marker (``None`` outside one): a judge that spends
    money adds it with ``session.add_cost(usd)`` so the session's ``cost_usd`` includes it. It
    runs before the memory store opens its write transaction, so it may take seconds. The memory
    plugin's Claude judge (``memory.judge = "claude"``) answers here, ``trylast``.
    """


@hookspec(firstresult=True)
def judge_memory_relation(
    existing: str, new: str, service: str | None, category: str
) -> object:
    """Judge how a new memory observation relates to an existing active one.

    Both share the service and category. Return a relation string — ``"reinforce"`` (same
    fact), ``"contradict"`` (same subject, conflicting conclusion) or ``"distinct"`` (a different
    fact) — or a verdict record: any object with a ``relation`` attribute and optionally
    ``certainty`` (0..1, how sure the judge is; a bare string counts as 1.0), ``reason`` (one
    line an operator reviewing the decision reads) and ``judge`` (your judge's name; default the
    plugin's name), e.g. a frozen dataclass of your own. ``None`` defers to the next judge. The
    store acts on a ``reinforce`` or ``contradict`` only at ``memory.judge_min_certainty`` or above
    and keeps both memories otherwise, flagged for review. The memory plugin ships a fast
    deterministic offline judge marked ``trylast``, so a better judge simply registers its own
    implementation.
    """


@hookspec
def describe_session(session_id: int) -> SessionDetail | None:
    """What the plugin recorded about one session, for ``claudeops sessions show``.

    Return a :class:`claudeops.SessionDetail` — a title, the lines printed under it, and the same
    facts as JSON-ready ``data``, shown under ``details[key]`` by ``sessions show --json`` — or
    ``None`` when the plugin has nothing about that session. Called with the store open. Exists
    so what a plugin keeps about a session (the memory plugin: what the session was told and
    what it changed) appears where operators look, without the core knowing the plugin.
    """


@hookspec(firstresult=True)
def service_statuses() -> list[ServiceStatus] | None:
    """Every service some finding has named, with its status and since when, sorted by service.

    A service's status is the level of its latest finding (``critical`` = down, ``warning`` =
    degraded, ``info`` = up; :data:`claudeops.notable.SERVICE_STATUS_OF_LEVEL`). The events
    plugin answers; notifications, the overview and ``/metrics`` ask, so they agree. ``None``
    (no plugin answers, e.g. events disabled) means nothing is known.
    """


@hookspec(firstresult=True)
def suppress_notification(config: Config, service: str | None, kind: str, now: str) -> str | None:
    """A notification about ``service`` (``None``: about no service) of ``kind`` is about to be sent.

    Return a one-line reason to suppress it (it is recorded as suppressed with that reason,
    not sent), or ``None``. ``kind`` is the notification's routing tag (``outage``,
    ``event``, ``session``, ``cooldown``, ``budget``, ``review``, ``digest``); ``now`` the
    stored timestamp of the decision (a session's clock). Called with the store open. Exists for
    maintenance windows: the inventory plugin answers for a paused service.
    """


@hookspec
def digest_lines(since: str, until: str) -> list[str] | None:
    """Markdown lines about ``since`` .. ``until`` (stored timestamps) for the daily digest.

    Each plugin summarises its own part (the memory plugin: memories created and changed); the
    notify plugin adds the services, open problems and cost, and sends the digest once a day.
    """


@hookspec
def collect_metrics(config: Config) -> list[Metric] | None:
    """Prometheus metric families for ``/metrics``, read from the plugin's own tables now.

    ``config`` is the configuration the dashboard was started with (a plugin reports its caps
    or limits from its section).

    Return ``prometheus_client.core`` families (``GaugeMetricFamily``, ``CounterMetricFamily``,
    ``HistogramMetricFamily``) named ``claudeops_…``; called per scrape inside an open database
    connection, so keep it to a few indexed queries. Exists so each plugin reports its own
    figures without the metrics plugin reading other plugins' tables.
    """


@hookspec
def doctor_checks(config: Config) -> list[Check] | None:
    """Extra lines for ``claudeops doctor``: ``DoctorCheck(name, ok, detail, warning=False)`` each.

    Exists so a plugin whose feature needs something the installation may lack (a credential, a
    notification target, a spend cap already reached) says so before the first cron run does,
    without the core knowing the plugin. Called with the store open and migrated (doctor skips
    the plugins' checks until it is); a check that is not ``ok`` makes doctor exit non-zero, a
    ``warning`` is shown and does not. Keep it fast and offline: doctor is run by hand.
    """
