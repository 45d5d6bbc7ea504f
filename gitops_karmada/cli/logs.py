"""Logging setup, done once by the entry point: loguru to stderr, as text or as JSON lines.

JSON lines have Karmada's structured-logging shape (v1.15 ``--logging-format=json``):
``{"ts": ..., "logger": ..., "level": "info", "msg": ..., <context fields such as clusterName>}``.
Results go to stdout through the CLI's output module, never through the logger.
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Any

import orjson
from loguru import logger

if TYPE_CHECKING:
    from loguru import Message

TEXT_FORMAT = "<level>{level: <7}</level> {message}{extra[_context]}"


def _json_sink(message: Message) -> None:
    record = message.record
    extra = dict(record["extra"])
    entry: dict[str, Any] = {
        "ts": record["time"].astimezone().isoformat(timespec="milliseconds"),
        "logger": extra.pop("logger", record["name"]),
        "level": record["level"].name.lower(),
        "msg": record["message"],
    }
    extra.pop("_context", None)
    entry.update(extra)
    if record["exception"] is not None:
        entry["error"] = str(record["exception"].value)
    sys.stderr.write(orjson.dumps(entry, default=str).decode() + "\n")


def _add_context(record: Any) -> None:
    context = {k: v for k, v in record["extra"].items() if k not in ("logger", "_context")}
    record["extra"]["_context"] = (" " + " ".join(f"{k}={v}" for k, v in context.items())) if context else ""


def configure_logging(level: str, fmt: str) -> None:
    """Route loguru to stderr in ``fmt`` ("text" or "json") at ``level``."""
    logger.remove()
    if fmt == "json":
        logger.add(_json_sink, level=level.upper(), format="{message}")
    else:
        logger.configure(patcher=_add_context)
        logger.add(sys.stderr, level=level.upper(), format=TEXT_FORMAT, colorize=None)
