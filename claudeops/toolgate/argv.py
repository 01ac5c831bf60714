"""How programs read their arguments: which options take a value, and so where the operands are.

The shell splitter (which command ``xargs``, ``watch`` or ``docker exec`` runs) and the
read-only check (which sub-command ``docker --log-level debug restart x`` runs, what ``psql -c``
queries) both have to find a program's operands the way the program itself would. An option
value taken for an operand hides what follows it: ``docker -l debug restart jellyfin`` reads
like a ``debug`` sub-command to a check that does not know ``-l`` takes a value. So each
program's syntax is written down once, here, and read by one function.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Syntax:
    """How a program spells its options: enough to find each option's value and the operands."""

    short_values: str = ""
    """Short options that take a value, attached (``-cSQL``) or as the next word (``-c SQL``)."""
    short_attached: str = ""
    """Short options whose value can only be attached (mysql's ``-pSECRET``; a bare ``-p`` prompts)."""
    long_values: frozenset[str] = frozenset()
    """Long options that take the next word as their value unless written ``--name=value``."""
    clusters: bool = True
    """``-Atc`` is ``-A -t -c``; sqlite3 instead spells whole options with one dash (``-readonly``)."""
    permute: bool = True
    """Options may follow operands (GNU style); a wrapper's or a sub-command's first operand ends its options."""
    ends_options: str = ""
    """Short options whose value ends the options (python's ``-c CODE``, ``-m MODULE``): the words after it are
    the code's own arguments, read as operands, so ``python3 -c CODE --version`` is not python's ``--version``."""


def read_options(words: list[str], syntax: Syntax) -> tuple[list[tuple[str, str]], list[str]]:
    """``(option, value)`` pairs (value ``""`` for a flag) and the operands, as the program would read them."""
    options: list[tuple[str, str]] = []
    operands: list[str] = []
    index = 0
    while index < len(words):
        word = words[index]
        index += 1
        if word == "--":
            operands.extend(words[index:])
            break
        if word == "-" or not word.startswith("-"):
            if not syntax.permute:
                operands.extend(words[index - 1:])
                break
            operands.append(word)
            continue
        if word.startswith("--") or not syntax.clusters:
            name, equals, value = word.partition("=")
            name = name if syntax.clusters else "-" + name.lstrip("-")
            if not equals and name in syntax.long_values and index < len(words):
                value, index = words[index], index + 1
            options.append((name, value))
            continue
        for position, letter in enumerate(word[1:], start=2):
            value = word[position:]
            if letter in syntax.short_attached or letter in syntax.short_values:
                if not value and letter in syntax.short_values and index < len(words):
                    value, index = words[index], index + 1
                options.append(("-" + letter, value))
                break
            options.append(("-" + letter, ""))
        if syntax.ends_options and options[-1][0][1:] in syntax.ends_options:
            operands.extend(words[index:])
            break
    return options, operands


def values(options: list[tuple[str, str]], *names: str) -> list[str]:
    """The values given to any of ``names``, in order."""
    return [value for name, value in options if name in names]


def _before_subcommand(short_values: str, *long_values: str) -> Syntax:
    """The options a program reads before its sub-command, which ends them."""
    return Syntax(short_values=short_values, long_values=frozenset(long_values), permute=False)


_DOCKER = _before_subcommand("Hcl", "--host", "--context", "--log-level", "--config", "--tlscacert", "--tlscert",
                             "--tlskey")
_COMPOSE = _before_subcommand(
    "fpcH", "--file", "--project-name", "--project-directory", "--env-file", "--profile", "--ansi", "--progress",
    "--parallel", "--host", "--context", "--log-level", "--tlscacert", "--tlscert", "--tlskey", "--podman-path",
    "--podman-args", "--pod-args", "--in-pod", *(f"--podman-{step}-args" for step in (
        "pull", "push", "build", "inspect", "run", "start", "stop", "rm", "volume")))
