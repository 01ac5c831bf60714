"""``claudeops web`` refuses what it cannot serve in one line, with the exit status the README gives."""

from __future__ import annotations

import socket
from collections.abc import Callable

import pytest
from click.testing import Result

from claudeops import EXIT_FAILED, EXIT_USAGE


@pytest.fixture
def run_web(invoke_cli: Callable[..., Result]) -> Callable[..., Result]:
    return lambda *args: invoke_cli("web", *args)


@pytest.mark.parametrize(("environ", "args", "message"), [
    ({}, ("--port", "70000"), "70000 is not in the range 1<=x<=65535"),
    ({"CLAUDEOPS_WEB_PORT": "99999"}, (), "web.port must be between 1 and 65535, not 99999"),
    ({"CLAUDEOPS_WEB_TOKEN": "short"}, ("--host", "0.0.0.0"), "web.token is too short"),
    ({}, ("--host", "0.0.0.0"), "refusing to serve the dashboard on 0.0.0.0 without a token"),
])
def test_a_setting_the_dashboard_cannot_serve_with_is_a_usage_error(
        make_claudeops_app: Callable[..., object], run_web: Callable[..., Result], environ: dict[str, str],
        args: tuple[str, ...], message: str) -> None:
    make_claudeops_app(environ)
    result = run_web(*args)
    assert result.exit_code == EXIT_USAGE, result.output
    assert message in result.output
    assert "dashboard on http" not in result.output


def test_a_port_in_use_is_one_line_and_exit_1_before_any_banner(make_claudeops_app: Callable[..., object],
                                                                run_web: Callable[..., Result]) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        make_claudeops_app()
        result = run_web("--port", str(port))
    assert result.exit_code == EXIT_FAILED
    assert result.output == (f"claudeops: error: port {port} on 127.0.0.1 is already in use; stop what listens "
                             "there or pass --port\n")
