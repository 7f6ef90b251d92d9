"""How the bot waits on GitHub: bounded retries for 5xx answers and rate limits.

PyGithub's ``GithubRetry`` (a urllib3 ``Retry``) retries 5xx answers, and 403s that are
rate limits (a ``Retry-After`` header, or a rate-limit message), sleeping what GitHub
asks.  On its own it would sleep as long as a ``Retry-After`` says; :class:`BoundedRetry`
adds one budget of waiting shared by every request of the command: a wait that would
overrun it is not taken, and the refusal reaches the caller as an error instead.
"""

from __future__ import annotations

from dataclasses import dataclass
from types import TracebackType
from typing import Any

from github import GithubRetry
from urllib3.exceptions import MaxRetryError
from urllib3.response import BaseHTTPResponse
from urllib3.util.retry import Retry

RETRIES = 3  # per request: 5xx answers, connection errors, rate limits
BACKOFF = 0.5  # seconds; urllib3 sleeps 0, 1, 2 s before the 1st, 2nd, 3rd retry
WAIT_BOUND = 60.0  # seconds of waiting in all, for the whole command
RETRIED_METHODS = frozenset({"GET", "HEAD", "POST", "PATCH", "PUT", "DELETE"})


@dataclass
class WaitBudget:
    """Seconds of retry waits the command may still spend."""

    limit: float = WAIT_BOUND
    spent: float = 0.0


class BoundedRetry(GithubRetry):
    """``GithubRetry`` whose waits, all requests together, stay within one budget."""

    def __init__(self, budget: WaitBudget | None = None, **kwargs: Any) -> None:
        self.budget = budget if budget is not None else WaitBudget()
        super().__init__(**kwargs)

    def new(self, **kw: Any) -> BoundedRetry:
        kw["budget"] = self.budget
        return super().new(**kw)

    def increment(  # type: ignore[override]
        self,
        method: str | None = None,
        url: str | None = None,
        response: BaseHTTPResponse | None = None,
        error: Exception | None = None,
        _pool: Any = None,
        _stacktrace: TracebackType | None = None,
    ) -> Retry:
        retry = super().increment(method, url, response, error, _pool, _stacktrace)  # type: ignore[arg-type]
        wait = retry.get_backoff_time()
        if response is not None and response.headers.get("Retry-After") is not None:
            wait = retry.get_retry_after(response) or wait
        if self.budget.spent + wait > self.budget.limit:
            # not waited: the last answer goes back to the caller (raise_on_status=False)
            raise MaxRetryError(_pool, url or "", None)
        self.budget.spent += wait
        return retry


def github_retry(budget: WaitBudget | None = None) -> BoundedRetry:
    """The retry policy of every request the bot makes."""
    return BoundedRetry(
        budget=budget,
        total=RETRIES,
        backoff_factor=BACKOFF,
        status_forcelist=[429, *range(500, 600)],  # GithubRetry adds 403 (rate limits)
        allowed_methods=RETRIED_METHODS,  # PATCHes here are idempotent: they set values
        raise_on_status=False,  # after the last retry, the answer itself: a clear error
        secondary_rate_wait=WAIT_BOUND,  # GitHub: wait a minute when it gives no Retry-After
        max_rate_limit_wait=WAIT_BOUND,
    )
