"""The one module that imports the ``anthropic`` SDK (lazily, when the first request is
sent).  ``Transport.send`` posts one Messages request through the real client (its base
URL from ``ANTHROPIC_BASE_URL``, as the SDK reads it; its retries of 408/409/429/5xx with
``retry-after``, as the SDK does them) and returns the raw response text, or raises
``CallFailed`` saying why in words a user can act on.  The API key goes only to the
client; no message here ever carries it.
"""

from __future__ import annotations

from typing import Any

from wikigate.config import JudgeSection


class CallFailed(Exception):
    """A request got no usable response; ``fatal``: no later request can do better."""

    def __init__(self, reason: str, *, fatal: bool = False) -> None:
        super().__init__(reason)
        self.reason = reason
        self.fatal = fatal


class Transport:
    def __init__(self, api_key: str, cfg: JudgeSection) -> None:
        self._key = api_key
        self._cfg = cfg
        self._client: Any = None

    def _open(self) -> Any:
        if self._client is None:
            import anthropic

            self._client = anthropic.Anthropic(
                api_key=self._key,
                max_retries=self._cfg.max_retries,
                timeout=self._cfg.timeout_seconds,
            )
        return self._client

    def send(self, body: dict[str, Any]) -> str:
        """The response body (JSON text) of one Messages request."""
        import anthropic

        client = self._open()
        retries = self._cfg.max_retries
        try:
            raw = client.messages.with_raw_response.create(**body)
            return str(raw.http_response.text)
        except anthropic.APITimeoutError as e:
            raise CallFailed(
                f"the request timed out after {self._cfg.timeout_seconds:g} s "
                f"(and {retries} retries)"
            ) from e
        except anthropic.APIConnectionError as e:
            raise CallFailed(f"connection error: {_cause(e)} (after {retries} retries)") from e
        except anthropic.RateLimitError as e:
            raise CallFailed(f"rate limited (HTTP 429) past {retries} retries") from e
        except (anthropic.AuthenticationError, anthropic.PermissionDeniedError) as e:
            raise CallFailed(
                f"the API refused the key (HTTP {e.status_code}): check ANTHROPIC_API_KEY",
                fatal=True,
            ) from e
        except anthropic.APIStatusError as e:
            status = e.status_code
            if status < 500:
                raise CallFailed(f"request refused (HTTP {status}): {_short(e.message)}") from e
            kind = "overloaded" if status == 529 else "server error"
            raise CallFailed(
                f"{kind} (HTTP {status}) past {retries} retries: {_short(e.message)}"
            ) from e
        except anthropic.AnthropicError as e:
            raise CallFailed(f"{type(e).__name__}: {_short(str(e))}") from e


def _cause(e: Exception) -> str:
    cause = e.__cause__
    return f"{type(cause).__name__}" if cause is not None else type(e).__name__


def _short(text: str, width: int = 300) -> str:
    return text if len(text) <= width else text[: width - 1] + "…"
