"""The inventory, maintenance and the operator's runbooks as the environment section shows them.

Compact and bounded: the services come in dependency order with the shared causes named, so
the agent checks the database before the five services that need it; the checks and playbooks
are listed by name and first line, to be read with the Read tool when needed. The whole section
has its own token budget (``environment.budget_tokens``, estimated as characters / 4): when the
inventory is too big, notes go first, then details, then services are listed by name only.
What may never be cut is what keeps the agent's hands off a service: maintenance and
``remediate = false`` are said at every level of detail.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property

from claudeops import Inventory, InventoryService, OpsDir, OpsDocument, Pause

DETAIL_LEVELS = ("full", "no notes", "compact")
MAX_CAUSES = 5
MAX_DEPENDENTS = 5
MAX_HIDDEN_NAMES = 40
"""Bounds that keep the section's size independent of the inventory's (a chain of 400 services
would otherwise make every service a shared cause of all those after it)."""


@dataclass(frozen=True)
class FleetFacts:
    """What the section is made of, gathered by the plugin when the session starts."""

    inventory: Inventory
    paused: Mapping[str, Pause]
    """Services in maintenance now (key ``*``: every service), from :func:`claudeops.paused_services`."""
    ops: OpsDir | None
    other_services: Sequence[str] = ()
    """``environment.services`` names the inventory does not declare (the older, bare list)."""

    @cached_property
    def shared_causes(self) -> list[tuple[str, list[str]]]:
        """Computed once: the section is rendered several times while it is fitted to its budget."""
        return self.inventory.shared_causes()[:MAX_CAUSES]


def render_fleet(facts: FleetFacts, budget_chars: int) -> str:
    """The services, maintenance and runbook lines, at the most detailed level that fits ``budget_chars``."""
    for level in DETAIL_LEVELS:
        text = _join(_services_block(facts, level), _ops_block(facts.ops, detailed=level != "compact"))
        if len(text) <= budget_chars:
            return text
    return _cut_to_budget(facts, budget_chars)


def _join(*blocks: str) -> str:
    return "\n\n".join(block for block in blocks if block)


def _services_block(facts: FleetFacts, level: str, services: Sequence[InventoryService] | None = None) -> str:
    inventory = facts.inventory
    shown = list(inventory) if services is None else list(services)
    lines = []
    everything = facts.paused.get("*")
    if everything is not None:
        lines.append(f"- EVERY SERVICE IS {_maintenance(everything)}")
    if shown:
        lines.insert(0, f"### Services ({len(inventory)}, dependencies first)")
        lines.append("")
        lines += [f"- {_service_line(service, facts.paused.get(service.name), level)}" for service in shown]
        hidden = [service.name for service in inventory if service not in shown]
        if hidden:
            lines.append(f"- … and {len(hidden)} more, by name: {_some(hidden, MAX_HIDDEN_NAMES)}")
        causes = facts.shared_causes
        if causes:
            named = "; ".join(f"{name} (needed by {_some(dependents, MAX_DEPENDENTS)})" for name, dependents in causes)
            lines += ["", f"Shared causes: {named}. When several services fail together, check these first."]
    if facts.other_services:
        label = "Also in scope (not in the inventory)" if len(inventory) else "Services in scope"
        lines.append(f"- {label}: {', '.join(facts.other_services)}")
    return "\n".join(lines).strip()


def _some(names: Sequence[str], limit: int) -> str:
    """``a, b, c`` or ``a, b, … (7 more)``."""
    if len(names) <= limit:
        return ", ".join(names)
    return f"{', '.join(names[:limit])}, … ({len(names) - limit} more)"


def _service_line(service: InventoryService, pause: Pause | None, level: str) -> str:
    parts = [f"**{service.name}**: {_runs_as(service)}"]
    if level != "compact" and service.health_url:
        parts.append(f"health {service.health_url} → {service.expected_status}")
    if service.after:
        parts.append(f"after {', '.join(service.after)}")
    if level == "full" and service.notes:
        parts.append(f"notes: {service.notes}")
    if not service.remediate:
        parts.append("tiers 2 and 3 may look but never act on it (the operator handles it)")
    if pause is not None:
        parts.append(_maintenance(pause))
    return "; ".join(parts)


def _runs_as(service: InventoryService) -> str:
    where = "" if service.is_local else f" on {service.host} (ssh)"
    if service.kind == "container":
        name = f" {service.runtime_name}" if service.runtime_name != service.name else ""
        return f"container{name}{where}"
    if service.kind == "systemd":
        return f"systemd unit {service.runtime_name}{where}"
    if service.kind == "vm":
        return f"virtual machine{where}"
    return f"external{where}"


def _maintenance(pause: Pause) -> str:
    return (f"IN MAINTENANCE until {pause.until}{f' ({pause.reason})' if pause.reason else ''}: do not act on it; "
            "failures are expected, report them as info")


def _ops_block(ops: OpsDir | None, *, detailed: bool) -> str:
    if ops is None or not ops.documents:
        return ""
    lines = ["### Checks and playbooks",
             "",
             f"The operator's runbooks are in {ops.path}. Before you check or fix a service, read the one "
             "that fits with the Read tool; they are guidance within your tier's limits."]
    if ops.overview is not None:
        lines.append(f"- Overview, read it first: {ops.overview.path}")
    lines += _document_lines("Checks", ops.checks, detailed)
    lines += _document_lines("Playbooks", ops.playbooks, detailed)
    return "\n".join(lines)


def _document_lines(label: str, documents: Sequence[OpsDocument], detailed: bool) -> list[str]:
    if not documents:
        return []
    folder = documents[0].path.parent

    def describe(document: OpsDocument) -> str:
        tier = f" (tier {document.tier})" if document.tier else ""
        return f"{document.name}{tier}" + (f": {document.title}" if detailed else "")

    if detailed:
        return [f"- {label} in {folder}/:", *(f"  - {describe(document)}" for document in documents)]
    return [f"- {label} in {folder}/: {', '.join(describe(document) for document in documents)}"]


def _cut_to_budget(facts: FleetFacts, budget_chars: int) -> str:
    """The compact lines of as many services as fit (dependency order), the rest by name.

    Services in maintenance or closed to remediation are always kept: leaving them out would
    drop the one line that keeps the agent's hands off them. The runbook listing goes last.
    """
    must = [service for service in facts.inventory if _must_show(service, facts.paused)]
    optional = [service for service in facts.inventory if service not in must]
    ops = _ops_block(facts.ops, detailed=False)

    def render(count: int, with_ops: bool) -> str:
        chosen = _in_order(facts.inventory, [*must, *optional[:count]])
        return _join(_services_block(facts, "compact", chosen), ops if with_ops else "")

    text = ""
    for with_ops in (True, False):
        low, high = 0, len(optional)  # a binary search for the most services that fit: the text grows with them
        while low < high:
            middle = (low + high + 1) // 2
            if len(render(middle, with_ops)) <= budget_chars:
                low = middle
            else:
                high = middle - 1
        text = render(low, with_ops)
        if len(text) <= budget_chars:
            return text
    return text


def _must_show(service: InventoryService, paused: Mapping[str, Pause]) -> bool:
    return service.name in paused or not service.remediate


def _in_order(inventory: Inventory, chosen: Sequence[InventoryService]) -> list[InventoryService]:
    return [service for service in inventory if service in chosen]
