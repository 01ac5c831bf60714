"""The JSON API against its own OpenAPI document, with schemathesis: requests the document allows
are accepted (no 5xx; answers, status codes and content types as documented), requests it
forbids are refused.

The app runs in-process (ASGI); a token is configured and sent as ``Authorization: Bearer``, as a
script would, which also exempts the writes from the browser's CSRF check. Each operation gets
a bounded number of generated cases of each kind, so the file stays within about half a minute.

The cases are drawn with schemathesis's strategies and run under Hypothesis directly, one
operation after another: schemathesis 4.32's pytest integration for a schema built from a
fixture (``schemathesis.pytest.from_fixture``) reads a node attribute pytest 9 no longer has.
Hypothesis is derandomized, so a run is repeatable; change ``EXAMPLES_PER_OPERATION`` or drop
``derandomize`` locally to explore further.

Left out, and why: the events list's ``since`` is pinned to ``24h``: it takes an age or an ISO
time as Python reads one, which no JSON Schema pattern states exactly (its parser has its own
tests in ``tests/events``). Likewise a pause's ``duration`` (``30m``, ``1h30m``, ``1d``, more than
zero and at most 7 days, which no pattern bounds) is pinned to ``2h`` in the allowed run (its
parser is tested in ``tests/inventory``). An operation that takes no input at all has nothing to forbid, so the
"forbidden" run skips it (Hypothesis finds no case to generate).
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import schemathesis
from hypothesis import HealthCheck, given, settings
from hypothesis.errors import Unsatisfiable
from schemathesis.generation import GenerationMode
from web_helpers import TOKEN

from claudeops.app import App

EXAMPLES_PER_OPERATION = 12
REPLAY = ",".join([sys.executable, "-m", "claudeops", "run", "--replay",
                   str(Path(__file__).resolve().parents[2] / "examples" / "sessions" / "healthy-tier1.jsonl")])
AUTH = {"Authorization": f"Bearer {TOKEN}"}
PINNED = {"GET /api/v1/events": {"since": "24h"}}
"""Query parameters held fixed per operation (see the module's docstring)."""
PINNED_BODIES = {"POST /api/v1/pauses": {"duration": "2h"}}
"""Body fields held fixed per operation in the allowed run (see the module's docstring)."""


@pytest.fixture
def api_schema(make_claudeops_app: Callable[..., App]) -> Any:
    from claudeops_web import create_app

    # Run now starts a replay (a real child under the real lock), so a started run is a 201, not a 503
    app = create_app(make_claudeops_app({"CLAUDEOPS_WEB_TOKEN": TOKEN, "CLAUDEOPS_WEB_RUN_COMMAND": REPLAY}))
    return schemathesis.openapi.from_asgi("/api/v1/schema/openapi.json", app, headers=AUTH)


def operations(schema: Any) -> Iterator[Any]:
    for result in schema.get_all_operations():
        yield result.ok()


def run_cases(operation: Any, mode: GenerationMode) -> bool:
    """Run the operation's generated cases; ``False`` when there was nothing to generate."""
    pinned_body = PINNED_BODIES.get(operation.label) if mode is GenerationMode.POSITIVE else None
    strategy = operation.as_strategy(generation_mode=mode, query=PINNED.get(operation.label))
    if pinned_body is not None:
        strategy = strategy.map(lambda case: _with_body(case, pinned_body))

    @given(case=strategy)
    @settings(max_examples=EXAMPLES_PER_OPERATION, deadline=None, database=None, derandomize=True,
              suppress_health_check=list(HealthCheck))
    def check(case: Any) -> None:
        case.call_and_validate(headers=AUTH)

    try:
        check()
    except Unsatisfiable:
        if mode is GenerationMode.NEGATIVE:
            return False  # no input to make invalid
        raise
    return True


def _with_body(case: Any, fields: dict[str, Any]) -> Any:
    case.body = {**(case.body if isinstance(case.body, dict) else {}), **fields}
    return case


@pytest.mark.parametrize("mode", [GenerationMode.POSITIVE, GenerationMode.NEGATIVE], ids=["allowed", "forbidden"])
def test_the_api_keeps_to_its_openapi_document(api_schema, mode):
    checked = [operation.label for operation in operations(api_schema) if run_cases(operation, mode)]
    assert "POST /api/v1/memories" in checked and len(checked) >= 9  # every operation, plugins' included
