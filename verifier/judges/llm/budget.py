"""What the LLM judge may spend, and what it spent.

Caps per verification on input tokens (every input token: uncached, cache writes and
cache reads), output tokens and USD: ``[judge] budget_multiplier`` (default 0.5) of what
the writer declared for the run, and the ``[judge]`` caps for what it did not declare
(a plain branch, a pull request).  Usage is counted from each response's ``usage``,
priced with the model's entry in the config's price table.  Before each request the
meter checks that its estimate fits what is left; when it does not, the judge stops.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from wikigate.config import JudgeSection, ModelInfo
from wikigate.models import Budget

from ..protocol import JudgeUsage

OUTPUT_PER_CLAIM = 200  # tokens a vote takes, for estimates


@dataclass(frozen=True)
class Caps:
    input_tokens: int
    output_tokens: int
    usd: float


def caps_for(cfg: JudgeSection, writer: Budget) -> Caps:
    m = cfg.budget_multiplier
    return Caps(
        input_tokens=int(writer.input_tokens * m)
        if writer.input_tokens is not None
        else cfg.max_input_tokens,
        output_tokens=int(writer.output_tokens * m)
        if writer.output_tokens is not None
        else cfg.max_output_tokens,
        usd=writer.usd * m if writer.usd is not None else cfg.max_usd,
    )


def estimate_tokens(text: str, chars_per_token: float) -> int:
    return math.ceil(len(text) / chars_per_token)


class Meter:
    """Usage so far, against the caps."""

    def __init__(self, caps: Caps, prices: ModelInfo) -> None:
        self.caps = caps
        self.prices = prices
        self.usage = JudgeUsage()

    def cost(self, input_tokens: int, cache_write: int, cache_read: int, output: int) -> float:
        p = self.prices
        return (
            input_tokens * p.input
            + cache_write * p.cache_write
            + cache_read * p.cache_read
            + output * p.output
        ) / 1e6

    def estimate_usd(self, input_tokens: int, output: int, cached_block: bool) -> float:
        """Dearest case: every input token at the higher of input and cache-write price."""
        rate = max(self.prices.input, self.prices.cache_write if cached_block else 0.0)
        return (input_tokens * rate + output * self.prices.output) / 1e6

    def refusal(self, input_tokens: int, output: int, usd: float) -> str | None:
        """Why a request of this estimated size may not be sent, or None."""
        u, c = self.usage, self.caps
        if u.prompt_tokens + input_tokens > c.input_tokens:
            return (
                f"the judge's input-token budget is exhausted ({u.prompt_tokens:,} spent, "
                f"the next request needs about {input_tokens:,}, the cap is {c.input_tokens:,})"
            )
        if u.output_tokens + output > c.output_tokens:
            return (
                f"the judge's output-token budget is exhausted ({u.output_tokens:,} spent "
                f"of {c.output_tokens:,})"
            )
        if u.usd + usd > c.usd:
            return (
                f"the judge's USD budget is exhausted (${u.usd:.4f} spent, the next request "
                f"may cost ${usd:.4f}, the cap is ${c.usd:.4f})"
            )
        return None

    def output_left(self) -> int:
        return max(0, self.caps.output_tokens - self.usage.output_tokens)

    def add(self, usage: dict[str, Any]) -> None:
        """Count one response's ``usage`` object."""
        fresh = int(usage.get("input_tokens") or 0)
        write = int(usage.get("cache_creation_input_tokens") or 0)
        read = int(usage.get("cache_read_input_tokens") or 0)
        out = int(usage.get("output_tokens") or 0)
        u = self.usage
        u.requests += 1
        u.input_tokens += fresh
        u.cache_write_tokens += write
        u.cache_read_tokens += read
        u.output_tokens += out
        u.usd += self.cost(fresh, write, read, out)
