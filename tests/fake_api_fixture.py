"""The ``fake_api`` fixture; load with ``pytest_plugins = ["fake_api_fixture"]`` (see ``fake_api``)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from fake_api import FakeAPI


@pytest.fixture
def fake_api(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeAPI]:
    """A running fake API, with this process's environment pointed at it (and an isolated HOME)."""
    api = FakeAPI().start()
    home = tmp_path / "home"
    home.mkdir()
    for name, value in api.env(home).items():
        monkeypatch.setenv(name, value)
    yield api
    api.close()
