"""``claudeops notify test`` and ``claudeops notifications list``."""

from __future__ import annotations

import json
import time

import click

from claudeops import (
    EXIT_FAILED,
    EXIT_USAGE,
    LIMIT,
    App,
    ConfigError,
    fail,
    now_timestamp,
    open_store_or_fail,
    pass_app,
)
from claudeops_notify import repository
from claudeops_notify.delivery import Message, deliver
from claudeops_notify.notifier import configured_targets
from claudeops_notify.repository import OUTCOMES, Notice, NotificationRecord
from claudeops_notify.settings import SECTION, NotifySettings
from claudeops_notify.targets import KINDS, Target

TEST_TITLE = "claudeops test notification"
TEST_BODY = "If you can read this, claudeops can reach you here. Sent by `claudeops notify test`."


@click.group("notify")
def notify_group() -> None:
    """Notifications claudeops sends by itself (never the model): check the targets."""


@notify_group.command("test")
@pass_app
def notify_test(app: App) -> None:
    """Send a test message to every configured URL and print how each fared (exit 1 if one failed).

    \b
    Targets are shown by position and scheme only (#1 ntfy): a URL holds credentials.
    """
    targets = _targets_or_fail(app)
    if not targets:
        fail("no notification URLs: set notify.urls (or CLAUDEOPS_NOTIFY_URLS, or notify.urls_file)", EXIT_USAGE)
    open_store_or_fail(app)
    settings: NotifySettings = app.config.section(SECTION)
    notice = Notice("test", f"test:{now_timestamp()}", "info", TEST_TITLE, TEST_BODY)
    notification_id = repository.record(notice, now_timestamp())
    delivery = deliver(targets, Message(TEST_TITLE, TEST_BODY), timeout=settings.timeout_seconds,
                       retries=settings.retries, deadline=time.monotonic() + settings.max_seconds)
    repository.settle(notification_id, delivery.outcome, delivery.reason, delivery.attempts,
                      now_timestamp() if delivery.outcome != "failed" else None)
    for result in delivery.results:
        click.echo(result.describe())
    if delivery.outcome != "sent":
        click.get_current_context().exit(EXIT_FAILED)


def _targets_or_fail(app: App) -> list[Target]:
    try:
        return configured_targets(app.config)
    except ConfigError as exc:
        raise click.UsageError(str(exc)) from None


@click.group("notifications")
def notifications_group() -> None:
    """What claudeops told the operator, and what it held back or could not deliver."""


@notifications_group.command("list")
@click.option("--outcome", type=click.Choice(OUTCOMES), help="Only notifications with this outcome.")
@click.option("--kind", type=click.Choice(KINDS), help="Only notifications of this kind.")
@click.option("--limit", type=LIMIT, default=50, show_default=True, help="Show at most this many.")
@click.option("--json", "as_json", is_flag=True, help="Print a JSON array instead of lines.")
@pass_app
def notifications_list(app: App, outcome: str | None, kind: str | None, limit: int, as_json: bool) -> None:
    """List notifications, newest first: sent, partial, failed or suppressed, with the reason."""
    open_store_or_fail(app)
    rows = repository.list_notifications(outcome=outcome, kind=kind, limit=limit)
    if as_json:
        click.echo(json.dumps([row.as_dict() for row in rows], indent=2))
        return
    if not rows:
        click.echo("No notifications match.")
        return
    for row in rows:
        click.echo(format_notification(row))


def format_notification(row: NotificationRecord) -> str:
    """One line: time, outcome, kind, service, the title, then why (when not simply sent)."""
    why = f"  ({row.reason})" if row.reason else ""
    return f"{row.created_at}  {row.outcome:<10}  {row.kind:<8}  {row.service or '-':<16}  {row.title}{why}"
