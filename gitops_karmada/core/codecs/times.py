"""RFC 3339 times for the failover rules: parsed once, compared as aware datetimes, written in UTC.

The core has no clock: every rule takes ``now`` from its caller (the source or status commit's time).
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta


def parse_time(value: str) -> datetime:
    """An RFC 3339 timestamp (``Z`` or an offset) as an aware datetime; naive ones are taken as UTC."""
    moment = datetime.fromisoformat(value.replace("Z", "+00:00"))
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)


def format_time(moment: datetime) -> str:
    """``metav1.Time``'s form: UTC, whole seconds, ``Z``."""
    return moment.astimezone(UTC).replace(microsecond=0).strftime("%Y-%m-%dT%H:%M:%SZ")


def format_precise(moment: datetime) -> str:
    """UTC with ``Z``, keeping a fraction of a second when there is one (queue turns at rates above 1/s)."""
    text = moment.astimezone(UTC).isoformat().replace("+00:00", "Z")
    return text


def seconds(value: float) -> timedelta:
    return timedelta(seconds=value)