"""``docker compose``, ``docker-compose`` (v1 and v2) and ``podman-compose``: the union of their options."""
_PODMAN = _before_subcommand(
    "c", "--connection", "--log-level", "--url", "--identity", "--root", "--runroot", "--runtime", "--runtime-flag",
    "--storage-driver", "--storage-opt", "--cgroup-manager", "--conmon", "--events-backend", "--hooks-dir",
    "--network-cmd-path", "--network-config-dir", "--tmpdir", "--volumepath", "--module", "--out", "--ssh",
    "--imagestore", "--cdi-spec-dir", "--db-backend", "--config")
KUBECTL_VALUES = frozenset({
    "--as", "--as-group", "--as-uid", "--cache-dir", "--certificate-authority", "--client-certificate",
    "--client-key", "--cluster", "--context", "--kubeconfig", "--namespace", "--password", "--profile",
    "--profile-output", "--request-timeout", "--server", "--tls-server-name", "--token", "--user", "--username",
    "--v", "--vmodule", "--log-file", "--log-dir", "--log-flush-frequency"})
"""kubectl's global options that take a value (``-n``, ``-s`` and ``-v`` are short for three of them)."""

SUBCOMMAND_OPTIONS: dict[str, Syntax] = {
    "docker": _DOCKER, "docker compose": _COMPOSE, "docker-compose": _COMPOSE, "podman-compose": _COMPOSE,
    "podman": _PODMAN, "podman compose": _COMPOSE,
    "kubectl": Syntax(short_values="nsv", long_values=KUBECTL_VALUES, permute=False),
    "helm": _before_subcommand(
        "n", "--namespace", "--kube-context", "--kubeconfig", "--kube-apiserver", "--kube-as-group", "--kube-as-user",
        "--kube-ca-file", "--kube-tls-server-name", "--kube-token", "--burst-limit", "--qps", "--registry-config",
        "--repository-cache", "--repository-config", "--content-cache"),
    "systemctl": _before_subcommand(
        "tpPsHMnoC", "--type", "--state", "--property", "--what", "--job-mode", "--kill-whom", "--kill-value",
        "--signal", "--host", "--machine", "--lines", "--output", "--root", "--image", "--image-policy",
        "--preset-mode", "--boot-loader-entry", "--boot-loader-menu", "--reboot-argument", "--timestamp",
        "--message", "--when", "--drop-in", "--legend", "--check-inhibitors", "--capsule"),
    "git": _before_subcommand("Cc", "--git-dir", "--work-tree", "--namespace", "--super-prefix", "--config-env",
                              "--attr-source"),
    "apt": _before_subcommand("acot", "--option", "--config-file", "--target-release", "--host-architecture"),
    "apt-get": _before_subcommand("acot", "--option", "--config-file", "--target-release", "--host-architecture"),
    "ntfy": _before_subcommand("c", "--config", "--log-level", "--log-level-overrides", "--log-format",
                               "--log-file"),
}
"""Programs with sub-commands (and sub-commands with their own, ``docker compose up``), keyed by the words
that name them: the options with a value that may come before the sub-command."""
_NO_OPTIONS = Syntax(permute=False)


def subcommand(words: list[str], path: str) -> tuple[str, list[str]] | None:
    """The sub-command in ``words`` (the arguments of ``path``, such as ``"docker compose"``) and the words after it.

    ``None`` when there is none (``docker --version``).
    """
    if words and not words[0].startswith("-"):  # ``docker logs …``: no option to read before it
        return words[0], words[1:]
    _, operands = read_options(words, SUBCOMMAND_OPTIONS.get(path, _NO_OPTIONS))
    return (operands[0], operands[1:]) if operands else None


def without_global_options(words: list[str]) -> list[str]:
    """``words`` with the options before each sub-command left out, the form patterns are written for.

    ``docker --log-level debug restart x`` → ``docker restart x``; ``docker compose -f x.yml up -d web``
    → ``docker compose up -d web`` (options after the last sub-command stay). A line whose
    sub-command cannot be found is returned as it is.
    """
    path, rest, kept = words[0] if words else "", words[1:], words[:1]
    while path in SUBCOMMAND_OPTIONS:
        found = subcommand(rest, path)
        if found is None:
            return words
        name, rest = found
        kept.append(name)
        path = f"{path} {name}"
    return kept + rest
