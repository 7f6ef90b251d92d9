"""Run ids: unique and time-sortable, safe as a git ref component."""

from __future__ import annotations

import secrets
from datetime import UTC, datetime


def now_iso() -> str:
    return datetime.now(UTC).isoformat(timespec="microseconds").replace("+00:00", "Z")


def parse_iso(value: str) -> datetime:
    return datetime.fromisoformat(value.replace("Z", "+00:00"))


def new_run_id() -> str:
    """``20261121-075312-123456-9f2c``: UTC time to the microsecond, then randomness."""
    stamp = datetime.now(UTC).strftime("%Y%m%d-%H%M%S-%f")
    return f"{stamp}-{secrets.token_hex(2)}"


def looks_like_run_id(value: str) -> bool:
    parts = value.split("-")
    return (
        len(parts) == 4
        and all(p.isalnum() for p in parts)
        and len(parts[0]) == 8
        and len(parts[1]) == 6
        and len(parts[2]) == 6
    )
