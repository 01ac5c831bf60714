"""What a Claude judge request costs: model aliases and prices, as the bundled Claude Code CLI has them.

The Messages API reports tokens, not money, so the cost is computed from the response's ``usage``
with the prices below: US dollars per million tokens, copied from the model catalogue built into
the Claude Code CLI 2.1.330 that claude-agent-sdk 0.2.187 bundles (the SDK is pinned exactly), the
same figures the CLI prices the agent's own calls with. Aliases resolve as that catalogue's
first-party defaults do. A model missing from the table is priced at the dearest rate below, with
a warning: a session's cost may be overstated, never understated.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any

log = logging.getLogger(__name__)

ALIASES: dict[str, str] = {"haiku": "claude-haiku-5-5", "sonnet": "claude-sonnet-5-5", "opus": "claude-opus-5-5"}
"""Model aliases the tier settings use (``[tier1] model = "haiku"``), as the Messages API needs them."""


@dataclass(frozen=True)
class Price:
    """US dollars per million tokens."""

    input: float
    output: float
    cache_write: float
    cache_read: float


_TIER_3_15 = Price(3.0, 15.0, 3.75, 0.3)
_TIER_5_25 = Price(5.0, 25.0, 6.25, 0.5)
_TIER_15_75 = Price(15.0, 75.0, 18.75, 1.5)
PRICES: dict[str, Price] = {
    "claude-haiku-5-5": Price(0.1, 0.5, 0.125, 0.01),
    "claude-haiku-4-5": Price(1.0, 5.0, 1.25, 0.1),
    "claude-3-5-haiku": Price(0.8, 4.0, 1.0, 0.08),
    "claude-sonnet-5-5": Price(2.0, 10.0, 2.5, 0.1),
    "claude-sonnet-5": Price(2.0, 10.0, 2.5, 0.2),
    "claude-sonnet-4-6": _TIER_3_15,
    "claude-sonnet-4-5": _TIER_3_15,
    "claude-sonnet-4-0": _TIER_3_15,
    "claude-3-7-sonnet": _TIER_3_15,
    "claude-opus-5-5": Price(4.0, 20.0, 5.0, 0.2),
    "claude-opus-5": _TIER_5_25,
    "claude-opus-4-8": _TIER_5_25,
    "claude-opus-4-7": _TIER_5_25,
    "claude-opus-4-6": _TIER_5_25,
    "claude-opus-4-5": _TIER_5_25,
    "claude-opus-4-1": _TIER_15_75,
    "claude-opus-4-0": _TIER_15_75,
}
"""Standard first-party prices (5-minute cache writes); a dated name ("claude-haiku-4-5-20251001")
is priced as its family ("claude-haiku-4-5")."""
DEAREST = max(PRICES.values(), key=lambda price: price.output)


def api_model(model: str) -> str:
    """The model name to send: an alias resolved, anything else as configured."""
    return ALIASES.get(model, model)


def price_of(model: str) -> Price:
    """The price of ``model`` (by its longest known prefix), or :data:`DEAREST` with a warning."""
    known = [name for name in PRICES if model == name or model.startswith(f"{name}-")]
    if known:
        return PRICES[max(known, key=len)]
    log.warning("no price known for model %r: the Claude judge's cost is counted at the dearest known rate", model)
    return DEAREST


def cost_usd(model: str, usage: Any) -> float:
    """The cost of one response from its ``usage`` (input, output and prompt-cache tokens)."""
    price = price_of(model)
    tokens = (
        (usage.input_tokens or 0) * price.input
        + (usage.output_tokens or 0) * price.output
        + (getattr(usage, "cache_creation_input_tokens", 0) or 0) * price.cache_write
        + (getattr(usage, "cache_read_input_tokens", 0) or 0) * price.cache_read
    )
    return tokens / 1_000_000
