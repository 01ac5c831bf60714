import claudeops_ticket
import pytest


@pytest.fixture
def claudeops_plugins():
    """Register this plugin in the claudeops fixtures (claudeops.testing provides the rest)."""
    return [claudeops_ticket]
