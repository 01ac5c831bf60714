"""A real run without Claude credentials stops before anything starts, with one line saying what to set."""

from __future__ import annotations

import subprocess
import sys

import pytest

from claudeops.runner.credentials import MissingCredentials, credential_source, require_credentials


@pytest.mark.parametrize("name", ["ANTHROPIC_API_KEY", "CLAUDE_CODE_OAUTH_TOKEN", "CLAUDE_CODE_USE_BEDROCK"])
def test_any_way_to_authenticate_is_accepted(name):
    assert credential_source({name: "x"}) == name
    require_credentials({name: "x"}, [])


def test_no_credentials_is_a_one_line_error():
    with pytest.raises(MissingCredentials, match=r"set ANTHROPIC_API_KEY .* or replay a recording with --replay"):
        require_credentials({"ANTHROPIC_API_KEY": " "}, [])


def test_user_settings_may_provide_an_api_key_helper():
    require_credentials({}, ["user"])


def test_claudeops_run_without_credentials_exits_2_before_any_session(tmp_path):
    result = subprocess.run([sys.executable, "-m", "claudeops", "--state-dir", str(tmp_path / "s"), "run"],
                            capture_output=True, text=True, timeout=120, cwd=tmp_path)
    assert result.returncode == 2
    assert result.stderr.startswith("claudeops: error: no Claude credentials: set ANTHROPIC_API_KEY")
    assert result.stderr.count("\n") == 1
    assert not (tmp_path / "s" / "transcripts").exists()
