"""Logging setup, done once by the entry point: loguru to stderr, as text or as JSON lines.

Every message a command prints on stderr (diagnostics, warnings, errors, summaries) goes through here, so
``--logging-format json`` makes stderr JSON from the first line to the last. JSON lines have Karmada's
structured-logging shape (v1.15 ``--logging-format=json``):
``{"ts": ..., "logger": ..., "level": "info", "msg": ..., <context fields such as clusterName>}``.
Text lines read like a CLI's: ``warning: <msg>``, ``error: <msg>``, bare ``<msg>`` for info (the daemon's
start with their time, ``use_timestamps``); colour only on
a terminal and never when ``NO_COLOR`` is set (https://no-color.org). Results (tables, ``-o json``, reports)
go to stdout through the CLI's output module, never through the logger.
"""

from __future__ import annotations

import os
import sys
from typing import TYPE_CHECKING, Any

import orjson
from loguru import logger

if TYPE_CHECKING:
    from loguru import Message

TEXT_FORMAT = "<level>{extra[_prefix]}</level>{message}{extra[_context]}"
TIMED_TEXT_FORMAT = "<dim>{time:YYYY-MM-DDTHH:mm:ss.SSSZ}</dim> " + TEXT_FORMAT
"""The daemon's text lines: each starts with its local time, RFC 3339 with milliseconds."""
TEXT_HIDDEN = frozenset({"logger", "file", "document", "field", "subject"})
"""Context shown in JSON only: a diagnostic's text already names its file, document and field."""
_STATE = {"format": "text", "level": "info"}


def _json_sink(message: Message) -> None:
    record = message.record
    extra = {k: v for k, v in record["extra"].items() if not k.startswith("_")}
    entry: dict[str, Any] = {
        "ts": record["time"].astimezone().isoformat(timespec="milliseconds"),
        "logger": extra.pop("logger", record["name"]),
        "level": record["level"].name.lower(),
        "msg": record["message"],
    }
    entry.update(extra)
    if record["exception"] is not None:
        entry["error"] = str(record["exception"].value)
    sys.stderr.write(orjson.dumps(entry, default=str).decode() + "\n")


def _one_line(record: Any) -> None:
    """A daemon's record stays on one line (git's stderr has newlines): a log reader splits on them."""
    _add_text_fields(record)
    record["message"] = " | ".join(line for line in record["message"].splitlines() if line.strip())


def _add_text_fields(record: Any) -> None:
    extra = record["extra"]
    context = {k: v for k, v in extra.items() if k not in TEXT_HIDDEN and not k.startswith("_")}
    extra["_context"] = (" " + " ".join(f"{k}={v}" for k, v in context.items())) if context else ""
    level = record["level"].name
    extra["_prefix"] = "" if level in ("INFO", "SUCCESS") else f"{level.lower()}: "


def colour_wanted(stream: Any) -> bool:
    """Colour for a terminal, unless ``NO_COLOR`` is set to anything but the empty string."""
    return not os.environ.get("NO_COLOR") and bool(getattr(stream, "isatty", lambda: False)())


def configure_logging(level: str, fmt: str, *, timestamps: bool = False) -> None:
    """Route loguru to stderr in ``fmt`` ("text" or "json") at ``level``; ``timestamps``: text lines start
    with the time (JSON lines always have ``ts``)."""
    logger.remove()
    _STATE["format"], _STATE["level"] = fmt, level
    logger.configure(patcher=_one_line if timestamps else _add_text_fields)
    if fmt == "json":
        logger.add(_json_sink, level=level.upper(), format="{message}")
    else:
        text = TIMED_TEXT_FORMAT if timestamps else TEXT_FORMAT
        logger.add(sys.stderr, level=level.upper(), format=text, colorize=colour_wanted(sys.stderr))


def use_timestamps() -> None:
    """From now on text lines start with the time: a long-lived process's lines (the ``watch`` daemon's)
    are read later, beside other logs. The short commands keep the plain lines of a CLI."""
    configure_logging(_STATE["level"], _STATE["format"], timestamps=True)


def logging_format() -> str:
    """The format the entry point chose ("text" until it has run)."""
    return _STATE["format"]
