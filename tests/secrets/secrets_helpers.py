"""Helpers for the "no secret anywhere" tests: the nine secrets the issue names, and finding them.

Each secret is written as a model would meet it (in a config line, a URL, a header) and carries
the value that must never be stored, shown, logged or sent on. A hit is reported by kind, so a
failing test says which secret leaked where, not the value.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from claudeops import Session, hookimpl
from claudeops.runner.options import system_prompt_append


@dataclass(frozen=True)
class Secret:
    kind: str
    text: str
    """How the secret appears in what the model writes or a tool prints (one line)."""
    value: str
    """What must never appear anywhere."""


SECRETS = (
    Secret("anthropic-key", "key sk-ant-api03-Zx9Qw8Er7Ty6Ui5Op4As3Df2Gh1Jk0LmNb-AA in .env",
           "Zx9Qw8Er7Ty6Ui5Op4As3Df2Gh1Jk0LmNb"),
    Secret("github-token", "token ghp_R4nd0mT0k3nV4lu3F0rT3st1ngAbCdEf12 for the backup repo",
           "R4nd0mT0k3nV4lu3F0rT3st1ngAbCdEf12"),
    Secret("aws-access-key", "access key AKIAZ7Q4R2T6Y8U0W3E5 in /etc/restic.env", "Z7Q4R2T6Y8U0W3E5"),
    Secret("aws-secret", "the bucket secret wJa1rXUtnFEMI/K7MDENG/bPxRfiCYzEXAMPLEKEY9 is set",
           "wJa1rXUtnFEMI/K7MDENG/bPxRfiCYzEXAMPLEKEY9"),
    Secret("private-key", "-----BEGIN RSA PRIVATE KEY----- MIIEpAIBAAKCAQEAu1SU1LfVLPHCozMxH2Mo4lgOEePzNm0tRgeLez "
                          "-----END RSA PRIVATE KEY----- found in /root",
           "MIIEpAIBAAKCAQEAu1SU1LfVLPHCozMxH2Mo4lgOEePzNm0"),
    Secret("password", "db password=Corr3ct-H0rse-Batt3ry in compose.yml", "Corr3ct-H0rse-Batt3ry"),
    Secret("slack-token", "bot xoxb-1234567890-0987654321-Q1w2E3r4T5y6U7i8O9p0AsDf posts alerts",
           "Q1w2E3r4T5y6U7i8O9p0AsDf"),
    Secret("url-password", "DATABASE_URL postgresql://claudeops:Pg-S3cr3t-Pa55@db.lan:5432/app works",
           "Pg-S3cr3t-Pa55"),
    Secret("authorization", "curl -H 'Authorization: Bearer 8f4bA1c9D2e7F3a6B5c0' https://nas.lan/api",
           "8f4bA1c9D2e7F3a6B5c0"),
)
IDS = [secret.kind for secret in SECRETS]


def leaked(data: bytes | str, secrets: tuple[Secret, ...] = SECRETS) -> list[str]:
    """The kinds of ``secrets`` whose value is in ``data`` (as text, or as UTF-8 and JSON-escaped bytes)."""
    blob = data if isinstance(data, bytes) else data.encode("utf-8", "surrogateescape")
    return [secret.kind for secret in secrets
            if secret.value.encode() in blob or secret.value.replace("/", "\\/").encode() in blob]


def leaks_in_files(folder: Path, secrets: tuple[Secret, ...] = SECRETS) -> dict[str, list[str]]:
    """Every file under ``folder`` (the database, its WAL, transcripts, the CLI's own state) that holds
    a secret, with the kinds it holds: the raw bytes, as they are on disk."""
    found = {}
    for root, _, names in os.walk(folder):
        for name in names:
            path = Path(root, name)
            if kinds := leaked(path.read_bytes(), secrets):
                found[str(path.relative_to(folder))] = kinds
    return found


class PromptRecorder:
    """A plugin keeping the system prompt text appended for each session, as the SDK options carry it."""

    def __init__(self) -> None:
        self.appended: dict[int, str] = {}

    @hookimpl
    def on_message(self, session: Session, message: Any) -> None:
        self.appended.setdefault(session.id, system_prompt_append(session))
