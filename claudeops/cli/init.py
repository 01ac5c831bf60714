"""``claudeops init``: a config, a service inventory and an ops folder to start from.

A new operator should not have to learn the file formats before the first run: ``init`` asks for
the services (or takes them as ``--service name:kind[@host]``), writes ``services.toml`` from
the answers, a ``config.toml`` pointing at it, and a copy of the starter checks and playbooks
(``examples/ops``) to edit. The files are loaded from a scratch folder before any is written, so
a file it produces is a file claudeops accepts, and a refusal (exit 2) leaves nothing behind.
"""

from __future__ import annotations

import json
import shutil
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import click

from claudeops.app import App
from claudeops.cli.context import fail, pass_app, refuse_to_overwrite
from claudeops.config import ConfigError
from claudeops.config_template import render_config_template
from claudeops.exit_codes import EXIT_USAGE
from claudeops.inventory import KINDS, LOCAL_HOST
from claudeops.ops_dir import starter_ops_dir
from claudeops.services import service_name
from claudeops.wording import counted

SERVICES_FILE = "services.toml"
OPS_DIR = "ops"


@dataclass
class Planned:
    """One service as the operator described it to ``init``."""

    name: str
    kind: str
    host: str = LOCAL_HOST
    health_url: str = ""
    after: list[str] = field(default_factory=list)

    def toml(self) -> str:
        key = json.dumps(self.name) if "." in self.name else self.name  # a dotted key would nest tables
        lines = [f"[services.{key}]", f"kind = {json.dumps(self.kind)}"]
        if self.host != LOCAL_HOST:
            lines.append(f"host = {json.dumps(self.host)}")
        if self.health_url:
            lines.append(f"health_url = {json.dumps(self.health_url)}")
        if self.after:
            lines.append(f"after = [{', '.join(json.dumps(name) for name in self.after)}]")
        return "\n".join(lines)


def parse_service_flag(text: str) -> Planned:
    """``jellyfin:container``, ``nas:vm@admin@nas.lan``: name, kind and, after ``@``, the host."""
    head, _, host = text.partition("@")
    name, _, kind = head.partition(":")
    try:
        planned = Planned(service_name(name, dots=True), kind or "container", host or LOCAL_HOST)
    except ValueError as exc:
        raise click.BadParameter(str(exc), param_hint="--service") from None
    if planned.kind not in KINDS:
        raise click.BadParameter(f"kind must be one of {', '.join(KINDS)}, not {planned.kind!r}",
                                 param_hint="--service")
    return planned


def ask_services() -> list[Planned]:
    """The interactive questions, one service at a time until an empty name."""
    click.echo("Describe the services claudeops should watch (an empty name ends the list).")
    services: list[Planned] = []
    while True:
        name = click.prompt("Service name", default="", show_default=False).strip()
        if not name:
            return services
        try:
            name = service_name(name, dots=True)
        except ValueError as exc:
            click.echo(f"  {exc}")
            continue
        kind = click.prompt("  Kind", type=click.Choice(KINDS), default="container")
        host = click.prompt("  Host (local, or an ssh target)", default=LOCAL_HOST).strip() or LOCAL_HOST
        url = click.prompt("  Health URL (optional)", default="", show_default=False).strip()
        known = [service.name for service in services]
        after_text = click.prompt(f"  Runs after ({', '.join(known) or 'none declared yet'}; optional)",
                                  default="", show_default=False) if known else ""
        after = [word.strip().lower() for word in after_text.split(",") if word.strip()]
        services.append(Planned(name, kind, host, url, [word for word in after if word in known]))


def render_services(services: Sequence[Planned]) -> str:
    header = ("# The service inventory claudeops watches. One [services.NAME] table per service; see\n"
              "# docs/configuration.md, \"Service inventory\", for every key (container, unit, expected_status,\n"
              "# notes, remediate, maintenance windows).\n")
    if not services:
        return header + "\n# [services.jellyfin]\n# kind = \"container\"\n# health_url = \"http://127.0.0.1:8096/health\"\n"
    return header + "\n" + "\n\n".join(service.toml() for service in services) + "\n"


@click.command("init")
@click.argument("directory", required=False, default=".", type=click.Path(file_okay=False, path_type=Path))
@click.option("--service", "services", multiple=True, metavar="NAME:KIND[@HOST]",
              help="A service of the inventory (kind: container, systemd, vm, external); repeat per service. "
                   "Without it (and without --yes), init asks.")
@click.option("--no-ops", is_flag=True, help="Do not copy the starter checks and playbooks into DIRECTORY/ops.")
@click.option("--yes", "-y", is_flag=True, help="Ask nothing (services only from --service).")
@click.option("--force", is_flag=True, help="Overwrite files that exist.")
@pass_app
def init_command(app: App, directory: Path, services: tuple[str, ...], no_ops: bool, yes: bool, force: bool) -> None:
    """Write DIRECTORY/config.toml, DIRECTORY/services.toml and DIRECTORY/ops/ to start from.

    \b
    Examples:
      claudeops init                                   # asks for the services
      claudeops init /etc/claudeops --service jellyfin:container \\
                     --service dns:systemd --service nas:vm@admin@nas.lan --yes
    """
    planned = [parse_service_flag(text) for text in services]
    if not planned and not yes:
        planned = ask_services()
    config_path, services_path, ops_path = directory / "config.toml", directory / SERVICES_FILE, directory / OPS_DIR
    for target in (config_path, services_path):
        refuse_to_overwrite(target, force)
    if not no_ops and ops_path.exists() and not force:
        raise click.ClickException(f"{ops_path} exists; pass --force to overwrite it")
    config_text = render_config_template(app.config).replace('services_file = ""', f'services_file = "{SERVICES_FILE}"')
    if not no_ops:
        config_text = config_text.replace('ops_dir = ""', f'ops_dir = "{OPS_DIR}"')
    files = {config_path.name: config_text, services_path.name: render_services(planned)}
    count = _checked(app, directory, files, with_ops=not no_ops)
    directory.mkdir(parents=True, exist_ok=True)
    if not no_ops:
        _copy_ops(ops_path)
    services_path.write_text(files[services_path.name])
    config_path.write_text(config_text)
    click.echo(f"wrote {config_path}, {services_path} ({counted(count, 'service')})"
               + ("" if no_ops else f" and {ops_path}/ (checks and playbooks to edit)"))
    click.echo(f"next: claudeops --config {config_path} run --tier 1")


def _checked(app: App, directory: Path, files: dict[str, str], *, with_ops: bool) -> int:
    """Load the files as they would be written, from a scratch folder, before anything is written; the
    number of services, or exit 2 with the one line claudeops would say about them (nothing written)."""
    with tempfile.TemporaryDirectory(prefix="claudeops-init-") as scratch:
        folder = Path(scratch)
        for name, text in files.items():
            (folder / name).write_text(text)
        if with_ops:
            _copy_ops(folder / OPS_DIR)
        try:
            loaded = App.load(str(folder / "config.toml"), {"CLAUDEOPS_STATE_DIR": str(app.state_dir)},
                              entry_points=False)
        except ConfigError as exc:
            fail(f"nothing written: {str(exc).replace(scratch, str(directory))}", EXIT_USAGE)
    return len(loaded.config.inventory)


def _copy_ops(target: Path) -> None:
    shutil.copytree(starter_ops_dir(), target, dirs_exist_ok=True, ignore=shutil.ignore_patterns("services.toml"))
