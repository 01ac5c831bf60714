"""Built-in plugin: notifications sent by claudeops, never by the model (issue 17).

Findings, session outcomes, cooldown refusals, review items and refused starts become
Markdown messages sent with Apprise to the operator's URLs (ntfy, Telegram, email, Gotify,
Matrix, Discord, any of Apprise's services): one message per outage until it is resolved,
flapping damped, a daily digest, every decision recorded in ``notifications`` with its
outcome. The URLs are secrets: masked by ``config show``, never logged, stored or served.
Each concept lives in its own module; this one only wires them to the hooks.
"""

from __future__ import annotations

from collections.abc import Callable
from contextlib import suppress
from typing import Any

import click

from claudeops import Config, DoctorCheck, Outcome, Run, RunOutcome, Session, add_secret_values, hookimpl
from claudeops_notify import checks, notifier
from claudeops_notify.models import MIGRATIONS, OWNER
from claudeops_notify.settings import SECTION, NotifySettings, validate
from claudeops_notify.targets import TargetError, load_targets
from claudeops_notify.web import register_web  # noqa: F401  the /notifications dashboard page


@hookimpl
def register_settings(register: Callable[[str, type], None]) -> None:
    register(SECTION, NotifySettings)


@hookimpl
def configure(config: Config) -> None:
    validate(config)
    settings: NotifySettings = config.section(SECTION)
    if settings.urls_file:  # its URLs are as secret as notify.urls, which the core already redacts
        with suppress(TargetError):  # an unreadable file is reported, in one line, where the URLs are used
            add_secret_values(target.url for target in load_targets([], settings.urls_file))


@hookimpl
def register_migrations(register: Callable[..., None]) -> None:
    register(OWNER, MIGRATIONS)


@hookimpl
def register_commands(cli: click.Group) -> None:
    from claudeops_notify.cli import notifications_group, notify_group  # here: a session does not use them

    cli.add_command(notify_group)
    cli.add_command(notifications_group)


@hookimpl
def after_session(session: Session, outcome: Outcome) -> None:
    notifier.after_session(session, outcome)


@hookimpl
def after_run(run: Run, outcome: RunOutcome) -> None:
    notifier.after_run(run, outcome)


@hookimpl
def collect_metrics() -> list[Any]:
    return checks.notification_metrics()


@hookimpl
def doctor_checks(config: Config) -> list[DoctorCheck]:
    return checks.doctor_checks(config)
