"""The operator's checks and playbooks: Markdown the agent reads, kept in the operator's own repo.

``ops_dir`` names a folder (typically a git checkout of the operator's infrastructure repo) with
``checks/*.md`` (how to check a kind of service), ``playbooks/*.md`` (how to fix something; each
states the tier it needs on a line ``Tier: 2``) and an optional ``CLAUDEOPS.md`` overview. The
prompt lists them by name and first line and the agent reads the one that fits with its Read
tool: the listing costs a few lines, the content only what a session needs. They are guidance:
the tool gate refuses nothing new because of them, a playbook's tier included.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from claudeops.config import Config, ConfigError

PACKAGE_DIR = Path(__file__).parent
PACKAGED_OPS = PACKAGE_DIR / "_shipped" / "ops"
SOURCE_OPS = PACKAGE_DIR.parent / "examples" / "ops"
OVERVIEW_FILE = "CLAUDEOPS.md"
CHECKS_DIR = "checks"
PLAYBOOKS_DIR = "playbooks"
HEAD_BYTES = 4096
"""Only a file's head is read for its title and tier: a runbook may be long, the listing is not."""
MAX_TITLE = 120
_TIER_LINE = re.compile(r"^[*_\s]*tier[*_\s]*:[*_\s]*([123])\b", re.IGNORECASE | re.MULTILINE)


@dataclass(frozen=True)
class OpsDocument:
    """One Markdown file of the ops folder: its name (file stem), path, first line and, for a playbook, tier."""

    kind: str
    """``overview``, ``check`` or ``playbook``."""
    name: str
    path: Path
    title: str
    tier: int | None = None


@dataclass(frozen=True)
class OpsDir:
    """What the ops folder holds, and what is wrong with it (a playbook that states no tier)."""

    path: Path
    overview: OpsDocument | None
    checks: tuple[OpsDocument, ...]
    playbooks: tuple[OpsDocument, ...]
    problems: tuple[str, ...] = ()

    @property
    def documents(self) -> tuple[OpsDocument, ...]:
        return (*([self.overview] if self.overview else []), *self.checks, *self.playbooks)


def starter_ops_dir() -> Path:
    """The starter checks and playbooks that ship with claudeops (``claudeops init`` copies them)."""
    return PACKAGED_OPS if PACKAGED_OPS.is_dir() else SOURCE_OPS


def ops_dir_path(config: Config) -> Path | None:
    """The configured ``ops_dir``, or ``None`` when unset; ``ConfigError`` when it is not a directory."""
    path = config.path_setting("ops_dir")
    if path is None:
        return None
    if not path.is_dir():
        problem = "is not a directory" if path.exists() else "does not exist"
        raise ConfigError(f"ops_dir: {path} {problem} (set by {config.sources['ops_dir']})")
    return path


def read_ops_dir(config: Config) -> OpsDir | None:
    """The configured ops folder's documents, sorted by name; ``None`` without an ``ops_dir``."""
    path = ops_dir_path(config)
    if path is None:
        return None
    overview_path = path / OVERVIEW_FILE
    overview = _document("overview", overview_path) if overview_path.is_file() else None
    checks = tuple(_document("check", file) for file in sorted((path / CHECKS_DIR).glob("*.md")))
    playbooks = tuple(_document("playbook", file) for file in sorted((path / PLAYBOOKS_DIR).glob("*.md")))
    problems = tuple(f"{playbook.path}: states no tier (add a line 'Tier: 2' or 'Tier: 3')"
                     for playbook in playbooks if playbook.tier is None)
    return OpsDir(path, overview, checks, playbooks, problems)


def _document(kind: str, path: Path) -> OpsDocument:
    try:
        with path.open("rb") as handle:
            head = handle.read(HEAD_BYTES).decode("utf-8", errors="replace")
    except OSError as exc:
        return OpsDocument(kind, path.stem, path, f"(unreadable: {exc.strerror})")
    title = next((line.strip().lstrip("#").strip() for line in head.splitlines() if line.strip()), "")
    if len(title) > MAX_TITLE:
        title = title[:MAX_TITLE - 1].rstrip() + "…"
    tier = _TIER_LINE.search(head) if kind == "playbook" else None
    return OpsDocument(kind, path.stem, path, title or "(empty)", int(tier.group(1)) if tier else None)
